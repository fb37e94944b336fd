//! The learnables methods, independent of any web framework: a JSON-RPC
//! request in, a JSON-RPC response out; with the feature `server`, a whole
//! agent's axum router around them ([`LearnablesService::router`]).

use std::borrow::Cow;
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

use super::Activation;
use super::json_rpc::{Answer, Limits, Request, RpcError, codes, reasons};
use super::retraction;
use super::show_back::{ShowBack, ShowBackParams};
use super::show_back_history::history_page;
use super::teachers::{Authenticator, HumansOnly, Principal, TeacherPolicy};
use crate::constants::SHOW_BACK_METHOD;
use crate::declaration::Declaration;
use crate::knowledge::{Knowledge, KnowledgeError};
use crate::knowledge::{OnUnreadable, StoreError, TeachError};
use crate::untrusted::{HiddenCharacter, Untrusted};
use crate::wire::{LearnableDescriptor, Lesson, LessonField, LessonResult, LessonValue};

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
    pub fn new(
        knowledge: Knowledge,
        declaration: Declaration,
        authenticator: impl Authenticator,
    ) -> LearnablesService {
        LearnablesService::try_new(knowledge, declaration, authenticator)
            .unwrap_or_else(|error| panic!("the learnables service cannot be built: {error}"))
    }

    /// [`LearnablesService::new`], with the reason it cannot be built
    /// rather than a panic: [`KnowledgeError::Unreadable`], the report of
    /// every stored version of a declared learnable that does not read;
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
                    Err(TeachError::Store(StoreError::OutcomeUnknown(
                        format!("the retraction did not finish: {error}").into(),
                    )))
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
        hidden_characters(&lesson.collection, &lesson.entry)?;
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

    fn show_back(&self, params: &Value) -> Result<Value, RpcError> {
        let params = read_show_back(params)?;
        hidden_characters(&params.collection, &params.entry)?;
        let descriptor = self.descriptor(&params.collection)?;
        let snapshot = match &params.version_id {
            Some(version_id) => self.inner.knowledge.pin_as_of(version_id).map_err(|_| {
                let message = format!("no version has the id `{}`", shown(version_id));
                RpcError::new(codes::NOT_FOUND, message.clone())
                    .because(reasons::VERSION_NOT_FOUND)
                    .at_field("versionId", message)
            })?,
            None => self.inner.knowledge.pin(),
        };
        let retraction = snapshot.retraction(&params.collection, &params.entry);
        let record = snapshot
            .entry_record(&params.collection, &params.entry)
            .or(retraction.as_ref())
            .ok_or_else(|| {
                let message = format!(
                    "`{}` has no {} `{}` yet",
                    params.collection,
                    descriptor.entry,
                    shown(&params.entry)
                );
                // Beside the field, in a teacher's words.
                let in_words = format!(
                    "the agent has not been taught the {} \"{}\" yet",
                    descriptor.entry,
                    shown(&params.entry)
                );
                RpcError::new(codes::NOT_FOUND, message)
                    .because(reasons::ENTRY_NOT_FOUND)
                    .at_field("entry", in_words)
            })?;
        let fields = match self
            .inner
            .knowledge
            .lesson_fields_as_learned(&params.collection, &record.value)
            .filter(|_| !record.retracted)
        {
            Some(Ok(fields)) => fields,
            Some(Err(error)) => {
                return Err(RpcError::new(
                    codes::INTERNAL_ERROR,
                    format!("the stored entry no longer reads as its learnable: {error}"),
                ));
            }
            // A retraction has no values to show.
            None if record.retracted => descriptor
                .lesson_fields
                .iter()
                .map(|field| LessonField {
                    default: None,
                    ..field.clone()
                })
                .collect(),
            None => descriptor.lesson_fields.clone(),
        };
        let mut shown_back = ShowBack::of(fields, &snapshot, record);
        if let Some(history) = &params.history {
            shown_back.history = Some(history_page(
                &self.inner.knowledge,
                &snapshot,
                &params.collection,
                &params.entry,
                history,
                shown,
            )?);
        }
        serde_json::to_value(shown_back)
            .map_err(|error| RpcError::new(codes::INTERNAL_ERROR, error.to_string()))
    }

    fn descriptor(&self, collection: &str) -> Result<&LearnableDescriptor, RpcError> {
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

/// `error`, the refusal of `lesson`, logged with the authenticated
/// `principal`.
fn refused(lesson: &Lesson, principal: &str, error: RpcError) -> RpcError {
    tracing::warn!(
        collection = %Untrusted::new(&lesson.collection),
        entry = %Untrusted::new(&lesson.entry),
        taught_by = %Untrusted::new(&lesson.taught_by),
        principal = %Untrusted::new(principal),
        reason = %Untrusted::new(&error.message),
        "lesson refused"
    );
    error
}

/// The refusal of a collection the agent has no learnable of: `message`,
/// then the ones it has.
fn unknown_learnable(message: String, known: &[impl AsRef<str>]) -> RpcError {
    let known: Vec<&str> = known.iter().map(AsRef::as_ref).collect();
    let known = known.join(", ");
    RpcError::invalid_params("collection", format!("{message} {known}"))
        .because(reasons::LEARNABLE_UNKNOWN)
        .with_metadata("known", known)
}

/// Reads a `Lesson` from params, naming the field at fault. Keys a
/// lesson does not have are allowed (the spec's schema allows them) and
/// ignored: they are never stored. The lesson's fields are moved out of
/// the params, not copied.
fn read_lesson(params: Value) -> Result<Lesson, RpcError> {
    let Value::Object(object) = params else {
        return Err(RpcError::new(
            codes::INVALID_PARAMS,
            "the params of a teach request are a Lesson object",
        ));
    };
    // One walk over the members (the reader refused any given twice);
    // members a `Lesson` does not have are dropped unread.
    let (mut collection, mut entry, mut value, mut taught_by, mut reason) =
        (None, None, None, None, None);
    for (name, member) in object {
        let slot = match name.as_str() {
            "collection" => &mut collection,
            "entry" => &mut entry,
            "value" => &mut value,
            "taughtBy" => &mut taught_by,
            "reason" => &mut reason,
            _ => continue,
        };
        *slot = Some(member);
    }
    let wrong = |field: &str, kind: &str| {
        RpcError::invalid_params(field, format!("the lesson's `{field}` must be {kind}"))
    };
    let text = |field: &str, value: Option<Value>| match value {
        Some(Value::String(text)) => Ok(text),
        _ => Err(wrong(field, "a string")),
    };
    let collection = text("collection", collection)?;
    let entry = text("entry", entry)?;
    let value = match value {
        Some(Value::Object(value)) => LessonValue::from(value),
        _ => return Err(wrong("value", "an object")),
    };
    let taught_by = text("taughtBy", taught_by)?;
    let reason = match reason {
        None => None,
        Some(Value::String(reason)) => Some(reason),
        Some(_) => return Err(wrong("reason", "a string")),
    };
    let lesson = Lesson {
        collection,
        entry,
        value,
        taught_by,
        reason,
    };
    // Bounded before any other work: the lengths the `Lesson` documents.
    if let Some((field, limit)) = lesson.too_long() {
        let text = match field {
            "collection" => &lesson.collection,
            "entry" => &lesson.entry,
            "taughtBy" => &lesson.taught_by,
            _ => lesson.reason.as_deref().unwrap_or_default(),
        };
        return Err(RpcError::invalid_params(
            field,
            format!(
                "the lesson's `{field}` (`{}`) is longer than its limit of {limit} characters",
                shown(text)
            ),
        )
        .with_metadata("maxChars", limit.to_string()));
    }
    Ok(lesson)
}

/// Reads the params of a show-back, naming the field at fault.
fn read_show_back(params: &Value) -> Result<ShowBackParams, RpcError> {
    const SHAPE: &str =
        "the show-back params are `{collection, entry, versionId?, history?: {limit?, from?}}`";
    let Value::Object(object) = params else {
        return Err(RpcError::new(
            codes::INVALID_PARAMS,
            format!("{SHAPE}, an object"),
        ));
    };
    for (field, required) in [("collection", true), ("entry", true), ("versionId", false)] {
        match object.get(field) {
            Some(Value::String(_)) => {}
            None | Some(Value::Null) if !required => {}
            _ => {
                return Err(RpcError::invalid_params(
                    field,
                    format!("{SHAPE}: `{field}` must be a string"),
                ));
            }
        }
    }
    match object.get("history") {
        None | Some(Value::Null | Value::Object(_)) => {}
        Some(_) => {
            return Err(RpcError::invalid_params(
                "history",
                format!("{SHAPE}: `history` must be an object"),
            ));
        }
    }
    if let Some(unknown) = object
        .keys()
        .find(|key| !["collection", "entry", "versionId", "history"].contains(&key.as_str()))
    {
        return Err(RpcError::invalid_params(
            &shown(unknown),
            format!("{SHAPE}: `{}` is not one of them", shown(unknown)),
        ));
    }
    serde_json::from_value(params.clone())
        .map_err(|error| RpcError::new(codes::INVALID_PARAMS, format!("{SHAPE}: {error}")))
}

/// Client text as an error message repeats it: escaped and bounded by the
/// one path all untrusted text takes ([`Untrusted`](crate::untrusted::Untrusted)).
fn shown(text: &str) -> String {
    crate::untrusted::Untrusted::new(text)
        .max_chars(SHOWN_CHARS)
        .to_string()
}

/// How many characters of a client's text an error message repeats.
const SHOWN_CHARS: usize = 80;

/// The JSON-RPC error of a refused lesson.
fn teach_error(error: &TeachError) -> RpcError {
    match error {
        TeachError::UnknownCollection { collection, known } => unknown_learnable(
            format!(
                "this agent cannot be taught `{}`; it can be taught:",
                shown(collection)
            ),
            known,
        ),
        TeachError::EmptyEntry => RpcError::invalid_params("entry", error.to_string()),
        TeachError::NoTeacher => RpcError::invalid_params("taughtBy", error.to_string()),
        TeachError::HiddenCharacter(hidden) => hidden_character(hidden),
        TeachError::Lesson(lesson) => {
            let refusal = RpcError::new(codes::INVALID_PARAMS, error.to_string())
                .because(reasons::LESSON_INVALID);
            lesson.problems().iter().fold(refusal, |refusal, problem| {
                let field = problem
                    .field()
                    .map_or_else(|| "value".to_owned(), |field| format!("value.{field}"));
                // Beside the field, in the teacher's words (the message
                // names the keys, for the developer).
                refusal.at_field(&field, problem.in_words())
            })
        }
        TeachError::UnknownEntry { collection, entry } => RpcError::invalid_params(
            "entry",
            format!(
                "`{}` has never been taught the entry `{}`",
                shown(collection),
                shown(entry)
            ),
        ),
        TeachError::UnknownVersion {
            entry, version_id, ..
        } => RpcError::invalid_params(
            "versionId",
            format!(
                "the entry `{}` has no version `{}`",
                shown(entry),
                shown(version_id)
            ),
        ),
        TeachError::Store(store) => store_error(store),
    }
}

/// Refuses a collection or entry that holds a character which does not
/// show as itself, naming the field and the character.
fn hidden_characters(collection: &str, entry: &str) -> Result<(), RpcError> {
    HiddenCharacter::check("collection", collection)
        .and_then(|()| HiddenCharacter::check("entry", entry))
        .map_err(|hidden| hidden_character(&hidden))
}

/// The JSON-RPC error of a name holding a character that does not show as
/// itself: the field at fault, and the character in the metadata.
fn hidden_character(hidden: &HiddenCharacter) -> RpcError {
    RpcError::invalid_params(hidden.field, hidden.to_string()).with_metadata(
        "character",
        format!("U+{:04X}", u32::from(hidden.character)),
    )
}

/// The JSON-RPC error of a store failure, as a client may read it: what
/// failed and whether the lesson was absorbed, never the store's own
/// message (which may name its files, its database or its host).
fn store_error(error: &StoreError) -> RpcError {
    let reason = match error {
        StoreError::Open { .. } => "it could not be opened; the lesson was not absorbed",
        StoreError::Damaged(_) => "it is damaged; the lesson was not absorbed",
        StoreError::Conflict { .. } => {
            "another writer changed the knowledge first; the lesson was not absorbed, try again"
        }
        StoreError::Failed(_) => "reading or writing failed; the lesson was not absorbed",
        StoreError::OutcomeUnknown(_) => {
            "the write was not confirmed; the lesson may have been absorbed: read it back"
        }
    };
    RpcError::new(
        codes::INTERNAL_ERROR,
        format!("the knowledge store failed: {reason}"),
    )
    .because(reasons::STORE_FAILED)
}

#[cfg(feature = "server")]
/// The path of the agent card.
pub const CARD_PATH: &str = "/.well-known/agent-card.json";

#[cfg(feature = "server")]
impl LearnablesService {
    /// A router for a whole agent: `GET /.well-known/agent-card.json`
    /// serves `card` with the declaration added, and everything else is
    /// `inner` under a [`LearnablesLayer`](super::LearnablesLayer).
    ///
    /// An agent that serves its own card (the official A2A server SDK's
    /// `agent_card_router`, say) should keep its card route and apply
    /// [`LearnablesLayer`](super::LearnablesLayer) itself instead, putting the declaration on its
    /// card where it makes it (with the feature `a2a-server`,
    /// [`DeclaredCard`][card]): this router's card route
    /// replaces the agent's own, with its headers.
    ///
    /// ```
    /// use axum::Router;
    /// use learnables::a2a::{LearnablesService, Tokens};
    /// use learnables::{Declaration, Knowledge};
    /// let service = LearnablesService::new(Knowledge::in_memory(), Declaration::new(), Tokens::new());
    /// let card = serde_json::json!({"name": "Agent", "capabilities": {}, "skills": []});
    /// let router: Router = service.router(card, Router::new()).unwrap();
    /// ```
    #[cfg_attr(feature = "a2a-server", doc = "[card]: super::DeclaredCard")]
    #[cfg_attr(not(feature = "a2a-server"), doc = "[card]: crate#features")]
    pub fn router(
        self,
        card: Value,
        inner: axum::Router,
    ) -> Result<axum::Router, super::CardError> {
        self.router_at("/", card, inner)
    }

    /// [`LearnablesService::router`] with the JSON-RPC endpoint at `rpc_path`.
    pub fn router_at(
        self,
        rpc_path: &str,
        mut card: Value,
        inner: axum::Router,
    ) -> Result<axum::Router, super::CardError> {
        self.declaration().add_to_card(&mut card)?;
        let card: axum::body::Bytes = serde_json::to_vec(&card)
            .map_err(|_| super::CardError::Shape("body", "object"))?
            .into();
        let serve_card = move || {
            let card = card.clone();
            async move { card_response(card) }
        };
        Ok(axum::Router::new()
            .route(CARD_PATH, axum::routing::get(serve_card))
            .fallback_service(inner)
            .layer(super::LearnablesLayer::new(self).at(rpc_path)))
    }
}

#[cfg(feature = "server")]
fn card_response(card: axum::body::Bytes) -> axum::response::Response {
    use axum::response::IntoResponse as _;
    (
        [(
            axum::http::header::CONTENT_TYPE,
            axum::http::HeaderValue::from_static("application/json"),
        )],
        card,
    )
        .into_response()
}

#[cfg(all(test, feature = "derive"))]
mod tests {
    use super::shown;
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
