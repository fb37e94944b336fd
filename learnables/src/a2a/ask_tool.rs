//! The tool a model calls to ask a person (for an agent whose decision a
//! model makes, `decidedBy: "model"`): its name, description and input
//! schema come from the learnables it may ask about; its call becomes the
//! question of an input-required turn with its teach block, the model's
//! suggestion checked by value through the learnable's parser (or, for
//! another agent's learnable, its descriptor's field checks). A refused
//! call is answered to the model field by field in words, so that it can
//! correct itself. The model never writes a lesson: a person answers.
//!
//! ```
//! use learnables::a2a::AskTool;
//! use learnables::{Choice, Learnable};
//! # #[derive(Learnable, Debug, Clone)]
//! # #[learnable(collection = "routing_rules", entry = "routing rule", teaches = "Which desk",
//! #     how = "A table keyed on the HS chapter", decided_by = "model", describes = "{desk}")]
//! # struct RoutingRule { #[learnable(label = "HS chapter", entry_key)] chapter: u8,
//! #     #[learnable(label = "Desk")] desk: Desk }
//! # #[derive(Choice, Debug, Clone)] enum Desk { General, ColdChain }
//! let tool = AskTool::new().learnable::<RoutingRule>();
//! assert_eq!(tool.name(), "ask_a_person");
//! assert_eq!(tool.input_schema()["properties"]["learnable"]["enum"][0], "routing_rules");
//!
//! let refused = tool.call(r#"{"learnable": "routing_rules", "entries": ["85"],
//!     "question": "Which desk handles chapter 85?", "suggestion": {"desk": "urgent"}}"#)
//!     .unwrap_err();
//! assert!(refused.to_string().contains("suggestion.desk: Desk: \"urgent\" is not one of the choices"));
//!
//! let asked = tool.call(r#"{"learnable": "routing_rules", "entries": ["85"],
//!     "question": "Which desk handles chapter 85?", "suggestion": {"desk": "cold-chain"}}"#)
//!     .unwrap();
//! assert_eq!(asked.block.entries, ["85"]);
//! assert_eq!(asked.block.suggested.unwrap()["desk"], "cold-chain");
//! ```

use std::fmt;

use serde_json::{Map, Value, json};

use super::suggestion::{RefusedSuggestion, Suggested, check_by_descriptor, check_typed};
use crate::untrusted::{HiddenCharacter, Untrusted};
use crate::{Learnable, LearnableDescriptor, TeachBlock, strict_lesson_schema};

/// The tool's name.
pub const ASK_TOOL_NAME: &str = "ask_a_person";

/// The most entries one question may be about.
pub const MAX_ASKED_ENTRIES: usize = 16;

/// The most characters of one entry's name.
const MAX_ENTRY_CHARS: usize = 200;

/// The most characters of the question.
pub const MAX_QUESTION_CHARS: usize = 2000;

/// The most bytes of a call's arguments read.
const MAX_ARGUMENT_BYTES: usize = 64 * 1024;

/// What labels a suggestion the model made, on the teacher's form.
pub const MODEL_SUGGESTION_LABEL: &str = "Suggested by the agent's model";

/// How a learnable's suggestion is checked.
#[derive(Clone)]
enum Check {
    /// Through the type's own parser.
    Typed(fn(Suggested<'_>) -> Result<(), RefusedSuggestion>),
    /// Against the descriptor's field checks.
    Descriptor,
}

/// One learnable the model may ask about.
#[derive(Clone)]
struct Target {
    descriptor: LearnableDescriptor,
    check: Check,
}

impl Target {
    fn check(&self, block: &TeachBlock) -> Result<(), RefusedSuggestion> {
        match self.check {
            Check::Typed(check) => check(block.parts()),
            Check::Descriptor => check_by_descriptor(&self.descriptor, block.parts()),
        }
    }
}

/// The ask tool over the learnables a model may ask a person about (the
/// chapter "Agents whose model decides" in docs/ says how a model uses it).
#[derive(Clone, Default)]
pub struct AskTool {
    targets: Vec<Target>,
}

impl fmt::Debug for AskTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let collections: Vec<&str> = self
            .targets
            .iter()
            .map(|target| target.descriptor.collection.as_str())
            .collect();
        f.debug_struct("AskTool")
            .field("learnables", &collections)
            .finish()
    }
}

impl AskTool {
    /// A tool over no learnable yet.
    pub fn new() -> AskTool {
        AskTool::default()
    }

    /// The model may ask about `T`; its suggestions are checked through
    /// `T`'s parser.
    pub fn learnable<T: Learnable>(mut self) -> AskTool {
        self.targets.push(Target {
            descriptor: T::descriptor().clone(),
            check: Check::Typed(check_typed::<T>),
        });
        self
    }

    /// The model may ask about a learnable known by its descriptor only
    /// (another agent's, read from its card); suggestions are checked
    /// against its field checks.
    ///
    /// ```
    /// use learnables::a2a::AskTool;
    /// use learnables::{FieldKind, LearnableDescriptor, LessonField};
    /// let rates = LearnableDescriptor::new("rates", "rate", "Which rate applies",
    ///     "A table kept by the tariff team", "model")
    ///     .with_field(LessonField::new("band", "Band", FieldKind::CHOICE).with_choices(["low", "high"]));
    /// let tool = AskTool::new().descriptor(rates);
    /// let refused = tool.call(r#"{"learnable": "rates", "entries": ["r1"], "question": "Which band?",
    ///     "suggestion": {"band": "top"}}"#).unwrap_err();
    /// assert_eq!(refused.lines(), ["suggestion.band: Band: \"top\" is not one of the choices (low, high)"]);
    /// ```
    pub fn descriptor(mut self, descriptor: LearnableDescriptor) -> AskTool {
        self.targets.push(Target {
            descriptor,
            check: Check::Descriptor,
        });
        self
    }

    /// The tool's name: [`ASK_TOOL_NAME`].
    pub fn name(&self) -> &'static str {
        ASK_TOOL_NAME
    }

    /// What the tool is for, for the model: when to call it, what each
    /// learnable teaches and what its entries are (a descriptor's words,
    /// escaped and bounded), and that a person answers.
    pub fn description(&self) -> String {
        let mut said = String::from(
            "Ask a person when the knowledge you were given does not decide the task. Name the \
             learnable the answer belongs to, the entries the question is about, the question in \
             your words, and, if you have one, a suggested value (null if not). A person answers \
             by teaching the agent; the task waits until then. You never write the lesson \
             yourself. A call that does not fit is answered with what to correct. Learnables:",
        );
        for target in &self.targets {
            let descriptor = &target.descriptor;
            said.push_str(&format!(
                "\n- {}: {} (an entry is a {})",
                text(&descriptor.collection),
                text(&descriptor.teaches),
                text(&descriptor.entry)
            ));
        }
        said
    }

    /// The tool's input schema (JSON Schema, in the form the common
    /// function-calling APIs' strict modes take): `learnable` (one of the
    /// collections), `entries`, `question`, and `suggestion`, one of the
    /// learnables' strict lesson schemas ([`strict_lesson_schema`]) or
    /// `null`.
    pub fn input_schema(&self) -> Value {
        let collections: Vec<&str> = self
            .targets
            .iter()
            .map(|target| target.descriptor.collection.as_str())
            .collect();
        let mut suggestions: Vec<Value> = self
            .targets
            .iter()
            .map(|target| strict_lesson_schema(&target.descriptor))
            .collect();
        suggestions.push(json!({"type": "null"}));
        json!({
            "type": "object",
            "properties": {
                "learnable": {
                    "type": "string", "enum": collections,
                    "description": "The collection the answer belongs to."
                },
                "entries": {
                    "type": "array", "items": {"type": "string"},
                    "minItems": 1, "maxItems": MAX_ASKED_ENTRIES,
                    "description": "The entries the question is about (an HS chapter, a broker...), \
                                    as the learnable keys them."
                },
                "question": {
                    "type": "string",
                    "description": "The question for the person, in your words."
                },
                "suggestion": {
                    "anyOf": suggestions,
                    "description": "A value you suggest for the lesson, field by field, or null."
                }
            },
            "required": ["learnable", "entries", "question", "suggestion"],
            "additionalProperties": false
        })
    }

    /// A call's arguments (the JSON text a model's tool call carries) read
    /// as the question to ask: refused, with every problem in words, when
    /// they do not fit the schema or the suggestion holds a value the
    /// learnable would refuse.
    pub fn call(&self, arguments: &str) -> Result<AskedQuestion, AskRefused> {
        let mut refused = AskRefused::default();
        if arguments.len() > MAX_ARGUMENT_BYTES {
            refused.say(format!(
                "the arguments are larger than {MAX_ARGUMENT_BYTES} bytes"
            ));
            return Err(refused);
        }
        let arguments: Map<String, Value> = match serde_json::from_str(arguments) {
            Ok(Value::Object(arguments)) => arguments,
            Ok(_) => {
                refused.say("the arguments must be a JSON object".into());
                return Err(refused);
            }
            Err(error) => {
                refused.say(format!("the arguments are not JSON: {error}"));
                return Err(refused);
            }
        };
        let target = self.target(&arguments, &mut refused);
        let entries = entries(&arguments, &mut refused);
        let question = question(&arguments, &mut refused);
        let suggested = suggestion(&arguments, &mut refused);
        let Some(target) = target else {
            return Err(refused);
        };
        let mut block = TeachBlock::new(target.descriptor.collection.clone(), entries);
        if let Some(suggested) = suggested.filter(|suggested| !suggested.is_empty()) {
            block.suggested = Some(suggested);
            block.suggestion_label = Some(MODEL_SUGGESTION_LABEL.into());
        }
        block.lesson_fields = Some(target.descriptor.lesson_fields.clone());
        if !block.entries.is_empty()
            && let Err(problems) = target.check(&block)
        {
            for line in problems.field_lines() {
                refused.say(format!("suggestion.{line}"));
            }
        }
        if !refused.lines.is_empty() {
            return Err(refused);
        }
        Ok(AskedQuestion {
            question: question.unwrap_or_default(),
            block,
            target: target.clone(),
        })
    }

    fn target(&self, arguments: &Map<String, Value>, refused: &mut AskRefused) -> Option<&Target> {
        let names = || {
            self.targets
                .iter()
                .map(|target| target.descriptor.collection.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        match arguments.get("learnable") {
            Some(Value::String(name)) => {
                let found = self
                    .targets
                    .iter()
                    .find(|target| &target.descriptor.collection == name);
                if found.is_none() {
                    refused.say(format!(
                        "learnable: {:?} is not one of: {}",
                        text(name),
                        names()
                    ));
                }
                found
            }
            _ => {
                refused.say(format!("learnable: give one of: {}", names()));
                None
            }
        }
    }
}

fn entries(arguments: &Map<String, Value>, refused: &mut AskRefused) -> Vec<String> {
    let Some(Value::Array(given)) = arguments.get("entries") else {
        refused.say("entries: give the entries the question is about, as a list of text".into());
        return Vec::new();
    };
    if given.is_empty() || given.len() > MAX_ASKED_ENTRIES {
        refused.say(format!(
            "entries: give from 1 to {MAX_ASKED_ENTRIES} entries, not {}",
            given.len()
        ));
        return Vec::new();
    }
    let mut entries = Vec::new();
    for (at, entry) in given.iter().enumerate() {
        let Value::String(entry) = entry else {
            refused.say(format!("entries[{at}]: an entry is text"));
            continue;
        };
        let entry = entry.trim();
        if entry.is_empty() || entry.chars().count() > MAX_ENTRY_CHARS {
            refused.say(format!(
                "entries[{at}]: an entry has from 1 to {MAX_ENTRY_CHARS} characters"
            ));
        } else if let Err(hidden) = HiddenCharacter::check("entry", entry) {
            refused.say(format!("entries[{at}]: {hidden}"));
        } else if !entries.iter().any(|known| known == entry) {
            entries.push(entry.to_owned());
        }
    }
    entries
}

fn question(arguments: &Map<String, Value>, refused: &mut AskRefused) -> Option<String> {
    match arguments.get("question") {
        Some(Value::String(question))
            if !question.trim().is_empty() && question.chars().count() <= MAX_QUESTION_CHARS =>
        {
            // The model's words go to a person: escaped, one paragraph kept.
            Some(
                Untrusted::new(question.trim())
                    .multi_line()
                    .max_chars(MAX_QUESTION_CHARS)
                    .to_string(),
            )
        }
        _ => {
            refused.say(format!(
                "question: give the question for the person, from 1 to {MAX_QUESTION_CHARS} characters"
            ));
            None
        }
    }
}

/// The suggestion, its `null` fields (left out, in a strict schema's
/// words) dropped.
fn suggestion(
    arguments: &Map<String, Value>,
    refused: &mut AskRefused,
) -> Option<Map<String, Value>> {
    match arguments.get("suggestion") {
        None | Some(Value::Null) => None,
        Some(Value::Object(given)) => Some(
            given
                .iter()
                .filter(|(_, value)| !value.is_null())
                .map(|(key, value)| (key.clone(), value.clone()))
                .collect(),
        ),
        Some(_) => {
            refused.say("suggestion: give an object of lesson fields, or null".into());
            None
        }
    }
}

/// Outside text for the model: escaped and bounded.
fn text(text: &str) -> String {
    Untrusted::new(text).max_chars(512).to_string()
}

/// A question the model asked, ready to go on the task's input-required
/// message: its words, and its teach block (the model's suggestion
/// checked).
#[derive(Clone)]
pub struct AskedQuestion {
    /// The question, in the model's words (escaped: it goes to a person).
    pub question: String,
    /// The teach block: the learnable, the entries, the checked
    /// suggestion, the learnable's lesson fields.
    pub block: TeachBlock,
    target: Target,
}

impl fmt::Debug for AskedQuestion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AskedQuestion")
            .field("question", &self.question)
            .field("block", &self.block)
            .finish()
    }
}

#[cfg(feature = "a2a-server")]
impl AskedQuestion {
    /// Puts the teach block on `message` if the request behind `context`
    /// activated the extension, checked as every attach path checks it
    /// ([`TeachBlock::attach_checked`]). Whether it was attached.
    ///
    /// ```
    /// use a2a::{Message, Part, Role};
    /// use a2a_server::ExecutorContext;
    /// use learnables::a2a::AskTool;
    /// use learnables::{FieldKind, LearnableDescriptor, LessonField, TeachBlock};
    /// let rates = LearnableDescriptor::new("rates", "rate", "Which rate applies",
    ///     "A table kept by the tariff team", "model")
    ///     .with_field(LessonField::new("band", "Band", FieldKind::CHOICE).with_choices(["low", "high"]));
    /// let asked = AskTool::new().descriptor(rates)
    ///     .call(r#"{"learnable": "rates", "entries": ["r1"], "question": "Which band?", "suggestion": null}"#)
    ///     .unwrap();
    /// let context = ExecutorContext {
    ///     message: None, task_id: "t".into(), stored_task: None, context_id: "c".into(),
    ///     metadata: None, user: None, tenant: None,
    ///     service_params: [("a2a-extensions".to_owned(), vec![learnables::EXTENSION_URI.to_owned()])]
    ///         .into_iter().collect(),
    /// };
    /// let mut reply = Message::new(Role::Agent, vec![Part::text(asked.question.clone())]);
    /// assert!(asked.attach_if_activated(&context, &mut reply).unwrap());
    /// assert_eq!(TeachBlock::from_a2a_message(&reply).unwrap().unwrap().entries, ["r1"]);
    /// ```
    pub fn attach_if_activated(
        &self,
        context: &a2a_server::ExecutorContext,
        message: &mut a2a::Message,
    ) -> Result<bool, super::MessageError> {
        self.block.attach_after_check(
            &self.target.descriptor,
            &super::Activation::of(context),
            message,
            || self.target.check(&self.block),
        )
    }
}

/// Why the model's call was not asked: one line a problem, each naming the
/// argument (and the suggestion's field) at fault, for the model to
/// correct.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AskRefused {
    lines: Vec<String>,
}

impl AskRefused {
    fn say(&mut self, line: String) {
        self.lines.push(line);
    }

    /// Each problem, one a line.
    pub fn lines(&self) -> &[String] {
        &self.lines
    }
}

/// What the model reads as the tool's result: that nothing was asked, and
/// what to correct.
impl fmt::Display for AskRefused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "The question was not asked. Correct these and call {ASK_TOOL_NAME} again:"
        )?;
        for line in &self.lines {
            write!(f, "\n- {line}")?;
        }
        Ok(())
    }
}

impl std::error::Error for AskRefused {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{FieldKind, LessonField};

    fn tool() -> AskTool {
        let mut key = LessonField::new("chapter", "HS chapter", FieldKind::TEXT).with_entry_key();
        key.value_type = Some("integer".into());
        key.minimum = Some(crate::FieldBound::Number(1.into()));
        key.maximum = Some(crate::FieldBound::Number(97.into()));
        AskTool::new().descriptor(
            LearnableDescriptor::new(
                "routing_rules",
                "routing rule",
                "Which desk",
                "A table",
                "model",
            )
            .with_field(key)
            .with_field(
                LessonField::new("desk", "Desk", FieldKind::CHOICE).with_choices(["general"]),
            ),
        )
    }

    #[test]
    fn every_argument_at_fault_is_said_at_once() {
        let refused = tool()
            .call(r#"{"learnable": "routes", "entries": [], "question": " ", "suggestion": 3}"#)
            .unwrap_err();
        assert_eq!(refused.lines().len(), 4, "{refused}");
        assert!(
            refused.lines()[0].starts_with("learnable: \"routes\" is not one of: routing_rules")
        );
    }

    #[test]
    fn an_entry_that_is_no_key_is_refused_and_a_null_field_is_left_out() {
        let refused = tool()
            .call(r#"{"learnable": "routing_rules", "entries": ["300"], "question": "Which?", "suggestion": null}"#)
            .unwrap_err();
        assert!(
            refused.lines()[0].starts_with("suggestion.chapter: HS chapter: \"300\""),
            "{refused}"
        );
        let asked = tool()
            .call(
                r#"{"learnable": "routing_rules", "entries": ["85"], "question": "Which?\u001b[2J",
                     "suggestion": {"desk": null}}"#,
            )
            .unwrap();
        assert_eq!(asked.block.suggested, None);
        assert_eq!(asked.question, r"Which?\u{1b}[2J");
    }

    #[test]
    fn the_schema_offers_each_learnables_strict_schema_or_null() {
        let schema = tool().input_schema();
        let any_of = schema["properties"]["suggestion"]["anyOf"]
            .as_array()
            .unwrap();
        assert_eq!(any_of.len(), 2);
        assert_eq!(any_of[0]["required"], json!(["desk"]));
        assert_eq!(any_of[1], json!({"type": "null"}));
    }
}
