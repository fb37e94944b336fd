//! Teach blocks from an `AgentExecutor` of the official A2A server SDK
//! (`a2a-server-lf`, imported as `a2a_server`): attached only when the
//! request activated the extension, and only when they fit their learnable.

use a2a_server::{ExecutorContext, ServiceParams};

use super::{Activation, MessageError, TeachBlockBuilder, UnknownField};
use crate::learnable::Learnable;
use crate::wire::{LearnableDescriptor, TeachBlock};

impl Activation {
    /// The extensions a request activated, from the SDK's service params
    /// (the request's headers).
    ///
    /// ```
    /// use learnables::a2a::Activation;
    /// let params = a2a_server::ServiceParams::from([(
    ///     "a2a-extensions".to_owned(),
    ///     vec![learnables::EXTENSION_URI.to_owned()],
    /// )]);
    /// assert!(Activation::from_service_params(&params).learnables());
    /// assert!(!Activation::from_service_params(&Default::default()).learnables());
    /// ```
    pub fn from_service_params(params: &ServiceParams) -> Activation {
        Activation::from_header_values(
            params
                .get("a2a-extensions")
                .into_iter()
                .flatten()
                .map(String::as_str),
        )
    }

    /// The extensions the request an executor is answering activated.
    pub fn of(context: &ExecutorContext) -> Activation {
        Activation::from_service_params(&context.service_params)
    }
}

impl<T: Learnable> TeachBlockBuilder<T> {
    /// Puts the block on `message` (the executor's reply) if the request
    /// behind `context` activated the extension; without activation it does
    /// nothing. Whether the block was attached.
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
        context: &ExecutorContext,
        message: &mut a2a::Message,
    ) -> Result<bool, MessageError> {
        self.build()
            .attach_checked(T::descriptor(), &Activation::of(context), message)
    }
}

impl TeachBlock {
    /// Puts this block on `message` if `activation` includes the extension,
    /// after checking it against its learnable's `descriptor`: the same
    /// collection, and `suggested` keys that are lesson fields. Whether it
    /// was attached; without activation nothing is checked or changed.
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
    /// ```
    pub fn attach_checked(
        &self,
        descriptor: &LearnableDescriptor,
        activation: &Activation,
        message: &mut a2a::Message,
    ) -> Result<bool, MessageError> {
        if !activation.learnables() {
            return Ok(false);
        }
        if self.collection != descriptor.collection {
            return Err(MessageError::TeachBlock(format!(
                "the block is about `{}`, but the learnable is `{}`",
                crate::lesson_error::shortened(&self.collection),
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
        self.attach_to_message(message)?;
        Ok(true)
    }
}
