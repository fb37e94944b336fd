//! Colour, only where it helps: on a terminal, and never when `NO_COLOR`
//! is set (<https://no-color.org>) or the terminal is `dumb`.

use std::io::IsTerminal;

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

    /// Styling on.
    pub const fn colored() -> Style {
        Style { color: true }
    }

    /// Whether styling is on.
    pub fn is_colored(self) -> bool {
        self.color
    }

    /// Styling for standard output: on only when it is a terminal and the
    /// environment allows colour.
    pub fn for_stdout() -> Style {
        Style {
            color: std::io::stdout().is_terminal() && color_allowed(),
        }
    }

    /// Styling for standard error, by the same rules.
    pub fn for_stderr() -> Style {
        Style {
            color: std::io::stderr().is_terminal() && color_allowed(),
        }
    }

    fn paint(self, code: &str, text: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }

    /// Bold: headings and labels.
    pub fn bold(self, text: &str) -> String {
        self.paint("1", text)
    }

    /// Dim: help and secondary detail.
    pub fn dim(self, text: &str) -> String {
        self.paint("2", text)
    }

    /// Green: success.
    pub fn green(self, text: &str) -> String {
        self.paint("32", text)
    }

    /// Yellow: warnings and "nothing new".
    pub fn yellow(self, text: &str) -> String {
        self.paint("33", text)
    }

    /// Red: errors and violations.
    pub fn red(self, text: &str) -> String {
        self.paint("31", text)
    }
}

/// Whether the environment allows colour at all: `NO_COLOR` unset or
/// empty, and `TERM` not `dumb`.
pub fn color_allowed() -> bool {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|value| !value.is_empty());
    let dumb = std::env::var_os("TERM").is_some_and(|term| term == "dumb");
    !no_color && !dumb
}

#[cfg(test)]
mod tests {
    use super::Style;

    #[test]
    fn plain_text_is_left_alone_and_colour_is_reset() {
        assert_eq!(Style::plain().bold("x"), "x");
        assert_eq!(Style::colored().red("x"), "\x1b[31mx\x1b[0m");
    }
}
