//! Learnables' JSON-RPC methods, one file each: [`teach`], [`retract`],
//! [`show_back`] (with an entry's [`history`]), and [`teacher`] (whom a
//! token names). A revert is no method of its own: it is a lesson, the
//! earlier value taught again, and `teach` serves it.
//!
//! A request goes: its name to a [`Method`] (the one dispatch, which also
//! says whether the agent serves it); once admitted, its params read once
//! into the method's own type ([`Method::read`], a [`Call`]); then the
//! method's file answers it. A method is added with a file, a [`Method`]
//! and a [`Call`] variant, and its arm in the service's dispatch.

pub(super) mod history;
pub(super) mod refusals;
pub(super) mod retract;
pub(super) mod review;
pub(super) mod show_back;
pub(super) mod teach;
pub(super) mod teacher;

use serde::Serialize;
use serde_json::Value;

use super::LearnablesService;
use super::json_rpc::RpcError;
use crate::{LearnableDescriptor, Lesson, LessonResult};
use crate::{SHOW_BACK_METHOD, TEACHER_METHOD};
use refusals::{shown, unknown_learnable};
use show_back::ShowBackParams;

/// A learnables method this agent serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Method {
    /// The declaration's `teachMethod`.
    Teach,
    /// The declaration's `retractMethod`.
    Retract,
    /// The declaration's `reviewMethod`.
    Review,
    /// [`SHOW_BACK_METHOD`].
    ShowBack,
    /// [`TEACHER_METHOD`].
    Teacher,
}

/// A review request, read once: a decision, or the listing of the open
/// proposals.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ReviewRequest {
    /// The open proposals, of one collection or entry when named, for the
    /// teacher who asks (`viewer`, set once authenticated).
    List {
        collection: Option<String>,
        entry: Option<String>,
        viewer: String,
        /// A page of this many (1 to 100), from the proposal `from` on.
        page: Page,
    },
    /// A teacher's decision on one proposal.
    Decide(crate::Review),
}

/// A page of a listing: `limit` proposals from `from` on (`from` is the
/// `next` of the page before).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Page {
    pub(crate) limit: u32,
    pub(crate) from: Option<String>,
}

/// A request's params, read into its method's own type.
#[derive(Debug)]
pub(super) enum Call {
    /// A lesson to teach.
    Teach(Lesson),
    /// An entry to retract: a lesson without a value names it, its
    /// teacher and reason (see [`retract`]).
    Retract(Lesson),
    /// A proposal to decide, or the open ones to list.
    Review(ReviewRequest),
    /// An entry to show back.
    ShowBack(ShowBackParams),
    /// Whom the bearer token names (the params are not read).
    Teacher,
}

impl Method {
    /// Every method, in the order a name is looked up.
    const ALL: [Method; 5] = [
        Method::ShowBack,
        Method::Teacher,
        Method::Teach,
        Method::Retract,
        Method::Review,
    ];

    /// The name this method has on `service`, if the agent serves it: the
    /// declaration's `teachMethod`, `retractMethod` and `reviewMethod`,
    /// show-back, and the teacher's identity.
    fn name(self, service: &LearnablesService) -> Option<&str> {
        match self {
            Method::ShowBack => Some(SHOW_BACK_METHOD),
            Method::Teacher => Some(TEACHER_METHOD),
            Method::Teach => service.teach_method(),
            Method::Retract => service.retract_method(),
            Method::Review => service.review_method(),
        }
    }

    /// The method `name` names on `service`, if the agent serves it.
    pub(super) fn named(service: &LearnablesService, name: &str) -> Option<Method> {
        Method::ALL
            .into_iter()
            .find(|method| method.name(service) == Some(name))
    }

    /// The names of every method `service` serves: what its admission
    /// lets through, from the same list as [`Method::named`].
    pub(in crate::a2a) fn served(service: &LearnablesService) -> impl Iterator<Item = &str> {
        Method::ALL
            .into_iter()
            .filter_map(move |method| method.name(service))
    }

    /// Reads `params` into the method's own type, naming the field at
    /// fault. The params are moved, never copied.
    pub(super) fn read(self, params: Value) -> Result<Call, RpcError> {
        match self {
            Method::Teach => teach::read(params).map(Call::Teach),
            Method::Retract => retract::read(params).map(Call::Retract),
            Method::Review => review::read(params).map(Call::Review),
            Method::ShowBack => show_back::read(params).map(Call::ShowBack),
            Method::Teacher => Ok(Call::Teacher),
        }
    }
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
    Teacher(teacher::TeacherIdentity),
}

impl LearnablesService {
    /// The descriptor the declaration declares for `collection`, or the
    /// refusal of a collection it does not declare.
    pub(super) fn descriptor(&self, collection: &str) -> Result<&LearnableDescriptor, RpcError> {
        let declared = &self.declaration().params().learnables;
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::Declaration;
    use crate::a2a::Tokens;
    use crate::knowledge::Knowledge;
    use crate::{RETRACT_METHOD, TEACH_METHOD};

    fn service(declaration: Declaration) -> LearnablesService {
        LearnablesService::new(Knowledge::in_memory(), declaration, Tokens::new())
    }

    #[test]
    fn a_method_is_served_only_when_the_declaration_names_it() {
        let reader = service(Declaration::new());
        assert_eq!(Method::named(&reader, TEACH_METHOD), None);
        assert_eq!(Method::named(&reader, RETRACT_METHOD), None);
        assert_eq!(
            Method::named(&reader, SHOW_BACK_METHOD),
            Some(Method::ShowBack)
        );
        assert_eq!(
            Method::named(&reader, TEACHER_METHOD),
            Some(Method::Teacher)
        );
        let owner = service(
            Declaration::new()
                .teach_method(TEACH_METHOD)
                .retract_method(RETRACT_METHOD),
        );
        assert_eq!(Method::named(&owner, TEACH_METHOD), Some(Method::Teach));
        assert_eq!(Method::named(&owner, RETRACT_METHOD), Some(Method::Retract));
        assert_eq!(Method::named(&owner, "rsaxb.learnables.Nothing"), None);
    }

    #[test]
    fn params_are_read_into_the_methods_own_type() {
        let lesson = json!({"collection": "c", "entry": "e", "value": {"a": 1},
            "taughtBy": "alice@example.com", "unknown": true});
        let Ok(Call::Teach(lesson)) = Method::Teach.read(lesson) else {
            panic!("a lesson reads");
        };
        assert_eq!(
            (lesson.collection.as_str(), lesson.entry.as_str()),
            ("c", "e")
        );

        let retraction = json!({"collection": "c", "entry": "e", "taughtBy": "a", "reason": "r"});
        let Ok(Call::Retract(retraction)) = Method::Retract.read(retraction) else {
            panic!("a retraction reads");
        };
        assert_eq!(retraction.reason.as_deref(), Some("r"));
        assert_eq!(serde_json::to_value(&retraction.value).unwrap(), json!({}));
        let error = Method::Retract
            .read(json!({"collection": "c", "entry": "e", "taughtBy": "a", "value": {}}))
            .unwrap_err();
        assert!(error.message.contains("carries no `value`"), "{error:?}");

        let shown = json!({"collection": "c", "entry": "e", "history": {"limit": 5}});
        let Ok(Call::ShowBack(params)) = Method::ShowBack.read(shown) else {
            panic!("show-back params read");
        };
        assert_eq!(
            params,
            ShowBackParams::new("c", "e").with_history(super::history::HistoryParams {
                limit: Some(5),
                from: None
            })
        );
        let error = Method::ShowBack
            .read(json!({"collection": "c", "entry": "e", "history": {"limit": "5"}}))
            .unwrap_err();
        assert!(error.message.contains("expected u32"), "{error:?}");
    }
}
