//! Which identities look like service accounts: the rules the default
//! teacher policy ([`HumansOnly`](super::HumansOnly)) judges a principal
//! the authenticator did not classify by, and [`ServiceAccountRules`], a
//! policy that extends or replaces them.
//!
//! Written here rather than taken from a crate: no maintained crate lists
//! service-account names; the canonical form of an identity is
//! [`identity::skeleton`](crate::identity::skeleton)'s (UTS #39, `unicode-security`).

use std::borrow::Cow;
use std::sync::LazyLock;

/// How many letters a word has before a suffix rule's text, at least: so
/// that `deploybot` is a bot and the surname `abbot` is not.
const LETTERS_BEFORE_SUFFIX: usize = 4;

/// Rules naming the identities that look like service accounts, and a
/// [`TeacherPolicy`](super::TeacherPolicy): a principal the authenticator marks as a service may
/// not teach, one it marks as a person may, and one it does not classify
/// may not when a rule matches its identity.
///
/// An identity is compared as a person reads it: in its canonical form
/// ([`identity::skeleton`](crate::identity::skeleton): so a full-width
/// `ｂｏｔ` and a Cyrillic `bоt` are `bot`), and with the digits that
/// stand in for letters read as those letters (`b0t` is `bot`, `d3ploy` is
/// `deploy`; a `1` is read both as `i` and as `l`). Its local part (before
/// the `@`) is cut into words at every character that is not a letter or a
/// digit (`ci-b0t` is `ci` and `bot`), and each rule looks at one of:
///
/// - **a word** (`bot`, `ci`, `svc`, `system`, ...): one of the words is it;
///   `abbot` and `cibele` are words of their own, and pass;
/// - **the start of a word** (`deploy*`, `service*`): `deployer`, `services`;
/// - **the end of a word after at least four letters** (`*bot`):
///   `deploybot`, `dependabot`, while the surnames `abbot`, `cabot` and
///   `talbot` pass;
/// - **the whole local part, digits aside** (`jenkins`): for a tool named
///   like people, so that `jenkins@` and `jenkins2@` are refused and
///   `mary.jenkins@` is not;
/// - **the local part's words run together, at its start** (`noreply`,
///   `donotreply`, `githubactions`): `no-reply`, `do_not_reply`,
///   `github-actions`;
/// - **anything in the identity**, domain included
///   (`gserviceaccount.com`, `system:serviceaccount:`, `[bot]`).
///
/// The rules are names, not proof: a person whose name is one of them is
/// marked a person by the authenticator ([`Principal::human`](super::Principal::human)) or excepted
/// ([`ServiceAccountRules::except`]); a service account named like a person
/// is marked by the authenticator ([`Principal::service`](super::Principal::service)). Letters of
/// other scripts that look like Latin ones (a Cyrillic `о` in `bоt`) are
/// read as the Latin letters they look like, invisible characters are left
/// out, and a word rule also matches the local part run together (`b.o.t`).
///
/// [`ServiceAccountRules::standard`] (the `Default`) holds the rules
/// [`HumansOnly`](super::HumansOnly) applies; extend them, or start from
/// [`ServiceAccountRules::none`] to replace them:
///
/// ```
/// use learnables::a2a::{LearnablesService, Principal, ServiceAccountRules, TeacherPolicy, Tokens};
/// use learnables::{Declaration, Knowledge, Lesson, LessonValue};
/// let rules = ServiceAccountRules::standard()
///     .word("etl", "an ETL job")
///     .except("jan.bot@example.nl");
/// let judge = |id: &str| {
///     let lesson = Lesson::new("c", "e", LessonValue::default(), id);
///     rules.allow(&Principal::new(id), &lesson)
/// };
/// assert!(judge("etl-nightly@example.com").unwrap_err().contains("an ETL job"));
/// assert!(judge("jan.bot@example.nl").is_ok());
/// assert!(judge("deploybot@example.com").is_err());
/// assert!(judge("abbot@example.com").is_ok());
///
/// // The agent's teach method judges teachers by them.
/// let service = LearnablesService::new(Knowledge::in_memory(), Declaration::new(), Tokens::new())
///     .with_policy(rules);
/// # let _ = service;
/// ```
#[derive(Debug, Clone)]
pub struct ServiceAccountRules {
    rules: Vec<Rule>,
    /// Identities, normalized, that no rule refuses.
    people: Vec<String>,
}

#[derive(Debug, Clone)]
struct Rule {
    place: Place,
    /// Normalized as identities are.
    text: String,
    sign: Cow<'static, str>,
}

/// Where in an identity a rule looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    Word,
    Prefix,
    Suffix,
    Alone,
    Joined,
    Anywhere,
}

/// The rules of [`ServiceAccountRules::standard`], built once.
static STANDARD: LazyLock<ServiceAccountRules> = LazyLock::new(|| {
    use Place::{Alone, Anywhere, Joined, Prefix, Suffix, Word};
    let rules: &[(Place, &str, &'static str)] = &[
        (Anywhere, "gserviceaccount.com", "a Google service account"),
        (
            Anywhere,
            "system:serviceaccount:",
            "a Kubernetes service account",
        ),
        (Anywhere, ":assumed-role/", "an AWS role"),
        (Anywhere, "arn:aws:iam:", "an AWS identity"),
        (Anywhere, "[bot]", "a bot account"),
        (Anywhere, "serviceaccount", "a service account name"),
        (Anywhere, "service-account", "a service account name"),
        (Anywhere, "service_account", "a service account name"),
        (Word, "bot", "the word `bot`"),
        (Word, "robot", "the word `robot`"),
        (Word, "svc", "the word `svc`"),
        (Word, "noreply", "a no-reply address"),
        (Word, "daemon", "the word `daemon`"),
        (Word, "automation", "the word `automation`"),
        (Word, "system", "the word `system`"),
        (Joined, "noreply", "a no-reply address"),
        (Joined, "donotreply", "a no-reply address"),
        (Joined, "githubactions", "GitHub Actions"),
        (Suffix, "bot", "a name ending in `bot`"),
        (Word, "ci", "the word `ci` (continuous integration)"),
        (Word, "cron", "the word `cron`"),
        (Word, "pipeline", "the word `pipeline`"),
        (Prefix, "deploy", "a name starting with `deploy`"),
        (Prefix, "service", "a name starting with `service`"),
        (Prefix, "svc", "a name starting with `svc`"),
        (Alone, "jenkins", "the Jenkins build server"),
        (Alone, "travis", "the Travis build service"),
    ];
    ServiceAccountRules {
        rules: rules
            .iter()
            .map(|&(place, text, sign)| Rule {
                place,
                text: normalized(text).into_owned(),
                sign: Cow::Borrowed(sign),
            })
            .collect(),
        people: Vec::new(),
    }
});

impl Default for ServiceAccountRules {
    fn default() -> ServiceAccountRules {
        ServiceAccountRules::standard()
    }
}

impl ServiceAccountRules {
    /// The rules [`HumansOnly`](super::HumansOnly) applies: the words `bot`,
    /// `robot`, `svc`, `ci`, `cron`, `system`, `daemon`, `automation`,
    /// `pipeline`; words starting with `deploy`, `service` or `svc`, or
    /// ending in `bot` after four letters; no-reply addresses (`noreply`,
    /// `no-reply`, `donotreply`, ...); `github-actions`; `jenkins` and
    /// `travis` alone; and the cloud providers' service accounts (Google,
    /// Kubernetes, AWS roles) and GitHub's `[bot]` accounts.
    ///
    /// ```
    /// use learnables::a2a::ServiceAccountRules;
    /// let rules = ServiceAccountRules::standard();
    /// for id in ["deploybot@x.io", "donotreply@x.io", "ci-b0t@x.io", "ｂｏｔ@x.io",
    ///            "github-actions@x.io", "bot@x.io", "svc-billing@x.io", "jenkins2@x.io"] {
    ///     assert!(rules.sign(id).is_some(), "{id}");
    /// }
    /// for id in ["abbot@x.io", "cibele@x.io", "roberta.botha@x.io", "mary.jenkins@x.io"] {
    ///     assert_eq!(rules.sign(id), None, "{id}");
    /// }
    /// ```
    pub fn standard() -> ServiceAccountRules {
        STANDARD.clone()
    }

    /// No rules: only the authenticator's word ([`Principal::service`](super::Principal::service))
    /// refuses a principal, until rules are added.
    ///
    /// ```
    /// use learnables::a2a::ServiceAccountRules;
    /// let rules = ServiceAccountRules::none().word("batch", "a batch job");
    /// assert_eq!(rules.sign("deploybot@example.com"), None);
    /// assert_eq!(rules.sign("batch-7@example.com"), Some("a batch job"));
    /// ```
    pub fn none() -> ServiceAccountRules {
        ServiceAccountRules {
            rules: Vec::new(),
            people: Vec::new(),
        }
    }

    fn with(mut self, place: Place, text: &str, sign: Cow<'static, str>) -> ServiceAccountRules {
        let text = normalized(text).into_owned();
        // A word rule of several words (`no reply`) could never match one
        // word: run together, it reads as the start of the local part.
        let (place, text) = match place {
            Place::Word | Place::Prefix | Place::Suffix | Place::Alone
                if text.contains(|c: char| !c.is_alphanumeric()) =>
            {
                (Place::Joined, joined(&text))
            }
            _ => (place, text),
        };
        if !text.is_empty() {
            self.rules.push(Rule { place, text, sign });
        }
        self
    }

    /// Refuses identities whose local part has the word `word`, saying
    /// `sign`.
    pub fn word(self, word: &str, sign: impl Into<Cow<'static, str>>) -> ServiceAccountRules {
        self.with(Place::Word, word, sign.into())
    }

    /// Refuses identities whose local part has a word starting with
    /// `prefix`.
    ///
    /// ```
    /// use learnables::a2a::ServiceAccountRules;
    /// let rules = ServiceAccountRules::none().prefix("etl", "an ETL job");
    /// assert!(rules.sign("etlrunner@example.com").is_some());
    /// ```
    pub fn prefix(self, prefix: &str, sign: impl Into<Cow<'static, str>>) -> ServiceAccountRules {
        self.with(Place::Prefix, prefix, sign.into())
    }

    /// Refuses identities whose local part has a word ending in `suffix`
    /// after at least four other letters.
    ///
    /// ```
    /// use learnables::a2a::ServiceAccountRules;
    /// let rules = ServiceAccountRules::none().suffix("agent", "an agent");
    /// assert!(rules.sign("billingagent@example.com").is_some());
    /// assert_eq!(rules.sign("agent@example.com"), None);
    /// ```
    pub fn suffix(self, suffix: &str, sign: impl Into<Cow<'static, str>>) -> ServiceAccountRules {
        self.with(Place::Suffix, suffix, sign.into())
    }

    /// Refuses identities whose whole local part is `name`, digits aside:
    /// for a tool named like people.
    ///
    /// ```
    /// use learnables::a2a::ServiceAccountRules;
    /// let rules = ServiceAccountRules::none().alone("hudson", "the Hudson build server");
    /// assert!(rules.sign("hudson-01@example.com").is_some());
    /// assert_eq!(rules.sign("kate.hudson@example.com"), None);
    /// ```
    pub fn alone(self, name: &str, sign: impl Into<Cow<'static, str>>) -> ServiceAccountRules {
        self.with(Place::Alone, name, sign.into())
    }

    /// Refuses identities holding `text` anywhere, domain included.
    ///
    /// ```
    /// use learnables::a2a::ServiceAccountRules;
    /// let rules = ServiceAccountRules::none().containing("@robots.example.com", "a robot");
    /// assert!(rules.sign("r2@robots.example.com").is_some());
    /// ```
    pub fn containing(self, text: &str, sign: impl Into<Cow<'static, str>>) -> ServiceAccountRules {
        self.with(Place::Anywhere, text, sign.into())
    }

    /// Never refuses `identity` (compared as identities are): a person
    /// whose name a rule matches.
    pub fn except(mut self, identity: &str) -> ServiceAccountRules {
        self.people.push(normalized(identity).into_owned());
        self
    }

    /// What makes `id` look like a service account under these rules (the
    /// first rule that matches, in the order they were given), if
    /// anything does.
    pub fn sign(&self, id: &str) -> Option<&str> {
        let id = normalized(id);
        if self.people.iter().any(|person| *person == id) {
            return None;
        }
        let local = id.rsplit_once('@').map_or(&*id, |(local, _)| local);
        let words: Vec<Vec<String>> = local
            .split(|c: char| !c.is_alphanumeric())
            .filter(|word| !word.is_empty())
            .map(read_as_letters)
            .collect();
        let whole = joined(local);
        let alone = read_as_letters(whole.trim_end_matches(|c: char| c.is_ascii_digit()));
        let whole = read_as_letters(&whole);
        let any_word = |test: &dyn Fn(&str) -> bool| words.iter().flatten().any(|word| test(word));
        self.rules
            .iter()
            .find(|rule| {
                let text = rule.text.as_str();
                match rule.place {
                    Place::Anywhere => id.contains(text),
                    // `b.o.t` is `bot` spelled out: the word is the
                    // local part run together as well.
                    Place::Word => {
                        any_word(&|word| word == text) || whole.iter().any(|run| run == text)
                    }
                    Place::Prefix => any_word(&|word| word.starts_with(text)),
                    Place::Suffix => any_word(&|word| {
                        word.strip_suffix(text)
                            .is_some_and(|before| before.chars().count() >= LETTERS_BEFORE_SUFFIX)
                    }),
                    Place::Alone => alone.iter().any(|name| name == text),
                    Place::Joined => whole.iter().any(|run| run.starts_with(text)),
                }
            })
            .map(|rule| &*rule.sign)
    }
}

/// What makes `id` look like a service account under the standard rules
/// ([`ServiceAccountRules::standard`]), if anything does.
///
/// ```
/// use learnables::a2a::service_account_sign;
/// assert!(service_account_sign("ci@my-project.iam.gserviceaccount.com").is_some());
/// assert!(service_account_sign("system:serviceaccount:prod:agent").is_some());
/// assert!(service_account_sign("noreply@example.com").is_some());
/// assert_eq!(service_account_sign("alice@example.com"), None);
/// assert_eq!(service_account_sign("roberta.botha@example.com"), None);
/// ```
pub fn service_account_sign(id: &str) -> Option<&'static str> {
    STANDARD.sign(id)
}

/// `text` as identities are compared: their canonical form
/// ([`identity::skeleton`](crate::identity::skeleton): NFKC, lower case, and
/// the look-alike letters of other scripts read as the Latin ones they look
/// like, so that a Cyrillic `о` in `bоt` is an `o`).
fn normalized(text: &str) -> Cow<'_, str> {
    // ASCII digits are kept as digits (the skeleton reads `0` as `o` and
    // `1` as `l`): the rules read them in every way they stand in for
    // letters, and set them aside where a rule says "digits aside".
    let mut out = String::with_capacity(text.len());
    for piece in text.trim().split_inclusive(|c: char| c.is_ascii_digit()) {
        let (letters, digit) = match piece.char_indices().last() {
            Some((at, c)) if c.is_ascii_digit() => (&piece[..at], Some(c)),
            _ => (piece, None),
        };
        out.push_str(&crate::identity::skeleton(letters));
        out.extend(digit);
    }
    Cow::Owned(out)
}

/// `text` with every character that is not a letter or a digit left out.
fn joined(text: &str) -> String {
    text.chars().filter(|c| c.is_alphanumeric()).collect()
}

/// The ways `word` reads with its digits read as the letters they stand
/// in for: the word itself first, then (when it has digits) with `1` read
/// as `i`, then (when it has a `1`) as `l`.
fn read_as_letters(word: &str) -> Vec<String> {
    let mut readings = vec![word.to_owned()];
    if !word.bytes().any(|byte| byte.is_ascii_digit()) {
        return readings;
    }
    let read = |one: char| -> String {
        word.chars()
            .map(|c| match c {
                '0' => 'o',
                '1' => one,
                '3' => 'e',
                '4' => 'a',
                '5' => 's',
                '7' => 't',
                '8' => 'b',
                c => c,
            })
            .collect()
    };
    readings.push(read('i'));
    if word.contains('1') {
        readings.push(read('l'));
    }
    readings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn service_looking_identities() {
        for id in [
            "svc-deploy@example.com",
            "deploy-bot@example.com",
            "dependabot[bot]",
            "no-reply@example.com",
            "system@example.com",
            "arn:aws:sts::123:assumed-role/agent/x",
            "my-service-account@corp.example",
            "deploybot@example.com",
            "donotreply@example.com",
            "do_not_reply@example.com",
            "ci-b0t@example.com",
            "ｂｏｔ@example.com",
            "github-actions@example.com",
            "GitHub-Actions@example.com",
            "bot@example.com",
            "ci@example.com",
            "deployer@example.com",
            "services@example.com",
            "n0reply@example.com",
            "d3p1oy@example.com",
            "jenkins@example.com",
            "JENKINS-01@example.com",
            "renovatebot@example.com",
            "cron.nightly@example.com",
            // Look-alike letters of other scripts, spelled out, hidden.
            "b\u{43e}t@example.com",
            "j\u{435}nkins@example.com",
            "\u{455}vc@example.com",
            "b.o.t@example.com",
            "b\u{200b}ot@example.com",
        ] {
            assert!(service_account_sign(id).is_some(), "{id}");
        }
    }

    #[test]
    fn people_pass() {
        for id in [
            "alice@example.com",
            "bob.smith@example.org",
            "abbott@example.com",
            "abbot@example.com",
            "talbot@example.com",
            "cabot@example.com",
            "cibele@example.com",
            "roberta.botha@example.com",
            "mary.jenkins@example.com",
            "travis.scott@example.com",
            "cl@example.com",
            "Ünal@example.com",
            "alice1980@example.com",
            "",
        ] {
            assert_eq!(service_account_sign(id), None, "{id}");
        }
    }

    #[test]
    fn signs_are_found_in_any_letter_case_and_in_their_order() {
        assert_eq!(
            service_account_sign("  CI@Project.IAM.GServiceAccount.com "),
            Some("a Google service account")
        );
        assert_eq!(
            service_account_sign("System:ServiceAccount:prod:agent"),
            Some("a Kubernetes service account")
        );
        // Several words: the first in the list of signs, not in the identity.
        assert_eq!(
            service_account_sign("system-svc-bot@example.com"),
            Some("the word `bot`")
        );
        assert_eq!(
            service_account_sign("ÉQUIPE-BOT@example.com"),
            Some("the word `bot`")
        );
        assert_eq!(
            service_account_sign("ｂｏｔ@example.com"),
            Some("the word `bot`")
        );
        assert_eq!(
            service_account_sign("ci-b0t@example.com"),
            Some("the word `bot`")
        );
    }

    #[test]
    fn rules_given_by_the_agent_are_normalized_and_exceptions_win() {
        let rules = ServiceAccountRules::none()
            .word("ＥＴＬ", "an ETL job")
            .word("no reply", "no reply")
            .except("Jan.Bot@Example.nl");
        assert_eq!(rules.sign("etl@example.com"), Some("an ETL job"));
        assert_eq!(rules.sign("no.reply.billing@example.com"), Some("no reply"));
        let standard = ServiceAccountRules::standard().except("Jan.Bot@Example.nl");
        assert_eq!(standard.sign("jan.bot@example.nl"), None);
        assert!(standard.sign("piet.bot@example.nl").is_some());
    }
}
