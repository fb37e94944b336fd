//! Characters that do not show as themselves (controls, bidi overrides,
//! invisible characters) in an agent's Learnables declaration: refused by
//! the lint and by every command that teaches or shows from it. A form's
//! choices go to a host exactly as the agent wrote them, since the answer
//! sends one back, so escaping cannot make them safe; and two names that
//! read the same to a person must be the same name. The check per text is
//! the library's ([`HiddenCharacter::check`]); this module only walks
//! every text a declaration holds.

use learnables::untrusted::HiddenCharacter;
use learnables::{
    DeclarationParams, FieldBound, LearnableDescriptor, LessonField, Violation, Violations,
};

/// Every text of `params` that holds a hidden character, each a violation
/// at its path (`learnables[0].lessonFields[1].choices[2]`), the message
/// naming the text and the character, escaped; `Ok` when there is none.
pub fn hidden_characters(params: &DeclarationParams) -> Result<(), Violations> {
    let mut report = Found::default();
    for (key, method) in [
        ("teachMethod", &params.teach_method),
        ("retractMethod", &params.retract_method),
        ("reviewMethod", &params.review_method),
    ] {
        if let Some(method) = method {
            name(&mut report, key, "method", method);
        }
    }
    for (index, descriptor) in params.learnables.iter().enumerate() {
        let mut nested = report.nested(&format!("learnables[{index}]"));
        descriptor_texts(descriptor, &mut nested);
        report.take(nested);
    }
    report.into_result()
}

/// Every text of `fields` (a teach block's, which stand in for a
/// learnable's) that holds a hidden character, at `lessonFields[i]...`.
pub fn hidden_in_fields(fields: &[LessonField]) -> Result<(), Violations> {
    let mut report = Found::default();
    lesson_fields(fields, &mut report);
    report.into_result()
}

/// The violations found so far, and the path they are found under.
#[derive(Default)]
struct Found {
    prefix: String,
    list: Vec<Violation>,
}

impl Found {
    fn at(&mut self, key: &str, message: String) {
        let path = match self.prefix.as_str() {
            "" => key.to_owned(),
            prefix => format!("{prefix}.{key}"),
        };
        self.list.push(Violation { path, message });
    }

    /// An empty report for the violations under `key`, to be [taken
    /// back](Found::take) when done.
    fn nested(&self, key: &str) -> Found {
        let prefix = match self.prefix.as_str() {
            "" => key.to_owned(),
            prefix => format!("{prefix}.{key}"),
        };
        Found {
            prefix,
            list: Vec::new(),
        }
    }

    fn take(&mut self, mut nested: Found) {
        self.list.append(&mut nested.list);
    }

    fn into_result(self) -> Result<(), Violations> {
        Violations::collect(|report| {
            for violation in self.list {
                report.at(&violation.path, violation.message);
            }
        })
    }
}

/// The texts of one learnable.
fn descriptor_texts(descriptor: &LearnableDescriptor, report: &mut Found) {
    name(report, "collection", "collection", &descriptor.collection);
    name(report, "entry", "entry", &descriptor.entry);
    name(report, "decidedBy", "decidedBy", &descriptor.decided_by);
    prose(report, "teaches", "teaches", &descriptor.teaches);
    prose(report, "how", "how", &descriptor.how);
    for (index, skill) in descriptor.skills.iter().flatten().enumerate() {
        name(report, &format!("skills[{index}]"), "skill", skill);
    }
    lesson_fields(&descriptor.lesson_fields, report);
}

/// The texts of lesson fields, each under `lessonFields[i]`.
fn lesson_fields(fields: &[LessonField], report: &mut Found) {
    for (index, field) in fields.iter().enumerate() {
        let mut nested = report.nested(&format!("lessonFields[{index}]"));
        field_texts(field, &mut nested);
        report.take(nested);
    }
}

fn field_texts(field: &LessonField, report: &mut Found) {
    name(report, "name", "name", &field.name);
    name(report, "label", "label", &field.label);
    name(report, "kind", "kind", field.kind.as_str());
    if let Some(help) = &field.help {
        prose(report, "help", "help", help);
    }
    if let Some(default) = &field.default {
        name(report, "default", "default", default);
    }
    for (index, choice) in field.choices.iter().flatten().enumerate() {
        name(report, &format!("choices[{index}]"), "choice", choice);
    }
    for (index, description) in field.choice_descriptions.iter().flatten().enumerate() {
        if let Some(description) = description {
            let key = format!("choiceDescriptions[{index}]");
            prose(report, &key, "choice description", description);
        }
    }
    if let Some(value_type) = &field.value_type {
        name(report, "valueType", "valueType", value_type);
    }
    if let Some(pattern) = &field.pattern {
        name(report, "pattern", "pattern", pattern);
    }
    for (key, bound) in [("minimum", &field.minimum), ("maximum", &field.maximum)] {
        if let Some(FieldBound::Text(text)) = bound {
            name(report, key, key, text);
        }
    }
}

/// A one-line text: every hidden character is refused.
fn name(report: &mut Found, key: &str, what: &'static str, text: &str) {
    if let Err(refused) = HiddenCharacter::check(what, text) {
        report.at(key, refused.to_string());
    }
}

/// A text that may run over lines: a line break is its own, anything
/// else hidden is refused.
fn prose(report: &mut Found, key: &str, what: &'static str, text: &str) {
    if let Some(refused) = text
        .split('\n')
        .find_map(|line| HiddenCharacter::check(what, line).err())
    {
        report.at(key, refused.to_string());
    }
}

#[cfg(test)]
mod tests {
    use learnables::FieldKind;

    use super::*;

    fn check(params: &DeclarationParams) -> Vec<String> {
        match hidden_characters(params) {
            Ok(()) => Vec::new(),
            Err(violations) => violations.iter().map(|v| v.path.clone()).collect(),
        }
    }

    #[test]
    fn every_text_of_a_declaration_is_checked_and_a_line_break_in_prose_is_not_hidden() {
        let hostile = "x\x1b]0;PWNED\x07\u{202e}";
        let field = LessonField::new("desk", hostile, FieldKind::CHOICE)
            .with_choices(["general", hostile])
            .with_help("One line\nand another");
        let descriptor = LearnableDescriptor::new("rules", "rule", "What\nit is", hostile, "rules")
            .with_skills(["route", "b\u{200b}ot"])
            .with_field(field);
        let params = DeclarationParams::new(vec![descriptor]).with_teach_method(hostile);
        assert_eq!(
            check(&params),
            [
                "teachMethod",
                "learnables[0].how",
                "learnables[0].skills[1]",
                "learnables[0].lessonFields[0].label",
                "learnables[0].lessonFields[0].choices[1]",
            ]
        );
    }

    #[test]
    fn a_clean_declaration_has_nothing_hidden() {
        let field = LessonField::new("desk", "Größe ≤ 5 kg", FieldKind::CHOICE)
            .with_choices(["général", "冷链"]);
        let descriptor =
            LearnableDescriptor::new("rules", "rule", "What", "How", "rules").with_field(field);
        assert!(check(&DeclarationParams::new(vec![descriptor])).is_empty());
    }
}
