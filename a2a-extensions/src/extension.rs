//! An extension as its agent declares it: its URI, whether clients must
//! activate it, its card params, and the JSON-RPC methods it adds; and its
//! entry in the agent card's `capabilities.extensions[]`.

use std::sync::Arc;

use serde_json::{Map, Value};

#[cfg(feature = "layer")]
use crate::uri_scan::Uri;

/// An A2A extension an agent serves. Cheap to clone.
///
/// ```
/// use a2a_extensions::Extension;
/// let greeting = Extension::new("https://example.com/a2a/greeting/v1")
///     .named("Greeting")
///     .description("Greets a person by name")
///     .params(serde_json::json!({"languages": ["en", "fr"]}))
///     .method("example.greeting.Greet");
/// assert!(greeting.serves("example.greeting.Greet"));
/// assert_eq!(
///     greeting.card_entry(),
///     serde_json::json!({
///         "uri": "https://example.com/a2a/greeting/v1",
///         "description": "Greets a person by name",
///         "required": false,
///         "params": {"languages": ["en", "fr"]}
///     })
/// );
/// ```
#[derive(Debug, Clone)]
pub struct Extension {
    declared: Arc<Declared>,
}

#[derive(Debug, Clone)]
struct Declared {
    #[cfg(feature = "layer")]
    uri: Arc<Uri>,
    text: String,
    name: Option<String>,
    description: Option<String>,
    required: bool,
    params: Option<Value>,
    methods: Vec<String>,
}

impl Extension {
    /// The extension of `uri` (compared byte for byte, as A2A compares
    /// them), not required, with no params and no method yet.
    pub fn new(uri: impl Into<String>) -> Extension {
        let text = uri.into();
        Extension {
            declared: Arc::new(Declared {
                #[cfg(feature = "layer")]
                uri: Uri::new(&text),
                text,
                name: None,
                description: None,
                required: false,
                params: None,
                methods: Vec::new(),
            }),
        }
    }

    fn changed(mut self, change: impl FnOnce(&mut Declared)) -> Extension {
        change(Arc::make_mut(&mut self.declared));
        self
    }

    /// Its name in messages to people ("`m` needs the Greeting extension
    /// activated"); its URI when none is given.
    pub fn named(self, name: impl Into<String>) -> Extension {
        self.changed(|declared| declared.name = Some(name.into()))
    }

    /// The `description` of its card entry.
    pub fn description(self, description: impl Into<String>) -> Extension {
        self.changed(|declared| declared.description = Some(description.into()))
    }

    /// Whether clients must activate it (the card entry's `required`):
    /// a required extension's agent refuses every method, its own and the
    /// host's, of a request that did not activate it.
    pub fn required(self, required: bool) -> Extension {
        self.changed(|declared| declared.required = required)
    }

    /// The `params` of its card entry.
    pub fn params(self, params: Value) -> Extension {
        self.changed(|declared| declared.params = Some(params))
    }

    /// Adds a JSON-RPC method it serves.
    pub fn method(self, method: impl Into<String>) -> Extension {
        self.changed(|declared| declared.methods.push(method.into()))
    }

    /// Its URI.
    pub fn uri(&self) -> &str {
        &self.declared.text
    }

    /// Its name in messages to people.
    pub fn name(&self) -> &str {
        self.declared.name.as_deref().unwrap_or(&self.declared.text)
    }

    /// Whether clients must activate it.
    pub fn is_required(&self) -> bool {
        self.declared.required
    }

    /// Whether `method` is one of its methods.
    pub fn serves(&self, method: &str) -> bool {
        self.declared.methods.iter().any(|served| served == method)
    }

    /// Its methods, in the order declared.
    pub fn methods(&self) -> impl Iterator<Item = &str> {
        self.declared.methods.iter().map(String::as_str)
    }

    /// Its URI, prepared for the scrubbers.
    #[cfg(feature = "layer")]
    pub(crate) fn pattern(&self) -> &Arc<Uri> {
        &self.declared.uri
    }

    /// Its entry in an agent card's `capabilities.extensions[]` (A2A's
    /// `AgentExtension`): `uri`, `description` and `params` when given,
    /// `required`.
    pub fn card_entry(&self) -> Value {
        let declared = &*self.declared;
        let mut entry = Map::new();
        entry.insert("uri".into(), Value::String(declared.text.clone()));
        if let Some(description) = &declared.description {
            entry.insert("description".into(), Value::String(description.clone()));
        }
        entry.insert("required".into(), Value::Bool(declared.required));
        if let Some(params) = &declared.params {
            entry.insert("params".into(), params.clone());
        }
        Value::Object(entry)
    }

    /// Puts [`Extension::card_entry`] in a card's
    /// `capabilities.extensions[]` (created when missing), replacing an
    /// earlier entry of the same URI; an error naming the part of the card
    /// whose shape is wrong.
    ///
    /// ```
    /// use a2a_extensions::Extension;
    /// let mut card = serde_json::json!({"name": "Agent", "capabilities": {"streaming": true}});
    /// let greeting = Extension::new("https://example.com/a2a/greeting/v1");
    /// greeting.add_to_card(&mut card).unwrap();
    /// greeting.add_to_card(&mut card).unwrap();
    /// assert_eq!(card["capabilities"]["extensions"].as_array().unwrap().len(), 1);
    /// assert!(greeting.add_to_card(&mut serde_json::json!([])).is_err());
    /// ```
    pub fn add_to_card(&self, card: &mut Value) -> Result<(), CardShapeError> {
        let Value::Object(card) = card else {
            return Err(CardShapeError("the card is not a JSON object"));
        };
        let Value::Object(capabilities) = card
            .entry("capabilities")
            .or_insert_with(|| Value::Object(Map::new()))
        else {
            return Err(CardShapeError(
                "the card's capabilities are not a JSON object",
            ));
        };
        let Value::Array(extensions) = capabilities
            .entry("extensions")
            .or_insert_with(|| Value::Array(Vec::new()))
        else {
            return Err(CardShapeError(
                "the card's capabilities.extensions is not a JSON array",
            ));
        };
        extensions.retain(|extension| !self.is_entry(extension));
        extensions.push(self.card_entry());
        Ok(())
    }

    /// Its entry in the A2A SDK's typed card (`a2a-lf`'s `AgentExtension`,
    /// feature `a2a-types`): [`Extension::card_entry`] as the SDK's type;
    /// an error when its params are not a JSON object (the type holds an
    /// object).
    ///
    /// ```
    /// use a2a_extensions::Extension;
    /// let entry = Extension::new("https://example.com/a2a/greeting/v1")
    ///     .params(serde_json::json!({"languages": ["en"]}))
    ///     .agent_extension()
    ///     .unwrap();
    /// assert_eq!(entry.required, Some(false));
    /// assert_eq!(entry.params.unwrap()["languages"], serde_json::json!(["en"]));
    /// ```
    #[cfg(feature = "a2a-types")]
    pub fn agent_extension(&self) -> Result<a2a::AgentExtension, CardShapeError> {
        let declared = &*self.declared;
        let params = match &declared.params {
            None => None,
            Some(Value::Object(params)) => Some(
                params
                    .iter()
                    .map(|(key, value)| (key.clone(), value.clone()))
                    .collect(),
            ),
            Some(_) => {
                return Err(CardShapeError(
                    "the extension's params are not a JSON object, as the SDK's AgentExtension holds them",
                ));
            }
        };
        Ok(a2a::AgentExtension {
            uri: declared.text.clone(),
            description: declared.description.clone(),
            required: Some(declared.required),
            params,
        })
    }

    /// Puts its entry in the SDK's typed card's
    /// `capabilities.extensions` (feature `a2a-types`), replacing an
    /// earlier entry of the same URI, as [`Extension::add_to_card`] does
    /// on JSON.
    ///
    /// ```
    /// use a2a_extensions::Extension;
    /// let mut card: a2a::AgentCard = serde_json::from_value(serde_json::json!({
    ///     "name": "Agent", "description": "An agent", "version": "1",
    ///     "supportedInterfaces": [], "capabilities": {},
    ///     "defaultInputModes": [], "defaultOutputModes": [], "skills": []
    /// }))
    /// .unwrap();
    /// let greeting = Extension::new("https://example.com/a2a/greeting/v1");
    /// greeting.add_to_agent_card(&mut card).unwrap();
    /// greeting.add_to_agent_card(&mut card).unwrap();
    /// let entries = card.capabilities.extensions.as_ref().unwrap();
    /// assert_eq!(entries.len(), 1);
    /// assert_eq!(entries[0].uri, "https://example.com/a2a/greeting/v1");
    /// ```
    #[cfg(feature = "a2a-types")]
    pub fn add_to_agent_card(&self, card: &mut a2a::AgentCard) -> Result<(), CardShapeError> {
        let entry = self.agent_extension()?;
        let extensions = card.capabilities.extensions.get_or_insert_with(Vec::new);
        extensions.retain(|extension| extension.uri != entry.uri);
        extensions.push(entry);
        Ok(())
    }

    /// Its entry in a card, and where it is in `capabilities.extensions[]`.
    ///
    /// ```
    /// use a2a_extensions::Extension;
    /// let card = serde_json::json!({"capabilities": {"extensions": [
    ///     {"uri": "https://example.com/other/v1"},
    ///     {"uri": "https://example.com/a2a/greeting/v1", "required": true}]}});
    /// let (index, entry) = Extension::new("https://example.com/a2a/greeting/v1")
    ///     .find_in_card(&card)
    ///     .unwrap();
    /// assert_eq!((index, entry["required"].as_bool()), (1, Some(true)));
    /// ```
    pub fn find_in_card<'c>(&self, card: &'c Value) -> Option<(usize, &'c Value)> {
        card.get("capabilities")?
            .get("extensions")?
            .as_array()?
            .iter()
            .enumerate()
            .find(|(_, extension)| self.is_entry(extension))
    }

    fn is_entry(&self, extension: &Value) -> bool {
        extension.get("uri").and_then(Value::as_str) == Some(self.uri())
    }
}

/// Why an extension's entry could not be put on a card: the part of the
/// card whose shape is wrong, in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardShapeError(&'static str);

impl std::fmt::Display for CardShapeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

impl std::error::Error for CardShapeError {}
