//! The declaration on an agent card the user already has (as JSON, from
//! whichever A2A SDK), and the declaration read back from any agent's card.

use serde_json::{Map, Value};

use crate::constants::EXTENSION_URI;
use crate::declaration::Declaration;
use crate::validation::Violation;
use crate::validation::Violations;
use crate::wire::DeclarationParams;

/// Why the declaration could not be put on a card.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CardError {
    /// The card is not an object, or its `capabilities` or `extensions`
    /// have the wrong shape.
    #[error("the agent card's {0} is not a JSON {1}")]
    Shape(&'static str, &'static str),
    /// The declaration breaks the spec's rules, or names skills the card
    /// does not have.
    #[error("the declaration does not fit the card:\n{0}")]
    Invalid(Violations),
}

impl Declaration {
    /// Checks the declaration and that every skill id it names is one of
    /// the card's `skills[].id`.
    pub fn validate_for_card(&self, card: &Value) -> Result<(), Violations> {
        self.params().validate_for_card(card)
    }

    /// Puts the declaration in `card.capabilities.extensions[]`, replacing
    /// an earlier Learnables entry, after checking it against the card.
    ///
    /// ```
    /// use learnables::Declaration;
    /// let mut card = serde_json::json!({
    ///     "name": "Customs agent", "capabilities": {"streaming": false},
    ///     "skills": [{"id": "route-declaration", "name": "Route", "description": "d", "tags": []}]
    /// });
    /// Declaration::new().add_to_card(&mut card).unwrap();
    /// assert_eq!(card["capabilities"]["extensions"][0]["required"], false);
    /// assert_eq!(card["capabilities"]["streaming"], false);
    /// ```
    pub fn add_to_card(&self, card: &mut Value) -> Result<(), CardError> {
        self.validate_for_card(card).map_err(CardError::Invalid)?;
        let entry = serde_json::to_value(self.agent_extension())
            .map_err(|_| CardError::Shape("extension entry", "object"))?;
        let Value::Object(card) = card else {
            return Err(CardError::Shape("body", "object"));
        };
        let Value::Object(capabilities) = card
            .entry("capabilities")
            .or_insert_with(|| Value::Object(Map::new()))
        else {
            return Err(CardError::Shape("capabilities", "object"));
        };
        let Value::Array(extensions) = capabilities
            .entry("extensions")
            .or_insert_with(|| Value::Array(Vec::new()))
        else {
            return Err(CardError::Shape("capabilities.extensions", "array"));
        };
        extensions.retain(|extension| {
            extension.get("uri").and_then(Value::as_str) != Some(EXTENSION_URI)
        });
        extensions.push(entry);
        Ok(())
    }
}

impl DeclarationParams {
    /// Checks the params and that every skill id they name is one of the
    /// card's `skills[].id`.
    fn validate_for_card(&self, card: &Value) -> Result<(), Violations> {
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

/// The Learnables declaration an agent card carries, read for checking.
#[derive(Debug, Clone, PartialEq)]
pub struct CardDeclaration {
    /// Where the entry is: `capabilities.extensions[i]`.
    pub index: usize,
    /// Its `params`, as declared.
    pub params: DeclarationParams,
    /// Its `required` flag.
    pub required: bool,
}

impl CardDeclaration {
    /// Finds the Learnables entry of an agent card and reads its params.
    /// `Ok(None)` when the card declares no Learnables; `Err` with every
    /// violation, each with its path, when it declares them wrongly.
    ///
    /// ```
    /// use learnables::a2a::CardDeclaration;
    /// let card = serde_json::json!({"capabilities": {"extensions": [
    ///     {"uri": "https://rsaxb.com/a2a/learnables/v1", "params": {"learnables": [
    ///         {"collection": "c", "entry": "e", "teaches": "t", "how": "TBD",
    ///          "decidedBy": "rules", "lessonFields": []}]}}]}});
    /// let violations = CardDeclaration::read(&card).unwrap_err();
    /// assert_eq!(violations.to_string(), "learnables[0].how: `how` is a placeholder (`TBD`)");
    /// ```
    pub fn read(card: &Value) -> Result<Option<CardDeclaration>, Violations> {
        let Some(extensions) = card
            .get("capabilities")
            .and_then(|capabilities| capabilities.get("extensions"))
            .and_then(Value::as_array)
        else {
            return Ok(None);
        };
        let Some((index, entry)) = extensions.iter().enumerate().find(|(_, extension)| {
            extension.get("uri").and_then(Value::as_str) == Some(EXTENSION_URI)
        }) else {
            return Ok(None);
        };
        let at = |path: &str, message: String| Violations::one(path, message);
        let params = entry.get("params").cloned().unwrap_or(Value::Null);
        let params: DeclarationParams = serde_json::from_value(params).map_err(|error| {
            at(
                "params",
                format!("the declaration's params do not read as the spec's shape: {error}"),
            )
        })?;
        params.validate_for_card(card)?;
        // `required: true` is the agent's choice, not a violation.
        let required = entry
            .get("required")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        Ok(Some(CardDeclaration {
            index,
            params,
            required,
        }))
    }
}
