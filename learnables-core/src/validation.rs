//! The spec's rules, and ours, checked at run time on descriptors built by
//! hand or read from another agent's card. Every rule is a predicate of
//! `learnables-rules`, the very ones `#[derive(Learnable)]` checks at compile
//! time (`learnables_rules::Rule` lists them, with where each is checked).

use std::fmt;

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

impl Violations {
    /// Runs `check` with a report at the root, then `Ok` if it found no
    /// violation, else every one it found.
    #[doc(hidden)]
    pub fn collect(check: impl FnOnce(&mut Report<'_>)) -> Result<(), Violations> {
        let mut list = Vec::new();
        check(&mut Report {
            list: &mut list,
            prefix: String::new(),
        });
        Violations::from_vec(list)
    }
}

/// Collects violations under a path prefix.
#[derive(Debug)]
pub struct Report<'a> {
    list: &'a mut Vec<Violation>,
    prefix: String,
}

impl Report<'_> {
    /// Records a violation at `key` under this report's prefix.
    pub fn at(&mut self, key: &str, message: impl Into<String>) {
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

    /// A report for the violations under `key`.
    pub fn nested(&mut self, key: &str) -> Report<'_> {
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
