//! The spec's rules, and ours, checked at run time on descriptors built by
//! hand or read from another agent's card. Every rule is a predicate of
//! `learnables-rules`, the very ones `#[derive(Learnable)]` checks at compile
//! time (`learnables_rules::Rule` lists them, with where each is checked).

use std::collections::HashSet;
use std::fmt;

use crate::wire::{DeclarationParams, LearnableDescriptor, LessonField, TeachBlock};

/// One rule broken, and where: `learnables[0].how`, `lessonFields[2].label`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// Where, as a path of JSON keys and indexes.
    pub path: String,
    /// What is wrong, as a sentence.
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// Every rule a descriptor or declaration breaks (at least one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violations(Vec<Violation>);

impl Violations {
    /// Each violation, in document order.
    pub fn iter(&self) -> std::slice::Iter<'_, Violation> {
        self.0.iter()
    }

    /// How many rules are broken.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Always false: a `Violations` holds at least one.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// A single violation.
    pub(crate) fn one(path: &str, message: String) -> Violations {
        Violations(vec![Violation {
            path: path.to_owned(),
            message,
        }])
    }

    /// `Ok` for no violations, else all of them.
    pub(crate) fn from_vec(list: Vec<Violation>) -> Result<(), Violations> {
        Violations::from_list(list)
    }

    fn from_list(list: Vec<Violation>) -> Result<(), Violations> {
        if list.is_empty() {
            Ok(())
        } else {
            Err(Violations(list))
        }
    }
}

impl<'a> IntoIterator for &'a Violations {
    type Item = &'a Violation;
    type IntoIter = std::slice::Iter<'a, Violation>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl fmt::Display for Violations {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, violation) in self.0.iter().enumerate() {
            if index > 0 {
                f.write_str("\n")?;
            }
            violation.fmt(f)?;
        }
        Ok(())
    }
}

impl std::error::Error for Violations {}

/// Collects violations under a path prefix.
struct Report<'a> {
    list: &'a mut Vec<Violation>,
    prefix: String,
}

impl Report<'_> {
    fn at(&mut self, key: &str, message: impl Into<String>) {
        let path = if self.prefix.is_empty() {
            key.to_owned()
        } else {
            format!("{}.{key}", self.prefix)
        };
        self.list.push(Violation {
            path,
            message: message.into(),
        });
    }

    fn nested(&mut self, key: &str) -> Report<'_> {
        let prefix = if self.prefix.is_empty() {
            key.to_owned()
        } else {
            format!("{}.{key}", self.prefix)
        };
        Report {
            list: self.list,
            prefix,
        }
    }
}

impl LearnableDescriptor {
    /// Checks the spec's rules and ours: `how` is prose, not a placeholder;
    /// `collection`, `entry`, `teaches`, `decidedBy`, every field's name,
    /// label and kind are not blank; `skills`, when present, names at least
    /// one skill; a `choice` field has choices (and only it has), and a
    /// default is one of them; no two fields share a name.
    ///
    /// ```
    /// use learnables::LearnableDescriptor;
    /// let descriptor = LearnableDescriptor::new("rules", "rule", "What to do", "TBD", "rules");
    /// let violations = descriptor.validate().unwrap_err();
    /// assert_eq!(violations.to_string(), "how: `how` is a placeholder (`TBD`)");
    /// ```
    pub fn validate(&self) -> Result<(), Violations> {
        let mut list = Vec::new();
        self.check(&mut Report {
            list: &mut list,
            prefix: String::new(),
        });
        Violations::from_list(list)
    }

    fn check(&self, report: &mut Report<'_>) {
        for (key, value) in [
            ("collection", &self.collection),
            ("entry", &self.entry),
            ("teaches", &self.teaches),
            ("decidedBy", &self.decided_by),
        ] {
            if learnables_rules::is_blank(value) {
                report.at(key, format!("`{key}` is empty; it needs a word"));
            }
        }
        if let Some(problem) = learnables_rules::how_problem(&self.how, &self.teaches) {
            report.at("how", problem.to_string());
        }
        if let Some(skills) = &self.skills
            && let Some(problem) = learnables_rules::skills_problem(skills)
        {
            let key = match problem {
                learnables_rules::SkillsProblem::Blank(index) => format!("skills[{index}]"),
                learnables_rules::SkillsProblem::Empty => "skills".to_owned(),
            };
            report.at(&key, problem.to_string());
        }
        let mut names = HashSet::new();
        for (index, field) in self.lesson_fields.iter().enumerate() {
            let mut field_report = report.nested(&format!("lessonFields[{index}]"));
            field.check(&mut field_report);
            if !names.insert(field.name.as_str()) {
                field_report.at(
                    "name",
                    format!("another lesson field is already named `{}`", field.name),
                );
            }
        }
    }
}

impl LessonField {
    fn check(&self, report: &mut Report<'_>) {
        if learnables_rules::is_blank(&self.name) {
            report.at("name", "the name is empty; it needs a character");
        }
        if learnables_rules::is_blank(&self.label) {
            report.at(
                "label",
                "the label is empty; it needs at least one character",
            );
        }
        if learnables_rules::is_blank(self.kind.as_str()) {
            report.at(
                "kind",
                "the kind is empty; write `text`, `choice` or another kind",
            );
        }
        if let Some(problem) =
            learnables_rules::choices_problem(self.kind.as_str(), self.choices.as_deref())
        {
            let key = match problem {
                learnables_rules::ChoicesProblem::Blank(index) => format!("choices[{index}]"),
                _ => "choices".to_owned(),
            };
            report.at(&key, problem.to_string());
        }
        if let Some(default) = &self.default
            && let Some(problem) =
                learnables_rules::default_problem(default, self.choices.as_deref())
        {
            report.at("default", problem);
        }
    }
}

impl DeclarationParams {
    /// Checks every descriptor, that no two share a collection, and that
    /// `teachMethod`, when given, is not blank and no core A2A method.
    ///
    /// ```
    /// use learnables::{DeclarationParams, LearnableDescriptor};
    /// let ok = LearnableDescriptor::new("a", "a", "What a is", "A table kept by the team", "rules");
    /// let params = DeclarationParams::new(vec![ok.clone(), ok]);
    /// assert_eq!(
    ///     params.validate().unwrap_err().to_string(),
    ///     "learnables[1].collection: the collection `a` is declared twice"
    /// );
    /// ```
    pub fn validate(&self) -> Result<(), Violations> {
        let mut list = Vec::new();
        let mut report = Report {
            list: &mut list,
            prefix: String::new(),
        };
        let mut collections = HashSet::new();
        for (index, descriptor) in self.learnables.iter().enumerate() {
            let mut descriptor_report = report.nested(&format!("learnables[{index}]"));
            descriptor.check(&mut descriptor_report);
            if !collections.insert(descriptor.collection.as_str()) {
                descriptor_report.at(
                    "collection",
                    format!(
                        "the collection `{}` is declared twice",
                        descriptor.collection
                    ),
                );
            }
        }
        if let Some(method) = &self.teach_method
            && let Some(problem) = learnables_rules::teach_method_problem(method)
        {
            report.at("teachMethod", problem.to_string());
        }
        if let Some(method) = &self.retract_method {
            if let Some(problem) = learnables_rules::teach_method_problem(method) {
                report.at("retractMethod", problem.to_string());
            } else if self.teach_method.as_ref() == Some(method) {
                report.at(
                    "retractMethod",
                    "it must not be the `teachMethod`".to_owned(),
                );
            }
        }
        Violations::from_list(list)
    }
}

impl TeachBlock {
    /// Checks the block against the descriptor of the learnable it is for:
    /// the same collection; its own `lessonFields`, if any, valid and each
    /// one of the descriptor's; and, as the spec requires, every
    /// `suggested` key one of the applicable lesson fields' names.
    ///
    /// ```
    /// use learnables::{FieldKind, LearnableDescriptor, LessonField, TeachBlock};
    /// let descriptor = LearnableDescriptor::new("rates", "rate", "Which rate applies",
    ///     "A table kept by the tariff team", "rules")
    ///     .with_field(LessonField::new("rate", "Rate", FieldKind::TEXT));
    /// let mut block = TeachBlock::new("rates", ["r1"]);
    /// block.suggested = Some(serde_json::from_str(r#"{"rate": "4%", "owner": "x"}"#).unwrap());
    /// assert_eq!(
    ///     block.validate(&descriptor).unwrap_err().to_string(),
    ///     "suggested.owner: `owner` is not one of the lesson fields: rate"
    /// );
    /// ```
    pub fn validate(&self, descriptor: &LearnableDescriptor) -> Result<(), Violations> {
        let mut list = Vec::new();
        let mut report = Report {
            list: &mut list,
            prefix: String::new(),
        };
        if self.collection != descriptor.collection {
            report.at(
                "collection",
                format!(
                    "the block is for `{}`, but the learnable is `{}`",
                    crate::lesson_error::shortened(&self.collection),
                    descriptor.collection
                ),
            );
        }
        let applicable = self
            .lesson_fields
            .as_deref()
            .unwrap_or(&descriptor.lesson_fields);
        if let Some(fields) = &self.lesson_fields {
            for (index, field) in fields.iter().enumerate() {
                let mut field_report = report.nested(&format!("lessonFields[{index}]"));
                field.check(&mut field_report);
                if descriptor.field(&field.name).is_none() {
                    field_report.at(
                        "name",
                        format!(
                            "`{}` is not a lesson field of `{}`",
                            crate::lesson_error::shortened(&field.name),
                            descriptor.collection
                        ),
                    );
                }
            }
        }
        for key in self.suggested.iter().flat_map(|suggested| suggested.keys()) {
            if !applicable.iter().any(|field| &field.name == key) {
                let names: Vec<&str> = applicable.iter().map(|f| f.name.as_str()).collect();
                report.nested("suggested").at(
                    key,
                    format!(
                        "`{}` is not one of the lesson fields: {}",
                        crate::lesson_error::shortened(key),
                        names.join(", ")
                    ),
                );
            }
        }
        Violations::from_list(list)
    }
}

#[cfg(test)]
mod tests {
    use crate::{FieldKind, LearnableDescriptor, LessonField};

    fn descriptor() -> LearnableDescriptor {
        LearnableDescriptor::new(
            "routing_rules",
            "routing rule",
            "Which desk handles a declaration",
            "A table keyed on the HS chapter",
            "rules",
        )
    }

    fn paths(descriptor: &LearnableDescriptor) -> Vec<String> {
        descriptor
            .validate()
            .err()
            .map(|violations| violations.iter().map(|v| v.path.clone()).collect())
            .unwrap_or_default()
    }

    #[test]
    fn a_good_descriptor_passes() {
        let good = descriptor()
            .with_field(LessonField::new("chapter", "HS chapter", FieldKind::TEXT))
            .with_field(
                LessonField::new("desk", "Desk", FieldKind::CHOICE)
                    .with_choices(["general"])
                    .with_default("general"),
            )
            .with_field(LessonField::new("when", "When", FieldKind::new("date")));
        assert_eq!(good.validate(), Ok(()));
    }

    #[test]
    fn every_violation_is_reported_with_its_path() {
        let mut bad = descriptor()
            .with_field(LessonField::new("a", "", FieldKind::TEXT))
            .with_field(LessonField::new("b", "B", FieldKind::CHOICE))
            .with_field(
                LessonField::new("c", "C", FieldKind::CHOICE)
                    .with_choices(["x"])
                    .with_default("y"),
            )
            .with_field(LessonField::new("a", "A again", FieldKind::TEXT))
            .with_field(
                LessonField::new("e", "E", FieldKind::CHOICE).with_choices(Vec::<String>::new()),
            );
        bad.how = "Which desk handles a declaration".into();
        assert_eq!(
            paths(&bad),
            [
                "how",
                "lessonFields[0].label",
                "lessonFields[1].choices",
                "lessonFields[2].default",
                "lessonFields[3].name",
                "lessonFields[4].choices",
            ]
        );
    }
}
