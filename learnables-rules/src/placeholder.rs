//! The spec's rule on `how`: "How the agent decides today, in prose. MUST NOT
//! be a placeholder."

use std::fmt;

/// Markers that stand in for text someone has yet to write, and that no
/// prose begins with. Compared without regard to (ASCII) case, as a whole
/// `how` or as its first word (`TODO: write this`).
const LEADING_MARKERS: &[&str] = &[
    "todo",
    "tbd",
    "tba",
    "tbc",
    "fixme",
    "xxx",
    "n/a",
    "lorem ipsum",
    "lorem",
    "wip",
    // Chinese: to be decided, undecided, provisional, to be added, to be filled in.
    "待定",
    "未定",
    "暂定",
    "待补充",
    "待填写",
    "待完善",
    // Japanese: undecided, in preparation, being arranged, being considered.
    "未定義",
    "準備中",
    "調整中",
    "検討中",
    // Thai: none yet, pending, unknown, not yet decided.
    "ยังไม่มี",
    "รอดำเนินการ",
    "ไม่ทราบ",
    "ยังไม่ได้กำหนด",
];

/// Words that are a placeholder when they are the whole `how`, but may
/// begin prose ("Placeholder values are replaced by the desk's table").
const WHOLE_MARKERS: &[&str] = &["placeholder", "coming soon", "占位符", "仮"];

/// The "to do" and "to be decided" of English, French, German, Spanish,
/// Portuguese, Italian, Dutch, Chinese and Japanese, as a whole text,
/// compared in their [`squeezed`] form (so "To do", "to-do", "T O D O" and
/// "À faire!" all match).
const WHOLE_PHRASES: &[&str] = &[
    // English
    "to do",
    "to be decided",
    "to be determined",
    "to be defined",
    "to be done",
    "to be written",
    "to be added",
    "to be confirmed",
    "not yet decided",
    "fill in",
    "fill me in",
    "write here",
    "text here",
    "insert text here",
    // French
    "à faire",
    "a faire",
    "à définir",
    "à déterminer",
    "à compléter",
    "à venir",
    "à remplir",
    "en attente",
    // German
    "noch offen",
    "offen",
    "zu erledigen",
    "zu klären",
    "noch zu klären",
    "folgt",
    "wird ergänzt",
    "noch auszufüllen",
    // Spanish
    "por hacer",
    "pendiente",
    "por definir",
    "por determinar",
    "por completar",
    "a completar",
    // Portuguese
    "a fazer",
    "por fazer",
    "a definir",
    "pendente",
    "a preencher",
    "em breve",
    // Italian
    "da fare",
    "da definire",
    "da completare",
    "in sospeso",
    "prossimamente",
    // Dutch
    "nog te doen",
    "te doen",
    "nog te bepalen",
    "nader te bepalen",
    "nog in te vullen",
    "volgt nog",
    // Chinese: to do, to be written, to be confirmed.
    "待办",
    "待写",
    "待确认",
    // Japanese: to do, to be decided, to be written later, fill in.
    "やること",
    "未決定",
    "後で書く",
    "記入してください",
];

/// The first words of an instruction to whoever fills in a template
/// ("Describe how it decides here"): refused when the text also ends with
/// "here", or is a whole instruction in brackets (`<describe ...>`).
const INSTRUCTION_WORDS: &[&str] = &[
    "describe", "explain", "write", "insert", "enter", "add", "fill", "replace", "put", "type",
];

/// `text` lower-cased with everything but letters and digits left out:
/// the form in which "T O D O", "to-do" and "To do." are one word.
fn squeezed(text: &str) -> String {
    text.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// The placeholder `text` is, if it is one: a marker alone or leading
/// (`TODO: write this`), a whole marker, a "to do" phrase of one of the
/// languages [`WHOLE_PHRASES`] lists (its letters spaced out or not), or
/// template prose (`<describe how the agent decides>`, "Describe how it
/// decides here").
fn placeholder(text: &str) -> Option<String> {
    if let Some(marker) = leading_marker(text) {
        return Some(marker.to_owned());
    }
    let bare = text.trim_end_matches(|c: char| !c.is_alphanumeric());
    if WHOLE_MARKERS
        .iter()
        .any(|marker| bare.eq_ignore_ascii_case(marker))
    {
        return Some(bare.to_owned());
    }
    let squeezed_text = squeezed(text);
    let is_marker = |marker: &str| squeezed(marker) == squeezed_text;
    if WHOLE_PHRASES.iter().any(|phrase| is_marker(phrase))
        || LEADING_MARKERS.iter().any(|marker| is_marker(marker))
    {
        return Some(text.to_owned());
    }
    let bracketed = [('<', '>'), ('[', ']'), ('{', '}')]
        .iter()
        .any(|(open, close)| text.starts_with(*open) && text.ends_with(*close));
    let first = text
        .split(|c: char| !c.is_alphanumeric())
        .find(|word| !word.is_empty())
        .unwrap_or_default()
        .to_lowercase();
    let last = text
        .split(|c: char| !c.is_alphanumeric())
        .rfind(|word| !word.is_empty())
        .unwrap_or_default()
        .to_lowercase();
    if bracketed || (INSTRUCTION_WORDS.contains(&first.as_str()) && last == "here") {
        return Some(text.to_owned());
    }
    None
}

/// Checks `teaches` against the placeholder rule `how` follows (without
/// the rules on `how` alone: a single word, a copy of `teaches`).
///
/// ```
/// use learnables_rules::{teaches_problem, HowProblem};
/// assert_eq!(teaches_problem("TODO"), Some(HowProblem::Marker("TODO".into())));
/// assert_eq!(teaches_problem("Which desk handles a declaration"), None);
/// ```
pub fn teaches_problem(teaches: &str) -> Option<HowProblem> {
    let text = teaches.trim();
    if text.is_empty() {
        return Some(HowProblem::Empty);
    }
    if !text.chars().any(char::is_alphanumeric) {
        return Some(HowProblem::NoWords(text.to_owned()));
    }
    placeholder(text).map(HowProblem::Marker)
}

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
    if let Some(marker) = placeholder(text) {
        return Some(HowProblem::Marker(marker));
    }
    if crate::word_count(text) <= 1 {
        return Some(HowProblem::SingleWord(text.to_owned()));
    }
    if normalized(text) == normalized(teaches) {
        return Some(HowProblem::CopyOfTeaches);
    }
    None
}

/// The marker `text` is or starts with, as written in `text`: followed by
/// nothing or by a character that ends a word, or, for a marker in a script
/// written without spaces (where no space ends it), by at most one more word
/// (`検討中です`).
fn leading_marker(text: &str) -> Option<&str> {
    LEADING_MARKERS.iter().find_map(|marker| {
        let head = text.get(..marker.len())?;
        let rest = &text[marker.len()..];
        let at_word_end = rest
            .chars()
            .next()
            .is_none_or(|next| !next.is_alphanumeric());
        let unspaced = !marker.is_ascii() && crate::word_count(rest) <= 1;
        (head.eq_ignore_ascii_case(marker) && (at_word_end || unspaced)).then_some(head)
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
            ("Placeholder", "Placeholder"),
            ("placeholder.", "placeholder"),
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
    fn prose_that_begins_with_an_ordinary_marker_word_is_prose() {
        assert_eq!(
            problem("Placeholder values in the table are replaced by the desk lead"),
            None
        );
        assert_eq!(problem("Coming soon items wait for the general desk"), None);
    }

    #[test]
    fn prose_in_scripts_without_spaces_passes() {
        for text in [
            "按照商品的HS章节查表决定，表中没有的章节交给综合窗口处理",
            "HS番号の章ごとに表で担当窓口を決め、表にない章は一般窓口に回す",
            "ใช้ตารางตามบทของพิกัดศุลกากรเพื่อเลือกโต๊ะ สินค้าที่ไม่อยู่ในตารางส่งไปโต๊ะทั่วไป",
            "ใช้ตารางตามบทของพิกัดศุลกากรเพื่อเลือกโต๊ะ",
        ] {
            assert_eq!(problem(text), None, "{text}");
        }
    }

    #[test]
    fn placeholders_in_scripts_without_spaces_are_refused() {
        for (text, marker) in [
            ("待定", "待定"),
            ("待定。", "待定"),
            ("未定", "未定"),
            ("未定，稍后补充", "未定"),
            ("準備中", "準備中"),
            ("検討中です", "検討中"),
            ("ยังไม่มี", "ยังไม่มี"),
            ("รอดำเนินการ", "รอดำเนินการ"),
            ("TODO：写这个", "TODO"),
            ("占位符", "占位符"),
        ] {
            assert_eq!(
                problem(text),
                Some(HowProblem::Marker(marker.into())),
                "{text}"
            );
        }
        for text in ["查表", "人工", "ตาราง"] {
            assert_eq!(
                problem(text),
                Some(HowProblem::SingleWord(text.into())),
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
    fn to_do_in_the_languages_listed_is_refused_spaced_or_not() {
        for text in [
            "À faire",
            "Noch offen",
            "por hacer",
            "T O D O",
            "to do",
            "To-do.",
            "a fazer",
            "da fare",
            "nog te doen",
            "待办",
            "未決定",
            "to be decided",
        ] {
            assert!(
                matches!(problem(text), Some(HowProblem::Marker(_))),
                "{text:?}: {:?}",
                problem(text)
            );
        }
    }

    #[test]
    fn template_prose_is_refused() {
        for text in [
            "<describe how the agent decides>",
            "[how it decides]",
            "Describe how it decides here",
            "Write the rule here.",
        ] {
            assert!(
                matches!(problem(text), Some(HowProblem::Marker(_))),
                "{text:?}: {:?}",
                problem(text)
            );
        }
        // An instruction word that opens prose is prose.
        assert_eq!(
            problem("Describe each parcel's weight, then the table picks a desk"),
            None
        );
        assert_eq!(
            problem("What to do with batteries is decided by weight"),
            None
        );
    }

    #[test]
    fn teaches_follows_the_placeholder_rule() {
        assert!(teaches_problem("TODO").is_some());
        assert!(teaches_problem("à faire").is_some());
        assert!(teaches_problem("  ").is_some());
        assert_eq!(teaches_problem("Desks"), None);
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
