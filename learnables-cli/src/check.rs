//! `learnables check FILE`: lints an agent card with the library's own
//! rules ([`CardDeclaration::read`]), the very rules an agent built with
//! `learnables` is held to.

use std::path::Path;

use learnables::a2a::CardDeclaration;
use learnables::{DeclarationParams, EXTENSION_URI, Violations};
use serde_json::{Value, json};

use crate::client::{MAX_CARD_BYTES, read_file_bounded};
use crate::error::CliError;
use crate::hidden_text::hidden_characters;
use crate::outcome::Outcome;
use crate::render::{count, line, violation_lines};
use crate::style::Style;

/// What linting a card found.
#[derive(Debug, Clone, PartialEq)]
pub enum Lint {
    /// A declaration that follows the spec.
    Clean(CardDeclaration),
    /// A declaration that breaks it, with its params when they can still
    /// be read (for showing them anyway).
    Broken {
        /// Every violation, each with its path.
        violations: Violations,
        /// The params, read without the rules, if their shape allows.
        params: Option<DeclarationParams>,
    },
    /// The card declares no Learnables.
    Undeclared,
}

/// Lints an agent card: the library's rules, and no text of the
/// declaration holding a character that does not show as itself
/// ([`hidden_characters`]).
pub fn lint_card(card: &Value) -> Lint {
    match CardDeclaration::read(card) {
        Ok(Some(declaration)) => match hidden_characters(&declaration.params) {
            Ok(()) => Lint::Clean(declaration),
            Err(violations) => Lint::Broken {
                violations,
                params: Some(declaration.params),
            },
        },
        Ok(None) => Lint::Undeclared,
        Err(violations) => {
            let params = declared_params(card);
            let hidden = params.as_ref().map(hidden_characters);
            let violations = match hidden {
                Some(Err(hidden)) => both(&violations, &hidden),
                _ => violations,
            };
            Lint::Broken { violations, params }
        }
    }
}

/// The violations of `first`, then those of `second`.
fn both(first: &Violations, second: &Violations) -> Violations {
    let all = Violations::collect(|report| {
        for violation in first.iter().chain(second) {
            report.at(&violation.path, violation.message.clone());
        }
    });
    // Not empty: `first` has one at least.
    all.err().unwrap_or_else(|| first.clone())
}

/// The Learnables params a card declares, read as the spec's shape but
/// without checking its rules: for showing a declaration that breaks them.
pub fn declared_params(card: &Value) -> Option<DeclarationParams> {
    let entry = card
        .get("capabilities")?
        .get("extensions")?
        .as_array()?
        .iter()
        .find(|extension| extension.get("uri").and_then(Value::as_str) == Some(EXTENSION_URI))?;
    serde_json::from_value(entry.get("params")?.clone()).ok()
}

/// The violations as data: `[{"path", "message"}]`, as the lint wrote
/// them (not escaped).
pub fn violations_json(violations: &Violations) -> Value {
    Value::Array(
        violations
            .iter()
            .map(|violation| json!({"path": violation.path, "message": violation.message}))
            .collect(),
    )
}

/// The params of a card that must declare Learnables, for the commands
/// that go on to teach or to show, and a warning to give if it breaks the
/// spec: a broken declaration is still used when its shape can be read,
/// unless the lint faults its `teachMethod` (an A2A core method, say):
/// then nothing is sent through it.
pub fn params_for_teaching(
    card: &Value,
    url: &str,
) -> Result<(DeclarationParams, Option<String>), CliError> {
    let url = line(url);
    match lint_card(card) {
        Lint::Clean(declaration) => Ok((declaration.params, None)),
        Lint::Undeclared => Err(undeclared(&url)),
        Lint::Broken { violations, .. }
            if violations
                .iter()
                .any(|violation| at_teach_method(&violation.path)) =>
        {
            Err(CliError::lint(format!(
                "the agent's card declares a teachMethod the Learnables spec refuses, so \
                 learnables sends nothing through it:\n{}",
                violation_lines(&violations, "  ", Style::plain()).trim_end()
            )))
        }
        Lint::Broken { violations, params } => {
            let warning = format!(
                "the agent's card breaks the Learnables spec ({}); `learnables card {url}` \
                 shows them",
                count(violations.len(), "violation")
            );
            let params = params.ok_or_else(|| {
                CliError::lint(format!(
                    "the agent's Learnables declaration cannot be read:\n{}",
                    violation_lines(&violations, "  ", Style::plain()).trim_end()
                ))
            })?;
            Ok((params, Some(warning)))
        }
    }
}

/// [`params_for_teaching`] for a form another program shows (an MCP
/// host): refused besides when a text of the declaration holds a character
/// that does not show as itself, since a form's choices reach the host
/// exactly as the agent wrote them and no escape can make them safe (a
/// terminal shows every text escaped, so the commands that draw their own
/// forms go on).
pub fn params_for_forms(
    card: &Value,
    url: &str,
) -> Result<(DeclarationParams, Option<String>), CliError> {
    let (params, warning) = params_for_teaching(card, url)?;
    hidden_characters(&params).map_err(|hidden| hidden_text_refusal(&hidden))?;
    Ok((params, warning))
}

/// The refusal of an agent's texts that hold a character that does not
/// show as itself (`violations` says which).
pub fn hidden_text_refusal(violations: &Violations) -> CliError {
    CliError::lint(format!(
        "the agent's card holds characters that do not show as themselves (control, \
         direction-changing or invisible characters), so learnables puts none of it in a form \
         and teaches nothing through it:\n{}",
        violation_lines(violations, "  ", Style::plain()).trim_end()
    ))
}

/// Whether a violation's path is the declaration's `teachMethod` (or
/// below it), written from the params (`teachMethod`) or from the
/// extension entry (`params.teachMethod`).
pub fn at_teach_method(path: &str) -> bool {
    let path = path.strip_prefix("params.").unwrap_or(path);
    path.strip_prefix("teachMethod")
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
}

/// The error of a card without a Learnables declaration.
pub fn undeclared(what: &str) -> CliError {
    CliError::lint(format!(
        "{what} declares no Learnables: no entry of capabilities.extensions has the uri \
         {EXTENSION_URI}"
    ))
}

/// Runs `check` on a file (`-` for standard input), of at most
/// [`MAX_CARD_BYTES`].
pub fn run(file: &Path) -> Result<Outcome, CliError> {
    let raw_name = file.display().to_string();
    let name = line(&raw_name);
    let text = read_file_bounded(file, MAX_CARD_BYTES)?;
    let card: Value = serde_json::from_slice(&text).map_err(|error| {
        CliError::usage(format!("{name} is not JSON: {}", line(&error.to_string())))
    })?;
    check_card(&card, &raw_name, Style::for_stdout())
}

/// Lints a card read from `file`: `ok` and exit 0, or each violation on
/// standard output and a lint failure. In JSON: `{"file", "ok",
/// "learnables" (how many, when clean), "violations": [{"path",
/// "message"}]}`.
pub fn check_card(card: &Value, file: &str, style: Style) -> Result<Outcome, CliError> {
    let name = line(file);
    match lint_card(card) {
        Lint::Clean(declaration) => {
            let learnables = declaration.params.learnables.len();
            Ok(Outcome::ok(
                format!(
                    "{}: {name} declares {} and follows the Learnables spec\n",
                    style.green("ok"),
                    count(learnables, "learnable")
                ),
                json!({"file": file, "ok": true, "learnables": learnables, "violations": []}),
            ))
        }
        Lint::Undeclared => Err(undeclared(&name)),
        Lint::Broken { violations, .. } => Ok(Outcome {
            stdout: violation_lines(&violations, "", style),
            json: json!({
                "file": file,
                "ok": false,
                "learnables": null,
                "violations": violations_json(&violations),
            }),
            failure: Some(CliError::lint(format!(
                "{name} breaks the Learnables spec: {}",
                count(violations.len(), "violation")
            ))),
        }),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn card(how: &str) -> Value {
        json!({"capabilities": {"extensions": [
            {"uri": "https://example.com/other"},
            {"uri": EXTENSION_URI, "params": {"learnables": [
                {"collection": "c", "entry": "e", "teaches": "What the thing is", "how": how,
                 "decidedBy": "rules",
                 "lessonFields": [{"name": "a", "label": "", "kind": "choice"}]}]}}]}})
    }

    #[test]
    fn violations_are_listed_by_path_and_fail() {
        let outcome = check_card(&card("TBD"), "card.json", Style::plain()).unwrap();
        assert_eq!(
            outcome.stdout,
            "learnables[0].how: `how` is a placeholder (`TBD`)\n\
             learnables[0].lessonFields[0].label: the label is empty; it needs at least one \
             character\n\
             learnables[0].lessonFields[0].choices: a `choice` field must list its choices\n"
        );
        let failure = outcome.failure.unwrap();
        assert_eq!(
            failure.to_string(),
            "card.json breaks the Learnables spec: 3 violations"
        );
        assert_eq!(failure.kind().exit_code(), 1);
        assert_eq!(outcome.json["ok"], false);
        assert_eq!(
            outcome.json["violations"][0],
            json!({"path": "learnables[0].how", "message": "`how` is a placeholder (`TBD`)"})
        );
    }

    /// A card that follows the spec but for a choice that hides characters.
    fn card_with_a_hostile_choice() -> Value {
        json!({"capabilities": {"extensions": [{"uri": EXTENSION_URI, "params": {
            "teachMethod": "rsaxb.learnables.Teach",
            "learnables": [{"collection": "c", "entry": "e", "teaches": "What the thing is",
                "how": "A table kept by the team", "decidedBy": "rules",
                "lessonFields": [{"name": "a", "label": "A", "kind": "choice",
                    "choices": ["general", "x\u{1b}]0;PWNED\u{7}\u{202e}"]}]}]}}]}})
    }

    #[test]
    fn a_choice_that_hides_characters_fails_the_lint_and_never_reaches_a_form() {
        let outcome =
            check_card(&card_with_a_hostile_choice(), "card.json", Style::plain()).unwrap();
        assert_eq!(
            outcome.stdout,
            "learnables[0].lessonFields[0].choices[1]: the choice `x\\u{1b}]0;PWNED\\u{7}\\u{202e}` \
             holds the character \\u{1b} (U+001B), which does not show as itself (a control, \
             direction-changing or invisible character): the same choice would read differently \
             to different people; write it without that character\n"
        );
        assert_eq!(outcome.failure.unwrap().kind().exit_code(), 1);
        let refused = params_for_forms(&card_with_a_hostile_choice(), "http://a/").unwrap_err();
        assert!(
            refused
                .to_string()
                .contains("characters that do not show as themselves"),
            "{refused}"
        );
        assert!(!refused.to_string().contains('\u{1b}'), "{refused}");
    }

    #[test]
    fn a_broken_declaration_can_still_be_read_for_showing() {
        let Lint::Broken { params, .. } = lint_card(&card("TBD")) else {
            panic!("expected violations")
        };
        assert_eq!(params.unwrap().learnables[0].collection, "c");
    }

    #[test]
    fn teach_method_paths_are_told_apart() {
        for path in [
            "teachMethod",
            "params.teachMethod",
            "teachMethod.x",
            "teachMethod[0]",
        ] {
            assert!(at_teach_method(path), "{path}");
        }
        for path in [
            "teachMethods",
            "learnables[0].teachMethod",
            "params",
            "required",
        ] {
            assert!(!at_teach_method(path), "{path}");
        }
    }

    #[test]
    fn no_declaration_is_an_error_saying_so() {
        let error = check_card(&json!({"name": "x"}), "card.json", Style::plain()).unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("card.json declares no Learnables")
        );
    }

    #[test]
    fn lint_violations_as_json() {
        use crate::check::{Lint, lint_card, violations_json};
        let card = serde_json::json!({"capabilities": {"extensions": [{
            "uri": learnables::EXTENSION_URI, "params": {"learnables": 3}}]}});
        let Lint::Broken { violations, .. } = lint_card(&card) else {
            panic!()
        };
        assert_eq!(violations_json(&violations)[0]["path"], "params");
    }

    #[test]
    fn teach_method_paths() {
        use crate::check::at_teach_method;
        assert!(at_teach_method("teachMethod") && at_teach_method("params.teachMethod"));
        assert!(!at_teach_method("learnables[0].how"));
    }
}
