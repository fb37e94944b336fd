//! `learnables card URL`: an agent's learnables, rendered for a person and
//! linted against the spec.

use learnables::{DeclarationParams, LearnableDescriptor};
use serde_json::{Value, json};

use crate::check::{Lint, lint_card, undeclared, violations_json};
use crate::client::AgentClient;
use crate::error::CliError;
use crate::outcome::Outcome;
use crate::render::{count, kind_text, line, paragraph, table, violation_lines};
use crate::sign_in::{SignIn, sign_in};
use crate::style::Style;

/// Runs `card`: fetches the card, renders it, lints it.
pub fn run(client: &AgentClient) -> Result<Outcome, CliError> {
    let card = client.fetch_card()?;
    card_outcome(&card, client.base(), Style::for_stdout())
}

/// The report on a fetched card: its learnables and the lint; a lint
/// failure when the declaration breaks the spec. In JSON: `{"url",
/// "name", "skills": [{"id", "name"}], "declaration" (the params as
/// declared, or null when their shape cannot be read), "lint": {"ok",
/// "violations": [{"path", "message"}]}}`, each text as the card has it.
pub fn card_outcome(card: &Value, url: &str, style: Style) -> Result<Outcome, CliError> {
    let mut outcome = declaration_outcome(card, url, style)?;
    with_sign_in(&mut outcome, &sign_in(card), style);
    Ok(outcome)
}

/// `outcome` with what the card says of signing in: the providers it
/// names, and what is wrong with its schemes (a lint failure). In JSON:
/// `"signIn": {"openIdConnect": [URL...], "problems": [{"path", "message"}]}`.
fn with_sign_in(outcome: &mut Outcome, found: &SignIn, style: Style) {
    for provider in &found.providers {
        outcome.stdout.push_str(&format!(
            "{} with the OpenID Connect provider of {}\n",
            style.bold("Sign-in:"),
            line(provider)
        ));
    }
    for (path, message) in &found.problems {
        outcome.stdout.push_str(&format!(
            "{} {}: {}\n",
            style.bold("Sign-in:"),
            style.red(&line(path)),
            line(message)
        ));
    }
    let problems: Vec<Value> = found
        .problems
        .iter()
        .map(|(path, message)| json!({"path": path, "message": message}))
        .collect();
    outcome.json["signIn"] = json!({"openIdConnect": found.providers, "problems": problems});
    if !found.problems.is_empty() && outcome.failure.is_none() {
        outcome.failure = Some(CliError::lint(format!(
            "the agent's card says wrongly how teachers sign in: {}",
            count(found.problems.len(), "problem")
        )));
    }
}

/// The report on the card's declaration.
fn declaration_outcome(card: &Value, url: &str, style: Style) -> Result<Outcome, CliError> {
    match lint_card(card) {
        Lint::Undeclared => Err(undeclared(&format!("the agent at {}", line(url)))),
        Lint::Clean(declaration) => {
            let mut text = render_card(card, &declaration.params, style);
            text.push_str(&format!(
                "\n{} ok, the declaration follows the Learnables spec\n",
                style.bold("Lint:")
            ));
            let json = card_json(card, url, Some(&declaration.params), &json!([]));
            Ok(Outcome::ok(text, json))
        }
        Lint::Broken { violations, params } => {
            let json = card_json(card, url, params.as_ref(), &violations_json(&violations));
            let mut text = params
                .map(|params| render_card(card, &params, style) + "\n")
                .unwrap_or_default();
            text.push_str(&format!(
                "{} {}\n",
                style.bold("Lint:"),
                style.red(&count(violations.len(), "violation"))
            ));
            text.push_str(&violation_lines(&violations, "  ", style));
            Ok(Outcome {
                stdout: text,
                json,
                failure: Some(CliError::lint(format!(
                    "the agent's card breaks the Learnables spec: {}",
                    count(violations.len(), "violation")
                ))),
            })
        }
    }
}

/// The `card` report as data.
fn card_json(
    card: &Value,
    url: &str,
    params: Option<&DeclarationParams>,
    violations: &Value,
) -> Value {
    let skills: Vec<Value> = card
        .get("skills")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|skill| json!({"id": skill.get("id"), "name": skill.get("name")}))
        .collect();
    let declaration = params
        .and_then(|params| serde_json::to_value(params).ok())
        .unwrap_or(Value::Null);
    let ok = violations.as_array().is_some_and(Vec::is_empty);
    json!({
        "url": url,
        "name": card.get("name"),
        "skills": skills,
        "declaration": declaration,
        "lint": {"ok": ok, "violations": violations},
    })
}

/// A card's learnables as a person reads them.
pub fn render_card(card: &Value, params: &DeclarationParams, style: Style) -> String {
    let name = card
        .get("name")
        .and_then(Value::as_str)
        .map_or_else(|| "The agent".to_owned(), line);
    let mut text = format!(
        "{} can be taught {}.\n",
        style.bold(&name),
        count(params.learnables.len(), "collection")
    );
    text.push_str(&match &params.teach_method {
        Some(method) => format!("Lessons go to the method `{}`.\n", line(method)),
        None => "It names no teachMethod: it takes no lessons itself.\n".to_owned(),
    });
    for descriptor in &params.learnables {
        text.push('\n');
        text.push_str(&render_descriptor(descriptor, card, style));
    }
    text
}

/// One learnable: what it teaches, how the agent decides today, who
/// decides, its skills, and its fields.
pub fn render_descriptor(descriptor: &LearnableDescriptor, card: &Value, style: Style) -> String {
    let mut text = format!("{}\n", style.bold(&line(&descriptor.collection)));
    let skills = match &descriptor.skills {
        None => "all of the agent's skills".to_owned(),
        Some(ids) if ids.is_empty() => "none".to_owned(),
        Some(ids) => ids
            .iter()
            .map(|id| match skill_name(card, id) {
                Some(name) => format!("{} ({})", line(id), line(name)),
                None => format!("{} (not a skill on the card)", line(id)),
            })
            .collect::<Vec<_>>()
            .join("\n"),
    };
    text.push_str(&table(
        &[
            ("Entry".into(), line(&descriptor.entry)),
            ("Teaches".into(), paragraph(&descriptor.teaches)),
            ("Today".into(), paragraph(&descriptor.how)),
            ("Decided by".into(), line(&descriptor.decided_by)),
            ("Skills".into(), skills),
        ],
        "  ",
        style,
    ));
    if descriptor.lesson_fields.is_empty() {
        text.push_str(&format!("  {}  none\n", style.bold("Fields")));
        return text;
    }
    text.push_str(&format!("  {}\n", style.bold("Fields")));
    for field in &descriptor.lesson_fields {
        let mut about = vec![line(&field.name), kind_text(field)];
        if let Some(default) = &field.default {
            about.push(format!("default {}", line(default)));
        }
        text.push_str(&format!(
            "    {}  {}\n",
            style.bold(&line(&field.label)),
            style.dim(&format!("({})", about.join("; ")))
        ));
        if let Some(help) = &field.help {
            for help_line in paragraph(help).lines() {
                text.push_str(&format!("      {help_line}\n"));
            }
        }
        // What each choice means, where the agent says.
        let choices = field.choices.iter().flatten();
        let descriptions = field.choice_descriptions.iter().flatten();
        for (choice, description) in choices.zip(descriptions) {
            if let Some(description) = description {
                text.push_str(&format!("      {}: {}\n", line(choice), line(description)));
            }
        }
    }
    text
}

fn skill_name<'a>(card: &'a Value, id: &str) -> Option<&'a str> {
    card.get("skills")?
        .as_array()?
        .iter()
        .find(|skill| skill.get("id").and_then(Value::as_str) == Some(id))
        .and_then(|skill| skill.get("name").and_then(Value::as_str))
}

#[cfg(test)]
mod tests {
    use learnables::{EXTENSION_URI, FieldKind, LessonField};
    use serde_json::json;

    use super::*;

    fn descriptor() -> LearnableDescriptor {
        LearnableDescriptor::new(
            "routing_rules",
            "routing rule",
            "Which desk handles a declaration",
            "A table keyed on the HS chapter",
            "rules",
        )
        .with_skills(["route-declaration", "gone"])
        .with_field(
            LessonField::new("chapter", "HS chapter", FieldKind::TEXT)
                .with_help("Two-digit chapter."),
        )
        .with_field(desk())
        .with_field(LessonField::new("when", "Review", FieldKind::new("date")))
    }

    /// A choice field; its second choice says what it means.
    fn desk() -> LessonField {
        let mut desk = LessonField::new("desk", "Desk", FieldKind::CHOICE)
            .with_choices(["general", "cold chain"])
            .with_default("general");
        desk.choice_descriptions = Some(vec![None, Some("Perishables kept cold".into())]);
        desk
    }

    fn card() -> Value {
        json!({"name": "Customs agent",
               "skills": [{"id": "route-declaration", "name": "Route a declaration"}]})
    }

    #[test]
    fn a_descriptor_is_rendered_for_a_person() {
        assert_eq!(
            render_descriptor(&descriptor(), &card(), Style::plain()),
            "routing_rules\n\
             \x20 Entry       routing rule\n\
             \x20 Teaches     Which desk handles a declaration\n\
             \x20 Today       A table keyed on the HS chapter\n\
             \x20 Decided by  rules\n\
             \x20 Skills      route-declaration (Route a declaration)\n\
             \x20             gone (not a skill on the card)\n\
             \x20 Fields\n\
             \x20   HS chapter  (chapter; text)\n\
             \x20     Two-digit chapter.\n\
             \x20   Desk  (desk; choice: general, cold chain; default general)\n\
             \x20     cold chain: Perishables kept cold\n\
             \x20   Review  (when; date (entered as text))\n"
        );
    }

    #[test]
    fn the_card_names_the_agent_and_its_teach_method() {
        let params =
            DeclarationParams::new(vec![descriptor()]).with_teach_method("rsaxb.learnables.Teach");
        let text = render_card(&card(), &params, Style::plain());
        assert!(text.starts_with(
            "Customs agent can be taught 1 collection.\n\
             Lessons go to the method `rsaxb.learnables.Teach`.\n\nrouting_rules\n"
        ));
    }

    #[test]
    fn every_text_of_a_hostile_card_is_escaped() {
        let hostile = "\x1b]52;c;cm0=\x07\x1b[2J\u{9b}1A\u{202e}";
        let shown = r"\u{1b}]52;c;cm0=\u{7}\u{1b}[2J\u{9b}1A\u{202e}";
        let descriptor = LearnableDescriptor::new(hostile, hostile, hostile, hostile, hostile)
            .with_skills([hostile])
            .with_field(
                LessonField::new(hostile, hostile, FieldKind::new(hostile))
                    .with_help(hostile)
                    .with_default(hostile),
            )
            .with_field({
                let mut choice =
                    LessonField::new("d", hostile, FieldKind::CHOICE).with_choices([hostile]);
                choice.choice_descriptions = Some(vec![Some(hostile.into())]);
                choice
            });
        let card = json!({"name": hostile, "skills": [{"id": hostile, "name": hostile}]});
        let params = DeclarationParams::new(vec![descriptor]).with_teach_method(hostile);
        let text = render_card(&card, &params, Style::plain());
        assert!(
            !text
                .chars()
                .any(|c| c != '\n' && learnables::untrusted::is_hazard(c)),
            "{text:?}"
        );
        // name, method, collection, entry, teaches, how, decided by, skill
        // id and name, field name, label, kind, default, help, a choice,
        // the other label, and the choice again with its description:
        assert_eq!(text.matches(shown).count(), 18, "{text}");
    }

    #[test]
    fn a_broken_card_is_shown_and_its_violations_listed() {
        let card = json!({"name": "A", "capabilities": {"extensions": [{"uri": EXTENSION_URI,
            "params": {"learnables": [{"collection": "c", "entry": "e", "teaches": "What it is",
            "how": "TODO", "decidedBy": "rules", "lessonFields": []}]}}]}});
        let outcome = card_outcome(&card, "http://a/", Style::plain()).unwrap();
        assert!(outcome.stdout.starts_with("A can be taught 1 collection."));
        assert!(outcome.stdout.ends_with(
            "Lint: 1 violation\n  learnables[0].how: `how` is a placeholder (`TODO`)\n"
        ));
        assert_eq!(outcome.failure.unwrap().kind().exit_code(), 1);
        assert_eq!(outcome.json["lint"]["ok"], false);
        assert_eq!(
            outcome.json["lint"]["violations"][0]["path"],
            "learnables[0].how"
        );
        assert_eq!(outcome.json["declaration"]["learnables"][0]["how"], "TODO");
        assert_eq!(outcome.json["name"], "A");
    }
}
