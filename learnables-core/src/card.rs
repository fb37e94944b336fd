//! The declaration on an agent card the user already has (as JSON, from
//! whichever A2A SDK), and the declaration read back from any agent's card.

use serde_json::Value;

use crate::constants::EXTENSION_URI;
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
    /// # extern crate learnables_core as learnables;
    /// use learnables::CardDeclaration;
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

    #[cfg(feature = "a2a-types")]
    /// Finds the Learnables entry of a typed agent card and reads its
    /// params, as [`CardDeclaration::read`] does: `Ok(None)` when the card
    /// declares no Learnables; `Err` with every violation, each with its
    /// path, when it declares them wrongly.
    ///
    /// ```
    /// # extern crate learnables_core as learnables;
    /// use learnables::CardDeclaration;
    /// let card: a2a::AgentCard = serde_json::from_value(serde_json::json!({
    ///     "name": "Agent", "version": "1", "supportedInterfaces": [],
    ///     "capabilities": {"extensions": [
    ///         {"uri": "https://example.com/other/v1"},
    ///         {"uri": "https://rsaxb.com/a2a/learnables/v1", "required": false,
    ///          "params": {"learnables": []}}]}
    /// })).unwrap();
    /// let declared = CardDeclaration::read_agent_card(&card).unwrap().unwrap();
    /// assert_eq!(declared.index, 1);
    /// assert!(declared.params.learnables.is_empty());
    /// ```
    pub fn read_agent_card(card: &a2a::AgentCard) -> Result<Option<CardDeclaration>, Violations> {
        let json = card_json(card).map_err(|error| {
            Violations::one(
                "capabilities.extensions",
                format!("the card's extensions do not read as JSON: {error}"),
            )
        })?;
        CardDeclaration::read(&json)
    }
}

#[cfg(feature = "a2a-types")]
/// What the JSON card functions look at of a typed card: its skills and
/// its capabilities' extensions.
pub fn card_json(card: &a2a::AgentCard) -> serde_json::Result<Value> {
    let mut capabilities = serde_json::Map::new();
    if let Some(extensions) = &card.capabilities.extensions {
        capabilities.insert("extensions".into(), serde_json::to_value(extensions)?);
    }
    let mut json = serde_json::Map::new();
    json.insert("skills".into(), serde_json::to_value(&card.skills)?);
    json.insert("capabilities".into(), Value::Object(capabilities));
    Ok(Value::Object(json))
}
