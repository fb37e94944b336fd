//! Colour, only where it helps: on a terminal, and never when `NO_COLOR`
//! is set (<https://no-color.org>) or `TERM` is `dumb` or unset. The
//! choice is anstream's, as for clap's own help (it also reads `CLICOLOR`
//! and `CLICOLOR_FORCE`), the sequences anstyle's.

use anstream::{AutoStream, ColorChoice};
use anstyle::{AnsiColor, Effects};

use learnables::untrusted::Untrusted;

/// Whether text written to one stream is styled. Renderers take a `Style`
/// so that they stay pure: tests pass [`Style::plain`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Style {
    color: bool,
}

impl Style {
    /// No styling at all.
    pub const fn plain() -> Style {
        Style { color: false }
    }

    /// Styling on, whatever the terminal: for the tests of what it draws.
    #[cfg(test)]
    pub const fn colored() -> Style {
        Style { color: true }
    }

    /// Styling for standard output: on only when it is a terminal and the
    /// environment allows colour.
    pub fn for_stdout() -> Style {
        Style {
            color: AutoStream::choice(&std::io::stdout()) != ColorChoice::Never,
        }
    }

    /// Styling for standard error, by the same rules.
    pub fn for_stderr() -> Style {
        Style {
            color: AutoStream::choice(&std::io::stderr()) != ColorChoice::Never,
        }
    }

    /// Whether text is styled at all.
    pub fn is_colored(self) -> bool {
        self.color
    }

    fn paint(self, style: anstyle::Style, text: &str) -> String {
        if self.color {
            format!("{}{text}{}", style.render(), style.render_reset())
        } else {
            text.to_owned()
        }
    }

    /// Bold: headings and labels.
    pub fn bold(self, text: &str) -> String {
        self.paint(Effects::BOLD.into(), text)
    }

    /// Dim: help and secondary detail.
    pub fn dim(self, text: &str) -> String {
        self.paint(Effects::DIMMED.into(), text)
    }

    /// Green: success.
    pub fn green(self, text: &str) -> String {
        self.paint(AnsiColor::Green.on_default(), text)
    }

    /// Yellow: warnings and "nothing new".
    pub fn yellow(self, text: &str) -> String {
        self.paint(AnsiColor::Yellow.on_default(), text)
    }

    /// Red: errors and violations.
    pub fn red(self, text: &str) -> String {
        self.paint(AnsiColor::Red.on_default(), text)
    }
}

/// A report as it may reach the screen: the SGR sequences the [`Style`]
/// methods write (`ESC [ digits ; m`) and line feeds kept, any other
/// control, bidi or invisible character escaped. The renderers escape
/// what they show already; this is the last line of defence for a report
/// as a whole, and leaves an already escaped report as it is.
pub fn scrub(report: &str) -> String {
    let mut out = String::with_capacity(report.len());
    let mut rest = report;
    while let Some(at) = rest.find('\x1b') {
        let (before, from) = rest.split_at(at);
        out.push_str(&paragraph_of(before));
        let sgr = from
            .strip_prefix("\x1b[")
            .and_then(|params| {
                let end = params.find(|c: char| !c.is_ascii_digit() && c != ';')?;
                params[end..].starts_with('m').then_some(end + 3)
            })
            .unwrap_or(0);
        if sgr > 0 {
            out.push_str(&from[..sgr]);
            rest = &from[sgr..];
        } else {
            out.push_str(&paragraph_of("\x1b"));
            rest = &from[1..];
        }
    }
    out.push_str(&paragraph_of(rest));
    out
}

fn paragraph_of(text: &str) -> String {
    Untrusted::new(text)
        .multi_line()
        .max_chars(usize::MAX)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::Style;

    #[test]
    fn a_scrubbed_report_keeps_its_colour_and_nothing_else() {
        let report = format!(
            "{}\nx\x1b]0;t\x07\x1b[2J\u{9b}1m",
            Style::colored().red("a")
        );
        assert_eq!(
            super::scrub(&report),
            "\x1b[31ma\x1b[0m\nx\\u{1b}]0;t\\u{7}\\u{1b}[2J\\u{9b}1m"
        );
        assert_eq!(super::scrub("\\u{1b} ok\n"), "\\u{1b} ok\n");
    }

    #[test]
    fn plain_text_is_left_alone_and_colour_is_reset() {
        assert_eq!(Style::plain().bold("x"), "x");
        assert_eq!(Style::colored().red("x"), "\x1b[31mx\x1b[0m");
    }

    #[test]
    fn scrub_keeps_our_styles_and_escapes_the_rest() {
        use crate::style::{Style, scrub};
        let report = format!("{} \x1b]0;title\x07\n", Style::colored().bold("Desk"));
        assert_eq!(scrub(&report), "\x1b[1mDesk\x1b[0m \\u{1b}]0;title\\u{7}\n");
    }
}
