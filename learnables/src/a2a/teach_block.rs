//! The teachable proposal on a question (the spec's `TeachBlock`): its
//! builders, typed for a learnable or over a descriptor; its check against
//! the learnable's descriptor; and how it rides on an A2A v1.0 message
//! (under the message's `metadata`, keyed by the extension URI, at `teach`,
//! with the URI listed in the message's `extensions`), as JSON from any SDK
//! or as the typed message of `a2a-lf`.

#[cfg(feature = "a2a-types")]
use std::collections::HashMap;
use std::fmt::Display;
use std::marker::PhantomData;

#[cfg(feature = "a2a-types")]
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

#[cfg(feature = "a2a-server")]
use super::activation::Activation;
use super::message_error::MessageError;
use super::suggestion::{RefusedSuggestion, Suggested, check_by_descriptor, check_typed};
use super::unknown_field::UnknownField;
use crate::EXTENSION_URI;
use crate::FieldRef;
use crate::Learnable;
use crate::Violations;
use crate::{LearnableDescriptor, LessonField};

/// A teachable proposal attached to a question: the spec's `TeachBlock`,
/// carried in the question message's metadata under the extension URI, at
/// `teach`.
///
/// ```
/// use learnables::TeachBlock;
/// let block = TeachBlock::new("routing_rules", ["85"]);
/// assert_eq!(
///     serde_json::to_value(&block).unwrap(),
///     serde_json::json!({"collection": "routing_rules", "entries": ["85"]})
/// );
/// ```
///
/// It is `#[non_exhaustive]`, so that a field the spec adds is not a
/// breaking change: build one with [`TeachBlock::new`], then set its
/// optional fields; its fields stay public to read and to set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TeachBlock {
    /// The collection a lesson would teach.
    pub collection: String,
    /// The entries the question is about.
    pub entries: Vec<String>,
    /// Prefill for the lesson value; its keys are lesson field names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggested: Option<Map<String, Value>>,
    /// Says where the suggestion came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggestion_label: Option<String>,
    /// The fields to ask for, when they differ from the descriptor's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lesson_fields: Option<Vec<LessonField>>,
}

impl TeachBlock {
    /// A block for `collection` about `entries`, with nothing suggested.
    pub fn new<I, S>(collection: impl Into<String>, entries: I) -> TeachBlock
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        TeachBlock {
            collection: collection.into(),
            entries: entries.into_iter().map(Into::into).collect(),
            suggested: None,
            suggestion_label: None,
            lesson_fields: None,
        }
    }

    /// A typed builder for learnable `T`'s block about `entries`.
    pub fn builder<T: Learnable>(
        entries: impl IntoIterator<Item = impl Into<String>>,
    ) -> TeachBlockBuilder<T> {
        TeachBlockBuilder {
            block: TeachBlock::new(T::descriptor().collection.clone(), entries),
            _learnable: PhantomData,
        }
    }

    /// The suggestion and the entries: what a suggestion check reads.
    pub(crate) fn parts(&self) -> Suggested<'_> {
        (self.suggested.as_ref(), &self.entries)
    }

    /// Checks the block against the descriptor of the learnable it is for:
    /// the same collection; its own `lessonFields`, if any, valid and each
    /// one of the descriptor's; as the spec requires, every `suggested` key
    /// one of the applicable lesson fields' names; and every suggested
    /// value one the learnable would take ([`TeachBlock::check_suggestion`]).
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
        Violations::collect(|report| {
            if self.collection != descriptor.collection {
                report.at(
                    "collection",
                    format!(
                        "the block is for `{}`, but the learnable is `{}`",
                        crate::shared::shortened(&self.collection),
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
                                crate::shared::shortened(&field.name),
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
                            crate::shared::shortened(key),
                            names.join(", ")
                        ),
                    );
                }
            }
            if let Err(refused) = self.check_suggestion(descriptor) {
                for problem in refused.problems() {
                    // An unknown key is said above, against the block's own fields.
                    if let (Some(field), false) = (
                        problem.field(),
                        matches!(problem, crate::LessonProblem::UnknownField { .. }),
                    ) {
                        report.nested("suggested").at(field, problem.in_words());
                    }
                }
            }
        })
    }

    /// Checks the suggestion by value against `descriptor`, the learnable's
    /// (ours, or one read from another agent's card): every suggested key
    /// one of its fields, every value one its field checks accept
    /// (`learnables_core::field_check`; `null` or a blank text only for a
    /// field a lesson may leave out), and each entry a value of the entry's
    /// key field, agreeing with its suggestion. Fields it leaves out are not
    /// missing: a suggestion is a prefill. Every field at fault is named.
    ///
    /// ```
    /// use learnables::{FieldKind, LearnableDescriptor, LessonField, TeachBlock};
    /// let routing = LearnableDescriptor::new("routing_rules", "routing rule",
    ///     "Which desk handles a declaration", "A table keyed on the HS chapter", "rules")
    ///     .with_field(LessonField::new("desk", "Desk", FieldKind::CHOICE)
    ///         .with_choices(["general", "cold chain"]));
    /// let mut block = TeachBlock::new("routing_rules", ["85"]);
    /// block.suggested = Some(serde_json::from_str(r#"{"desk": "urgent"}"#).unwrap());
    /// let refused = block.check_suggestion(&routing).unwrap_err();
    /// assert_eq!(refused.problems()[0].field(), Some("desk"));
    /// block.suggested = Some(serde_json::from_str(r#"{"desk": "cold chain"}"#).unwrap());
    /// assert!(block.check_suggestion(&routing).is_ok());
    /// ```
    pub fn check_suggestion(
        &self,
        descriptor: &LearnableDescriptor,
    ) -> Result<(), RefusedSuggestion> {
        check_by_descriptor(descriptor, self.parts())
    }

    /// Puts this block on an A2A message (JSON): `metadata[URI].teach`, and
    /// the URI in `extensions`. Other metadata and extensions are kept.
    ///
    /// ```
    /// use learnables::TeachBlock;
    /// let mut message = serde_json::json!({
    ///     "messageId": "m1", "role": "ROLE_AGENT", "parts": [{"text": "Which desk?"}]
    /// });
    /// TeachBlock::new("routing_rules", ["85"]).attach_to(&mut message).unwrap();
    /// assert_eq!(message["extensions"][0], "https://rsaxb.com/a2a/learnables/v1");
    /// let read = TeachBlock::from_message(&message).unwrap().unwrap();
    /// assert_eq!(read.entries, ["85"]);
    /// ```
    pub fn attach_to(&self, message: &mut Value) -> Result<(), MessageError> {
        let Value::Object(message) = message else {
            return Err(MessageError::Shape(
                "body",
                "it is not a JSON object".into(),
            ));
        };
        let block = serde_json::to_value(self)
            .map_err(|error| MessageError::TeachBlock(error.to_string()))?;
        let metadata = object_at(message, "metadata")?;
        let mut ours = Map::new();
        ours.insert("teach".into(), block);
        metadata.insert(EXTENSION_URI.into(), Value::Object(ours));
        let extensions = message
            .entry("extensions")
            .or_insert_with(|| Value::Array(Vec::new()));
        let Value::Array(extensions) = extensions else {
            return Err(MessageError::Shape(
                "extensions",
                "it is not an array".into(),
            ));
        };
        if !extensions.iter().any(|uri| uri == EXTENSION_URI) {
            extensions.push(Value::String(EXTENSION_URI.into()));
        }
        Ok(())
    }

    /// The teach block an A2A message (JSON) carries, if it carries one.
    pub fn from_message(message: &Value) -> Result<Option<TeachBlock>, MessageError> {
        let Some(block) = message
            .get("metadata")
            .and_then(|metadata| metadata.get(EXTENSION_URI))
            .and_then(|ours| ours.get("teach"))
        else {
            return Ok(None);
        };
        serde_json::from_value(block.clone())
            .map(Some)
            .map_err(|error| MessageError::TeachBlock(error.to_string()))
    }

    #[cfg(feature = "a2a-types")]
    /// Puts this block on a typed A2A message, as [`TeachBlock::attach_to`]
    /// does: `metadata[URI].teach`, and the URI in `extensions`. Other
    /// metadata and extensions are kept.
    ///
    /// ```
    /// use a2a::{Message, Part, Role};
    /// use learnables::{EXTENSION_URI, TeachBlock};
    /// let mut message = Message::new(Role::Agent, vec![Part::text("Which desk?")]);
    /// TeachBlock::new("routing_rules", ["85"]).attach_to_message(&mut message).unwrap();
    /// assert_eq!(message.extensions, Some(vec![EXTENSION_URI.to_owned()]));
    /// let teach = &message.metadata.as_ref().unwrap()[EXTENSION_URI]["teach"];
    /// assert_eq!(teach["collection"], "routing_rules");
    /// ```
    pub fn attach_to_message(&self, message: &mut a2a::Message) -> Result<(), MessageError> {
        let mut json = Map::new();
        if let Some(metadata) = &message.metadata {
            json.insert("metadata".into(), to_json("metadata", metadata)?);
        }
        if let Some(extensions) = &message.extensions {
            json.insert("extensions".into(), to_json("extensions", extensions)?);
        }
        let mut json = Value::Object(json);
        self.attach_to(&mut json)?;
        let metadata: HashMap<String, Value> = from_json("metadata", &mut json)?;
        let extensions: Vec<String> = from_json("extensions", &mut json)?;
        message.metadata = Some(metadata);
        message.extensions = Some(extensions);
        Ok(())
    }

    #[cfg(feature = "a2a-types")]
    /// The teach block a typed A2A message carries, if it carries one, read
    /// as [`TeachBlock::from_message`] reads it.
    ///
    /// ```
    /// use a2a::{Message, Part, Role};
    /// use learnables::TeachBlock;
    /// let mut message = Message::new(Role::Agent, vec![Part::text("Which desk?")]);
    /// assert_eq!(TeachBlock::from_a2a_message(&message).unwrap(), None);
    /// let block = TeachBlock::new("routing_rules", ["85"]);
    /// block.attach_to_message(&mut message).unwrap();
    /// assert_eq!(TeachBlock::from_a2a_message(&message).unwrap(), Some(block));
    /// ```
    pub fn from_a2a_message(message: &a2a::Message) -> Result<Option<TeachBlock>, MessageError> {
        let Some(metadata) = &message.metadata else {
            return Ok(None);
        };
        let mut json = Map::new();
        json.insert("metadata".into(), to_json("metadata", metadata)?);
        TeachBlock::from_message(&Value::Object(json))
    }

    #[cfg(feature = "a2a-server")]
    /// Puts this block on `message` if `activation` includes the extension,
    /// after checking it against its learnable's `descriptor`: the same
    /// collection, `suggested` keys that are lesson fields, and suggested
    /// values the learnable would take ([`TeachBlock::check_suggestion`];
    /// refused as [`MessageError::Suggestion`], so a value the learnable
    /// would refuse never reaches a teacher). Whether it was attached;
    /// without activation nothing is checked or changed.
    ///
    /// ```
    /// use a2a::{Message, Part, Role};
    /// use learnables::a2a::{Activation, MessageError};
    /// use learnables::{FieldKind, LearnableDescriptor, LessonField, TeachBlock};
    /// let rates = LearnableDescriptor::new("rates", "rate", "Which rate applies",
    ///     "A table kept by the tariff team", "rules")
    ///     .with_field(LessonField::new("rate", "Rate", FieldKind::TEXT));
    /// let activated = Activation::from_header_values([learnables::EXTENSION_URI]);
    /// let mut reply = Message::new(Role::Agent, vec![Part::text("Which rate?")]);
    /// let mut block = TeachBlock::new("rates", ["r1"]);
    /// block.suggested = Some(serde_json::from_value(serde_json::json!({"rat": "4%"})).unwrap());
    /// let refused = block.attach_checked(&rates, &activated, &mut reply).unwrap_err();
    /// assert!(matches!(refused, MessageError::UnknownField(_)));
    /// assert_eq!(block.attach_checked(&rates, &Activation::default(), &mut reply), Ok(false));
    /// let rates = rates.with_field(
    ///     LessonField::new("band", "Band", FieldKind::CHOICE).with_choices(["low", "high"]));
    /// block.suggested = Some(serde_json::from_value(serde_json::json!({"band": "urgent"})).unwrap());
    /// let refused = block.attach_checked(&rates, &activated, &mut reply).unwrap_err();
    /// assert!(matches!(refused, MessageError::Suggestion(_)));
    /// assert!(TeachBlock::from_a2a_message(&reply).unwrap().is_none());
    /// ```
    pub fn attach_checked(
        &self,
        descriptor: &LearnableDescriptor,
        activation: &Activation,
        message: &mut a2a::Message,
    ) -> Result<bool, MessageError> {
        self.attach_after_check(descriptor, activation, message, || {
            check_by_descriptor(descriptor, self.parts())
        })
    }

    #[cfg(feature = "a2a-server")]
    /// [`TeachBlock::attach_checked`], its values checked by `check`.
    pub(crate) fn attach_after_check(
        &self,
        descriptor: &LearnableDescriptor,
        activation: &Activation,
        message: &mut a2a::Message,
        check: impl FnOnce() -> Result<(), RefusedSuggestion>,
    ) -> Result<bool, MessageError> {
        if !activation.learnables() {
            return Ok(false);
        }
        if self.collection != descriptor.collection {
            return Err(MessageError::TeachBlock(format!(
                "the block is about `{}`, but the learnable is `{}`",
                crate::shared::shortened(&self.collection),
                descriptor.collection
            )));
        }
        if let Some(key) = self
            .suggested
            .iter()
            .flat_map(|suggested| suggested.keys())
            .find(|key| descriptor.field(key).is_none())
        {
            return Err(MessageError::UnknownField(UnknownField::new(
                key, descriptor,
            )));
        }
        check().map_err(MessageError::Suggestion)?;
        self.attach_to_message(message)?;
        Ok(true)
    }
}

/// A teach block for learnable `T`, built field by field.
///
/// ```
/// use learnables::{Choice, Learnable, TeachBlock};
/// # #[derive(Learnable)]
/// # #[learnable(collection = "routing_rules", entry = "routing rule", teaches = "Which desk",
/// #     how = "A table keyed on the HS chapter", decided_by = "rules", describes = "{desk}")]
/// # struct RoutingRule { #[learnable(label = "HS chapter")] chapter: u8,
/// #     #[learnable(label = "Desk")] desk: Desk }
/// # #[derive(Choice)] enum Desk { General, ColdChain }
/// let block = TeachBlock::builder::<RoutingRule>(["85"])
///     .suggest(RoutingRule::FIELDS.chapter, 85)
///     .suggest(RoutingRule::FIELDS.desk, Desk::ColdChain)
///     .suggestion_label("Chapter 84 goes there too")
///     .build();
/// assert_eq!(
///     serde_json::to_value(&block).unwrap(),
///     serde_json::json!({
///         "collection": "routing_rules", "entries": ["85"],
///         "suggested": {"chapter": "85", "desk": "cold-chain"},
///         "suggestionLabel": "Chapter 84 goes there too"
///     })
/// );
/// ```
#[derive(Debug, Clone)]
pub struct TeachBlockBuilder<T> {
    block: TeachBlock,
    _learnable: PhantomData<fn() -> T>,
}

impl<T: Learnable> TeachBlockBuilder<T> {
    /// Suggests `value` for `field`, written as the field's lesson value
    /// (its `Display` form, as a form sends it).
    pub fn suggest<V: Display>(mut self, field: FieldRef<T, V>, value: V) -> Self {
        self.block
            .suggested
            .get_or_insert_with(Map::new)
            .insert(field.name().to_owned(), Value::String(value.to_string()));
        self
    }

    /// Suggests every field of `value`.
    pub fn suggest_all(mut self, value: &T) -> Self {
        let suggested = self.block.suggested.get_or_insert_with(Map::new);
        if let Value::Object(fields) = value.to_lesson_value().into_json() {
            suggested.extend(fields);
        }
        self
    }

    /// Says where the suggestion came from.
    pub fn suggestion_label(mut self, label: impl Into<String>) -> Self {
        self.block.suggestion_label = Some(label.into());
        self
    }

    /// Includes the learnable's lesson fields in the block, for clients
    /// that did not read the agent card.
    pub fn with_lesson_fields(mut self) -> Self {
        self.block.lesson_fields = Some(T::descriptor().lesson_fields.clone());
        self
    }

    /// The block.
    pub fn build(self) -> TeachBlock {
        self.block
    }

    #[cfg(feature = "a2a-server")]
    /// Puts the block on `message` (the executor's reply) if the request
    /// behind `context` activated the extension; without activation it does
    /// nothing. Whether the block was attached. The suggestion is checked
    /// through `T`'s own parser first, for each entry: a value `T` would
    /// refuse (one past a field's range, another entry's key) is
    /// [`MessageError::Suggestion`] and never reaches a teacher.
    ///
    /// ```
    /// # use learnables::{Choice, Learnable, TeachBlock};
    /// # #[derive(Learnable)]
    /// # #[learnable(collection = "routing_rules", entry = "routing rule", teaches = "Which desk",
    /// #     how = "A table keyed on the HS chapter", decided_by = "rules", describes = "{desk}")]
    /// # struct RoutingRule { #[learnable(label = "HS chapter")] chapter: u8,
    /// #     #[learnable(label = "Desk")] desk: Desk }
    /// # #[derive(Choice)] enum Desk { General, ColdChain }
    /// use a2a::{Message, Part, Role};
    /// use a2a_server::ExecutorContext;
    /// let context = |headers: &[(&str, &str)]| ExecutorContext {
    ///     message: None, task_id: "t".into(), stored_task: None, context_id: "c".into(),
    ///     metadata: None, user: None, tenant: None,
    ///     service_params: headers.iter()
    ///         .map(|(k, v)| (k.to_string(), vec![v.to_string()])).collect(),
    /// };
    /// let question = || Message::new(Role::Agent, vec![Part::text("Which desk?")]);
    /// let block = || TeachBlock::builder::<RoutingRule>(["85"]).suggest(RoutingRule::FIELDS.chapter, 85);
    ///
    /// let mut reply = question();
    /// let asked = reply.clone();
    /// assert!(!block().attach_if_activated(&context(&[]), &mut reply).unwrap());
    /// assert_eq!(reply, asked);
    ///
    /// let activated = context(&[("a2a-extensions", learnables::EXTENSION_URI)]);
    /// assert!(block().attach_if_activated(&activated, &mut reply).unwrap());
    /// assert!(TeachBlock::from_a2a_message(&reply).unwrap().is_some());
    /// ```
    pub fn attach_if_activated(
        self,
        context: &a2a_server::ExecutorContext,
        message: &mut a2a::Message,
    ) -> Result<bool, MessageError> {
        let block = self.build();
        block.attach_after_check(T::descriptor(), &Activation::of(context), message, || {
            check_typed::<T>(block.parts())
        })
    }

    /// Checks the suggestion through `T`'s own parser, for each entry of the
    /// block: what [`TeachBlockBuilder::attach_if_activated`] checks.
    ///
    /// ```
    /// # use learnables::{Choice, Learnable, TeachBlock};
    /// # #[derive(Learnable)]
    /// # #[learnable(collection = "routing_rules", entry = "routing rule", teaches = "Which desk",
    /// #     how = "A table keyed on the HS chapter", decided_by = "rules", describes = "{desk}")]
    /// # struct RoutingRule { #[learnable(label = "HS chapter", entry_key)] chapter: u8,
    /// #     #[learnable(label = "Desk")] desk: Desk }
    /// # #[derive(Choice)] enum Desk { General, ColdChain }
    /// let other_entry = TeachBlock::builder::<RoutingRule>(["85"]).suggest(RoutingRule::FIELDS.chapter, 12);
    /// let refused = other_entry.check_suggestion().unwrap_err();
    /// assert_eq!(refused.problems()[0].field(), Some("chapter"));
    /// assert!(TeachBlock::builder::<RoutingRule>(["85"]).suggest(RoutingRule::FIELDS.chapter, 85)
    ///     .check_suggestion().is_ok());
    /// ```
    pub fn check_suggestion(&self) -> Result<(), RefusedSuggestion> {
        check_typed::<T>(self.block.parts())
    }
}

fn object_at<'a>(
    parent: &'a mut Map<String, Value>,
    key: &'static str,
) -> Result<&'a mut Map<String, Value>, MessageError> {
    match parent
        .entry(key)
        .or_insert_with(|| Value::Object(Map::new()))
    {
        Value::Object(object) => Ok(object),
        _ => Err(MessageError::Shape(key, "it is not a JSON object".into())),
    }
}

#[cfg(feature = "a2a-types")]
fn to_json(field: &'static str, value: &impl Serialize) -> Result<Value, MessageError> {
    serde_json::to_value(value).map_err(|error| MessageError::Shape(field, error.to_string()))
}

#[cfg(feature = "a2a-types")]
fn from_json<T: DeserializeOwned>(
    field: &'static str,
    json: &mut Value,
) -> Result<T, MessageError> {
    let value = json.get_mut(field).map(Value::take).unwrap_or(Value::Null);
    serde_json::from_value(value).map_err(|error| MessageError::Shape(field, error.to_string()))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn attaching_keeps_other_metadata_and_extensions_and_does_not_repeat_the_uri() {
        let mut message = json!({
            "messageId": "m", "role": "ROLE_AGENT", "parts": [],
            "metadata": {"other": 1}, "extensions": ["https://example.com/x"]
        });
        let block = TeachBlock::new("c", ["e"]);
        block.attach_to(&mut message).unwrap();
        block.attach_to(&mut message).unwrap();
        assert_eq!(message["metadata"]["other"], 1);
        assert_eq!(
            message["extensions"],
            json!(["https://example.com/x", EXTENSION_URI])
        );
    }

    #[test]
    fn wrong_shapes_are_reported() {
        let mut not_object = json!([]);
        assert!(
            TeachBlock::new("c", ["e"])
                .attach_to(&mut not_object)
                .is_err()
        );
        let mut bad_metadata = json!({"metadata": 3});
        assert_eq!(
            TeachBlock::new("c", ["e"])
                .attach_to(&mut bad_metadata)
                .unwrap_err(),
            MessageError::Shape("metadata", "it is not a JSON object".into())
        );
        let bad_block = json!({"metadata": {EXTENSION_URI: {"teach": {"collection": 1}}}});
        assert!(matches!(
            TeachBlock::from_message(&bad_block),
            Err(MessageError::TeachBlock(_))
        ));
        assert_eq!(TeachBlock::from_message(&json!({"parts": []})), Ok(None));
    }
}
