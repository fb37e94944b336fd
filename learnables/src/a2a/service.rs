//! The learnables methods, independent of any web framework: a JSON-RPC
//! request in, a JSON-RPC response out; with the feature `server`, a whole
//! agent's axum router around them ([`LearnablesService::router`]).

use std::borrow::Cow;
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

use super::Activation;
use super::json_rpc::{Answer, Limits, Request, RpcError, codes};
use super::retraction;
use super::service_params::{
    hidden_characters, read_lesson, refused, shown, store_error, teach_error, unknown_learnable,
};
use super::teachers::{Authenticator, HumansOnly, Principal, TeacherPolicy};
use crate::Declaration;
use crate::SHOW_BACK_METHOD;
use crate::knowledge::{Knowledge, KnowledgeError};
use crate::knowledge::{OnUnreadable, TeachError};
use crate::untrusted::Untrusted;
use crate::{LearnableDescriptor, Lesson, LessonResult};

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

    /// Whether `method` is one of the learnables methods this agent serves:
    /// the declaration's `teachMethod` and `retractMethod`, show-back, and
    /// the teacher's identity ([`TEACHER_METHOD`](crate::TEACHER_METHOD)).
    pub fn handles(&self, method: &str) -> bool {
        method == SHOW_BACK_METHOD
            || method == crate::TEACHER_METHOD
            || self.teach_method() == Some(method)
            || self.retract_method() == Some(method)
    }

    /// Answers a request for one of the learnables methods: the JSON-RPC
    /// response, or `None` for a notification (a request without an `id`).
    /// A notification is carried out as JSON-RPC 2.0 says, under the same
    /// activation and authentication as any request, and never answered;
    /// its refusal is logged. Blocks while a lesson is made durable (see
    /// `call_async`, with the `tokio` feature, for async code).
    pub fn call(
        &self,
        request: Request,
        activation: &Activation,
        bearer_token: Option<&str>,
    ) -> Option<Value> {
        let (admitted, next) = self.admit(request, activation, bearer_token);
        let outcome = match next {
            Next::Answered(outcome) => outcome,
            Next::Teach(lesson) => self.taught(&lesson, self.inner.knowledge.teach(&lesson)),
            Next::Retract(lesson) => self.taught(&lesson, retract(&self.inner.knowledge, &lesson)),
        };
        admitted.respond(outcome).map(|answer| answer.to_value())
    }

    /// [`LearnablesService::call`] for async code: while a lesson is made
    /// durable the task waits, not its thread. Needs the `tokio` feature
    /// and a tokio runtime with its timers enabled.
    ///
    /// ```
    /// use learnables::a2a::{Activation, LearnablesService, Tokens};
    /// use learnables::{Declaration, Knowledge, TEACH_METHOD};
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let service = LearnablesService::new(
    ///     Knowledge::in_memory(),
    ///     Declaration::new().teach_method(TEACH_METHOD),
    ///     Tokens::new(),
    /// );
    /// let request = learnables::a2a::json_rpc::read_request(
    ///     br#"{"jsonrpc": "2.0", "id": 1, "method": "rsaxb.learnables.Teach", "params": {}}"#,
    ///     Default::default(),
    /// ).unwrap();
    /// let response = service.call_async(request, &Activation::default(), None).await.unwrap();
    /// assert_eq!(response["error"]["code"], -32008); // not activated
    /// # });
    /// ```
    #[cfg(feature = "tokio")]
    pub async fn call_async(
        &self,
        request: Request,
        activation: &Activation,
        bearer_token: Option<&str>,
    ) -> Option<Value> {
        let answer = self.answer_async(request, activation, bearer_token).await;
        answer.map(|answer| answer.to_value())
    }

    /// [`LearnablesService::call_async`] before the response is made a
    /// [`Value`]: for the layer, which writes it straight into the body.
    #[cfg(feature = "tokio")]
    pub(crate) async fn answer_async(
        &self,
        request: Request,
        activation: &Activation,
        bearer_token: Option<&str>,
    ) -> Option<Answer<Reply>> {
        let (admitted, next) = self.admit(request, activation, bearer_token);
        admitted.respond(match next {
            Next::Teach(lesson) => {
                let result = self.inner.knowledge.teach_borrowed_async(&lesson).await;
                let outcome = self.taught(&lesson, result);
                // The tasks waiting on the question the lesson answers
                // continue before the teacher hears back, so that what
                // reads a task next sees it answered.
                #[cfg(feature = "a2a-server")]
                if let (Ok(Reply::Taught(taught)), Some(resumer)) = (&outcome, &self.inner.resumer)
                {
                    resume_apart(resumer, &lesson, taught).await;
                }
                outcome
            }
            Next::Retract(lesson) => {
                let knowledge = self.inner.knowledge.clone();
                let retracting = lesson.clone();
                let result =
                    tokio::task::spawn_blocking(move || retract(&knowledge, &retracting)).await;
                let result = result.unwrap_or_else(|error| {
                    Err(TeachError::Store(
                        crate::knowledge::StoreError::OutcomeUnknown(
                            format!("the retraction did not finish: {error}").into(),
                        ),
                    ))
                });
                self.taught(&lesson, result)
            }
            Next::Answered(outcome) => outcome,
        })
    }

    /// Everything short of storing a lesson: the method, the activation,
    /// the teacher; what the response needs, and either the answer or the
    /// lesson to teach.
    fn admit(
        &self,
        request: Request,
        activation: &Activation,
        bearer_token: Option<&str>,
    ) -> (Admitted, Next) {
        let Request { id, method, params } = request;
        let next = self.next(&method, params, activation, bearer_token);
        (Admitted { id, method }, next)
    }

    fn next(
        &self,
        method: &str,
        params: Value,
        activation: &Activation,
        bearer_token: Option<&str>,
    ) -> Next {
        if !self.handles(method) {
            return Next::Answered(Err(RpcError::new(
                codes::METHOD_NOT_FOUND,
                format!("there is no method `{}`", shown(method)),
            )));
        }
        if !activation.learnables() {
            return Next::Answered(Err(RpcError::new(
                codes::EXTENSION_NOT_ACTIVATED,
                format!(
                    "`{method}` needs the Learnables extension activated: send the header `{}: {}`",
                    crate::ACTIVATION_HEADER,
                    crate::EXTENSION_URI
                ),
            )));
        }
        let principal = match self.authenticate(bearer_token) {
            Ok(principal) => principal,
            Err(error) => return Next::Answered(Err(error)),
        };
        if method == crate::TEACHER_METHOD {
            Next::Answered(Ok(Reply::Teacher(TeacherIdentity {
                teacher: principal.id().to_owned(),
            })))
        } else if method == SHOW_BACK_METHOD {
            Next::Answered(self.show_back(&params).map(Reply::Shown))
        } else if self.retract_method() == Some(method) {
            match retraction::as_lesson_params(params)
                .and_then(|params| self.lesson(params, &principal))
            {
                Ok(lesson) => Next::Retract(lesson),
                Err(error) => Next::Answered(Err(error)),
            }
        } else {
            match self.lesson(params, &principal) {
                Ok(lesson) => Next::Teach(lesson),
                Err(error) => Next::Answered(Err(error)),
            }
        }
    }

    fn authenticate(&self, bearer_token: Option<&str>) -> Result<Principal, RpcError> {
        let Some(token) = bearer_token else {
            return Err(RpcError::new(
                codes::UNAUTHENTICATED,
                "no teacher is authenticated: send `Authorization: Bearer <token>`",
            ));
        };
        self.inner
            .authenticator
            .authenticate(token)
            .ok_or_else(|| RpcError::new(codes::UNAUTHENTICATED, "the bearer token is not valid"))
    }

    /// The lesson a teach request carries, once its collection, its
    /// teacher and the policy allow it.
    fn lesson(&self, params: Value, principal: &Principal) -> Result<Lesson, RpcError> {
        let mut lesson = read_lesson(params)?;
        // Before the collection is looked up: a name that does not show as
        // itself is refused as such, not as a learnable this agent lacks.
        if let Err(error) = hidden_characters(&lesson.collection, &lesson.entry) {
            return Err(refused(&lesson, principal.id(), error));
        }
        // A collection the declaration does not list is refused as
        // show-back refuses it, whatever the knowledge has registered.
        self.descriptor(&lesson.collection)?;
        if !lesson.taught_by.eq_ignore_ascii_case(principal.id()) {
            let message = format!(
                "`taughtBy` is `{}`, but the authenticated teacher is `{}`: a lesson names the \
                 person who teaches it",
                shown(&lesson.taught_by),
                principal.id()
            );
            let error =
                RpcError::new(codes::FORBIDDEN, message.clone()).at_field("taughtBy", message);
            return Err(refused(&lesson, principal.id(), error));
        }
        // The lesson keeps the teacher's identity as it was authenticated,
        // not in the letter case the request happened to use.
        if lesson.taught_by != principal.id() {
            lesson.taught_by = principal.id().to_owned();
        }
        if let Err(reason) = self.inner.policy.allow(principal, &lesson) {
            let error = RpcError::new(codes::FORBIDDEN, reason);
            return Err(refused(&lesson, principal.id(), error));
        }
        Ok(lesson)
    }

    /// The answer to a lesson the knowledge was taught, logged.
    fn taught(
        &self,
        lesson: &Lesson,
        result: Result<LessonResult, TeachError>,
    ) -> Result<Reply, RpcError> {
        match result {
            Ok(mut result) => {
                // Stored by the learnable's own phrasing (a `describes_with`
                // function may repeat a value raw): escaped for the teacher.
                if let Cow::Owned(describes) = crate::untrusted::escaped(&result.describes) {
                    result.describes = describes;
                }
                tracing::info!(
                    collection = %Untrusted::new(&lesson.collection),
                    entry = %Untrusted::new(&lesson.entry),
                    taught_by = %Untrusted::new(&lesson.taught_by),
                    learned = result.learned,
                    version = result.definition_version,
                    "lesson accepted"
                );
                Ok(Reply::Taught(result))
            }
            Err(TeachError::Store(error)) => {
                // The full error, which may name the store's files or
                // database, is for the log; the client is told what failed.
                tracing::error!(
                    collection = %Untrusted::new(&lesson.collection),
                    entry = %Untrusted::new(&lesson.entry),
                    taught_by = %Untrusted::new(&lesson.taught_by),
                    error = %Untrusted::new(&error.to_string()),
                    "the knowledge store failed while a lesson was taught"
                );
                Err(store_error(&error))
            }
            Err(error) => Err(refused(lesson, &lesson.taught_by, teach_error(&error))),
        }
    }

    /// The descriptor the declaration declares for `collection`, or the
    /// refusal of a collection it does not declare.
    pub(super) fn descriptor(&self, collection: &str) -> Result<&LearnableDescriptor, RpcError> {
        let declared = &self.inner.declaration.params().learnables;
        declared
            .iter()
            .find(|descriptor| descriptor.collection == collection)
            .ok_or_else(|| {
                let known: Vec<&str> = declared.iter().map(|d| d.collection.as_str()).collect();
                unknown_learnable(
                    format!(
                        "this agent has no learnable `{}`; it has:",
                        shown(collection)
                    ),
                    &known,
                )
            })
    }
}

/// Resumes the tasks `lesson` answers on a task of its own: a panic there
/// is logged and never turns the lesson's answer into a failure (the
/// lesson is learned), and a teacher who hangs up does not cut it short.
#[cfg(feature = "a2a-server")]
async fn resume_apart(resumer: &super::TaskResumer, lesson: &Lesson, result: &LessonResult) {
    let (resumer, lesson, result) = (resumer.clone(), lesson.clone(), result.clone());
    let resuming = tokio::spawn(async move { resumer.resume(&lesson, &result).await });
    if let Err(error) = resuming.await {
        tracing::error!(
            error = %Untrusted::new(&error.to_string()),
            "resuming the tasks a lesson answers failed; the lesson is learned"
        );
    }
}

/// A request admitted: what its response needs.
struct Admitted {
    id: Option<Value>,
    method: String,
}

/// What admitting a request leaves to do.
enum Next {
    /// The request is answered (or refused) already.
    Answered(Result<Reply, RpcError>),
    /// A lesson to teach.
    Teach(Lesson),
    /// An entry to retract: the lesson names it, its teacher and reason.
    Retract(Lesson),
}

/// Retracts the entry `lesson` names.
fn retract(knowledge: &Knowledge, lesson: &Lesson) -> Result<LessonResult, TeachError> {
    knowledge.retract(
        &lesson.collection,
        &lesson.entry,
        &lesson.taught_by,
        lesson.reason.as_deref(),
    )
}

/// The result of a learnables method, before it is written.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub(crate) enum Reply {
    /// A lesson's result.
    Taught(LessonResult),
    /// Show-back's result.
    Shown(Value),
    /// Whom the bearer token names.
    Teacher(TeacherIdentity),
}

/// The answer of [`TEACHER_METHOD`](crate::TEACHER_METHOD).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct TeacherIdentity {
    teacher: String,
}

impl Admitted {
    /// The JSON-RPC response to the request, or `None` for a notification,
    /// whose refusal is logged.
    fn respond(self, outcome: Result<Reply, RpcError>) -> Option<Answer<Reply>> {
        let Some(id) = self.id else {
            if let Err(error) = &outcome {
                tracing::info!(
                    method = %Untrusted::new(&self.method),
                    code = error.code,
                    "a notification (a request without an id) was refused, unanswered"
                );
            }
            return None;
        };
        Some(Answer::new(id, outcome))
    }
}

#[cfg(all(test, feature = "derive"))]
mod tests {
    use super::super::service_params::shown;
    use super::*;
    use crate::a2a::{Principal, Tokens};
    use crate::knowledge::Disagreement;
    use crate::{Learnable, TEACH_METHOD};
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
