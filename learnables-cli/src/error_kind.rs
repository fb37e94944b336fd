//! What kind of failure a command ended on, and the exit status each kind
//! gives: the contract scripts rely on.

/// The kinds of failure, each with its exit status (see
/// [`ErrorKind::exit_code`]) and its name in a `--json` error document
/// (see [`ErrorKind::name`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The agent refused: a JSON-RPC error for a lesson or a show-back,
    /// or a card that says the agent takes no lessons. Exit 1.
    Refused,
    /// The lint found that a card breaks the Learnables spec (or declares
    /// no Learnables). Exit 1.
    Lint,
    /// The command line or a file the person gave is wrong: an unknown
    /// field, a URL that is not one, a file that cannot be read. Exit 2,
    /// as clap's own usage errors.
    Usage,
    /// The agent could not be reached or the exchange broke: no
    /// connection, a timeout, a TLS certificate not trusted, a body cut
    /// off. Exit 3.
    Network,
    /// The agent answered, but not with what was asked for: not JSON, not
    /// the expected shape, an HTTP error status, a redirect learnables does
    /// not follow, a body past its bound. Exit 4.
    NotUnderstood,
    /// The agent's question (a `--question` link) is answered already:
    /// the command line was right, and there is nothing left to teach for
    /// it. Exit 5.
    Answered,
    /// The person left the form (Esc, Ctrl-C, end of input): nothing was
    /// sent. Exit 130.
    Cancelled,
}

impl ErrorKind {
    /// Every kind, in the order of their exit statuses.
    #[cfg(test)]
    pub const ALL: [ErrorKind; 7] = [
        ErrorKind::Refused,
        ErrorKind::Lint,
        ErrorKind::Usage,
        ErrorKind::Network,
        ErrorKind::NotUnderstood,
        ErrorKind::Answered,
        ErrorKind::Cancelled,
    ];

    /// The exit status of a command that ends on this kind of failure.
    pub const fn exit_code(self) -> u8 {
        match self {
            ErrorKind::Refused | ErrorKind::Lint => 1,
            ErrorKind::Usage => 2,
            ErrorKind::Network => 3,
            ErrorKind::NotUnderstood => 4,
            ErrorKind::Answered => 5,
            ErrorKind::Cancelled => 130,
        }
    }

    /// The kind's name in a `--json` error document.
    pub const fn name(self) -> &'static str {
        match self {
            ErrorKind::Refused => "refused",
            ErrorKind::Lint => "lint",
            ErrorKind::Usage => "usage",
            ErrorKind::Network => "network",
            ErrorKind::NotUnderstood => "notUnderstood",
            ErrorKind::Answered => "answered",
            ErrorKind::Cancelled => "cancelled",
        }
    }
}

/// The exit statuses, as `--help` shows them.
pub const EXIT_STATUS_HELP: &str = "\
Exit status:
  0    success
  1    the agent refused (a lesson, a show-back), or the lint found violations
  2    usage: a wrong argument, option or input file (clap's own errors too)
  3    network or TLS: no connection, a timeout, a certificate not trusted, a
       connection broken off
  4    the agent's answer was not understood: not JSON, not the expected shape,
       an HTTP error status, a redirect not followed, a body past its bound
  5    the agent's question is answered already (teach --question): nothing
       was sent
  130  cancelled: the form was left (Esc, Ctrl-C, end of input); nothing was sent

With --json, standard output carries exactly one JSON document, the error
document {\"error\": {\"kind\", \"message\", \"exitCode\"}} included; no form
is shown: a field not given with --set takes the question's suggestion or its
default, and one with neither is left out with --yes.";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_its_status_and_a_distinct_name() {
        let codes: Vec<u8> = ErrorKind::ALL.iter().map(|kind| kind.exit_code()).collect();
        assert_eq!(codes, [1, 1, 2, 3, 4, 5, 130]);
        let mut names: Vec<&str> = ErrorKind::ALL.iter().map(|kind| kind.name()).collect();
        names.dedup();
        assert_eq!(names.len(), ErrorKind::ALL.len());
        for code in [0, 1, 2, 3, 4, 5, 130] {
            assert!(
                EXIT_STATUS_HELP.contains(&format!("\n  {code} ")),
                "{code} is documented"
            );
        }
    }

    #[test]
    fn kinds_have_exit_codes_and_names() {
        use crate::error_kind::ErrorKind;
        assert_eq!(ErrorKind::Network.exit_code(), 3);
        assert_eq!(ErrorKind::NotUnderstood.name(), "notUnderstood");
    }

    #[test]
    fn refusals_and_lint_exit_1_cancel_130() {
        use crate::error_kind::ErrorKind;
        assert_eq!(ErrorKind::Refused.exit_code(), ErrorKind::Lint.exit_code());
        assert_eq!(ErrorKind::Cancelled.exit_code(), 130);
    }

    #[test]
    fn usage_is_named_usage() {
        use crate::error_kind::ErrorKind;
        assert_eq!(ErrorKind::Usage.name(), "usage");
    }
}
