//! The teach form in the terminal: one question per lesson field, its
//! label above the input and its help under the label; a `choice` field is
//! a list to pick from with the arrow keys, any other kind (known or not)
//! a text input. The default is prefilled, and every field may be left
//! empty, which leaves it out of the lesson.
//!
//! [`question`] builds each question (pure, tested); [`ask`] puts it to the
//! person with `inquire`. The form is drawn on standard error.
//!
//! Labels, help, kinds and choices come from the agent's card: they are
//! shown escaped ([`crate::render::line`]); a picked choice is sent as the
//! card wrote it. A prefill (a default or a suggestion) is put in the input
//! escaped, so what the person sees in the input is what is sent.

use std::collections::BTreeMap;
use std::fmt;

use std::io::IsTerminal;

use inquire::ui::{RenderConfig, Styled};
use inquire::{Confirm, InquireError, Select, Text};
use learnables::{LessonField, Rendering};

use crate::error::CliError;
use crate::render::{labelled, line, paragraph};
use crate::style::Style;

/// The pick of a `choice` field that leaves it out of the lesson.
pub const LEAVE_EMPTY: &str = "(leave empty)";

/// One question of the form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Question {
    /// The lesson field's name.
    pub name: String,
    /// Its label, shown above the input.
    pub label: String,
    /// Its help, shown under the label.
    pub help: Option<String>,
    /// The input.
    pub input: Input,
}

/// How a question is answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// A line of text, starting with `initial` (empty for none).
    Text {
        /// The prefilled text.
        initial: String,
        /// The kind when it is not `text` (say `date`), for the prompt.
        kind: Option<String>,
    },
    /// A pick from `options`: [`LEAVE_EMPTY`] first, then the field's
    /// choices; the cursor starts on `start`.
    Choice {
        /// What the list offers.
        options: Vec<String>,
        /// What each option means, where the agent says (the field's
        /// `choiceDescriptions`), shown beside it.
        descriptions: Vec<Option<String>>,
        /// The option the cursor starts on.
        start: usize,
    },
}

/// The question for `field`, prefilled with `prefill` (the field's default,
/// or a teach block's suggestion). A prefill that is not one of a choice
/// field's choices starts the list on [`LEAVE_EMPTY`].
pub fn question(field: &LessonField, prefill: Option<&str>) -> Question {
    let input = match field.kind.rendering() {
        Rendering::Choice => {
            let mut options = vec![LEAVE_EMPTY.to_owned()];
            options.extend(field.choices.iter().flatten().cloned());
            let said = field.choice_descriptions.as_deref().unwrap_or_default();
            let descriptions = (0..options.len())
                .map(|at| {
                    at.checked_sub(1)
                        .and_then(|choice| said.get(choice).cloned().flatten())
                })
                .collect();
            let start = prefill
                .and_then(|prefill| options.iter().skip(1).position(|choice| choice == prefill))
                .map_or(0, |index| index + 1);
            Input::Choice {
                options,
                descriptions,
                start,
            }
        }
        Rendering::Text => Input::Text {
            initial: prefill.unwrap_or_default().to_owned(),
            kind: (field.kind.as_str() != "text").then(|| field.kind.to_string()),
        },
    };
    // A list, and the field's checks, said before the person answers.
    let list = field.list.then(|| {
        format!(
            "One or more: outside the form, give each with --set {}=VALUE.",
            field.name
        )
    });
    let said: Vec<String> = [
        field.help.clone(),
        list,
        learnables::field_check::in_words(field),
    ]
    .into_iter()
    .flatten()
    .collect();
    Question {
        name: field.name.clone(),
        label: field.label.clone(),
        help: (!said.is_empty()).then(|| said.join(" ")),
        input,
    }
}

/// The answer a question's pick stands for: `None` for an empty text or
/// [`LEAVE_EMPTY`].
pub fn answer_of(input: &Input, raw: &str) -> Option<String> {
    match input {
        Input::Choice { .. } if raw == LEAVE_EMPTY => None,
        Input::Choice { .. } => Some(raw.to_owned()),
        Input::Text { .. } => {
            let trimmed = raw.trim();
            (!trimmed.is_empty()).then(|| trimmed.to_owned())
        }
    }
}

/// Whether a form can be shown: standard input and standard error (where
/// it is drawn) are terminals.
pub fn terminal_available() -> bool {
    std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
}

fn render_config() -> RenderConfig<'static> {
    // Drawn on standard error.
    let config = if Style::for_stderr().is_colored() {
        RenderConfig::default_colored()
    } else {
        RenderConfig::empty()
    };
    config
        .with_prompt_prefix(Styled::new(">"))
        .with_answered_prompt_prefix(Styled::new(">"))
}

fn inquire_error(error: InquireError) -> CliError {
    match error {
        InquireError::OperationCanceled | InquireError::OperationInterrupted => CliError::Cancelled,
        InquireError::NotTTY => CliError::usage("the form needs a terminal"),
        // The terminal's input ended: the person is gone, as with Esc.
        InquireError::IO(error) if error.kind() == std::io::ErrorKind::UnexpectedEof => {
            CliError::Cancelled
        }
        other => CliError::usage(format!("the form failed: {other}")),
    }
}

/// One option of a list: shown escaped, picked as it is.
#[derive(Debug, Clone)]
struct Pick {
    raw: String,
    shown: String,
}

impl Pick {
    fn list(options: &[String]) -> Vec<Pick> {
        Pick::described(options, &[])
    }

    /// The options, each shown with its description when it has one
    /// ("cold chain: Goods that must stay cold."), picked as it is.
    fn described(options: &[String], descriptions: &[Option<String>]) -> Vec<Pick> {
        options
            .iter()
            .enumerate()
            .map(|(at, raw)| Pick {
                raw: raw.clone(),
                shown: match descriptions.get(at).cloned().flatten() {
                    Some(description) => format!("{}: {}", line(raw), line(&description)),
                    None => line(raw),
                },
            })
            .collect()
    }
}

impl fmt::Display for Pick {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.shown)
    }
}

fn heading(label: &str, help: Option<&str>, style: Style) {
    eprintln!("\n{}", style.bold(&line(label)));
    for help_line in help.map(paragraph).iter().flat_map(|help| help.lines()) {
        eprintln!("  {}", style.dim(help_line));
    }
}

/// Puts one question: the label, the help, then the input. `None` when
/// the person leaves it empty.
pub fn ask(question: &Question) -> Result<Option<String>, CliError> {
    let style = Style::for_stderr();
    heading(&question.label, question.help.as_deref(), style);
    let raw = match &question.input {
        Input::Text { initial, kind } => {
            let hint = match kind {
                Some(kind) => format!(
                    "{}, typed as text; enter to accept, empty to leave out",
                    line(kind)
                ),
                None => "enter to accept, empty to leave out".to_owned(),
            };
            Text::new("")
                .with_initial_value(&line(initial))
                .with_help_message(&hint)
                .with_render_config(render_config())
                .prompt()
        }
        Input::Choice {
            options,
            descriptions,
            start,
        } => Select::new("", Pick::described(options, descriptions))
            .with_starting_cursor(*start)
            .with_help_message("↑↓ to move, enter to pick, type to filter")
            .with_render_config(render_config())
            .prompt()
            .map(|pick| pick.raw),
    }
    .map_err(inquire_error)?;
    Ok(answer_of(&question.input, &raw))
}

/// Asks the person which of `entries` to teach.
pub fn pick_entry(entry_noun: &str, entries: &[String]) -> Result<String, CliError> {
    heading(
        &format!("Which {}?", line(entry_noun)),
        Some("The question is about several; pick the one to teach."),
        Style::for_stderr(),
    );
    Select::new("", Pick::list(entries))
        .with_help_message("↑↓ to move, enter to pick")
        .with_render_config(render_config())
        .prompt()
        .map(|pick| pick.raw)
        .map_err(inquire_error)
}

/// Shows the lesson about to be sent, field by field by label, and asks
/// whether to send it (yes unless the person says no).
pub fn confirm_review(
    fields: &[LessonField],
    values: &BTreeMap<String, Option<String>>,
    reason: Option<&str>,
) -> Result<bool, CliError> {
    let style = Style::for_stderr();
    eprintln!("{}", style.bold("The lesson"));
    for field in fields {
        let value = values.get(&field.name).cloned().flatten();
        let shown = value
            .as_deref()
            .map_or_else(|| "(left out)".to_owned(), line);
        eprintln!("  {}: {}", line(&field.label), shown);
    }
    if let Some(reason) = reason {
        eprintln!("  Reason: {}", line(reason));
    }
    Confirm::new("Send this lesson?")
        .with_default(true)
        .with_help_message("enter to send, n to go back without sending")
        .with_render_config(render_config())
        .prompt()
        .map_err(inquire_error)
}

/// Says, before asking again, why the agent refused a field's value,
/// naming the field once, by its label.
pub fn show_refusal(label: &str, description: &str) {
    let style = Style::for_stderr();
    eprintln!(
        "{} {}",
        style.yellow("The agent refused:"),
        line(&labelled(label, description))
    );
}

/// Asks why, optionally.
pub fn ask_reason() -> Result<Option<String>, CliError> {
    ask(&Question {
        name: "reason".into(),
        label: "Reason".into(),
        help: Some("Why, in your words (optional); the agent keeps it with the lesson.".into()),
        input: Input::Text {
            initial: String::new(),
            kind: None,
        },
    })
}

#[cfg(test)]
mod tests {
    use learnables::FieldKind;

    use super::*;

    fn desk() -> LessonField {
        LessonField::new("desk", "Desk", FieldKind::CHOICE)
            .with_choices(["general", "dangerous-goods", "cold chain"])
            .with_default("general")
    }

    #[test]
    fn a_choice_field_is_a_list_starting_on_its_prefill() {
        let question = question(&desk(), Some("cold chain"));
        assert_eq!(
            question.input,
            Input::Choice {
                options: vec![
                    LEAVE_EMPTY.into(),
                    "general".into(),
                    "dangerous-goods".into(),
                    "cold chain".into()
                ],
                descriptions: vec![None; 4],
                start: 3
            }
        );
        let Input::Choice { start, .. } = super::question(&desk(), None).input else {
            panic!()
        };
        assert_eq!(start, 0);
        let Input::Choice { start, .. } = super::question(&desk(), Some("urgent")).input else {
            panic!()
        };
        assert_eq!(start, 0);
    }

    #[test]
    fn an_unknown_kind_is_a_text_input_that_says_its_kind() {
        let field =
            LessonField::new("when", "Review date", FieldKind::new("date")).with_help("YYYY-MM-DD");
        let question = question(&field, Some("2027-01-01"));
        assert_eq!(
            question.input,
            Input::Text {
                initial: "2027-01-01".into(),
                kind: Some("date".into())
            }
        );
        assert_eq!(question.help.as_deref(), Some("YYYY-MM-DD"));
        let text = LessonField::new("note", "Note", FieldKind::TEXT);
        assert_eq!(
            super::question(&text, None).input,
            Input::Text {
                initial: String::new(),
                kind: None
            }
        );
    }

    #[test]
    fn a_fields_checks_and_list_are_said_in_its_help() {
        let mut limit =
            LessonField::new("amountEur", "Limit in euros", learnables::FieldKind::TEXT);
        limit.minimum = Some(learnables::FieldBound::Number(100.into()));
        limit.maximum = Some(learnables::FieldBound::Number(1_000_000.into()));
        assert_eq!(
            question(&limit, None).help.as_deref(),
            Some("At least 100, at most 1,000,000.")
        );
        let mut desks = desk();
        desks.list = true;
        assert_eq!(
            question(&desks, None).help.as_deref(),
            Some("One or more: outside the form, give each with --set desk=VALUE.")
        );
    }

    #[test]
    fn empty_answers_leave_the_field_out() {
        let text = Input::Text {
            initial: String::new(),
            kind: None,
        };
        assert_eq!(answer_of(&text, "  "), None);
        assert_eq!(answer_of(&text, " 85 "), Some("85".into()));
        let choice = question(&desk(), None).input;
        assert_eq!(answer_of(&choice, LEAVE_EMPTY), None);
        assert_eq!(answer_of(&choice, "general"), Some("general".into()));
    }
}
