//! The spec's rule on `how`: "How the agent decides today, in prose. MUST NOT
//! be a placeholder."

use std::fmt;

/// Markers that stand in for text someone has yet to write. Compared without
/// regard to case, as a whole `how` or as its first word.
const MARKERS: &[&str] = &[
    "todo",
    "tbd",
    "tba",
    "tbc",
    "fixme",
    "xxx",
    "n/a",
    "placeholder",
    "lorem ipsum",
    "lorem",
    "wip",
    "coming soon",
];

/// Why a `how` is not acceptable prose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HowProblem {
    /// Nothing but white space.
    Empty,
    /// Nothing but punctuation, such as `...` or `?`.
    NoWords(String),
    /// A placeholder marker, alone or followed by more text (`TODO: write this`).
    Marker(String),
    /// A single bare word, which says nothing about how the agent decides.
    SingleWord(String),
    /// A copy of `teaches`: what is decided, not how.
    CopyOfTeaches,
}

impl fmt::Display for HowProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HowProblem::Empty => f.write_str("`how` is empty"),
            HowProblem::NoWords(text) => {
                write!(f, "`how` is the placeholder `{text}`, with no words")
            }
            HowProblem::Marker(marker) => write!(f, "`how` is a placeholder (`{marker}`)"),
            HowProblem::SingleWord(word) => write!(f, "`how` is the single word `{word}`"),
            HowProblem::CopyOfTeaches => f.write_str("`how` repeats `teaches`"),
        }
    }
}

impl HowProblem {
    /// What the author should write instead, as a sentence.
    pub fn fix(&self) -> &'static str {
        "the spec requires prose saying how the agent decides today, for example \
         \"A table keyed on the HS chapter; anything unmatched goes to the general desk\""
    }
}

/// Checks `how` against the spec's placeholder rule; `teaches` is the same
/// descriptor's `teaches`, which `how` must not merely repeat.
///
/// ```
/// use learnables_rules::{how_problem, HowProblem};
/// assert_eq!(how_problem("TODO: write this", "x"), Some(HowProblem::Marker("TODO".into())));
/// assert_eq!(how_problem("Rules.", "x"), Some(HowProblem::SingleWord("Rules.".into())));
/// assert_eq!(how_problem("A model ranks the desks", "x"), None);
/// ```
pub fn how_problem(how: &str, teaches: &str) -> Option<HowProblem> {
    let text = how.trim();
    if text.is_empty() {
        return Some(HowProblem::Empty);
    }
    if !text.chars().any(char::is_alphanumeric) {
        return Some(HowProblem::NoWords(text.to_owned()));
    }
    if let Some(marker) = leading_marker(text) {
        return Some(HowProblem::Marker(marker.to_owned()));
    }
    if !text.contains(char::is_whitespace) {
        return Some(HowProblem::SingleWord(text.to_owned()));
    }
    if normalized(text) == normalized(teaches) {
        return Some(HowProblem::CopyOfTeaches);
    }
    None
}

/// The marker `text` is or starts with, as written in `text`.
fn leading_marker(text: &str) -> Option<&str> {
    MARKERS.iter().find_map(|marker| {
        let head = text.get(..marker.len())?;
        let rest = &text[marker.len()..];
        let at_word_end = rest
            .chars()
            .next()
            .is_none_or(|next| !next.is_alphanumeric());
        (head.eq_ignore_ascii_case(marker) && at_word_end).then_some(head)
    })
}

/// Lower case, white space folded, trailing punctuation dropped: the form in
/// which two sentences that differ only in presentation compare equal.
fn normalized(text: &str) -> String {
    let folded = text.split_whitespace().collect::<Vec<_>>().join(" ");
    folded
        .trim_end_matches(|c: char| c.is_ascii_punctuation())
        .to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(how: &str) -> Option<HowProblem> {
        how_problem(how, "Which desk handles a declaration")
    }

    #[test]
    fn blank_is_empty() {
        assert_eq!(problem(""), Some(HowProblem::Empty));
        assert_eq!(problem(" \n\t"), Some(HowProblem::Empty));
    }

    #[test]
    fn punctuation_only_has_no_words() {
        for text in ["...", "?", "…", "- - -", "???"] {
            assert_eq!(
                problem(text),
                Some(HowProblem::NoWords(text.into())),
                "{text}"
            );
        }
    }

    #[test]
    fn markers_alone_or_leading_are_placeholders() {
        for (text, marker) in [
            ("TODO", "TODO"),
            ("todo", "todo"),
            ("TBD", "TBD"),
            ("TBA", "TBA"),
            ("FIXME later", "FIXME"),
            ("XXX", "XXX"),
            ("N/A", "N/A"),
            ("n/a", "n/a"),
            ("Placeholder text here", "Placeholder"),
            ("Lorem ipsum dolor sit amet", "Lorem ipsum"),
            ("TODO: write this", "TODO"),
            ("  TODO - describe the table", "TODO"),
        ] {
            assert_eq!(
                problem(text),
                Some(HowProblem::Marker(marker.into())),
                "{text}"
            );
        }
    }

    #[test]
    fn a_marker_inside_a_longer_word_is_not_a_marker() {
        assert_eq!(problem("Todoist tasks decide the desk"), None);
        assert_eq!(problem("Tbdata tables map chapters to desks"), None);
    }

    #[test]
    fn a_single_word_is_not_prose() {
        assert_eq!(
            problem("rules"),
            Some(HowProblem::SingleWord("rules".into()))
        );
        assert_eq!(
            problem(" Rules. "),
            Some(HowProblem::SingleWord("Rules.".into()))
        );
    }

    #[test]
    fn a_copy_of_teaches_is_refused_in_any_case_or_spacing() {
        assert_eq!(
            problem("which desk  handles a declaration."),
            Some(HowProblem::CopyOfTeaches)
        );
    }

    #[test]
    fn prose_passes() {
        assert_eq!(
            problem("A table keyed on the HS chapter; anything unmatched goes to the general desk"),
            None
        );
        assert_eq!(problem("Ask the model"), None);
    }

    #[test]
    fn non_ascii_input_never_panics() {
        for text in [
            "ü",
            "日本語の説明",
            "TOD\u{301}O",
            "t\u{200b}odo",
            "ﬁ",
            "\u{0}",
        ] {
            let _ = problem(text);
        }
    }
}
