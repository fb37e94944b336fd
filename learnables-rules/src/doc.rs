//! Doc comments as the derive and the runtime read them: like rustdoc, with
//! the first paragraph as a lesson field's label and the rest as its help.

/// A doc comment split into a label (its first paragraph, on one line) and
/// help (the rest, inner newlines kept).
///
/// ```
/// use learnables_rules::DocText;
/// let doc = DocText::from_lines([" HS chapter", "", " Two-digit chapter", " of the HS."]);
/// assert_eq!(doc.label, "HS chapter");
/// assert_eq!(doc.help.as_deref(), Some("Two-digit chapter\nof the HS."));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DocText {
    /// The first paragraph, its lines joined with single spaces; empty when
    /// the doc comment is.
    pub label: String,
    /// Everything after the first paragraph, blank lines at both ends trimmed.
    pub help: Option<String>,
}

impl DocText {
    /// Reads the values of a field's `#[doc = "..."]` attributes in order.
    pub fn from_lines<I, S>(attrs: I) -> DocText
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let text = unindent_doc(attrs);
        let mut lines = text.lines();
        let label = lines
            .by_ref()
            .take_while(|line| !line.trim().is_empty())
            .map(str::trim)
            .collect::<Vec<_>>()
            .join(" ");
        let rest = lines.collect::<Vec<_>>().join("\n");
        let help = trim_blank_lines(&rest);
        DocText {
            label,
            help: (!help.is_empty()).then(|| help.to_owned()),
        }
    }

    /// Reads a whole doc text (for example one `include_str!`'d file).
    pub fn from_text(text: &str) -> DocText {
        DocText::from_lines(text.lines())
    }
}

/// Joins doc attribute values into one text the way rustdoc does: each value
/// may hold several lines (block comments), the indentation common to all
/// non-blank lines is removed, and blank lines at both ends are trimmed.
///
/// ```
/// use learnables_rules::unindent_doc;
/// assert_eq!(unindent_doc([" Line one", "   indented"]), "Line one\n  indented");
/// ```
pub fn unindent_doc<I, S>(attrs: I) -> String
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let joined = attrs
        .into_iter()
        .map(|attr| without_stars(attr.as_ref()))
        .collect::<Vec<_>>()
        .join("\n");
    let indent = joined
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| line.len() - line.trim_start().len())
        .min()
        .unwrap_or(0);
    let unindented = joined
        .lines()
        .map(|line| {
            let cut = line.len() - line.trim_start().len();
            line[cut.min(indent)..].trim_end()
        })
        .collect::<Vec<_>>()
        .join("\n");
    trim_blank_lines(&unindented).to_owned()
}

/// A block comment's text without the ` * ` that starts each of its lines,
/// when every non-blank line has one (as rustdoc reads `/** ... */`).
fn without_stars(piece: &str) -> String {
    let starred = piece.contains('\n')
        && piece
            .lines()
            .filter(|line| !line.trim().is_empty())
            .all(|line| line.trim_start().starts_with('*'));
    if !starred {
        return piece.to_owned();
    }
    piece
        .lines()
        .map(|line| match line.trim_start().strip_prefix('*') {
            Some(rest) => rest,
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn trim_blank_lines(text: &str) -> &str {
    let start = text
        .lines()
        .take_while(|line| line.trim().is_empty())
        .map(|line| line.len() + 1)
        .sum::<usize>()
        .min(text.len());
    let body = &text[start..];
    let end = body.trim_end().len();
    &body[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_is_the_label() {
        let doc = DocText::from_lines([" HS chapter"]);
        assert_eq!(doc.label, "HS chapter");
        assert_eq!(doc.help, None);
    }

    #[test]
    fn a_wrapped_first_paragraph_becomes_one_line() {
        let doc = DocText::from_lines([" Note for", " the broker", "", " Free text."]);
        assert_eq!(doc.label, "Note for the broker");
        assert_eq!(doc.help.as_deref(), Some("Free text."));
    }

    #[test]
    fn help_keeps_inner_newlines_and_indentation() {
        let doc = DocText::from_lines([
            "",
            " Desk",
            "",
            " Which desk:",
            "   - general",
            "",
            " More.",
            "",
        ]);
        assert_eq!(doc.label, "Desk");
        assert_eq!(
            doc.help.as_deref(),
            Some("Which desk:\n  - general\n\nMore.")
        );
    }

    #[test]
    fn block_comments_are_unindented() {
        let doc = DocText::from_lines(["\n    Chapter\n\n    Two digits.\n    "]);
        assert_eq!(doc.label, "Chapter");
        assert_eq!(doc.help.as_deref(), Some("Two digits."));
    }

    #[test]
    fn starred_block_comments_lose_their_stars() {
        let doc = DocText::from_lines([
            "\n     * Priority\n     *\n     * How soon.\n     *   - now\n     ",
        ]);
        assert_eq!(doc.label, "Priority");
        assert_eq!(doc.help.as_deref(), Some("How soon.\n  - now"));
    }

    #[test]
    fn nothing_gives_an_empty_label() {
        assert_eq!(
            DocText::from_lines(Vec::<String>::new()),
            DocText::default()
        );
        assert_eq!(DocText::from_lines(["   ", ""]).label, "");
    }

    #[test]
    fn whole_text_from_a_file() {
        let doc = DocText::from_text("Label\n\nHelp line\n");
        assert_eq!(doc.label, "Label");
        assert_eq!(doc.help.as_deref(), Some("Help line"));
    }
}
