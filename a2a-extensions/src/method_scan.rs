//! Finding a JSON-RPC request's method from the first bytes of its body,
//! without reading (or keeping) the rest: a small streaming scanner over
//! the top-level object that skips every other member unparsed.

/// What the bytes seen so far say about the request's method.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// More bytes are needed.
    NeedMore,
    /// The first top-level `method` member, decoded.
    Method(String),
    /// The body has no string `method` member this scanner can find (it is
    /// not an object, it is malformed, or the method is not a short string):
    /// it is not a request for one of our methods.
    NoMethod,
}

/// The longest raw key or method text kept; longer ones are neither `method`
/// nor one of our (short) method names.
const MAX_TEXT: usize = 256;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    BeforeObject,
    BeforeKey,
    Key,
    BeforeColon,
    BeforeValue,
    MethodValue,
    /// Skipping a value: `nest` open arrays and objects, and whether inside
    /// a string.
    Skip {
        nest: usize,
        string: bool,
        bare: bool,
    },
    AfterValue,
}

/// A resumable scanner: feed it the body's bytes in order, chunk by chunk.
pub(crate) struct MethodScan {
    state: State,
    escaped: bool,
    text: Vec<u8>,
    overflow: bool,
    is_method_key: bool,
}

impl MethodScan {
    pub(crate) fn new() -> MethodScan {
        MethodScan {
            state: State::BeforeObject,
            escaped: false,
            // Room for the keys and the method name of a usual request.
            text: Vec::with_capacity(32),
            overflow: false,
            is_method_key: false,
        }
    }

    /// Scans the next bytes of the body.
    pub(crate) fn feed(&mut self, bytes: &[u8]) -> Verdict {
        let mut at = 0;
        while at < bytes.len() {
            at += self.plain_text(&bytes[at..]);
            let Some(&byte) = bytes.get(at) else {
                break;
            };
            if let Some(verdict) = self.step(byte) {
                return verdict;
            }
            at += 1;
        }
        Verdict::NeedMore
    }

    /// Inside a string, takes the bytes before its next quote or escape in
    /// one go (kept as [`MethodScan::step`] would keep them one by one);
    /// returns how many there were.
    fn plain_text(&mut self, bytes: &[u8]) -> usize {
        let keeps = match self.state {
            State::Key | State::MethodValue => true,
            State::Skip { string: true, .. } => false,
            _ => return 0,
        };
        if self.escaped {
            return 0;
        }
        let plain = memchr::memchr2(b'"', b'\\', bytes).unwrap_or(bytes.len());
        if keeps {
            let room = MAX_TEXT - self.text.len().min(MAX_TEXT);
            self.text.extend_from_slice(&bytes[..plain.min(room)]);
            self.overflow |= plain > room;
        }
        plain
    }

    fn step(&mut self, byte: u8) -> Option<Verdict> {
        let space = matches!(byte, b' ' | b'\t' | b'\n' | b'\r');
        match self.state {
            State::BeforeObject
            | State::BeforeKey
            | State::BeforeColon
            | State::BeforeValue
            | State::AfterValue
                if space => {}
            State::BeforeObject => match byte {
                b'{' => self.state = State::BeforeKey,
                _ => return Some(Verdict::NoMethod),
            },
            State::BeforeKey => match byte {
                b'"' => self.start_text(State::Key),
                _ => return Some(Verdict::NoMethod),
            },
            State::Key | State::MethodValue => {
                if self.escaped {
                    self.escaped = false;
                } else if byte == b'\\' {
                    self.escaped = true;
                } else if byte == b'"' {
                    return self.end_text();
                }
                if self.text.len() < MAX_TEXT {
                    self.text.push(byte);
                } else {
                    self.overflow = true;
                }
            }
            State::BeforeColon => match byte {
                b':' => self.state = State::BeforeValue,
                _ => return Some(Verdict::NoMethod),
            },
            State::BeforeValue if self.is_method_key => match byte {
                b'"' => self.start_text(State::MethodValue),
                _ => return Some(Verdict::NoMethod),
            },
            State::BeforeValue => {
                self.state = match byte {
                    b'"' => State::Skip {
                        nest: 0,
                        string: true,
                        bare: false,
                    },
                    b'{' | b'[' => State::Skip {
                        nest: 1,
                        string: false,
                        bare: false,
                    },
                    _ => State::Skip {
                        nest: 0,
                        string: false,
                        bare: true,
                    },
                };
            }
            State::Skip { nest, string, bare } => return self.skip(byte, nest, string, bare),
            State::AfterValue => match byte {
                b',' => self.state = State::BeforeKey,
                _ => return Some(Verdict::NoMethod),
            },
        }
        None
    }

    fn skip(&mut self, byte: u8, nest: usize, string: bool, bare: bool) -> Option<Verdict> {
        if string {
            if self.escaped {
                self.escaped = false;
            } else if byte == b'\\' {
                self.escaped = true;
            } else if byte == b'"' {
                self.state = if nest == 0 {
                    State::AfterValue
                } else {
                    State::Skip {
                        nest,
                        string: false,
                        bare,
                    }
                };
            }
            return None;
        }
        if bare {
            // A number, `true`, `false` or `null`: it ends where the member does.
            return match byte {
                b',' => {
                    self.state = State::BeforeKey;
                    None
                }
                b'}' => Some(Verdict::NoMethod),
                b' ' | b'\t' | b'\n' | b'\r' => {
                    self.state = State::AfterValue;
                    None
                }
                _ => None,
            };
        }
        let nest = match byte {
            b'"' => {
                self.state = State::Skip {
                    nest,
                    string: true,
                    bare,
                };
                return None;
            }
            b'{' | b'[' => nest + 1,
            b'}' | b']' => nest - 1,
            _ => nest,
        };
        self.state = if nest == 0 {
            State::AfterValue
        } else {
            State::Skip {
                nest,
                string: false,
                bare,
            }
        };
        None
    }

    fn start_text(&mut self, state: State) {
        self.text.clear();
        self.overflow = false;
        self.escaped = false;
        self.state = state;
    }

    fn end_text(&mut self) -> Option<Verdict> {
        let escapes = self.text.contains(&b'\\');
        if self.state == State::MethodValue {
            let decoded = if self.overflow {
                None
            } else if escapes {
                self.unescaped()
            } else {
                String::from_utf8(std::mem::take(&mut self.text)).ok()
            };
            return Some(decoded.map_or(Verdict::NoMethod, Verdict::Method));
        }
        // A key: compared in place unless it has escapes to decode.
        self.is_method_key = !self.overflow
            && if escapes {
                self.unescaped().as_deref() == Some("method")
            } else {
                self.text == b"method"
            };
        self.state = State::BeforeColon;
        None
    }

    /// The text read, its JSON escapes decoded.
    fn unescaped(&self) -> Option<String> {
        let mut quoted = Vec::with_capacity(self.text.len() + 2);
        quoted.push(b'"');
        quoted.extend_from_slice(&self.text);
        quoted.push(b'"');
        serde_json::from_slice::<String>(&quoted).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(body: &str) -> Verdict {
        MethodScan::new().feed(body.as_bytes())
    }

    #[test]
    fn finds_the_method_wherever_it_is_among_the_members() {
        for body in [
            r#"{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{}}"#,
            r#"{"params":{"method":"x","a":[1,{"b":"}"}]},"id":"\"","method":"SendMessage"}"#,
            r#" { "id" : 1 , "n": -1.5e3 , "t": true, "method" : "SendMessage" } "#,
            r#"{"m\u0065thod":"Send\u004dessage"}"#,
        ] {
            assert_eq!(scan(body), Verdict::Method("SendMessage".into()), "{body}");
        }
    }

    #[test]
    fn the_first_method_member_counts() {
        assert_eq!(
            scan(r#"{"method":"a","method":"b"}"#),
            Verdict::Method("a".into())
        );
    }

    #[test]
    fn bodies_without_a_findable_method() {
        for body in [
            "[]",
            "3",
            r#"{"id":1}"#,
            r#"{"method":7}"#,
            r#"{"id":1 "method":"m"}"#,
            r#"{"params":[1,2]}"#,
        ] {
            assert_eq!(scan(body), Verdict::NoMethod, "{body}");
        }
        assert_eq!(scan(r#"{"id":1,"params":{"method":"#), Verdict::NeedMore);
        let long = format!(r#"{{"method":"{}"}}"#, "m".repeat(MAX_TEXT + 1));
        assert_eq!(scan(&long), Verdict::NoMethod);
    }

    #[test]
    fn any_split_into_two_chunks_gives_the_same_answer() {
        let longest = "m".repeat(MAX_TEXT);
        let too_long = "m".repeat(MAX_TEXT + 1);
        let bodies = [
            r#"{"params":{"s":"a\"}\\"},"id":"x\\\"y","m\u0065thod":"example.ext.Greet"}"#
                .to_owned(),
            format!(r#"{{"id":"{too_long}","method":"{longest}"}}"#),
            format!(r#"{{"{too_long}":1,"method":"{too_long}"}}"#),
            r#"{"method":"a\"b"}"#.to_owned(),
        ];
        let verdicts: Vec<Verdict> = bodies.iter().map(|body| scan(body)).collect();
        assert_eq!(verdicts[0], Verdict::Method("example.ext.Greet".into()));
        assert_eq!(verdicts[1], Verdict::Method(longest.clone()));
        assert_eq!(verdicts[2], Verdict::NoMethod);
        assert_eq!(verdicts[3], Verdict::Method("a\"b".into()));
        for (body, whole) in bodies.iter().zip(&verdicts) {
            let bytes = body.as_bytes();
            for split in 0..=bytes.len() {
                let mut scanner = MethodScan::new();
                let verdict = match scanner.feed(&bytes[..split]) {
                    Verdict::NeedMore => scanner.feed(&bytes[split..]),
                    verdict => verdict,
                };
                assert_eq!(&verdict, whole, "{body} split at {split}");
            }
        }
    }

    #[test]
    fn byte_by_byte_gives_the_same_answer() {
        let body = r#"{"params":{"s":"a\"}"},"id":[1,[2]],"method":"example.ext.Greet"}"#;
        let mut scanner = MethodScan::new();
        let mut verdict = Verdict::NeedMore;
        for byte in body.as_bytes() {
            verdict = scanner.feed(std::slice::from_ref(byte));
            if verdict != Verdict::NeedMore {
                break;
            }
        }
        assert_eq!(verdict, Verdict::Method("example.ext.Greet".into()));
    }
}
