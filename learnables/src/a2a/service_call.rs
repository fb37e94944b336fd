//! Calling the learnables methods: a request admitted (by the layer, or by
//! [`LearnablesService::call`] through the same admission), its teacher
//! authenticated, its params read into its method's own type, and the
//! method's work done, blocking or async.

use a2a_extensions::Refusal;
use a2a_extensions::json_rpc::Answer;
use serde_json::Value;

use super::Activation;
use super::LearnablesService;
use super::json_rpc::{Request, RpcError, codes};
use super::methods::refusals::shown;
use super::methods::teacher::TeacherIdentity;
use super::methods::{Call, Method, Reply, ReviewRequest};
use super::teachers::Principal;
use super::token_refusal::TokenRefusal;
use crate::Lesson;
use crate::untrusted::Untrusted;

impl LearnablesService {
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
        let admitted = self
            .admission()
            .admit_request(request, activation.clone().into_inner());
        self.answer_blocking(admitted, bearer_token)
    }

    /// An admission's outcome answered, blocking while a lesson is made
    /// durable.
    pub(super) fn answer_blocking(
        &self,
        admitted: Result<a2a_extensions::Call, Refusal>,
        bearer_token: Option<&str>,
    ) -> Option<Value> {
        let (admitted, next) = self.admit(admitted, self.authenticate(bearer_token));
        let outcome = match next {
            Next::Answered(outcome) => outcome,
            Next::Teach(lesson) => self.teach(&lesson),
            Next::Retract(lesson) => self.retract(&lesson),
            Next::Review(request) => self.review(&request),
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
        let admitted = self
            .admission()
            .admit_request(request, activation.clone().into_inner());
        let authenticated = self.authenticate_async(bearer_token).await;
        let (admitted, next) = self.admit(admitted, authenticated);
        let outcome = self.carry_out(next).await;
        admitted.respond(outcome).map(|answer| answer.to_value())
    }

    /// A request the layer admitted, answered: the teacher's token, the
    /// policy, the method's work.
    #[cfg(feature = "server")]
    pub(crate) async fn answer_admitted(
        &self,
        method: String,
        params: Value,
        bearer_token: Option<&str>,
    ) -> Result<Reply, RpcError> {
        let authenticated = self.authenticate_async(bearer_token).await;
        self.carry_out(self.next(&method, params, authenticated))
            .await
    }

    /// What admitting a request left to do, done.
    #[cfg(feature = "tokio")]
    async fn carry_out(&self, next: Next) -> Result<Reply, RpcError> {
        match next {
            Next::Teach(lesson) => self.teach_async(&lesson).await,
            Next::Retract(lesson) => self.retract_async(&lesson).await,
            Next::Review(request) => self.review_async(request).await,
            Next::Answered(outcome) => outcome,
        }
    }

    /// Everything short of storing a lesson, after the admission: the
    /// teacher; what the response needs, and either the answer or the
    /// lesson to teach.
    fn admit(
        &self,
        admitted: Result<a2a_extensions::Call, Refusal>,
        authenticated: Result<Principal, RpcError>,
    ) -> (Admitted, Next) {
        match admitted {
            Ok(call) => {
                let id = call.id().cloned();
                let next = self.next(&call.method, call.params, authenticated);
                (
                    Admitted {
                        id,
                        method: call.method,
                    },
                    next,
                )
            }
            Err(refusal) => {
                let admitted = Admitted {
                    id: refusal.id().cloned(),
                    method: String::new(),
                };
                (
                    admitted,
                    Next::Answered(Err(refusal.error().clone().into())),
                )
            }
        }
    }

    /// What a request for `method` leaves to do, its teacher `authenticated`
    /// already (or refused): a method the service does not have is refused
    /// as such first, whatever the token.
    fn next(
        &self,
        method: &str,
        params: Value,
        authenticated: Result<Principal, RpcError>,
    ) -> Next {
        // The admission let through only the methods this service handles;
        // one it does not name is refused all the same.
        let Some(found) = Method::named(self, method) else {
            return Next::Answered(Err(RpcError::new(
                codes::METHOD_NOT_FOUND,
                format!("there is no method `{}`", shown(method)),
            )));
        };
        let principal = match authenticated {
            Ok(principal) => principal,
            Err(error) => return Next::Answered(Err(error)),
        };
        let call = match found.read(params) {
            Ok(call) => call,
            Err(error) => return Next::Answered(Err(error)),
        };
        match call {
            Call::Teacher => Next::Answered(Ok(Reply::Teacher(TeacherIdentity::of(&principal)))),
            Call::ShowBack(params) => Next::Answered(self.show_back(&params).map(Reply::Shown)),
            Call::Teach(lesson) => match self.allowed(lesson, &principal) {
                Ok(lesson) => Next::Teach(lesson),
                Err(error) => Next::Answered(Err(error)),
            },
            Call::Retract(lesson) => match self.allowed(lesson, &principal) {
                Ok(lesson) => Next::Retract(lesson),
                Err(error) => Next::Answered(Err(error)),
            },
            Call::Review(request) => match self.review_allowed(request, &principal) {
                Ok(request) => Next::Review(Box::new(request)),
                Err(error) => Next::Answered(Err(error)),
            },
        }
    }

    /// The teacher of a blocking call: the authenticator's `verify`.
    fn authenticate(&self, bearer_token: Option<&str>) -> Result<Principal, RpcError> {
        let token = bearer_token.ok_or_else(no_token)?;
        self.authenticator().verify(token).map_err(refused_token)
    }

    /// The teacher of an async call: the authenticator's `verify_async`,
    /// which may wait on its provider's keys.
    #[cfg(feature = "tokio")]
    async fn authenticate_async(&self, bearer_token: Option<&str>) -> Result<Principal, RpcError> {
        let token = bearer_token.ok_or_else(no_token)?;
        self.authenticator()
            .verify_async(token)
            .await
            .map_err(refused_token)
    }
}

/// The refusal of a request that sends no token.
fn no_token() -> RpcError {
    RpcError::new(
        codes::UNAUTHENTICATED,
        "no teacher is authenticated: send `Authorization: Bearer <token>`",
    )
}

/// The refusal of a token, naming the check it failed.
fn refused_token(refusal: TokenRefusal) -> RpcError {
    RpcError::new(codes::UNAUTHENTICATED, refusal.to_string())
}

/// A request admitted: what its response needs.
struct Admitted {
    id: Option<a2a_extensions::json_rpc::Id>,
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
    /// A proposal to decide, or the open ones to list.
    Review(Box<ReviewRequest>),
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
        Some(Answer::new(id, outcome.map_err(Into::into)))
    }
}
