//! The pieces the streaming JSON scrubber reads with: where it is in the
//! grammar, the containers it is in, numbers, and the matcher that tells
//! the URI, `extensions` and `metadata` from other strings.

use crate::EXTENSION_URI;

/// The key of the arrays that list a message's extensions.
const EXTENSIONS: &[u8] = b"extensions";

/// The key of the objects that hold a message's teach block.
const METADATA: &[u8] = b"metadata";

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Kind {
    Object,
    Array,
}

#[derive(Debug)]
pub(super) struct Frame {
    pub(super) kind: Kind,
    /// A member (or element) of it was kept: a comma before the next one
    /// is kept too.
    pub(super) kept: bool,
    /// An `extensions` array: its URI strings are removed.
    pub(super) scrubs: bool,
    /// A `metadata` object or an `extensions` array nothing of which was
    /// kept yet: where its member's bytes up to its opening bracket (the
    /// comma before it too) begin in the scrubber's pending bytes, held
    /// back until something in it is kept (they are sent) or it ends
    /// emptied (they are dropped with it).
    pub(super) pending: Option<usize>,
    /// Something in it was removed.
    pub(super) removed: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Num {
    Minus,
    Zero,
    Int,
    Dot,
    Frac,
    E,
    ESign,
    Exp,
}

impl Num {
    pub(super) fn complete(self) -> bool {
        matches!(self, Num::Zero | Num::Int | Num::Frac | Num::Exp)
    }

    /// The state after `byte`, or `None` when `byte` is not part of the number.
    pub(super) fn next(self, byte: u8) -> Option<Num> {
        Some(match (self, byte) {
            (Num::Minus, b'0') => Num::Zero,
            (Num::Minus, b'1'..=b'9') => Num::Int,
            (Num::Int, b'0'..=b'9') => Num::Int,
            (Num::Zero | Num::Int, b'.') => Num::Dot,
            (Num::Dot | Num::Frac, b'0'..=b'9') => Num::Frac,
            (Num::Zero | Num::Int | Num::Frac, b'e' | b'E') => Num::E,
            (Num::E, b'+' | b'-') => Num::ESign,
            (Num::E | Num::ESign | Num::Exp, b'0'..=b'9') => Num::Exp,
            _ => return None,
        })
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum State {
    /// Between top-level values.
    Top,
    /// A value must come (after `:`, or `,` in an array).
    Value,
    /// After `[`: a value or `]`.
    FirstValue,
    /// After `{`: a key or `}`.
    FirstKey,
    /// After `,` in an object: a key.
    Key,
    /// After a key: `:`.
    Colon,
    /// After a value in a container: `,` or its end.
    After,
    /// In a string (a key or not).
    Str {
        key: bool,
    },
    /// After a backslash in a string.
    Esc {
        key: bool,
    },
    /// In a `\u` escape: how many hex digits are still to come, and the
    /// code unit so far.
    Hex {
        key: bool,
        left: u8,
        unit: u16,
    },
    Num(Num),
    /// In `true`, `false` or `null`: the letters still to come.
    Lit(&'static [u8]),
}

/// What becomes of the bytes as they are read.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Mode {
    /// Sent on.
    Pass,
    /// Held back until the key (or string) decides.
    Hold,
    /// Dropped: a removed member.
    Skip,
}

/// Whether the string read so far could still be the URI, `extensions`
/// or `metadata`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Matcher {
    pub(super) at: usize,
    pub(super) uri: bool,
    pub(super) extensions: bool,
    pub(super) metadata: bool,
}

impl Matcher {
    pub(super) fn feed(&mut self, byte: u8) {
        let uri = EXTENSION_URI.as_bytes();
        self.uri &= uri.get(self.at) == Some(&byte);
        self.extensions &= EXTENSIONS.get(self.at) == Some(&byte);
        self.metadata &= METADATA.get(self.at) == Some(&byte);
        self.at += 1;
    }

    pub(super) fn feed_run(&mut self, run: &[u8]) {
        let uri = EXTENSION_URI.as_bytes();
        let end = self.at + run.len();
        self.uri &= uri.get(self.at..end) == Some(run);
        self.extensions &= EXTENSIONS.get(self.at..end) == Some(run);
        self.metadata &= METADATA.get(self.at..end) == Some(run);
        self.at = end;
    }

    pub(super) fn alive(&self) -> bool {
        self.uri || self.extensions || self.metadata
    }

    pub(super) fn is_uri(&self) -> bool {
        self.uri && self.at == EXTENSION_URI.len()
    }

    pub(super) fn is_extensions(&self) -> bool {
        self.extensions && self.at == EXTENSIONS.len()
    }

    pub(super) fn is_metadata(&self) -> bool {
        self.metadata && self.at == METADATA.len()
    }
}
