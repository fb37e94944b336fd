//! What an agent can be taught, one learnable: the spec's `LearnableDescriptor`.

use serde::{Deserialize, Serialize};

use super::{LessonField, ReviewRule};
use crate::validation::{Report, Violations};
use std::collections::HashSet;

/// What an agent can be taught: the spec's `LearnableDescriptor`, one entry of
/// the declaration's `learnables`. `#[derive(Learnable)]` generates it; build
/// one by hand for a learnable without a Rust type, and check it with
/// [`LearnableDescriptor::validate`].
///
/// ```
/// # extern crate learnables_core as learnables;
/// use learnables::{FieldKind, LearnableDescriptor, LessonField};
/// let descriptor = LearnableDescriptor::new(
///     "routing_rules",
///     "routing rule",
///     "Which desk handles a declaration",
///     "A table keyed on the HS chapter; anything unmatched goes to the general desk",
///     "rules",
/// )
/// .with_field(LessonField::new("chapter", "HS chapter", FieldKind::TEXT));
/// assert!(descriptor.validate().is_ok());
/// let json = serde_json::to_value(&descriptor).unwrap();
/// assert_eq!(json["decidedBy"], "rules");
/// assert!(json.get("skills").is_none());
/// ```
///
/// It is `#[non_exhaustive]`, so that a field the spec adds is not a
/// breaking change: build one with [`LearnableDescriptor::new`] and its `with_`
/// methods; its fields stay public to read and to set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct LearnableDescriptor {
    /// The collection's name in the agent's knowledge.
    pub collection: String,
    /// Singular noun for one member, for rendering.
    pub entry: String,
    /// Skill ids this learnable affects; `None` means all of them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skills: Option<Vec<String>>,
    /// What a person is deciding, in their words.
    pub teaches: String,
    /// How the agent decides today, in prose; never a placeholder.
    pub how: String,
    /// Who or what decides today: `rules`, `model`, `hybrid`, or another word.
    pub decided_by: String,
    /// The inputs of a lesson.
    pub lesson_fields: Vec<LessonField>,
    /// Whether each lesson needs approval before it is learned, and how
    /// many (our extension beside the spec's keys: `"review":
    /// {"approvals": N}`); absent when lessons are learned as taught.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review: Option<ReviewRule>,
}

impl LearnableDescriptor {
    /// A descriptor with its required keys and no lesson fields yet.
    pub fn new(
        collection: impl Into<String>,
        entry: impl Into<String>,
        teaches: impl Into<String>,
        how: impl Into<String>,
        decided_by: impl Into<String>,
    ) -> LearnableDescriptor {
        LearnableDescriptor {
            collection: collection.into(),
            entry: entry.into(),
            skills: None,
            teaches: teaches.into(),
            how: how.into(),
            decided_by: decided_by.into(),
            lesson_fields: Vec::new(),
            review: None,
        }
    }

    /// Adds a lesson field.
    pub fn with_field(mut self, field: LessonField) -> LearnableDescriptor {
        self.lesson_fields.push(field);
        self
    }

    /// Limits the learnable to these skills.
    pub fn with_skills<I, S>(mut self, skills: I) -> LearnableDescriptor
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.skills = Some(skills.into_iter().map(Into::into).collect());
        self
    }

    /// Requires each lesson to be approved by `approvals` teachers other
    /// than its author before it is learned (none for 0).
    ///
    /// ```
    /// # extern crate learnables_core as learnables;
    /// use learnables::LearnableDescriptor;
    /// let descriptor = LearnableDescriptor::new("limits", "limit", "The limit", "A table", "rules")
    ///     .with_review(2);
    /// let json = serde_json::to_value(&descriptor).unwrap();
    /// assert_eq!(json["review"], serde_json::json!({"approvals": 2}));
    /// ```
    pub fn with_review(mut self, approvals: u32) -> LearnableDescriptor {
        self.review = ReviewRule::new(approvals);
        self
    }

    /// The lesson field of that name.
    pub fn field(&self, name: &str) -> Option<&LessonField> {
        self.lesson_fields.iter().find(|field| field.name == name)
    }

    /// Checks the spec's rules and ours: `how` is prose, not a placeholder;
    /// `collection`, `entry`, `teaches`, `decidedBy`, every field's name,
    /// label and kind are not blank; `skills`, when present, names at least
    /// one skill; a `choice` field has choices (and only it has), and a
    /// default is one of them; no two fields share a name.
    ///
    /// ```
    /// # extern crate learnables_core as learnables;
    /// use learnables::LearnableDescriptor;
    /// let descriptor = LearnableDescriptor::new("rules", "rule", "What to do", "TBD", "rules");
    /// let violations = descriptor.validate().unwrap_err();
    /// assert_eq!(violations.to_string(), "how: `how` is a placeholder (`TBD`)");
    /// ```
    pub fn validate(&self) -> Result<(), Violations> {
        Violations::collect(|report| self.check(report))
    }

    pub(crate) fn check(&self, report: &mut Report<'_>) {
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
        // Blank is reported above; a placeholder such as "TODO" here.
        if !learnables_rules::is_blank(&self.teaches)
            && let Some(problem) = learnables_rules::teaches_problem(&self.teaches)
        {
            report.at("teaches", problem.to_string().replace("`how`", "`teaches`"));
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
