//! Who may teach: a bearer token names a principal (an [`Authenticator`]),
//! a lesson's `taughtBy` must be that principal, and a [`TeacherPolicy`]
//! decides whether the principal may teach at all. The spec requires that
//! `taughtBy` identify a human, never a service account standing in for one;
//! the default policy, [`HumansOnly`], refuses identities that look like
//! service accounts.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use super::service_accounts::{ServiceAccountRules, service_account_sign};
use super::token_refusal::TokenRefusal;
use crate::Lesson;
use crate::untrusted::Untrusted;

/// An authenticated identity, as the authenticator classified it: a person,
/// a service account, or neither said (then the policy judges by the
/// identity alone). Cloning it (as an authenticator that keeps its
/// principals does for each request) shares the identity.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Principal {
    identity: Arc<Identity>,
}

/// Who a principal is, shared by its clones. Its `sign` follows from `id`
/// and `kind`, so comparing and hashing it as well changes nothing.
#[derive(Clone, PartialEq, Eq, Hash)]
struct Identity {
    id: String,
    kind: Kind,
    /// Who the identity provider says this is, for good (issuer and
    /// subject), when the authenticator knows it: `id` is what lessons
    /// carry, and may change (an e-mail), this does not.
    stable: Option<String>,
    /// `service_account_sign` of `id` for a principal the authenticator
    /// does not classify: judged once, when it is made (an authenticator
    /// that keeps its principals hands out clones), not on each lesson.
    sign: Option<&'static str>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    Human,
    Service,
    Unclassified,
}

impl Principal {
    /// A person, as the authenticator knows (from the identity provider,
    /// say), by the identity their lessons carry in `taughtBy`. The policy
    /// takes the authenticator's word: a person named `jan.bot@…` may teach.
    ///
    /// Use it when the authenticator knows that the token belongs to a
    /// person (a teacher list kept by people, an identity provider's
    /// "human" claim); use [`Principal::new`] when it only knows the
    /// identity, and the policy should judge by the name.
    ///
    /// ```
    /// use learnables::a2a::{HumansOnly, Principal, TeacherPolicy};
    /// # use learnables::{Lesson, LessonValue};
    /// let lesson = Lesson::new("c", "e", LessonValue::default(), "jan.bot@example.nl");
    /// assert!(HumansOnly.allow(&Principal::human("jan.bot@example.nl"), &lesson).is_ok());
    /// assert!(HumansOnly.allow(&Principal::new("jan.bot@example.nl"), &lesson).is_err());
    /// ```
    pub fn human(id: impl Into<String>) -> Principal {
        Principal::of_kind(id.into(), Kind::Human)
    }

    /// A service account: it may read, never teach.
    pub fn service(id: impl Into<String>) -> Principal {
        Principal::of_kind(id.into(), Kind::Service)
    }

    /// An identity the authenticator does not classify: the policy judges
    /// by the identity itself ([`service_account_sign`](super::service_account_sign)
    /// for [`HumansOnly`]).
    ///
    /// Use it when the authenticator knows who holds a token but not
    /// whether a person does (tokens issued to any account); use
    /// [`Principal::human`] when it knows a person does.
    ///
    /// ```
    /// use learnables::a2a::Principal;
    /// let unclassified = Principal::new("deploy-bot@example.com");
    /// assert!(!unclassified.is_human() && !unclassified.is_service());
    /// ```
    pub fn new(id: impl Into<String>) -> Principal {
        Principal::of_kind(id.into(), Kind::Unclassified)
    }

    /// The identity.
    pub fn id(&self) -> &str {
        &self.identity.id
    }

    /// This principal, with the identity its provider keeps for it for good
    /// (an OpenID Connect provider's issuer and `sub`): review compares
    /// reviewers by it, so that a person's second session is the same
    /// person and two people are two whatever their e-mails say.
    ///
    /// ```
    /// use learnables::a2a::Principal;
    /// let alice = Principal::human("alice@example.com").with_stable_id("https://idp.example.com#248289761001");
    /// assert_eq!(alice.stable_id(), "https://idp.example.com#248289761001");
    /// assert_eq!(Principal::human("bob@example.com").stable_id(), "bob@example.com");
    /// ```
    pub fn with_stable_id(self, stable: impl Into<String>) -> Principal {
        let Identity { id, kind, sign, .. } = Arc::unwrap_or_clone(self.identity);
        Principal {
            identity: Arc::new(Identity {
                id,
                kind,
                stable: Some(stable.into()),
                sign,
            }),
        }
    }

    /// The identity the provider keeps for good, if the authenticator gave
    /// one ([`Principal::with_stable_id`]); else the identity itself.
    pub fn stable_id(&self) -> &str {
        self.identity.stable.as_deref().unwrap_or(&self.identity.id)
    }

    /// Whether the authenticator says this is a service account.
    pub fn is_service(&self) -> bool {
        self.identity.kind == Kind::Service
    }

    /// Whether the authenticator says this is a person.
    pub fn is_human(&self) -> bool {
        self.identity.kind == Kind::Human
    }

    fn of_kind(id: String, kind: Kind) -> Principal {
        let sign = match kind {
            Kind::Unclassified => service_account_sign(&id),
            Kind::Human | Kind::Service => None,
        };
        Principal {
            identity: Arc::new(Identity {
                id,
                kind,
                stable: None,
                sign,
            }),
        }
    }
}

impl std::fmt::Debug for Principal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Principal")
            .field("id", &self.identity.id)
            .field("kind", &self.identity.kind)
            .finish()
    }
}

/// What [`Authenticator::verify_async`] returns: the principal, or the
/// check the token failed.
pub type Verifying<'a> = Pin<Box<dyn Future<Output = Result<Principal, TokenRefusal>> + Send + 'a>>;

/// Turns a bearer token into a principal. Implement it over your identity
/// provider; [`Tokens`] is a fixed table, and `a2a::oidc` (feature `oidc`)
/// an OpenID Connect provider's tokens.
///
/// Only `authenticate` is required. An authenticator that can say why it
/// refuses a token implements [`Authenticator::verify`] too; one that must
/// fetch something to decide (its provider's keys) implements
/// [`Authenticator::verify_async`], which the agent's async paths (the
/// layer, `call_async`) call, so that no runtime thread waits.
///
/// ```
/// use learnables::a2a::{Authenticator, Principal, TokenRefusal, Tokens};
/// let tokens = Tokens::new().with("s3cret", Principal::human("alice@example.com"));
/// assert_eq!(tokens.verify("guess").unwrap_err(), TokenRefusal::NotValid);
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// assert_eq!(tokens.verify_async("s3cret").await.unwrap().id(), "alice@example.com");
/// # });
/// ```
pub trait Authenticator: Send + Sync + 'static {
    /// The principal the token belongs to, if it is valid.
    fn authenticate(&self, bearer_token: &str) -> Option<Principal>;

    /// The principal, or the check the token failed. By default
    /// `authenticate`, a refusal being [`TokenRefusal::NotValid`]. Never
    /// blocks: an authenticator that would have to fetch refuses here and
    /// fetches in `verify_async`.
    fn verify(&self, bearer_token: &str) -> Result<Principal, TokenRefusal> {
        self.authenticate(bearer_token)
            .ok_or(TokenRefusal::NotValid)
    }

    /// [`Authenticator::verify`] for async code, which may wait (with a
    /// timeout) on what the check needs. By default `verify`, at once.
    fn verify_async<'a>(&'a self, bearer_token: &'a str) -> Verifying<'a> {
        Box::pin(std::future::ready(self.verify(bearer_token)))
    }
}

/// A fixed table of tokens, for examples, tests and small deployments.
/// Its `Debug` names the principals, never a token.
///
/// ```
/// use learnables::a2a::{Authenticator, Principal, Tokens};
/// let tokens = Tokens::new().with("s3cret", Principal::new("alice@example.com"));
/// assert_eq!(tokens.authenticate("s3cret").unwrap().id(), "alice@example.com");
/// assert!(tokens.authenticate("guess").is_none());
/// assert!(!format!("{tokens:?}").contains("s3cret"));
/// ```
#[derive(Clone, Default)]
pub struct Tokens {
    by_token: HashMap<String, Principal>,
}

/// A token given to a second principal (see [`Tokens::try_with`]): a
/// start-up error, since either could teach as the other. It names both
/// principals, never the token.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{second}` is given the same token as `{first}`: every teacher needs a token of their own"
)]
pub struct DuplicateToken {
    /// The principal that had the token first.
    pub first: String,
    /// The principal it was given to again.
    pub second: String,
}

/// Why [`Tokens::try_with`] refused a row: a start-up error. It names the
/// principals (escaped), never a token.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TokenTableError {
    /// A token given to a second principal.
    #[error(transparent)]
    DuplicateToken(#[from] DuplicateToken),
    /// Two principals a person could not tell apart.
    #[error(
        "`{}` and `{}` would read as the same person (they differ only in letter case, \
         look-alike letters or a trailing dot): two teachers need names a person can tell \
         apart, or one approves their own proposal as the other",
        crate::identity::shown(second),
        crate::identity::shown(first)
    )]
    LookAlike {
        /// The principal in the table first.
        first: String,
        /// The look-alike principal.
        second: String,
    },
    /// A principal no teacher can be named as.
    #[error(
        "the teacher `{}` {problem}: no teacher can be named so",
        crate::identity::shown(identity)
    )]
    Unfit {
        /// The identity, as given.
        identity: String,
        /// What is wrong with it.
        problem: crate::identity::IdentityProblem,
    },
}

impl Tokens {
    /// An empty table.
    pub fn new() -> Tokens {
        Tokens::default()
    }

    /// Adds a token. A token already in the table now names `principal`
    /// instead; [`Tokens::try_with`] refuses it.
    pub fn with(mut self, token: impl Into<String>, principal: Principal) -> Tokens {
        self.by_token.insert(token.into(), principal);
        self
    }

    /// Adds a token, refusing one the table already holds for another
    /// principal (given twice to the same principal, it is kept once), a
    /// principal no teacher can be named as ([`identity::check`](crate::identity::check):
    /// hidden characters, mixed scripts), and a principal a person could
    /// not tell from another of the table ([`identity::same`](crate::identity::same)):
    /// a look-alike second row would let one person approve their own
    /// proposal as another.
    ///
    /// ```
    /// use learnables::a2a::{Principal, TokenTableError, Tokens};
    /// let tokens = Tokens::new().try_with("t1", Principal::human("alice@example.com")).unwrap();
    /// let twice = tokens.clone().try_with("t1", Principal::human("bob@example.com")).unwrap_err();
    /// assert!(twice.to_string().contains("bob@example.com"));
    /// assert!(!twice.to_string().contains("t1"));
    /// let look_alike = Principal::human("\u{430}lice@example.com");      // a Cyrillic а
    /// let refused = tokens.try_with("t2", look_alike).unwrap_err();
    /// assert!(matches!(refused, TokenTableError::Unfit { .. }));
    /// ```
    pub fn try_with(
        mut self,
        token: impl Into<String>,
        principal: Principal,
    ) -> Result<Tokens, TokenTableError> {
        let token = token.into();
        if let Err(problem) = crate::identity::check(principal.id()) {
            return Err(TokenTableError::Unfit {
                identity: principal.id().to_owned(),
                problem,
            });
        }
        if let Some(first) = self.by_token.get(&token)
            && *first != principal
        {
            return Err(TokenTableError::DuplicateToken(DuplicateToken {
                first: first.id().to_owned(),
                second: principal.id().to_owned(),
            }));
        }
        if let Some(first) = self.by_token.values().find(|other| {
            other.id() != principal.id() && crate::identity::same(other.id(), principal.id())
        }) {
            return Err(TokenTableError::LookAlike {
                first: first.id().to_owned(),
                second: principal.id().to_owned(),
            });
        }
        self.by_token.insert(token, principal);
        Ok(self)
    }

    /// How many tokens there are.
    pub fn len(&self) -> usize {
        self.by_token.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.by_token.is_empty()
    }
}

/// The principals, in no set order; the tokens redacted.
impl std::fmt::Debug for Tokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map()
            .entries(
                self.by_token
                    .values()
                    .map(|principal| ("<redacted>", principal.id())),
            )
            .finish()
    }
}

impl Authenticator for Tokens {
    fn authenticate(&self, bearer_token: &str) -> Option<Principal> {
        self.by_token.get(bearer_token).cloned()
    }
}

/// Decides whether an authenticated principal may teach a lesson; `Err`
/// says why not, for the teacher.
pub trait TeacherPolicy: Send + Sync + 'static {
    /// `Ok` to accept the lesson.
    fn allow(&self, principal: &Principal, lesson: &Lesson) -> Result<(), String>;

    /// `Ok` to let `principal` make `decision` on a proposal: `lesson` is
    /// the proposal's lesson (its collection, entry and value) with the
    /// reviewer as `taughtBy`. The default judges it as [`allow`](Self::allow)
    /// judges the reviewer teaching it themself, so that a policy bounding
    /// what a teacher may set bounds what they may approve.
    ///
    /// ```
    /// use learnables::a2a::{Principal, TeacherPolicy};
    /// use learnables::{Decision, Lesson, LessonValue};
    /// struct NoRejections;
    /// impl TeacherPolicy for NoRejections {
    ///     fn allow(&self, _: &Principal, _: &Lesson) -> Result<(), String> { Ok(()) }
    ///     fn allow_decision(&self, _: &Principal, _: &Lesson, decision: Decision)
    ///         -> Result<(), String> {
    ///         match decision {
    ///             Decision::Reject => Err("rejections go through the compliance desk".into()),
    ///             _ => Ok(()),
    ///         }
    ///     }
    /// }
    /// let lesson = Lesson::new("c", "e", LessonValue::default(), "bob@example.com");
    /// let bob = Principal::human("bob@example.com");
    /// assert!(NoRejections.allow_decision(&bob, &lesson, Decision::Reject).is_err());
    /// ```
    fn allow_decision(
        &self,
        principal: &Principal,
        lesson: &Lesson,
        decision: crate::Decision,
    ) -> Result<(), String> {
        let _ = decision;
        self.allow(principal, lesson)
    }
}

/// The default policy: a principal the authenticator marks as a service
/// may not teach; one it marks as a person may; one it does not classify
/// may not when its identity looks like a service account by the standard
/// rules ([`ServiceAccountRules::standard`](super::ServiceAccountRules::standard),
/// whose doc lists them; that type extends or replaces them). Its
/// judgement of an unclassified principal is made once, when the
/// principal is made.
///
/// ```
/// use learnables::a2a::{HumansOnly, Principal, TeacherPolicy};
/// # use learnables::{Lesson, LessonValue};
/// let lesson = Lesson::new("c", "e", LessonValue::default(), "deploy-bot@example.com");
/// let refusal = HumansOnly.allow(&Principal::new("deploy-bot@example.com"), &lesson);
/// assert!(refusal.unwrap_err().contains("service account"));
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct HumansOnly;

impl TeacherPolicy for HumansOnly {
    fn allow(&self, principal: &Principal, _lesson: &Lesson) -> Result<(), String> {
        if principal.is_service() {
            return Err(service_refusal(principal));
        }
        if principal.is_human() {
            return Ok(());
        }
        match principal.identity.sign {
            Some(sign) => Err(looks_like_refusal(principal, sign)),
            None => Ok(()),
        }
    }
}

/// [`ServiceAccountRules`] judge as [`HumansOnly`] does, by their own rules.
impl TeacherPolicy for ServiceAccountRules {
    fn allow(&self, principal: &Principal, _lesson: &Lesson) -> Result<(), String> {
        if principal.is_service() {
            return Err(service_refusal(principal));
        }
        if principal.is_human() {
            return Ok(());
        }
        match self.sign(principal.id()) {
            Some(sign) => Err(looks_like_refusal(principal, sign)),
            None => Ok(()),
        }
    }
}

/// The refusal of a principal the authenticator marks as a service.
fn service_refusal(principal: &Principal) -> String {
    format!(
        "`{}` is a service account; only a person may teach (the spec forbids a service \
         account standing in for one)",
        Untrusted::new(principal.id())
    )
}

/// The refusal of a principal whose identity looks like a service account.
fn looks_like_refusal(principal: &Principal, sign: &str) -> String {
    format!(
        "`{}` looks like a service account ({}); only a person may teach",
        Untrusted::new(principal.id()),
        Untrusted::new(sign)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn principals_compare_by_identity_and_kind_and_clones_share_the_verdict() {
        let alice = Principal::new("alice@example.com");
        assert_eq!(alice, alice.clone());
        assert_eq!(alice, Principal::new("alice@example.com"));
        assert_ne!(alice, Principal::human("alice@example.com"));
        let distinct: std::collections::HashSet<Principal> = [
            alice.clone(),
            Principal::new("alice@example.com"),
            Principal::human("alice@example.com"),
        ]
        .into();
        assert_eq!(distinct.len(), 2);
        assert_eq!(
            format!("{alice:?}"),
            r#"Principal { id: "alice@example.com", kind: Unclassified }"#
        );
        let bot = Principal::new("deploy-bot@example.com");
        let lesson = Lesson::new("c", "e", crate::LessonValue::default(), bot.id());
        let refusal = HumansOnly.allow(&bot, &lesson).unwrap_err();
        assert_eq!(HumansOnly.allow(&bot.clone(), &lesson), Err(refusal));
        assert!(HumansOnly.allow(&alice.clone(), &lesson).is_ok());
    }

    #[test]
    fn no_token_shows_in_debug() {
        let tokens = Tokens::new()
            .with("very-secret-1", Principal::human("alice@example.com"))
            .with("very-secret-2", Principal::new("bob@example.com"));
        let shown = format!("{tokens:?} {tokens:#?}");
        assert!(!shown.contains("very-secret"), "{shown}");
        assert!(shown.contains("alice@example.com") && shown.contains("bob@example.com"));
    }

    #[test]
    fn a_token_for_two_principals_is_refused() {
        let tokens = Tokens::new()
            .try_with("t", Principal::human("alice@example.com"))
            .and_then(|tokens| tokens.try_with("t", Principal::human("alice@example.com")))
            .unwrap();
        assert_eq!(tokens.len(), 1);
        let error = tokens
            .try_with("t", Principal::human("bob@example.com"))
            .unwrap_err();
        assert_eq!(
            error,
            TokenTableError::DuplicateToken(DuplicateToken {
                first: "alice@example.com".into(),
                second: "bob@example.com".into()
            })
        );
    }

    #[test]
    fn look_alike_and_unreadable_teachers_are_refused_naming_both() {
        let alice = || Tokens::new().try_with("a", Principal::new("alice@example.com"));
        for look_alike in [
            "Alice@example.com",
            "\u{ff41}lice@example.com",
            "al\u{131}ce@example.com",
            "alice@example.com.",
        ] {
            let error = alice()
                .unwrap()
                .try_with("b", Principal::new(look_alike))
                .unwrap_err();
            assert!(
                matches!(&error, TokenTableError::LookAlike { first, second }
                    if first == "alice@example.com" && second == look_alike),
                "{look_alike:?}: {error}"
            );
        }
        for unfit in [
            "\u{430}lice@example.com",
            "al\u{200b}ice@example.com",
            "b\u{43e}t@example.com",
            "build-bot\u{202e}@example.com",
        ] {
            let error = alice()
                .unwrap()
                .try_with("b", Principal::new(unfit))
                .unwrap_err();
            assert!(
                matches!(&error, TokenTableError::Unfit { .. }),
                "{unfit:?}: {error}"
            );
            assert!(
                !error.to_string().contains(['\u{200b}', '\u{202e}']),
                "{error}"
            );
        }
        // The same person with two tokens is one teacher.
        let two = alice()
            .unwrap()
            .try_with("a2", Principal::new("alice@example.com"))
            .unwrap();
        assert_eq!(two.len(), 2);
    }
}
