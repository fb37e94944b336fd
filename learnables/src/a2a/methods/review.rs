//! The review method (`rsaxb.learnables.Review`, the declaration's
//! `reviewMethod`): its params read once into the knowledge's [`Review`]
//! (or a listing), checked against the authenticated teacher, then decided
//! by [`Knowledge::review`], whose refusals are JSON-RPC errors with their
//! own reasons.
//!
//! Our reading (the spec has no review): a learnable declared with
//! `review: {approvals: N}` learns a lesson only once N teachers other than
//! its author approve it. A decision is `{collection, entry, proposalId,
//! decision: "approve" | "reject", reviewedBy, reason}`, served under the
//! same activation and token as a lesson; `reviewedBy` names the person the
//! token names, as a lesson's `taughtBy` does. The same method with params
//! holding no `proposalId` lists the open proposals (of one collection, or
//! one entry, when named), each saying whether the token's teacher may
//! decide it.

use serde_json::{Map, Value};

use super::refusals::{hidden_characters, shown, store_error};
use super::{Page, Reply, ReviewRequest};
use crate::a2a::LearnablesService;
use crate::a2a::json_rpc::{RpcError, codes};
use crate::a2a::review_view::{OpenProposal, is_open};
use crate::a2a::teachers::Principal;
use crate::knowledge::Knowledge;
#[cfg(feature = "tokio")]
use crate::knowledge::TeachError;
use crate::{Decision, Lesson, Review};

/// The longest `proposalId` read, in characters: an id the knowledge made
/// is far shorter, so a longer one names no proposal.
const MAX_PROPOSAL_ID: usize = 128;

/// The longest `reason` a decision keeps, in characters, as a lesson's.
const MAX_REASON: usize = Lesson::MAX_REASON_CHARS;

/// How many proposals a page of the listing holds when `limit` is not
/// given, and at most: as History pages.
const DEFAULT_PAGE: u32 = 20;
const MAX_PAGE: u32 = 100;

/// Reads a review request's params, naming the field at fault. Keys it
/// does not have are ignored, as a lesson's are.
pub(crate) fn read(params: Value) -> Result<ReviewRequest, RpcError> {
    let mut object = match params {
        Value::Object(object) => object,
        // No params at all: the listing of every open proposal.
        Value::Null => Map::new(),
        _ => {
            return Err(RpcError::new(
                codes::INVALID_PARAMS,
                "the params of a review request are `{collection, entry, proposalId, decision, \
                 reviewedBy, reason}`, or `{collection?, entry?}` to list the open proposals",
            ));
        }
    };
    let mut take = |field: &str| object.remove(field);
    let (collection, entry) = (take("collection"), take("entry"));
    let (proposal_id, decision) = (take("proposalId"), take("decision"));
    let (reviewed_by, reason) = (take("reviewedBy"), take("reason"));
    let (limit, from) = (take("limit"), take("from"));
    let optional = |field: &str, value: Option<Value>, limit: usize| match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) if text.chars().count() > limit => Err(RpcError::invalid_params(
            field,
            format!(
                "the review's `{field}` (`{}`) is longer than its limit of {limit} characters",
                shown(&text)
            ),
        )
        .with_metadata("maxChars", limit.to_string())),
        Some(Value::String(text)) => Ok(Some(text)),
        Some(_) => Err(RpcError::invalid_params(
            field,
            format!("the review's `{field}` must be a string"),
        )),
    };
    let collection = optional("collection", collection, Lesson::MAX_COLLECTION_CHARS)?;
    let entry = optional("entry", entry, Lesson::MAX_ENTRY_CHARS)?;
    let Some(proposal_id) = optional("proposalId", proposal_id, MAX_PROPOSAL_ID)? else {
        if decision.is_some() {
            return Err(missing("proposalId", "the proposal it decides"));
        }
        if collection.is_none() && entry.is_some() {
            return Err(missing("collection", "the collection of the entry"));
        }
        let limit = match limit {
            None | Some(Value::Null) => DEFAULT_PAGE,
            Some(limit) => limit
                .as_u64()
                .and_then(|limit| u32::try_from(limit).ok())
                .filter(|limit| (1..=MAX_PAGE).contains(limit))
                .ok_or_else(|| {
                    RpcError::invalid_params(
                        "limit",
                        format!("a page of proposals holds 1 to {MAX_PAGE}, not {limit}"),
                    )
                })?,
        };
        let from = optional("from", from, MAX_PROPOSAL_ID)?;
        return Ok(ReviewRequest::List {
            collection,
            entry,
            viewer: String::new(),
            page: Page { limit, from },
        });
    };
    let collection =
        collection.ok_or_else(|| missing("collection", "the proposal's collection"))?;
    let entry = entry.ok_or_else(|| missing("entry", "the proposal's entry"))?;
    let decision = match decision {
        Some(Value::String(text)) if text == "approve" => Decision::Approve,
        Some(Value::String(text)) if text == "reject" => Decision::Reject,
        None => return Err(missing("decision", "`approve` or `reject`")),
        Some(other) => {
            let given = match &other {
                Value::String(text) => format!("`{}`", shown(text)),
                _ => "not a string".to_owned(),
            };
            return Err(RpcError::invalid_params(
                "decision",
                format!("the review's `decision` is {given}: it must be `approve` or `reject`"),
            ));
        }
    };
    let reviewed_by = optional("reviewedBy", reviewed_by, Lesson::MAX_TAUGHT_BY_CHARS)?
        .filter(|name| !name.trim().is_empty())
        .ok_or_else(|| missing("reviewedBy", "the teacher who decides"))?;
    let reason = optional("reason", reason, MAX_REASON)?.filter(|reason| !reason.trim().is_empty());
    if decision == Decision::Reject && reason.is_none() {
        return Err(RpcError::invalid_params(
            "reason",
            "a rejection says why in `reason`, for the teacher who proposed the lesson",
        ));
    }
    Ok(ReviewRequest::Decide(Review {
        collection,
        entry,
        proposal_id,
        decision,
        reviewed_by,
        reason,
    }))
}

impl LearnablesService {
    /// Reads a review request and checks it against the authenticated
    /// `principal`: a decision's `reviewedBy` names them (kept in the letter
    /// case they were authenticated in), and the teacher policy allows them to
    /// teach the entry, as it would a lesson of theirs.
    pub(in crate::a2a) fn review_allowed(
        &self,
        mut request: ReviewRequest,
        principal: &Principal,
    ) -> Result<ReviewRequest, RpcError> {
        let params = match &mut request {
            ReviewRequest::List { viewer, .. } => {
                *viewer = principal.id().to_owned();
                return Ok(request);
            }
            ReviewRequest::Decide(params) => params,
        };
        hidden_characters(&params.collection, &params.entry)?;
        // As for a lesson's `taughtBy`: the name as written, ASCII case aside.
        if !params.reviewed_by.eq_ignore_ascii_case(principal.id()) {
            let message = format!(
                "`reviewedBy` is `{}`, but the authenticated teacher is `{}`: a decision names the \
                 person who makes it",
                shown(&params.reviewed_by),
                principal.id()
            );
            return Err(
                RpcError::new(codes::FORBIDDEN, message.clone()).at_field("reviewedBy", message)
            );
        }
        params.reviewed_by = principal.id().to_owned();
        // The collection the declaration lists, and the policy on who may
        // teach, as for the proposal's lesson taught by the reviewer: a
        // policy that bounds what a teacher may set bounds what they may
        // approve.
        let mut lesson = as_lesson(params);
        if let Ok(Some(proposal)) = self.knowledge().proposal(&params.proposal_id)
            && proposal.collection == params.collection
            && proposal.entry == params.entry
        {
            lesson.value = proposal.value;
        }
        self.allowed_as(lesson, principal, Some(params.decision))?;
        Ok(request)
    }

    /// Answers an admitted review request (blocking while a decision is made
    /// durable).
    pub(in crate::a2a) fn review(&self, request: &ReviewRequest) -> Result<Reply, RpcError> {
        match request {
            ReviewRequest::List {
                collection,
                entry,
                viewer,
                page,
            } => listing(
                self.knowledge(),
                collection.as_deref(),
                entry.as_deref(),
                viewer,
                page,
            )
            .map(Reply::Shown),
            ReviewRequest::Decide(params) => {
                let result = self.knowledge().review(params);
                self.taught(&as_lesson(params), result)
            }
        }
    }

    /// [`LearnablesService::review`] for async code: the decision is made durable off the
    /// runtime's threads, and an approval that makes a version resumes the
    /// tasks waiting on the entry before the reviewer hears back, as a lesson
    /// learned at once does.
    #[cfg(feature = "tokio")]
    pub(in crate::a2a) async fn review_async(
        &self,
        request: Box<ReviewRequest>,
    ) -> Result<Reply, RpcError> {
        let ReviewRequest::Decide(params) = *request else {
            return self.review(&request);
        };
        let knowledge = self.knowledge().clone();
        let deciding = params.clone();
        let result = tokio::task::spawn_blocking(move || knowledge.review(&deciding))
            .await
            .unwrap_or_else(|error| {
                Err(TeachError::Store(
                    crate::knowledge::StoreError::OutcomeUnknown(
                        format!("the decision did not finish: {error}").into(),
                    ),
                ))
            });
        let lesson = as_lesson(&params);
        let outcome = self.taught(&lesson, result);
        #[cfg(feature = "a2a-server")]
        if let (Ok(Reply::Taught(taught)), Some(resumer)) = (&outcome, self.resumer()) {
            crate::a2a::sdk::resume_apart(resumer, &lesson, taught).await;
        }
        outcome
    }
}

/// A decision as a lesson without a value, for the log and the resumer,
/// which read its collection, entry and teacher.
fn as_lesson(review: &Review) -> Lesson {
    let mut lesson = Lesson::new(
        review.collection.clone(),
        review.entry.clone(),
        crate::LessonValue::default(),
        review.reviewed_by.clone(),
    );
    lesson.reason = review.reason.clone();
    lesson
}

/// A page of the open proposals, of one collection or entry when named,
/// as the method lists them for `viewer`, in the order they were made:
/// `{"proposals": [OpenProposal], "next": "<proposalId>"}`, `next` the
/// first of the page after (absent on the last page).
fn listing(
    knowledge: &Knowledge,
    collection: Option<&str>,
    entry: Option<&str>,
    viewer: &str,
    page: &Page,
) -> Result<Value, RpcError> {
    let mut open = knowledge
        .open_proposals()
        .map_err(|error| listing_failed(&error))?;
    // Ids are made in time order (UUID v7): a page goes on from its `from`
    // even when that proposal was decided meanwhile.
    open.sort_by(|one, other| one.proposal_id.cmp(&other.proposal_id));
    let mut shown = open
        .iter()
        .filter(|proposal| collection.is_none_or(|collection| proposal.collection == collection))
        .filter(|proposal| entry.is_none_or(|entry| proposal.entry == entry))
        .filter(|proposal| {
            page.from
                .as_deref()
                .is_none_or(|from| proposal.proposal_id.as_str() >= from)
        });
    let proposals: Vec<OpenProposal> = shown
        .by_ref()
        .take(page.limit as usize)
        .map(|proposal| OpenProposal::of(knowledge, proposal, Some(viewer)))
        .collect();
    let mut answer = serde_json::json!({ "proposals": proposals });
    if let Some(next) = shown.next() {
        answer["next"] = Value::String(next.proposal_id.clone());
    }
    Ok(answer)
}

/// The open proposals of one entry, as show-back lists them.
pub(super) fn open_of_entry(
    knowledge: &Knowledge,
    collection: &str,
    entry: &str,
) -> Result<Vec<OpenProposal>, RpcError> {
    let all = knowledge
        .proposals(collection, entry)
        .map_err(|error| listing_failed(&error))?;
    Ok(all
        .iter()
        .filter(|proposal| is_open(proposal))
        .map(|proposal| OpenProposal::of(knowledge, proposal, None))
        .collect())
}

/// The refusal of a listing the store failed, logged in full.
fn listing_failed(error: &crate::knowledge::StoreError) -> RpcError {
    tracing::error!(
        error = %crate::untrusted::Untrusted::new(&error.to_string()),
        "the knowledge store failed while listing the proposals"
    );
    store_error(error)
}

/// The refusal of a decision missing `field`, which names `what`.
fn missing(field: &str, what: &str) -> RpcError {
    RpcError::invalid_params(
        field,
        format!("a review's decision needs `{field}`: {what}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn decision(params: Value) -> Result<Review, RpcError> {
        read(params).map(|request| match request {
            ReviewRequest::Decide(params) => params,
            other => panic!("not a decision: {other:?}"),
        })
    }

    /// A request for `method` to `service`, activated, with `token`: its response.
    fn activated_call(
        service: &LearnablesService,
        method: &str,
        params: Value,
        token: &str,
    ) -> Value {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let request =
            crate::a2a::json_rpc::read_request(body.to_string().as_bytes(), Default::default())
                .unwrap();
        let activation = crate::a2a::Activation::from_header_values([crate::EXTENSION_URI]);
        service.call(request, &activation, Some(token)).unwrap()
    }

    fn approval() -> Value {
        json!({"collection": "clearance_limits", "entry": "FR", "proposalId": "p1",
            "decision": "approve", "reviewedBy": "bob@example.com"})
    }

    #[test]
    fn an_approval_reads_with_or_without_a_reason() {
        let params = decision(approval()).unwrap();
        assert_eq!(params.decision, Decision::Approve);
        assert_eq!(params.reviewed_by, "bob@example.com");
        assert_eq!(params.reason, None);
        let mut with_reason = approval();
        with_reason["reason"] = json!("matches the ministry's letter");
        let params = decision(with_reason).unwrap();
        assert_eq!(
            params.reason.as_deref(),
            Some("matches the ministry's letter")
        );
    }

    #[test]
    fn a_rejection_says_why() {
        let mut rejection = approval();
        rejection["decision"] = json!("reject");
        let error = decision(rejection.clone()).unwrap_err();
        assert_eq!(error.violations()[0].field, "reason");
        rejection["reason"] = json!("the ministry has not confirmed it");
        assert_eq!(decision(rejection).unwrap().decision, Decision::Reject);
    }

    #[test]
    fn a_decision_other_than_approve_or_reject_is_refused_by_name() {
        let mut params = approval();
        params["decision"] = json!("Approve\u{202E}");
        let error = decision(params).unwrap_err();
        assert_eq!(error.violations()[0].field, "decision");
        assert!(
            error.message.contains("`Approve\\u{202e}`"),
            "{}",
            error.message
        );
    }

    #[test]
    fn params_without_a_proposal_list_the_open_ones() {
        assert_eq!(
            read(Value::Null).unwrap(),
            ReviewRequest::List {
                collection: None,
                entry: None,
                viewer: String::new(),
                page: Page {
                    limit: DEFAULT_PAGE,
                    from: None
                }
            }
        );
        assert_eq!(
            read(json!({"collection": "clearance_limits"})).unwrap(),
            ReviewRequest::List {
                collection: Some("clearance_limits".into()),
                entry: None,
                viewer: String::new(),
                page: Page {
                    limit: DEFAULT_PAGE,
                    from: None
                }
            }
        );
        let error = read(json!({"decision": "approve"})).unwrap_err();
        assert_eq!(error.violations()[0].field, "proposalId");
    }

    #[cfg(feature = "derive")]
    #[test]
    fn a_decision_names_the_teacher_the_token_names() {
        use crate::a2a::{Principal, Tokens};
        use crate::{Declaration, Learnable, REVIEW_METHOD, TEACH_METHOD};

        #[derive(Learnable, Clone, Debug, PartialEq)]
        #[learnable(
            collection = "clearance_limits",
            entry = "broker",
            teaches = "How much a broker may clear alone",
            how = "A fixed amount per broker, set by the compliance team",
            decided_by = "rules",
            describes = "{entry}: {limit}"
        )]
        struct Limit {
            /// Limit in euros
            limit: u32,
        }
        let declaration = Declaration::new()
            .learnable::<Limit>()
            .teach_method(TEACH_METHOD)
            .review_method(REVIEW_METHOD);
        let tokens = Tokens::new().with("b0b", Principal::human("Bob@Example.com"));
        let service = LearnablesService::new(Knowledge::in_memory(), declaration, tokens);
        assert!(service.handles(REVIEW_METHOD));
        let call = |params: Value| activated_call(&service, REVIEW_METHOD, params, "b0b");
        let mut params = approval();
        params["collection"] = json!("clearance_limits");
        params["reviewedBy"] = json!("alice@example.com");
        let refused = call(params.clone());
        assert_eq!(refused["error"]["code"], codes::FORBIDDEN, "{refused}");
        assert!(refused.to_string().contains("reviewedBy"), "{refused}");
        // A collection the declaration does not list is refused as for a lesson.
        params["collection"] = json!("routing_rules");
        params["reviewedBy"] = json!("bob@example.com");
        let unknown = call(params);
        assert_eq!(unknown["error"]["code"], codes::INVALID_PARAMS, "{unknown}");
        assert!(
            unknown.to_string().contains("LEARNABLE_UNKNOWN"),
            "{unknown}"
        );
    }

    #[test]
    fn show_back_of_an_entry_whose_first_lesson_waits_lists_it_and_a_reviewed_version_names_its_approvers()
     {
        use crate::a2a::{Principal, Tokens};
        use crate::{Declaration, Learnable, SHOW_BACK_METHOD, TEACH_METHOD};

        #[derive(Learnable, Clone, Debug, PartialEq)]
        #[learnable(
            collection = "clearance_limits",
            entry = "broker",
            teaches = "How much a broker may clear alone",
            how = "A fixed amount per broker, set by the compliance team",
            decided_by = "rules",
            describes = "{entry}: {limit}",
            review
        )]
        struct Limit {
            /// Limit in euros
            limit: u32,
        }
        let declaration = Declaration::new()
            .learnable::<Limit>()
            .teach_method(TEACH_METHOD)
            .review_method(crate::REVIEW_METHOD);
        let tokens = Tokens::new()
            .with("a1", Principal::human("alice@example.com"))
            .with("b2", Principal::human("bob@example.com"));
        let service = LearnablesService::new(Knowledge::in_memory(), declaration, tokens);
        let call = |method: &str, params: Value| activated_call(&service, method, params, "a1");
        let entry = json!({"collection": "clearance_limits", "entry": "b1"});
        let unknown = call(SHOW_BACK_METHOD, entry.clone());
        assert!(!unknown.to_string().contains("review"), "{unknown}");
        let proposed = call(
            TEACH_METHOD,
            json!({"collection": "clearance_limits", "entry": "b1", "value": {"limit": "10"},
                   "taughtBy": "alice@example.com"}),
        );
        assert_eq!(proposed["result"]["learned"], false, "{proposed}");
        let waiting = call(SHOW_BACK_METHOD, entry.clone());
        // Shown by its proposal, field by field: who, why, what it changes.
        let shown = &waiting["result"];
        assert_eq!(shown["unlearned"], true, "{waiting}");
        assert!(
            shown["describes"]
                .as_str()
                .unwrap()
                .ends_with(": 1 lesson for it waits for review"),
            "{waiting}"
        );
        let proposal = &shown["proposals"][0];
        assert_eq!(proposal["proposedBy"], "alice@example.com", "{waiting}");
        assert_eq!(proposal["changes"][0]["after"], "10", "{waiting}");
        assert_eq!(shown["lessonFields"][0].get("default"), None, "{waiting}");
        // Approved, the version names its approver.
        let approved = activated_call(
            &service,
            crate::REVIEW_METHOD,
            json!({"collection": "clearance_limits", "entry": "b1",
                   "proposalId": proposed["result"]["proposalId"], "decision": "approve",
                   "reviewedBy": "bob@example.com"}),
            "b2",
        );
        assert_eq!(approved["result"]["learned"], true, "{approved}");
        let learned = call(SHOW_BACK_METHOD, entry);
        assert_eq!(learned["result"]["approvedBy"], json!(["bob@example.com"]));
        assert_eq!(learned["result"].get("unlearned"), None, "{learned}");
    }

    /// A policy that bounds what a teacher may set bounds what they may
    /// approve: it sees the proposal's value, and that it is an approval.
    #[cfg(feature = "derive")]
    #[test]
    fn a_policy_sees_the_value_a_reviewer_approves() {
        use crate::a2a::{Principal, TeacherPolicy, Tokens};
        use crate::{Declaration, Learnable, REVIEW_METHOD, TEACH_METHOD};

        #[derive(Learnable, Clone, Debug, PartialEq)]
        #[learnable(
            collection = "clearance_limits",
            entry = "broker",
            teaches = "How much a broker may clear alone",
            how = "A fixed amount per broker, set by the compliance team",
            decided_by = "rules",
            describes = "{entry}: {limit}",
            review
        )]
        struct Limit {
            /// Limit in euros
            limit: u32,
        }
        /// bob may set limits up to EUR 10,000, and so approve no more.
        struct BobUpTo10k;
        impl TeacherPolicy for BobUpTo10k {
            fn allow(&self, principal: &Principal, lesson: &Lesson) -> Result<(), String> {
                let limit = lesson.parse::<Limit>().map_or(0, |limit| limit.limit);
                if principal.id() == "bob@example.com" && limit > 10_000 {
                    return Err(format!("bob may set limits up to EUR 10,000, not {limit}"));
                }
                Ok(())
            }
        }
        let declaration = Declaration::new()
            .learnable::<Limit>()
            .teach_method(TEACH_METHOD)
            .review_method(REVIEW_METHOD);
        let tokens = Tokens::new()
            .with("a1", Principal::human("alice@example.com"))
            .with("b1", Principal::human("bob@example.com"));
        let service = LearnablesService::new(Knowledge::in_memory(), declaration, tokens)
            .with_policy(BobUpTo10k);
        let propose = |entry: &str, limit: u32, token: &str, by: &str| {
            let lesson = json!({"collection": "clearance_limits", "entry": entry,
                "value": {"limit": limit}, "taughtBy": by});
            activated_call(&service, TEACH_METHOD, lesson, token)
        };
        let approve = |entry: &str, id: &Value| {
            let params = json!({"collection": "clearance_limits", "entry": entry,
                "proposalId": id, "decision": "approve", "reviewedBy": "bob@example.com"});
            activated_call(&service, REVIEW_METHOD, params, "b1")
        };
        let own = propose("b1", 90_000, "b1", "bob@example.com");
        assert_eq!(own["error"]["code"], codes::FORBIDDEN, "{own}");
        let alices = propose("b2", 90_000, "a1", "alice@example.com");
        let refused = approve("b2", &alices["result"]["proposalId"]);
        assert_eq!(refused["error"]["code"], codes::FORBIDDEN, "{refused}");
        assert!(
            refused.to_string().contains("not 90000"),
            "the policy saw the value: {refused}"
        );
        let small = propose("b3", 5_000, "a1", "alice@example.com");
        let learned = approve("b3", &small["result"]["proposalId"]);
        assert_eq!(learned["result"]["learned"], true, "{learned}");
    }

    /// The question's task: waiting while the answer is a proposal,
    /// resumed by the approval that makes the version.
    #[cfg(all(feature = "derive", feature = "a2a-server"))]
    #[test]
    fn the_task_resumes_when_the_approval_makes_the_version_not_before() {
        use std::sync::Arc;

        use a2a::{
            A2AError, Message, Part, Role, SendMessageRequest, SendMessageResponse, StreamResponse,
            TaskState, TaskStatus,
        };
        use a2a_server::{
            AgentExecutor, DefaultRequestHandler, ExecutorContext, InMemoryTaskStore,
            RequestHandler,
        };
        use futures::stream::{self, BoxStream};

        use crate::a2a::{Activation, Principal, TaskResumer, TeachBlock, Tokens};
        use crate::{Declaration, Learnable, REVIEW_METHOD, TEACH_METHOD};

        #[derive(Learnable, Clone, Debug, PartialEq)]
        #[learnable(
            collection = "clearance_limits",
            entry = "broker",
            teaches = "How much a broker may clear alone",
            how = "A fixed amount per broker, set by the compliance team",
            decided_by = "rules",
            describes = "{entry}: {limit}",
            review
        )]
        struct Limit {
            /// Limit in euros
            limit: u32,
        }

        /// Asks for broker-17's limit, then completes on the next turn.
        struct Asker;
        impl AgentExecutor for Asker {
            fn execute(
                &self,
                context: ExecutorContext,
            ) -> BoxStream<'static, Result<StreamResponse, A2AError>> {
                let Some(mut task) = context.stored_task.clone() else {
                    return Box::pin(stream::empty());
                };
                let asked = task.status.state == TaskState::InputRequired;
                let mut question = Message::new(Role::Agent, vec![Part::text("What limit?")]);
                TeachBlock::new("clearance_limits", ["broker-17"])
                    .attach_to_message(&mut question)
                    .unwrap();
                task.status = TaskStatus {
                    state: if asked {
                        TaskState::Completed
                    } else {
                        TaskState::InputRequired
                    },
                    message: Some(question),
                    timestamp: None,
                };
                Box::pin(stream::once(async move { Ok(StreamResponse::Task(task)) }))
            }
            fn cancel(
                &self,
                _: ExecutorContext,
            ) -> BoxStream<'static, Result<StreamResponse, A2AError>> {
                Box::pin(stream::empty())
            }
        }

        let handler: Arc<dyn RequestHandler> =
            Arc::new(DefaultRequestHandler::new(Asker, InMemoryTaskStore::new()));
        let declaration = Declaration::new()
            .learnable::<Limit>()
            .teach_method(TEACH_METHOD)
            .review_method(REVIEW_METHOD);
        let tokens = Tokens::new()
            .with("a11ce", Principal::human("alice@example.com"))
            .with("b0b", Principal::human("bob@example.com"));
        let service = LearnablesService::new(Knowledge::in_memory(), declaration, tokens)
            .resuming(TaskResumer::new(handler.clone()));
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let request = SendMessageRequest {
                message: Message::new(Role::User, vec![Part::text("clear it")]),
                configuration: None,
                metadata: None,
                tenant: None,
            };
            let Ok(SendMessageResponse::Task(task)) =
                handler.send_message(&Default::default(), request).await
            else {
                panic!("no task");
            };
            let state = || async {
                let request = a2a::GetTaskRequest {
                    id: task.id.clone(),
                    history_length: None,
                    tenant: None,
                };
                let got = handler.get_task(&Default::default(), request).await;
                got.unwrap().status.state
            };
            let call = |method: &str, params: Value, token: &'static str| {
                let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
                let request = crate::a2a::json_rpc::read_request(
                    body.to_string().as_bytes(),
                    Default::default(),
                )
                .unwrap();
                let service = service.clone();
                async move {
                    let activation = Activation::from_header_values([crate::EXTENSION_URI]);
                    service
                        .call_async(request, &activation, Some(token))
                        .await
                        .unwrap()
                }
            };
            let proposed = call(
                TEACH_METHOD,
                json!({"collection": "clearance_limits", "entry": "broker-17",
                       "value": {"limit": "9000"}, "taughtBy": "alice@example.com"}),
                "a11ce",
            )
            .await;
            assert_eq!(proposed["result"]["learned"], false, "{proposed}");
            assert_eq!(
                state().await,
                TaskState::InputRequired,
                "a proposal resumes nothing"
            );
            let approved = call(
                REVIEW_METHOD,
                json!({"collection": "clearance_limits", "entry": "broker-17",
                       "proposalId": proposed["result"]["proposalId"], "decision": "approve",
                       "reviewedBy": "bob@example.com"}),
                "b0b",
            )
            .await;
            assert_eq!(approved["result"]["learned"], true, "{approved}");
            assert_eq!(
                state().await,
                TaskState::Completed,
                "the approval resumes the task"
            );
        });
    }

    #[test]
    fn a_field_of_the_wrong_kind_or_length_is_named() {
        let mut params = approval();
        params["reviewedBy"] = json!(7);
        assert_eq!(
            decision(params).unwrap_err().violations()[0].field,
            "reviewedBy"
        );
        let mut params = approval();
        params["proposalId"] = json!("p".repeat(MAX_PROPOSAL_ID + 1));
        assert_eq!(
            decision(params).unwrap_err().violations()[0].field,
            "proposalId"
        );
        assert!(read(json!([1])).is_err());
    }
}
