//! One form of a teacher's identity for every comparison: whether the
//! author of a proposal approves it, whether two approvals are by two
//! teachers, whether a lesson's `taughtBy` is the token's teacher, whether
//! two rows of a token table name two people. Two identities are one when
//! a person could not tell them apart: the same after NFKC, case folding,
//! a trailing dot of the domain, and the confusable skeleton of Unicode's
//! UTS #39 (so a Cyrillic `а`, a full-width `ａ` and a dotless `ı` are the
//! Latin letters they look like).
//!
//! The skeleton is `unicode-security`'s, the normalization
//! `unicode-normalization`'s: no table of look-alikes is kept here.
//! Comparing skeletons can only ever take two names for one (`rn` and `m`
//! share a skeleton), which refuses an approval or a start-up, never lets
//! one through: the comparison fails closed.

use std::fmt;

use unicode_normalization::UnicodeNormalization as _;
use unicode_security::MixedScript as _;

use crate::untrusted::{Untrusted, is_hazard};

/// The canonical form of `identity`: what every comparison of teachers
/// compares.
///
/// ```
/// # extern crate learnables_core as learnables;
/// use learnables::identity::skeleton;
/// let alice = skeleton("alice@example.com");
/// assert_eq!(skeleton("Alice@Example.com"), alice);
/// assert_eq!(skeleton("\u{430}lice@example.com"), alice);       // Cyrillic а
/// assert_eq!(skeleton("\u{ff41}lice@example.com"), alice);      // full-width ａ
/// assert_eq!(skeleton("al\u{131}ce@example.com"), alice);       // dotless ı
/// assert_eq!(skeleton("alice@example.com."), alice);            // the root's dot
/// assert_ne!(skeleton("alicia@example.com"), alice);
/// ```
pub fn skeleton(identity: &str) -> String {
    let trimmed = identity.trim();
    let folded = fold(trimmed);
    // A domain written with the root's dot is the same domain.
    let folded = match folded.rsplit_once('@') {
        Some((local, domain)) => format!("{local}@{}", domain.trim_end_matches('.')),
        None => folded,
    };
    fold(&unicode_security::skeleton(&folded).collect::<String>())
}

/// NFKC and lower case, and NFKC again (lower-casing can leave a
/// compatibility form).
fn fold(text: &str) -> String {
    if text
        .bytes()
        .all(|byte| byte.is_ascii() && !byte.is_ascii_uppercase())
    {
        return text.to_owned();
    }
    let lower = text.nfkc().collect::<String>().to_lowercase();
    lower.nfkc().collect()
}

/// Whether `one` and `other` name the same teacher ([`skeleton`]).
///
/// ```
/// # extern crate learnables_core as learnables;
/// use learnables::identity::same;
/// assert!(same("alice@example.com", " ALICE@example.com"));
/// assert!(same("alice@example.com", "\u{430}lice@example.com"));
/// assert!(!same("alice@example.com", "bob@example.com"));
/// ```
pub fn same(one: &str, other: &str) -> bool {
    one == other || skeleton(one) == skeleton(other)
}

/// Why no teacher can be named `identity`, if none can: it is empty, holds
/// a character that does not show as itself (a control, bidirectional or
/// invisible character, [`is_hazard`]), or mixes scripts in its local part
/// or its domain (a Cyrillic letter among Latin ones), each of which would
/// show a person one name and a comparison another.
///
/// ```
/// # extern crate learnables_core as learnables;
/// use learnables::identity::{IdentityProblem, check};
/// assert_eq!(check("alice@example.com"), Ok(()));
/// assert_eq!(check("иван@пример.рф"), Ok(()));                    // one script each
/// assert_eq!(check("al\u{200b}ice@example.com"), Err(IdentityProblem::Hidden('\u{200b}')));
/// assert_eq!(check("b\u{43e}t@example.com"), Err(IdentityProblem::MixedScripts));
/// assert_eq!(check("  "), Err(IdentityProblem::Empty));
/// ```
pub fn check(identity: &str) -> Result<(), IdentityProblem> {
    if identity.trim().is_empty() {
        return Err(IdentityProblem::Empty);
    }
    if let Some(hidden) = identity.chars().find(|c| is_hazard(*c)) {
        return Err(IdentityProblem::Hidden(hidden));
    }
    if identity.is_ascii() {
        return Ok(());
    }
    let (local, domain) = identity.rsplit_once('@').unwrap_or((identity, ""));
    if !local.is_single_script() || !domain.is_single_script() {
        return Err(IdentityProblem::MixedScripts);
    }
    Ok(())
}

/// Why no teacher can be named so: see [`check`]. Its `Display` says it
/// for a sentence about the identity ("`…` holds …").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum IdentityProblem {
    /// Nothing but spaces.
    Empty,
    /// This character does not show as itself.
    Hidden(char),
    /// Its local part or its domain mixes scripts.
    MixedScripts,
}

impl fmt::Display for IdentityProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IdentityProblem::Empty => f.write_str("names nobody: it is empty"),
            IdentityProblem::Hidden(c) => write!(
                f,
                "holds the character {} (U+{:04X}), which does not show as itself (a control, \
                 direction-changing or invisible character)",
                c.escape_unicode(),
                u32::from(*c)
            ),
            IdentityProblem::MixedScripts => f.write_str(
                "mixes letters of different scripts (a Cyrillic or Greek letter among Latin \
                 ones, say), so it could pass for another name",
            ),
        }
    }
}

/// An identity as an error message shows it: escaped, bounded.
///
/// ```
/// # extern crate learnables_core as learnables;
/// use learnables::identity::shown;
/// assert_eq!(shown("al\u{200b}ice").to_string(), "al\\u{200b}ice");
/// ```
pub fn shown(identity: &str) -> Untrusted<'_> {
    Untrusted::new(identity).max_chars(120)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_issues_look_alikes_are_one_teacher() {
        for look_alike in [
            "\u{430}lice@example.com",
            "\u{ff41}lice@example.com",
            "al\u{131}ce@example.com",
            "alice@example.com.",
            "ALICE@EXAMPLE.COM",
            " alice@example.com ",
            "al\u{200b}ice@example.com",
        ] {
            assert!(same("alice@example.com", look_alike), "{look_alike:?}");
        }
        assert!(!same("alice@example.com", "alicia@example.com"));
        assert!(!same("alice@example.com", "alice@example.org"));
    }

    #[test]
    fn names_a_person_cannot_read_as_written_are_refused() {
        for (hostile, problem) in [
            (
                "al\u{200b}ice@example.com",
                IdentityProblem::Hidden('\u{200b}'),
            ),
            (
                "build-bot\u{202e}@example.com",
                IdentityProblem::Hidden('\u{202e}'),
            ),
            ("b\u{43e}t@example.com", IdentityProblem::MixedScripts),
            ("j\u{435}nkins@example.com", IdentityProblem::MixedScripts),
            ("\u{455}vc@example.com", IdentityProblem::MixedScripts),
            ("\u{430}lice@example.com", IdentityProblem::MixedScripts),
            ("alice@ex\u{430}mple.com", IdentityProblem::MixedScripts),
        ] {
            assert_eq!(check(hostile), Err(problem), "{hostile:?}");
        }
        for fine in [
            "alice@example.com",
            "zoë@example.fr",
            "李@example.cn",
            "b.o.t@x.io",
        ] {
            assert_eq!(check(fine), Ok(()), "{fine:?}");
        }
    }
}
