//! The learnables methods, independent of any web framework: a JSON-RPC
//! request in, a JSON-RPC response out; with the feature `server`, a whole
//! agent's axum router around them ([`LearnablesService::router`]).

use std::sync::Arc;

use super::json_rpc::Limits;
use super::methods::Method;
use super::teachers::{Authenticator, HumansOnly, TeacherPolicy};
use crate::Declaration;
use crate::knowledge::{Knowledge, KnowledgeError, OnUnreadable};

/// The teach and show-back methods over a [`Knowledge`], with who may call
/// them. Cheap to clone.
///
/// ```
/// use learnables::a2a::{Activation, LearnablesService, Principal, Tokens};
/// use learnables::{Declaration, Knowledge, TEACH_METHOD};
/// let service = LearnablesService::new(
///     Knowledge::in_memory(),
///     Declaration::new().teach_method(TEACH_METHOD),
///     Tokens::new().with("t0ken", Principal::human("alice@example.com")),
/// );
/// let request = learnables::a2a::json_rpc::read_request(
///     br#"{"jsonrpc": "2.0", "id": 1, "method": "rsaxb.learnables.Teach", "params": {}}"#,
///     Default::default(),
/// ).unwrap();
/// let response = service.call(request, &Activation::default(), Some("t0ken")).unwrap();
/// assert_eq!(response["error"]["code"], -32008); // not activated
///
/// // A declaration without a `teachMethod` serves no teach method.
/// let reader = LearnablesService::new(Knowledge::in_memory(), Declaration::new(), Tokens::new());
/// assert!(!reader.handles(TEACH_METHOD));
/// ```
#[derive(Clone)]
pub struct LearnablesService {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for LearnablesService {
    /// The declaration and the limits (the knowledge shows its own; the
    /// authenticator and the policy are the application's, and not shown).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LearnablesService")
            .field("knowledge", &self.inner.knowledge)
            .field("declaration", &self.inner.declaration)
            .field("limits", &self.inner.limits)
            .finish_non_exhaustive()
    }
}

#[derive(Clone)]
struct Inner {
    knowledge: Knowledge,
    declaration: Declaration,
    authenticator: Arc<dyn Authenticator>,
    policy: Arc<dyn TeacherPolicy>,
    limits: Limits,
    /// What resumes the tasks a lesson answers, when the agent gave one.
    #[cfg(feature = "a2a-server")]
    resumer: Option<super::TaskResumer>,
}

impl LearnablesService {
    /// The methods over `knowledge`, for the learnables `declaration`
    /// declares, with teachers authenticated by `authenticator` and the
    /// default policy ([`HumansOnly`]). It registers every learnable the
    /// declaration declares in `knowledge` (no `register` call needed), so
    /// that the learnables the card lists and the ones the knowledge reads
    /// are one list.
    ///
    /// # Panics
    ///
    /// When the declaration and the knowledge cannot be one list, as axum's
    /// router panics on a route it cannot serve: stored versions of a
    /// declared learnable that do not read, a learnable declared by hand
    /// that no registered type reads, a registered one not declared. An
    /// agent whose store may hold versions an earlier build wrote calls
    /// [`LearnablesService::try_new`], which returns the report.
    ///
    /// Use `new` where the knowledge is new to this build (in memory, a
    /// test, an example); use `try_new` in an agent whose store outlives a
    /// deploy, and print its error with `Display`, which says what does not
    /// read and how to fix it.
    pub fn new(
        knowledge: Knowledge,
        declaration: Declaration,
        authenticator: impl Authenticator,
    ) -> LearnablesService {
        LearnablesService::try_new(knowledge, declaration, authenticator)
            .unwrap_or_else(|error| panic!("the learnables service cannot be built: {error}"))
    }

    /// [`LearnablesService::new`], with the reason it cannot be built
    /// rather than a panic; the one to use when the store outlives a deploy:
    /// [`KnowledgeError::Unreadable`], the report of every stored version of a declared learnable that does not read;
    /// [`KnowledgeError::Disagrees`], how the declaration and the knowledge
    /// are not one list; or an error registering a declared learnable. To
    /// start with unreadable entries read as unknown, register the
    /// declaration first with
    /// [`Knowledge::register_declaration`] and [`OnUnreadable::TreatAsUnknown`](crate::knowledge::OnUnreadable::TreatAsUnknown).
    ///
    /// ```
    /// use learnables::a2a::{LearnablesService, Tokens};
    /// use learnables::{Declaration, Knowledge, KnowledgeError, Learnable, TEACH_METHOD};
    /// # #[derive(Learnable, Clone, Debug)]
    /// # #[learnable(collection = "routing_rules", entry = "routing rule", teaches = "Which desk",
    /// #     how = "A table keyed on the HS chapter", decided_by = "rules", describes = "{desk}")]
    /// # struct RoutingRule { #[learnable(label = "Desk")] desk: String }
    /// let knowledge = Knowledge::in_memory();
    /// let declaration = Declaration::new().learnable::<RoutingRule>().teach_method(TEACH_METHOD);
    /// let service = LearnablesService::try_new(knowledge.clone(), declaration, Tokens::new())?;
    /// assert_eq!(knowledge.collections(), ["routing_rules"]); // registered by the service
    ///
    /// // Declared by hand, with no type to read it: not built.
    /// let by_hand = Declaration::new().descriptor(RoutingRule::descriptor().clone());
    /// let error = LearnablesService::try_new(Knowledge::in_memory(), by_hand, Tokens::new());
    /// assert!(matches!(error, Err(KnowledgeError::Disagrees { .. })));
    /// # Ok::<(), KnowledgeError>(())
    /// ```
    pub fn try_new(
        knowledge: Knowledge,
        declaration: Declaration,
        authenticator: impl Authenticator,
    ) -> Result<LearnablesService, KnowledgeError> {
        knowledge.register_declaration(&declaration, OnUnreadable::Refuse)?;
        Ok(LearnablesService {
            inner: Arc::new(Inner {
                knowledge,
                declaration,
                authenticator: Arc::new(authenticator),
                policy: Arc::new(HumansOnly),
                limits: Limits::default(),
                #[cfg(feature = "a2a-server")]
                resumer: None,
            }),
        })
    }

    fn rebuilt(self, change: impl FnOnce(&mut Inner)) -> LearnablesService {
        let mut inner = Inner::clone(&self.inner);
        change(&mut inner);
        LearnablesService {
            inner: Arc::new(inner),
        }
    }

    /// Replaces who may teach.
    pub fn with_policy(self, policy: impl TeacherPolicy) -> LearnablesService {
        self.rebuilt(|inner| inner.policy = Arc::new(policy))
    }

    /// Replaces the request limits.
    pub fn with_limits(self, limits: Limits) -> LearnablesService {
        self.rebuilt(|inner| inner.limits = limits)
    }

    /// The same service, resuming after each lesson it learns the tasks
    /// waiting on the question the lesson answers, with `resumer`, before
    /// it answers the teacher (see [`TaskResumer`](super::TaskResumer)).
    /// Only the async path resumes (`call_async` and the
    /// [`LearnablesLayer`](super::LearnablesLayer)); a failure to resume
    /// is logged and never fails the lesson. Without a resumer a lesson
    /// resumes nothing: a waiting task takes it on its next turn.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use a2a_server::{DefaultRequestHandler, InMemoryTaskStore, RequestHandler};
    /// use learnables::a2a::{LearnablesService, TaskResumer, Tokens};
    /// use learnables::{Declaration, Knowledge, TEACH_METHOD};
    /// # struct Executor;
    /// # impl a2a_server::AgentExecutor for Executor {
    /// #     fn execute(&self, _: a2a_server::ExecutorContext)
    /// #         -> futures::stream::BoxStream<'static, Result<a2a::StreamResponse, a2a::A2AError>> {
    /// #         Box::pin(futures::stream::empty())
    /// #     }
    /// #     fn cancel(&self, _: a2a_server::ExecutorContext)
    /// #         -> futures::stream::BoxStream<'static, Result<a2a::StreamResponse, a2a::A2AError>> {
    /// #         Box::pin(futures::stream::empty())
    /// #     }
    /// # }
    /// let handler = Arc::new(DefaultRequestHandler::new(Executor, InMemoryTaskStore::new()));
    /// let service = LearnablesService::new(
    ///     Knowledge::in_memory(),
    ///     Declaration::new().teach_method(TEACH_METHOD),
    ///     Tokens::new(),
    /// )
    /// .resuming(TaskResumer::new(handler.clone()));
    /// // `handler` is the one the agent's JSON-RPC router serves.
    /// let router = a2a_server::jsonrpc::jsonrpc_router(handler);
    /// ```
    #[cfg(feature = "a2a-server")]
    pub fn resuming(self, resumer: super::TaskResumer) -> LearnablesService {
        self.rebuilt(|inner| inner.resumer = Some(resumer))
    }

    /// The request limits.
    pub fn limits(&self) -> Limits {
        self.inner.limits
    }

    /// The knowledge the methods teach.
    pub fn knowledge(&self) -> &Knowledge {
        &self.inner.knowledge
    }

    /// The declaration.
    pub fn declaration(&self) -> &Declaration {
        &self.inner.declaration
    }

    /// The teach method the declaration names, if it names one: an agent
    /// that does not own its knowledge serves no teach method.
    pub fn teach_method(&self) -> Option<&str> {
        self.inner.declaration.params().teach_method.as_deref()
    }

    /// The retract method the declaration names, if it names one.
    pub fn retract_method(&self) -> Option<&str> {
        self.inner.declaration.params().retract_method.as_deref()
    }

    /// The review method the declaration names, if it names one.
    pub fn review_method(&self) -> Option<&str> {
        self.inner.declaration.params().review_method.as_deref()
    }

    /// Whether `method` is one of the learnables methods this agent serves:
    /// the declaration's `teachMethod`, `retractMethod` and `reviewMethod`,
    /// show-back, and
    /// the teacher's identity ([`TEACHER_METHOD`](crate::TEACHER_METHOD)).
    pub fn handles(&self, method: &str) -> bool {
        Method::named(self, method).is_some()
    }

    /// Whom a bearer token names.
    pub(super) fn authenticator(&self) -> &dyn Authenticator {
        &*self.inner.authenticator
    }

    /// Who may teach.
    pub(super) fn policy(&self) -> &dyn TeacherPolicy {
        &*self.inner.policy
    }

    /// What resumes the tasks a lesson answers, when the agent gave one.
    #[cfg(feature = "a2a-server")]
    pub(super) fn resumer(&self) -> Option<&super::TaskResumer> {
        self.inner.resumer.as_ref()
    }
}

#[cfg(all(test, feature = "derive"))]
mod tests {
    use super::super::methods::refusals::shown;
    use super::*;
    use crate::a2a::{Activation, Principal, Tokens};
    use crate::knowledge::Disagreement;
    use crate::{Learnable, TEACH_METHOD};
    use serde_json::Value;
    use serde_json::json;

    #[derive(Learnable, Clone, Debug, PartialEq)]
    #[learnable(
        collection = "refund_policies",
        entry = "refund policy",
        teaches = "Who approves a refund",
        how = "A person per shop, set by the finance team",
        decided_by = "rules",
        describes = "{entry}: {approver}"
    )]
    struct RefundPolicy {
        /// Approver
        approver: String,
    }

    #[derive(Learnable, Clone, Debug, PartialEq)]
    #[learnable(
        collection = "opening_hours",
        entry = "shop",
        teaches = "When a shop opens",
        how = "A time per shop, set by each shop's manager",
        decided_by = "rules",
        describes = "{entry} opens at {opens}"
    )]
    struct OpeningHours {
        /// Opens at
        opens: String,
    }

    fn teach(service: &LearnablesService, collection: &str) -> Value {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": TEACH_METHOD, "params": {
            "collection": collection, "entry": "north", "value": {"approver": "Kim"},
            "taughtBy": "alice@example.com"}});
        let request =
            super::super::json_rpc::read_request(body.to_string().as_bytes(), Default::default())
                .unwrap();
        let activation = Activation::from_header_values([crate::EXTENSION_URI]);
        service.call(request, &activation, Some("t0ken")).unwrap()
    }

    fn alice() -> Tokens {
        Tokens::new().with("t0ken", Principal::human("alice@example.com"))
    }

    #[test]
    fn a_declared_learnable_is_taught_without_a_register_call() {
        let knowledge = Knowledge::in_memory();
        let declaration = Declaration::new()
            .learnable::<RefundPolicy>()
            .teach_method(TEACH_METHOD);
        let service = LearnablesService::new(knowledge.clone(), declaration, alice());
        let response = teach(&service, "refund_policies");
        assert_eq!(response["result"]["learned"], true, "{response}");
        assert_eq!(
            knowledge
                .pin()
                .get::<RefundPolicy>("north")
                .unwrap()
                .approver,
            "Kim"
        );
        // The same declaration again, on the same knowledge: one list still.
        let again = Declaration::new()
            .learnable::<RefundPolicy>()
            .teach_method(TEACH_METHOD);
        assert!(LearnablesService::try_new(knowledge, again, alice()).is_ok());
    }

    fn disagreement(knowledge: Knowledge, declaration: Declaration) -> (String, Disagreement) {
        match LearnablesService::try_new(knowledge, declaration, alice()) {
            Err(KnowledgeError::Disagrees {
                collection,
                disagreement,
            }) => (collection, disagreement),
            Err(other) => panic!("another error: {other}"),
            Ok(_) => panic!("a service was built on a disagreement"),
        }
    }

    #[test]
    fn a_learnable_declared_by_hand_that_nothing_reads_is_not_built() {
        let by_hand = Declaration::new()
            .descriptor(RefundPolicy::descriptor().clone())
            .teach_method(TEACH_METHOD);
        assert_eq!(
            disagreement(Knowledge::in_memory(), by_hand),
            ("refund_policies".to_owned(), Disagreement::NotReadable)
        );
    }

    #[test]
    fn a_learnable_declared_by_hand_reads_when_its_type_is_registered() {
        let knowledge = Knowledge::in_memory();
        knowledge.register::<RefundPolicy>().unwrap();
        let by_hand = Declaration::new()
            .descriptor(RefundPolicy::descriptor().clone())
            .teach_method(TEACH_METHOD);
        let service = LearnablesService::try_new(knowledge, by_hand, alice()).unwrap();
        assert_eq!(
            teach(&service, "refund_policies")["result"]["learned"],
            true
        );
    }

    #[test]
    fn a_declared_descriptor_other_than_its_types_is_not_built() {
        let knowledge = Knowledge::in_memory();
        knowledge.register::<RefundPolicy>().unwrap();
        let mut descriptor = RefundPolicy::descriptor().clone();
        descriptor.lesson_fields[0].label = "Who approves".into();
        let declaration = Declaration::new().descriptor(descriptor);
        assert_eq!(
            disagreement(knowledge, declaration),
            ("refund_policies".to_owned(), Disagreement::OtherDescriptor)
        );
    }

    #[test]
    fn a_registered_learnable_left_undeclared_is_not_built() {
        let knowledge = Knowledge::in_memory();
        knowledge.register::<OpeningHours>().unwrap();
        let declaration = Declaration::new()
            .learnable::<RefundPolicy>()
            .teach_method(TEACH_METHOD);
        assert_eq!(
            disagreement(knowledge, declaration),
            ("opening_hours".to_owned(), Disagreement::NotDeclared)
        );
    }

    #[test]
    #[should_panic(
        expected = "the learnables service cannot be built: the declaration and the \
                               knowledge disagree on `refund_policies`"
    )]
    fn new_panics_on_a_disagreement() {
        let by_hand = Declaration::new().descriptor(RefundPolicy::descriptor().clone());
        LearnablesService::new(Knowledge::in_memory(), by_hand, alice());
    }

    #[test]
    fn names_that_only_look_alike_read_differently_in_messages() {
        assert_eq!(shown("routing_rules"), "routing_rules");
        assert_eq!(shown("routing_rules\u{202E}"), "routing_rules\\u{202e}");
        assert_eq!(shown("routing\u{200B}_rules"), "routing\\u{200b}_rules");
        assert_eq!(shown("a\u{0}b\nc"), "a\\u{0}b\\nc");
        assert_eq!(
            shown(&"é".repeat(200)),
            format!("{}…[+120 chars]", "é".repeat(80))
        );
    }
}
