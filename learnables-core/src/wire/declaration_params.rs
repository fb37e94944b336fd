//! The card's Learnables entry: the spec's `DeclarationParams`.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::LearnableDescriptor;
use crate::validation::{Violation, Violations};

/// The `params` of the extension's entry in `capabilities.extensions[]`.
///
/// ```
/// # extern crate learnables_core as learnables;
/// use learnables::DeclarationParams;
/// let params = DeclarationParams::new(vec![]);
/// assert_eq!(serde_json::to_string(&params).unwrap(), r#"{"learnables":[]}"#);
/// ```
///
/// It is `#[non_exhaustive]`, so that a field the spec adds is not a
/// breaking change: build one with [`DeclarationParams::new`] (or
/// `Default`) and [`DeclarationParams::with_teach_method`] (its fields stay
/// public to read and to set).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct DeclarationParams {
    /// What the agent can be taught.
    pub learnables: Vec<LearnableDescriptor>,
    /// The RPC method that accepts a `Lesson`, for an agent that owns its
    /// knowledge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub teach_method: Option<String>,
    /// The RPC method that retracts an entry (`{collection, entry,
    /// taughtBy, reason?}`), served beside `teachMethod` under the same
    /// activation, token and teacher policy; our addition to the spec,
    /// which clients that do not know it ignore.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retract_method: Option<String>,
    /// The RPC method that approves or rejects a proposed lesson of a
    /// reviewed learnable (`{collection, entry, proposalId, decision,
    /// reviewedBy, reason}`), served beside `teachMethod` under the same
    /// activation and token; our addition to the spec, which clients that
    /// do not know it ignore.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review_method: Option<String>,
}

impl DeclarationParams {
    /// The params declaring `learnables`, with no teach method.
    ///
    /// ```
    /// # extern crate learnables_core as learnables;
    /// use learnables::{DeclarationParams, Learnable, LearnableDescriptor};
    /// let params = DeclarationParams::new(vec![]);
    /// assert!(params.learnables.is_empty());
    /// assert_eq!(params.teach_method, None);
    /// ```
    pub fn new(learnables: Vec<LearnableDescriptor>) -> DeclarationParams {
        DeclarationParams {
            learnables,
            teach_method: None,
            retract_method: None,
            review_method: None,
        }
    }

    /// The same, with the RPC method that accepts a `Lesson`.
    ///
    /// ```
    /// # extern crate learnables_core as learnables;
    /// use learnables::{DeclarationParams, TEACH_METHOD};
    /// let params = DeclarationParams::new(vec![]).with_teach_method(TEACH_METHOD);
    /// assert_eq!(params.teach_method.as_deref(), Some(TEACH_METHOD));
    /// ```
    pub fn with_teach_method(mut self, method: impl Into<String>) -> DeclarationParams {
        self.teach_method = Some(method.into());
        self
    }

    /// The same, with the RPC method that retracts an entry.
    ///
    /// ```
    /// # extern crate learnables_core as learnables;
    /// use learnables::{DeclarationParams, RETRACT_METHOD};
    /// let params = DeclarationParams::new(vec![]).with_retract_method(RETRACT_METHOD);
    /// assert_eq!(params.retract_method.as_deref(), Some(RETRACT_METHOD));
    /// ```
    pub fn with_retract_method(mut self, method: impl Into<String>) -> DeclarationParams {
        self.retract_method = Some(method.into());
        self
    }

    /// The same, with the RPC method that approves or rejects a proposed
    /// lesson.
    ///
    /// ```
    /// # extern crate learnables_core as learnables;
    /// use learnables::{DeclarationParams, REVIEW_METHOD};
    /// let params = DeclarationParams::new(vec![]).with_review_method(REVIEW_METHOD);
    /// assert_eq!(params.review_method.as_deref(), Some(REVIEW_METHOD));
    /// ```
    pub fn with_review_method(mut self, method: impl Into<String>) -> DeclarationParams {
        self.review_method = Some(method.into());
        self
    }

    /// Checks every descriptor, that no two share a collection, and that
    /// `teachMethod`, when given, is not blank and no core A2A method.
    ///
    /// ```
    /// # extern crate learnables_core as learnables;
    /// use learnables::{DeclarationParams, LearnableDescriptor};
    /// let ok = LearnableDescriptor::new("a", "a", "What a is", "A table kept by the team", "rules");
    /// let params = DeclarationParams::new(vec![ok.clone(), ok]);
    /// assert_eq!(
    ///     params.validate().unwrap_err().to_string(),
    ///     "learnables[1].collection: the collection `a` is declared twice"
    /// );
    /// ```
    pub fn validate(&self) -> Result<(), Violations> {
        Violations::collect(|report| {
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
            if let Some(method) = &self.review_method {
                if let Some(problem) = learnables_rules::teach_method_problem(method) {
                    report.at("reviewMethod", problem.to_string());
                } else if [&self.teach_method, &self.retract_method]
                    .into_iter()
                    .any(|other| other.as_ref() == Some(method))
                {
                    report.at(
                        "reviewMethod",
                        "it must not be the `teachMethod` or the `retractMethod`".to_owned(),
                    );
                }
            }
        })
    }

    /// Checks the params and that every skill id they name is one of the
    /// card's `skills[].id`.
    pub(crate) fn validate_for_card(&self, card: &Value) -> Result<(), Violations> {
        let mut list: Vec<Violation> = self
            .validate()
            .err()
            .map(|violations| violations.iter().cloned().collect())
            .unwrap_or_default();
        let skills: Vec<&str> = card
            .get("skills")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|skill| skill.get("id").and_then(Value::as_str))
            .collect();
        for (index, descriptor) in self.learnables.iter().enumerate() {
            for (at, skill) in descriptor.skills.iter().flatten().enumerate() {
                if !skills.contains(&skill.as_str()) {
                    list.push(Violation {
                        path: format!("learnables[{index}].skills[{at}]"),
                        message: format!(
                            "the card has no skill `{skill}`; its skills are: {}",
                            skills.join(", ")
                        ),
                    });
                }
            }
        }
        Violations::from_vec(list)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{RETRACT_METHOD, REVIEW_METHOD, TEACH_METHOD};

    #[test]
    fn the_review_method_is_declared_beside_the_others_and_never_one_of_them() {
        let params = DeclarationParams::new(vec![])
            .with_teach_method(TEACH_METHOD)
            .with_retract_method(RETRACT_METHOD)
            .with_review_method(REVIEW_METHOD);
        assert!(params.validate().is_ok());
        assert_eq!(
            serde_json::to_value(&params).unwrap()["reviewMethod"],
            "rsaxb.learnables.Review"
        );
        let same = params.clone().with_review_method(RETRACT_METHOD);
        assert_eq!(
            same.validate().unwrap_err().to_string(),
            "reviewMethod: it must not be the `teachMethod` or the `retractMethod`"
        );
        let core = params.with_review_method("SendMessage");
        assert!(
            core.validate()
                .unwrap_err()
                .to_string()
                .starts_with("reviewMethod: ")
        );
    }
}
