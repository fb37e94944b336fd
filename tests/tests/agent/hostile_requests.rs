//! A catalogue of malformed and hostile requests sent to the running example
//! agent, each of which must get its own specific refusal; then the agent
//! must still answer, with its knowledge exactly as it was. Slow clients,
//! which need timing rather than a table, have tests of their own below.

use learnables_tests::support::agent as agent_harness;

use std::io::Write;
use std::thread;
use std::time::{Duration, Instant};

use agent_harness::{ACTIVATED, AS_ALICE, AS_BOT, Agent, Reply, read_reply};
use learnables::a2a::json_rpc::codes;
use learnables::{EXTENSION_URI, Knowledge};
use serde_json::{Value, json};

const TEACH: &str = "rsaxb.learnables.Teach";
const SHOW_BACK: &str = "rsaxb.learnables.ShowBack";
const LIMIT: usize = 64 * 1024;

/// How a case's request is sent.
enum Request {
    /// A POST through the harness's client (`Content-Type:
    /// application/json`) with these headers.
    Post(Vec<u8>, Vec<(&'static str, String)>),
    /// These bytes, exactly, on a raw TCP connection.
    Raw(Vec<u8>),
}

/// What a case must get back.
enum Expect {
    /// A JSON-RPC error: the HTTP status, the code, the first field at fault (or
    /// none), and words the message must contain.
    Error {
        status: u16,
        code: i64,
        field: Option<String>,
        says: String,
    },
    /// A JSON-RPC result, which the check accepts.
    Answer(Box<Accept>),
    /// An HTTP status without a JSON-RPC body.
    Status(u16),
    /// The host's (the official SDK's) JSON-RPC error: the code, and words
    /// the message must contain.
    Host { code: i64, says: String },
    /// A notification's: HTTP 204 without a body; and then the knowledge,
    /// shown back over HTTP, is exactly as it was.
    Unanswered,
}

impl Expect {
    /// The kind of answer, as the catalogue counts them.
    fn kind(&self) -> String {
        match self {
            Expect::Error { status, .. } => format!("a learnables JSON-RPC error, HTTP {status}"),
            Expect::Host { .. } => "the SDK's JSON-RPC error, HTTP 200".into(),
            Expect::Answer(_) => "a JSON-RPC result, HTTP 200".into(),
            Expect::Status(status) => format!("HTTP {status} without a JSON-RPC body"),
            Expect::Unanswered => "a notification's HTTP 204, the knowledge unchanged".into(),
        }
    }
}

/// Accepts a result, or says what is wrong with it.
type Accept = dyn Fn(&Value) -> Result<(), String>;

struct Case {
    name: String,
    request: Request,
    expect: Expect,
}

// ---- requests ----------------------------------------------------------

fn envelope(method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
}

fn body(value: &Value) -> Vec<u8> {
    value.to_string().into_bytes()
}

fn headers(list: &[(&'static str, &str)]) -> Vec<(&'static str, String)> {
    list.iter()
        .map(|(name, value)| (*name, (*value).to_owned()))
        .collect()
}

/// A body as alice, activated.
fn post(body: impl Into<Vec<u8>>) -> Request {
    Request::Post(body.into(), headers(&[ACTIVATED, AS_ALICE]))
}

/// A body with exactly these headers (besides the content type).
fn post_with(body: impl Into<Vec<u8>>, list: &[(&'static str, &str)]) -> Request {
    Request::Post(body.into(), headers(list))
}

/// The lesson the agent is taught before the catalogue.
fn known_lesson() -> Value {
    json!({
        "collection": "routing_rules", "entry": "85",
        "value": {"chapter": "85", "desk": "cold chain"},
        "taughtBy": "alice@example.com"
    })
}

/// The params of a show-back of the known lesson's entry.
fn show_params() -> Value {
    json!({"collection": "routing_rules", "entry": "85"})
}

/// The known lesson's entry taught a new desk, by `teacher`.
fn new_desk_by(teacher: &str) -> Value {
    let mut lesson = lesson_with("/value/desk", json!("general"));
    lesson["taughtBy"] = json!(teacher);
    lesson
}

/// A lesson for an entry the agent does not know.
fn new_entry() -> Value {
    json!({
        "collection": "routing_rules", "entry": "86",
        "value": {"chapter": "86", "desk": "dangerous-goods"},
        "taughtBy": "alice@example.com"
    })
}

/// A new clearance limit for the broker the agent knows.
fn new_limit() -> Value {
    json!({
        "collection": "clearance_limits", "entry": "broker-17",
        "value": {"amountEur": 99_000}, "taughtBy": "alice@example.com"
    })
}

/// The known lesson with `key` (a JSON pointer) set to `value`.
fn lesson_with(pointer: &str, value: Value) -> Value {
    let mut lesson = known_lesson();
    *lesson.pointer_mut(pointer).expect("the pointer exists") = value;
    lesson
}

/// The known lesson without `key`.
fn lesson_without(key: &str) -> Value {
    let mut lesson = known_lesson();
    lesson.as_object_mut().unwrap().remove(key);
    lesson
}

/// The known lesson with `key` added.
fn lesson_plus(key: &str, value: Value) -> Value {
    let mut lesson = known_lesson();
    lesson[key] = value;
    lesson
}

fn teach(lesson: Value) -> Request {
    post(body(&envelope(TEACH, lesson)))
}

fn show_back(params: Value) -> Request {
    post(body(&envelope(SHOW_BACK, params)))
}

/// A raw HTTP/1.1 request: the request line, then `head` (header lines,
/// each ending in CRLF), then the body.
fn raw(request_line: &str, head: &str, body: &[u8]) -> Request {
    let mut bytes = format!(
        "{request_line}\r\nHost: 127.0.0.1\r\nConnection: close\r\nA2A-Version: 1.0\r\n{head}\r\n"
    )
    .into_bytes();
    bytes.extend_from_slice(body);
    Request::Raw(bytes)
}

/// A raw POST of `body` as alice, activated, with `head` and a true
/// `Content-Length`.
fn raw_post(head: &str, body: &[u8]) -> Request {
    raw(
        "POST / HTTP/1.1",
        &format!(
            "A2A-Extensions: {EXTENSION_URI}\r\nAuthorization: Bearer alice-token\r\n{head}\
             Content-Length: {}\r\n",
            body.len()
        ),
        body,
    )
}

/// A show-back of entry 85, padded with spaces to exactly `size` bytes.
fn padded_show_back(size: usize) -> Vec<u8> {
    let mut bytes = body(&envelope(
        SHOW_BACK,
        json!({"collection": "routing_rules", "entry": "85"}),
    ));
    bytes.resize(size, b' ');
    bytes
}

/// `[[[ ... 1 ... ]]]`, `depth` deep.
fn nested_arrays(depth: usize) -> String {
    format!("{}1{}", "[".repeat(depth), "]".repeat(depth))
}

/// `{"a":{"a": ... 1 ... }}`, `depth` deep.
fn nested_objects(depth: usize) -> String {
    format!("{}1{}", r#"{"a":"#.repeat(depth), "}".repeat(depth))
}

/// The known lesson, as text, with the JSON text `chapter` as its chapter.
fn lesson_text_with_chapter(chapter: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"{TEACH}","params":{{"collection":"routing_rules","entry":"85","value":{{"chapter":{chapter},"desk":"cold chain"}},"taughtBy":"alice@example.com"}}}}"#
    )
}

// ---- expectations ------------------------------------------------------

fn error(status: u16, code: i64, field: Option<&str>, says: &str) -> Expect {
    Expect::Error {
        status,
        code,
        field: field.map(str::to_owned),
        says: says.to_owned(),
    }
}

fn parse_error(says: &str) -> Expect {
    error(200, codes::PARSE_ERROR, None, says)
}

fn invalid_request(says: &str) -> Expect {
    error(200, codes::INVALID_REQUEST, None, says)
}

fn too_large() -> Expect {
    error(
        413,
        codes::INVALID_REQUEST,
        None,
        "larger than the limit of 65536 bytes",
    )
}

fn invalid_params(field: &str, says: &str) -> Expect {
    error(200, codes::INVALID_PARAMS, Some(field), says)
}

fn forbidden(field: Option<&str>, says: &str) -> Expect {
    error(200, codes::FORBIDDEN, field, says)
}

fn unauthenticated(says: &str) -> Expect {
    error(200, codes::UNAUTHENTICATED, None, says)
}

fn not_activated() -> Expect {
    error(
        200,
        codes::EXTENSION_NOT_ACTIVATED,
        None,
        "needs the Learnables extension activated",
    )
}

/// The official SDK's refusal of a request that is not ours.
fn sdk_error(code: i64, says: &str) -> Expect {
    Expect::Host {
        code,
        says: says.to_owned(),
    }
}

fn not_found(field: &str, says: &str) -> Expect {
    error(200, codes::NOT_FOUND, Some(field), says)
}

fn answer(check: impl Fn(&Value) -> Result<(), String> + 'static) -> Expect {
    Expect::Answer(Box::new(check))
}

/// A replay of the known lesson: nothing learned, the same version.
fn nothing_learned(version_id: &str) -> Expect {
    let version_id = version_id.to_owned();
    answer(move |result| {
        if result["learned"] == false && result["versionId"] == version_id.as_str() {
            Ok(())
        } else {
            Err(format!("expected nothing learned at {version_id}"))
        }
    })
}

/// The show-back of entry 85.
fn shows_85() -> Expect {
    answer(|result| {
        if result["entry"] == "85" && result["taughtBy"] == "alice@example.com" {
            Ok(())
        } else {
            Err("expected the show-back of entry 85".into())
        }
    })
}

// ---- the catalogue -----------------------------------------------------

/// The catalogue: one table a topic, each case with the answer it must get.
fn catalogue(version_id: &str) -> Vec<Case> {
    let known = known_lesson();
    let mut table = Table::default();
    sizes(&mut table, &known);
    nesting(&mut table);
    envelopes(&mut table, &known);
    lesson_fields(&mut table, version_id);
    huge_numbers(&mut table);
    unicode_tricks(&mut table, version_id);
    forged_teachers(&mut table, &known, version_id);
    bearer_tokens(&mut table, &known);
    unknown_collections_and_methods(&mut table, &known);
    not_json_and_other_routes(&mut table);
    keys_given_twice(&mut table, &known);
    notifications(&mut table, &known);
    replays(&mut table, &known, version_id);
    table.cases
}

/// Cases, added in order.
#[derive(Default)]
struct Table {
    cases: Vec<Case>,
}

impl Table {
    fn add(&mut self, name: &str, request: Request, expect: Expect) {
        self.cases.push(Case {
            name: name.to_owned(),
            request,
            expect,
        });
    }
}

/// Size: refused before being read, with 413.
fn sizes(table: &mut Table, known: &Value) {
    table.add(
        "a body one byte over the limit",
        post(padded_show_back(LIMIT + 1)),
        too_large(),
    );
    table.add(
        "a body exactly at the limit is read",
        post(padded_show_back(LIMIT)),
        shows_85(),
    );
    // (Sent whole, the client would still be writing when the refusal
    // closes the connection: it sends the first 64 KiB and reads.)
    table.add(
        "a body of 4 MiB, refused at its Content-Length",
        raw(
            "POST / HTTP/1.1",
            "Content-Type: application/json\r\nContent-Length: 4194304\r\n",
            &padded_show_back(LIMIT),
        ),
        too_large(),
    );
    table.add(
        "a Content-Length of 10 MB for a teach, its first bytes sent (answered without waiting for the rest)",
        raw(
            "POST / HTTP/1.1",
            "Content-Type: application/json\r\nContent-Length: 10000000\r\n",
            format!(r#"{{"jsonrpc":"2.0","id":7,"method":"{TEACH}","#).as_bytes(),
        ),
        too_large(),
    );
    table.add(
        "a Content-Length of 100 MB with Expect: 100-continue (the host decides: the SDK asks for the body)",
        raw(
            "POST / HTTP/1.1",
            "Content-Type: application/json\r\nContent-Length: 100000000\r\nExpect: 100-continue\r\n",
            b"",
        ),
        Expect::Status(100),
    );
    table.add(
        "a Content-Length shorter than the body: only that much is read",
        raw(
            "POST / HTTP/1.1",
            "Content-Type: application/json\r\nContent-Length: 10\r\n",
            &body(&envelope(TEACH, known.clone())),
        ),
        // Cut short before its method, the request is the host's: the SDK's answer.
        parse_error("parse error"),
    );
    let mut chunked = Vec::new();
    let start = format!(r#"{{"jsonrpc":"2.0","id":7,"method":"{TEACH}","params":{{"reason":""#);
    chunked.extend_from_slice(format!("{:x}\r\n{start}\r\n", start.len()).as_bytes());
    for _ in 0..10 {
        chunked.extend_from_slice(format!("2000\r\n{}\r\n", " ".repeat(0x2000)).as_bytes());
    }
    chunked.extend_from_slice(b"0\r\n\r\n");
    table.add(
        "a chunked teach over the limit, without a Content-Length",
        raw(
            "POST / HTTP/1.1",
            "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n",
            &chunked,
        ),
        too_large(),
    );
    table.add(
        "a broken chunked encoding",
        raw(
            "POST / HTTP/1.1",
            "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n",
            format!(
                r#"23{}{{"method":"{TEACH}",{}zz{}1}}{}0{}"#,
                "\r\n", "\r\n", "\r\n", "\r\n", "\r\n\r\n"
            )
            .as_bytes(),
        ),
        error(400, codes::INVALID_REQUEST, None, "body could not be read"),
    );
    table.add(
        "a Content-Length that is not a number",
        raw("POST / HTTP/1.1", "Content-Length: ten\r\n", b"{}"),
        Expect::Status(400),
    );
    table.add(
        "two different Content-Length headers",
        raw(
            "POST / HTTP/1.1",
            "Content-Length: 2\r\nContent-Length: 40\r\n",
            b"{}",
        ),
        Expect::Status(400),
    );

    let show_85 = body(&envelope(
        SHOW_BACK,
        json!({"collection": "routing_rules", "entry": "85"}),
    ));
    let mut chunked_show_85 = format!("{:x}\r\n", show_85.len()).into_bytes();
    chunked_show_85.extend_from_slice(&show_85);
    chunked_show_85.extend_from_slice(b"\r\n0\r\n\r\n");
    table.add(
        "both Content-Length and chunked: the chunked encoding decides (RFC 9112 6.3)",
        raw(
            "POST / HTTP/1.1",
            &format!(
                "A2A-Extensions: {EXTENSION_URI}\r\nAuthorization: Bearer alice-token\r\n\
                 Content-Length: 5\r\nTransfer-Encoding: chunked\r\n"
            ),
            &chunked_show_85,
        ),
        shows_85(),
    );
    table.add(
        "a transfer encoding the server does not know",
        raw("POST / HTTP/1.1", "Transfer-Encoding: gzip\r\n", &show_85),
        Expect::Status(400),
    );
    table.add(
        "a header of 1 MB",
        raw(
            "POST / HTTP/1.1",
            &format!(
                "X-Big: {}\r\nContent-Length: {}\r\n",
                "h".repeat(1 << 20),
                show_85.len()
            ),
            &show_85,
        ),
        Expect::Status(431),
    );
    let many: String = (0..200).map(|i| format!("X-Header-{i}: x\r\n")).collect();
    table.add(
        "200 headers",
        raw(
            "POST / HTTP/1.1",
            &format!("{many}Content-Length: {}\r\n", show_85.len()),
            &show_85,
        ),
        Expect::Status(431),
    );
}

/// Nesting: refused before parsing, wherever it is.
fn nesting(table: &mut Table) {
    let deep = |what: &str, text: String| (what.to_owned(), text);
    for (name, text) in [
        deep(
            "arrays 33 deep in params",
            format!(
                r#"{{"jsonrpc":"2.0","id":7,"method":"{TEACH}","params":{}}}"#,
                nested_arrays(32)
            ),
        ),
        deep(
            "objects 33 deep in params",
            format!(
                r#"{{"jsonrpc":"2.0","id":7,"method":"{TEACH}","params":{}}}"#,
                nested_objects(32)
            ),
        ),
        deep(
            "arrays 33 deep in the lesson value",
            lesson_text_with_chapter(&nested_arrays(30)),
        ),
        deep(
            "objects 33 deep in the lesson value",
            lesson_text_with_chapter(&nested_objects(30)),
        ),
        deep(
            "arrays 33 deep outside params",
            format!(
                r#"{{"jsonrpc":"2.0","id":7,"method":"{SHOW_BACK}","x":{}}}"#,
                nested_arrays(32)
            ),
        ),
        deep(
            "arrays 20 000 deep (no stack overflow)",
            format!(
                r#"{{"jsonrpc":"2.0","id":7,"method":"{TEACH}","params":{}}}"#,
                nested_arrays(20_000)
            ),
        ),
    ] {
        table.add(
            &format!("nesting: {name}"),
            post(text),
            invalid_request("nests arrays and objects 33 deep; the limit is 32"),
        );
    }
    table.add(
        "nesting exactly at the limit is read, and the lesson refused for its value",
        post(lesson_text_with_chapter(&nested_arrays(29))),
        invalid_params("value.chapter", "HS chapter"),
    );
    table.add(
        "brackets inside a string are not nesting",
        show_back(json!({"collection": "routing_rules", "entry": "[".repeat(1000)})),
        invalid_params("entry", "an HS chapter is a number from 1 to 97"),
    );
}

/// The envelope, each member with the wrong type.
fn envelopes(table: &mut Table, known: &Value) {
    let with_member = |key: &str, value: Value| {
        let mut request = envelope(SHOW_BACK, show_params());
        request[key] = value;
        body(&request)
    };
    let without_member = |key: &str| {
        let mut request = envelope(SHOW_BACK, show_params());
        request.as_object_mut().unwrap().remove(key);
        body(&request)
    };
    #[rustfmt::skip]
    let members = [
        ("no `jsonrpc`", without_member("jsonrpc"), "`jsonrpc` must be \"2.0\""),
        ("`jsonrpc` 2.0 as a number", with_member("jsonrpc", json!(2.0)), "`jsonrpc`"),
        ("`jsonrpc` \"1.0\"", with_member("jsonrpc", json!("1.0")), "`jsonrpc`"),
        ("`jsonrpc` \"2.0 \"", with_member("jsonrpc", json!("2.0 ")), "`jsonrpc`"),
        ("`id` an object", with_member("id", json!({"a": 1})), "`id` must be a string, a number or null"),
        ("`id` an array", with_member("id", json!([7])), "`id` must be"),
        ("`id` a boolean", with_member("id", json!(true)), "`id` must be"),
        ("`params` a string", with_member("params", json!("85")), "`params` must be an object or an array"),
        ("`params` a number", with_member("params", json!(85)), "`params` must be"),
        ("`params` a boolean", with_member("params", json!(true)), "`params` must be"),
    ];
    for (name, request, says) in members {
        table.add(
            &format!("envelope: {name}"),
            post(request),
            invalid_request(says),
        );
    }
    // Without a method of ours to be found, a request is the host's: the
    // official SDK's refusal.
    #[rustfmt::skip]
    let hosts = [
        ("`method` a number", with_member("method", json!(7)), "`method` must be a string"),
        ("`method` null", with_member("method", Value::Null), "`method` must be a string"),
        ("`method` an array", with_member("method", json!([TEACH])), "`method` must be a string"),
        ("no `method`", without_member("method"), "`method` is missing"),
        ("the request a string", body(&json!("rsaxb.learnables.Teach")), "a JSON-RPC request is a JSON object"),
        ("the request null", b"null".to_vec(), "a JSON-RPC request is a JSON object"),
        ("the request a number", b"7".to_vec(), "a JSON-RPC request is a JSON object"),
        ("a batch of one", body(&json!([envelope(SHOW_BACK, show_params())])), "batch requests are not supported"),
    ];
    for (name, request, _) in hosts {
        table.add(
            &format!("envelope: {name}"),
            post(request),
            sdk_error(codes::INVALID_REQUEST, "invalid request"),
        );
    }
    table.add(
        "teach params an array",
        post(body(&envelope(TEACH, json!([known.clone()])))),
        error(200, codes::INVALID_PARAMS, None, "a Lesson object"),
    );
    table.add(
        "teach without params",
        post(body(&json!({"jsonrpc": "2.0", "id": 7, "method": TEACH}))),
        error(200, codes::INVALID_PARAMS, None, "a Lesson object"),
    );
    table.add(
        "show-back params an array",
        post(body(&envelope(SHOW_BACK, json!(["routing_rules", "85"])))),
        error(200, codes::INVALID_PARAMS, None, "the show-back params are"),
    );
}

/// Every lesson field with the wrong type, or missing.
fn lesson_fields(table: &mut Table, version_id: &str) {
    #[rustfmt::skip]
    let lessons = [
        ("`collection` an array", lesson_with("/collection", json!(["routing_rules"])), "collection", "`collection` must be a string"),
        ("`collection` null", lesson_with("/collection", Value::Null), "collection", "`collection` must be a string"),
        ("`collection` missing", lesson_without("collection"), "collection", "`collection` must be a string"),
        ("`entry` a number", lesson_with("/entry", json!(85)), "entry", "`entry` must be a string"),
        ("`entry` an object", lesson_with("/entry", json!({})), "entry", "`entry` must be a string"),
        ("`entry` empty", lesson_with("/entry", json!("")), "entry", "must not be empty"),
        ("`value` an array", lesson_with("/value", json!([["chapter", "85"]])), "value", "`value` must be an object"),
        ("`value` null", lesson_with("/value", Value::Null), "value", "`value` must be an object"),
        ("`value` a string of JSON", lesson_with("/value", json!(r#"{"chapter":"85"}"#)), "value", "`value` must be an object"),
        ("`taughtBy` a number", lesson_with("/taughtBy", json!(1)), "taughtBy", "`taughtBy` must be a string"),
        ("`taughtBy` an array", lesson_with("/taughtBy", json!(["alice@example.com"])), "taughtBy", "`taughtBy` must be a string"),
        ("`taughtBy` missing", lesson_without("taughtBy"), "taughtBy", "`taughtBy` must be a string"),
        ("`reason` a number", lesson_plus("reason", json!(42)), "reason", "`reason` must be a string"),
        ("`reason` an object", lesson_plus("reason", json!({"why": "x"})), "reason", "`reason` must be a string"),
        ("`value.desk` a number", lesson_with("/value/desk", json!(3)), "value.desk", "Desk"),
        ("`value.desk` not a choice", lesson_with("/value/desk", json!("cold storage")), "value.desk", "Desk"),
        ("`value.chapter` a boolean", lesson_with("/value/chapter", json!(true)), "value.chapter", "HS chapter"),
        ("`value.note` an array", lesson_with( "/value", json!({"chapter": "85", "desk": "cold chain", "note": ["x"]}), ), "value.note", "Note for the broker"),
        // Left out, the chapter is the entry's (an empty value teaches the
        // desk's default): what is refused is a chapter that is not it.
        ("`value` only another chapter", lesson_with("/value", json!({"chapter": "12"})), "value.chapter", "HS chapter"),
    ];
    // A key a lesson does not have is ignored (the spec's schema allows it).
    table.add(
        "lesson: an unknown key",
        teach(lesson_plus("taughtAt", json!("now"))),
        nothing_learned(version_id),
    );
    for (name, lesson, field, says) in lessons {
        table.add(
            &format!("lesson: {name}"),
            teach(lesson),
            invalid_params(field, says),
        );
    }
    #[rustfmt::skip]
    let show_backs = [
        ("`collection` a number", json!({"collection": 5, "entry": "85"}), "collection", "`collection` must be a string"),
        ("`entry` an array", json!({"collection": "routing_rules", "entry": ["85"]}), "entry", "`entry` must be a string"),
        ("`entry` missing", json!({"collection": "routing_rules"}), "entry", "`entry` must be a string"),
        ("`versionId` a number", json!({"collection": "routing_rules", "entry": "85", "versionId": 1}), "versionId", "`versionId` must be a string"),
        ("an unknown key", json!({"collection": "routing_rules", "entry": "85", "asOf": "x"}), "asOf", "`asOf` is not one of them"),
    ];
    for (name, params, field, says) in show_backs {
        table.add(
            &format!("show-back: {name}"),
            show_back(params),
            invalid_params(field, says),
        );
    }
}

/// Huge numbers.
fn huge_numbers(table: &mut Table) {
    table.add(
        "a chapter of 1e400 (beyond any float)",
        post(lesson_text_with_chapter("1e400")),
        parse_error("number out of range"),
    );
    table.add(
        "a chapter of 60 000 digits",
        post(lesson_text_with_chapter(&"9".repeat(60_000))),
        parse_error("number out of range"),
    );
    for (name, chapter) in [
        ("2^64", "18446744073709551616"),
        ("256", "256"),
        ("-1", "-1"),
        ("85.5", "85.5"),
    ] {
        table.add(
            &format!("a chapter of {name}"),
            post(lesson_text_with_chapter(chapter)),
            invalid_params("value.chapter", "HS chapter"),
        );
    }
    table.add(
        "a clearance limit of 2^32 euros",
        teach(json!({
            "collection": "clearance_limits", "entry": "broker-17",
            "value": {"amountEur": 4_294_967_296_u64}, "taughtBy": "alice@example.com"
        })),
        invalid_params("value.amountEur", "Limit in euros"),
    );
    // An id of 1e400 is an id: it is answered, the id given back as it was
    // written (tests/tests/server/json_rpc_ids.rs reads those bytes).
}

/// Unicode tricks: each name is refused, and shown with what hides in it.
fn unicode_tricks(table: &mut Table, version_id: &str) {
    #[rustfmt::skip]
    let collections = [
        ("an RTL override", "routing_rules\u{202E}", "routing_rules\\u{202e}"),
        ("a zero-width space", "routing\u{200B}_rules", "routing\\u{200b}_rules"),
        ("a Cyrillic o", "r\u{043E}uting_rules", "it has: routing_rules, clearance_limits"),
        ("a NUL", "routing_rules\u{0}", "routing_rules\\u{0}"),
        ("a byte-order mark", "\u{FEFF}routing_rules", "\\u{feff}routing_rules"),
        ("fullwidth letters", "ｒｏｕｔｉｎｇ_rules", "has no learnable"),
    ];
    for (name, collection, says) in collections {
        table.add(
            &format!("a collection with {name}"),
            teach(lesson_with("/collection", json!(collection))),
            invalid_params("collection", says),
        );
    }
    table.add(
        "a show-back collection with an RTL override",
        show_back(json!({"collection": "routing_rules\u{202E}", "entry": "85"})),
        invalid_params("collection", "routing_rules\\u{202e}"),
    );
    table.add(
        "a show-back entry with an RTL override",
        show_back(json!({"collection": "routing_rules", "entry": "85\u{202E}"})),
        invalid_params(
            "entry",
            "the entry `85\\u{202e}` holds the character \\u{202e}",
        ),
    );
    table.add(
        "a show-back entry in fullwidth digits",
        show_back(json!({"collection": "routing_rules", "entry": "８５"})),
        invalid_params("entry", "is not a `chapter` (HS chapter)"),
    );
    table.add(
        "a lone leading surrogate escape in the entry",
        post(format!(
            r#"{{"jsonrpc":"2.0","id":7,"method":"{TEACH}","params":{{"collection":"routing_rules","entry":"\ud800","value":{{}},"taughtBy":"alice@example.com"}}}}"#
        )),
        parse_error("hex escape"),
    );
    table.add(
        "a lone trailing surrogate escape in taughtBy",
        post(format!(
            r#"{{"jsonrpc":"2.0","id":7,"method":"{TEACH}","params":{{"collection":"routing_rules","entry":"85","value":{{}},"taughtBy":"alice\udc00@example.com"}}}}"#
        )),
        parse_error("surrogate"),
    );
    let long_key = "k".repeat(10_000);
    table.add(
        "a 10 000-character key",
        teach(lesson_plus(&long_key, json!(1))),
        nothing_learned(version_id),
    );
    table.add(
        "a 60 000-character collection",
        teach(lesson_with("/collection", json!("c".repeat(60_000)))),
        invalid_params(
            "collection",
            &format!("`{}…[+59920 chars]`", "c".repeat(80)),
        ),
    );
    table.add(
        "a 60 000-character method",
        post(body(&envelope(&"m".repeat(60_000), json!({})))),
        sdk_error(codes::METHOD_NOT_FOUND, "method not found"),
    );
}

/// Forged taughtBy.
fn forged_teachers(table: &mut Table, known: &Value, version_id: &str) {
    for (name, taught_by) in [
        ("another person", "bob@example.com"),
        ("a trailing space", "alice@example.com "),
        ("a leading space", " alice@example.com"),
        ("a zero-width space", "alice\u{200B}@example.com"),
        ("a Cyrillic a", "\u{0430}lice@example.com"),
        ("a plus address", "alice+admin@example.com"),
        ("a CRLF and a header", "alice@example.com\r\nX-Admin: 1"),
        ("nothing", ""),
        ("the service account", "deploy-bot@example.com"),
    ] {
        table.add(
            &format!("taughtBy: {name}"),
            teach(lesson_with("/taughtBy", json!(taught_by))),
            forbidden(
                Some("taughtBy"),
                "but the authenticated teacher is `alice@example.com`",
            ),
        );
    }
    table.add(
        "taughtBy: in capitals, the same teacher (a replay: nothing learned)",
        teach(lesson_with("/taughtBy", json!("ALICE@EXAMPLE.COM"))),
        nothing_learned(version_id),
    );
    let mut by_bot = known.clone();
    by_bot["taughtBy"] = json!("deploy-bot@example.com");
    table.add(
        "taughtBy: a service account as itself",
        post_with(body(&envelope(TEACH, by_bot)), &[ACTIVATED, AS_BOT]),
        forbidden(None, "looks like a service account"),
    );
    table.add(
        "taughtBy: a service account claiming a person",
        post_with(body(&envelope(TEACH, known.clone())), &[ACTIVATED, AS_BOT]),
        forbidden(
            Some("taughtBy"),
            "the authenticated teacher is `deploy-bot@example.com`",
        ),
    );
}

/// Bearer tokens and schemes.
fn bearer_tokens(table: &mut Table, known: &Value) {
    let teach_body = body(&envelope(TEACH, known.clone()));
    table.add(
        "no Authorization header",
        post_with(teach_body.clone(), &[ACTIVATED]),
        unauthenticated("send `Authorization: Bearer <token>`"),
    );
    #[rustfmt::skip]
    let authorizations = [
        ("empty", "", "no teacher is authenticated"),
        ("`Bearer` without a token", "Bearer", "no teacher is authenticated"),
        ("`Bearer` and spaces", "Bearer    ", "no teacher is authenticated"),
        ("a wrong token", "Bearer guess", "the bearer token is not valid"),
        ("the token in capitals", "Bearer ALICE-TOKEN", "the bearer token is not valid"),
        ("the token and more", "Bearer alice-token bot-token", "the bearer token is not valid"),
        ("an 8 KiB token", &format!("Bearer {}", "t".repeat(8192)), "the bearer token is not valid"),
        ("the Basic scheme", "Basic YWxpY2U6YWxpY2UtdG9rZW4=", "no teacher is authenticated"),
        ("a Token scheme", "Token alice-token", "no teacher is authenticated"),
        ("the token without a scheme", "alice-token", "no teacher is authenticated"),
    ];
    for (name, value, says) in authorizations {
        table.add(
            &format!("Authorization: {name}"),
            post_with(teach_body.clone(), &[ACTIVATED, ("Authorization", value)]),
            unauthenticated(says),
        );
    }
    table.add(
        "two Authorization headers, alice's first",
        post_with(
            teach_body.clone(),
            &[ACTIVATED, AS_ALICE, ("Authorization", "Bearer guess")],
        ),
        unauthenticated("no teacher is authenticated"),
    );
    table.add(
        "two Authorization headers, both alice's",
        post_with(teach_body.clone(), &[ACTIVATED, AS_ALICE, AS_ALICE]),
        unauthenticated("no teacher is authenticated"),
    );
    let mut binary_token = format!(
        "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nA2A-Version: 1.0\r\n\
         A2A-Extensions: {EXTENSION_URI}\r\nContent-Length: {}\r\nAuthorization: Bearer alice-token",
        teach_body.len()
    )
    .into_bytes();
    binary_token.extend_from_slice(b"\xff\xfe\r\n\r\n");
    binary_token.extend_from_slice(&teach_body);
    table.add(
        "an Authorization header that is not UTF-8",
        Request::Raw(binary_token),
        unauthenticated("no teacher is authenticated"),
    );
    table.add(
        "show-back without a token",
        post_with(body(&envelope(SHOW_BACK, show_params())), &[ACTIVATED]),
        unauthenticated("no teacher is authenticated"),
    );
    table.add(
        "a valid token without activation",
        post_with(teach_body.clone(), &[AS_ALICE]),
        not_activated(),
    );
    let near_miss = format!("{EXTENSION_URI}/");
    table.add(
        "an activation URI with a trailing slash",
        post_with(
            teach_body.clone(),
            &[("A2A-Extensions", near_miss.as_str()), AS_ALICE],
        ),
        not_activated(),
    );
    let flood = (0..100)
        .map(|i| format!("https://example.com/x{i}"))
        .chain([EXTENSION_URI.to_owned()])
        .collect::<Vec<_>>()
        .join(",");
    table.add(
        "the activation URI after 100 others (only 64 are read)",
        post_with(
            teach_body.clone(),
            &[("A2A-Extensions", flood.as_str()), AS_ALICE],
        ),
        not_activated(),
    );
}

/// Unknown collections and methods.
fn unknown_collections_and_methods(table: &mut Table, known: &Value) {
    table.add(
        "teaching an unknown collection",
        teach(lesson_with("/collection", json!("tariffs"))),
        invalid_params("collection", "no learnable `tariffs`"),
    );
    table.add(
        "showing back an unknown collection",
        show_back(json!({"collection": "tariffs", "entry": "85"})),
        invalid_params("collection", "no learnable `tariffs`"),
    );
    table.add(
        "showing back an entry no lesson could teach",
        show_back(json!({"collection": "routing_rules", "entry": "99"})),
        invalid_params("entry", "there is no HS chapter 99"),
    );
    table.add(
        "showing back an entry not taught yet",
        show_back(json!({"collection": "routing_rules", "entry": "96"})),
        not_found("entry", "has no routing rule `96`"),
    );
    table.add(
        "showing back an unknown version",
        show_back(json!({"collection": "routing_rules", "entry": "85", "versionId": "0"})),
        not_found("versionId", "no version has the id `0`"),
    );
    for method in [
        "rsaxb.learnables.teach",
        "rsaxb.learnables.Teach ",
        " rsaxb.learnables.Teach",
        "rsaxb.learnables.Forget",
    ] {
        table.add(
            &format!("the method {method:?}"),
            post(body(&envelope(method, known.clone()))),
            sdk_error(codes::METHOD_NOT_FOUND, "method not found"),
        );
    }
    table.add(
        "the method \"\"",
        post(body(&envelope("", known.clone()))),
        sdk_error(codes::INVALID_REQUEST, "method is required"),
    );
}

/// Bodies that are not JSON, content types, HTTP methods and paths.
fn not_json_and_other_routes(table: &mut Table) {
    #[rustfmt::skip]
    let bodies = [
        ("an empty body", b"".to_vec(), "EOF while parsing"),
        ("a body of spaces", b"   \n\t ".to_vec(), "EOF while parsing"),
        ("invalid UTF-8 in a string", [ b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"".as_slice(), b"\xff\xfe\"}", ] .concat(), "invalid unicode code point"),
        ("invalid UTF-8 outside strings", b"\xff{}".to_vec(), "expected value"),
        ("a byte-order mark", [ b"\xef\xbb\xbf".as_slice(), &body(&envelope(SHOW_BACK, show_params())), ] .concat(), "expected value"),
        ("trailing characters", [ body(&envelope(SHOW_BACK, show_params())), b" x".to_vec(), ] .concat(), "trailing characters"),
        ("two requests in one body", [ body(&envelope(SHOW_BACK, show_params())), body(&envelope(SHOW_BACK, show_params())), ] .concat(), "trailing characters"),
        ("a form", b"jsonrpc=2.0&method=rsaxb.learnables.Teach".to_vec(), "expected value"),
    ];
    for (name, bytes, says) in bodies {
        table.add(&format!("body: {name}"), post(bytes), parse_error(says));
    }
    // Without a method to be found, these are the host's: the SDK's answers.
    table.add(
        "body: an overlong UTF-8 encoding",
        post(b"{\"a\":\"\xc0\xaf\"}".to_vec()),
        sdk_error(codes::INVALID_REQUEST, "missing field `jsonrpc`"),
    );
    table.add(
        "body: UTF-16",
        post(
            "{\"a\":1}"
                .encode_utf16()
                .flat_map(u16::to_le_bytes)
                .collect::<Vec<u8>>(),
        ),
        sdk_error(codes::PARSE_ERROR, "parse error"),
    );
    let show_back_body = body(&envelope(SHOW_BACK, show_params()));
    table.add(
        "Content-Type text/plain: the body decides",
        raw_post("Content-Type: text/plain\r\n", &show_back_body),
        shows_85(),
    );
    table.add(
        "no Content-Type: the body decides",
        raw_post("", &show_back_body),
        shows_85(),
    );
    table.add(
        "Content-Type application/xml with XML",
        raw_post(
            "Content-Type: application/xml\r\n",
            b"<methodCall><methodName>rsaxb.learnables.Teach</methodName></methodCall>",
        ),
        parse_error("expected value"),
    );
    for verb in ["GET", "PUT", "DELETE", "PATCH"] {
        table.add(
            &format!("{verb} on the JSON-RPC path"),
            raw(&format!("{verb} / HTTP/1.1"), "Content-Length: 0\r\n", b""),
            Expect::Status(405),
        );
    }
    table.add(
        "POST on another path",
        raw(
            "POST /rpc HTTP/1.1",
            &format!("Content-Length: {}\r\n", show_back_body.len()),
            &show_back_body,
        ),
        Expect::Status(404),
    );
    table.add(
        "a request line that is not HTTP",
        Request::Raw(b"HELLO\r\n\r\n".to_vec()),
        Expect::Status(400),
    );
}

/// A key given twice: ambiguous, so refused.
fn keys_given_twice(table: &mut Table, known: &Value) {
    for (name, text) in [
        (
            "`method`",
            format!(
                r#"{{"jsonrpc":"2.0","id":7,"method":"{TEACH}","method":"GetTask","params":{known}}}"#
            ),
        ),
        (
            "`id`",
            format!(
                r#"{{"jsonrpc":"2.0","id":7,"id":8,"method":"{SHOW_BACK}","params":{}}}"#,
                show_params()
            ),
        ),
        (
            "`taughtBy`",
            format!(
                r#"{{"jsonrpc":"2.0","id":7,"method":"{TEACH}","params":{{"collection":"routing_rules","entry":"85","value":{{"chapter":"85","desk":"cold chain"}},"taughtBy":"bob@example.com","taughtBy":"alice@example.com"}}}}"#
            ),
        ),
        (
            "`desk` in the value",
            format!(
                r#"{{"jsonrpc":"2.0","id":7,"method":"{TEACH}","params":{{"collection":"routing_rules","entry":"85","value":{{"chapter":"85","desk":"general","desk":"cold chain"}},"taughtBy":"alice@example.com"}}}}"#
            ),
        ),
        (
            "`entry`, once escaped",
            format!(
                r#"{{"jsonrpc":"2.0","id":7,"method":"{TEACH}","params":{{"collection":"routing_rules","entry":"84","\u0065ntry":"85","value":{{"chapter":"85","desk":"cold chain"}},"taughtBy":"alice@example.com"}}}}"#
            ),
        ),
    ] {
        table.add(
            &format!("a key twice: {name}"),
            post(text),
            invalid_request("appears twice in one object"),
        );
    }

    table.add(
        "a key twice: `method`, the host's first",
        post(format!(
            r#"{{"jsonrpc":"2.0","id":7,"method":"GetTask","method":"{TEACH}","params":{known}}}"#
        )),
        sdk_error(codes::INVALID_REQUEST, "duplicate field `method`"),
    );
}

/// Notifications: carried out, never answered (a refusal included).
fn notifications(table: &mut Table, known: &Value) {
    // Each carries a value the knowledge does not hold, so that a refusal
    // skipped (no token, a wrong one, no activation, a forged teacher)
    // would show: after its 204, the agent must know exactly what it knew.
    let notification = |method: &str, params: Value| {
        body(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
    };
    let new_desk = new_desk_by("alice@example.com");
    let new_entry = new_entry();
    let new_limit = new_limit();
    let wrong_uri = format!("{EXTENSION_URI}/");
    #[rustfmt::skip]
    let notifications = [
        ("a new desk, without a token", new_desk.clone(), vec![ACTIVATED]),
        ("a new desk, with a wrong token", new_desk.clone(), vec![ACTIVATED, ("Authorization", "Bearer guess")]),
        ("a new desk, with `Bearer` and no token", new_desk.clone(), vec![ACTIVATED, ("Authorization", "Bearer")]),
        ("a new desk, with the token under the Basic scheme", new_desk.clone(), vec![ACTIVATED, ("Authorization", "Basic YWxpY2UtdG9rZW4=")]),
        ("a new desk, without activation", new_desk.clone(), vec![AS_ALICE]),
        ("a new desk, activating a near-miss URI", new_desk.clone(), vec![("A2A-Extensions", wrong_uri.as_str()), AS_ALICE]),
        ("a new desk, forging taughtBy", new_desk_by("bob@example.com"), vec![ACTIVATED, AS_ALICE]),
        ("a new desk, from the service account as itself", new_desk_by("deploy-bot@example.com"), vec![ACTIVATED, AS_BOT]),
        ("a new desk, from the service account claiming alice", new_desk.clone(), vec![ACTIVATED, AS_BOT]),
        ("a new entry, without a token", new_entry.clone(), vec![ACTIVATED]),
        ("a new entry, without activation", new_entry.clone(), vec![AS_ALICE]),
        ("a new clearance limit, with neither", new_limit.clone(), vec![]),
        ("a new clearance limit, with a wrong token", new_limit.clone(), vec![ACTIVATED, ("Authorization", "Bearer ALICE-TOKEN")]),
        ("a desk that is not a choice, as alice", lesson_with("/value/desk", json!("nowhere")), vec![ACTIVATED, AS_ALICE]),
    ];
    for (name, lesson, list) in notifications {
        table.add(
            &format!("a notification teaching {name}"),
            post_with(notification(TEACH, lesson), &list),
            Expect::Unanswered,
        );
    }
    table.add(
        "a notification replaying the known lesson as alice (nothing new to learn)",
        post(notification(TEACH, known.clone())),
        Expect::Unanswered,
    );
    table.add(
        "a show-back notification",
        post(notification(SHOW_BACK, show_params())),
        Expect::Unanswered,
    );
    table.add(
        "a notification with params of the wrong type is answered (it is not a request)",
        post(body(
            &json!({"jsonrpc": "2.0", "method": TEACH, "params": "85"}),
        )),
        invalid_request("`params` must be an object or an array"),
    );
    table.add(
        "an id of null is a request, answered",
        post(body(
            &json!({"jsonrpc": "2.0", "id": null, "method": SHOW_BACK, "params": show_params()}),
        )),
        shows_85(),
    );
}

/// Replays: nothing learned, no new version.
fn replays(table: &mut Table, known: &Value, version_id: &str) {
    table.add(
        "the known lesson again",
        teach(known.clone()),
        nothing_learned(version_id),
    );
    table.add(
        "the known lesson with the chapter as a number",
        teach(lesson_with("/value/chapter", json!(85))),
        nothing_learned(version_id),
    );
    table.add(
        "the known lesson with an explicit null note",
        teach(lesson_with(
            "/value",
            json!({"desk": "cold chain", "note": null, "chapter": "85"}),
        )),
        nothing_learned(version_id),
    );
    table.add(
        "the known lesson with a reason",
        teach(lesson_plus("reason", json!("again, to be sure"))),
        nothing_learned(version_id),
    );
    table.add(
        "the known lesson, reordered and spaced out",
        post(format!(
            "\n {{ \"params\" : {{ \"taughtBy\" : \"alice@example.com\", \"value\" : {{ \"desk\" : \
             \"cold chain\", \"chapter\" : \"85\" }}, \"entry\" : \"85\", \"collection\" : \
             \"routing_rules\" }}, \"method\" : \"{TEACH}\", \"id\" : \"replay\", \"jsonrpc\" : \
             \"2.0\" }} \n"
        )),
        nothing_learned(version_id),
    );
}

/// Sends a case's request and says what is wrong with the reply, if
/// anything; `known` is what the agent knew before (see [`known_now`]).
fn check(agent: &Agent, case: &Case, known: &Value) -> Result<(), String> {
    let reply: Reply = match &case.request {
        Request::Post(body, headers) => {
            let list: Vec<(&str, &str)> = headers
                .iter()
                .map(|(name, value)| (*name, value.as_str()))
                .collect();
            agent.post(body.clone(), &list)
        }
        Request::Raw(bytes) => agent.raw(bytes),
    };
    let got = || format!("got HTTP {}: {}", reply.status, reply.body);
    match &case.expect {
        Expect::Error {
            status,
            code,
            field,
            says,
        } => {
            let error = &reply.body["error"];
            if reply.status != *status
                || error["code"] != *code
                || reply.field() != field.as_deref()
                || !reply.message().contains(says.as_str())
            {
                return Err(format!(
                    "expected HTTP {status}, code {code}, field {field:?}, a message with \
                     {says:?}; {}",
                    got()
                ));
            }
            if reply.body["jsonrpc"] != "2.0"
                || !(reply.body["id"] == 7 || reply.body["id"].is_null())
                || !is_json(&reply)
            {
                return Err(format!("not a JSON-RPC 2.0 response; {}", got()));
            }
            // Refused before its body was read to the end, the connection
            // cannot carry another request, and the client is told.
            if matches!(status, 400 | 413) && !reply.header("connection").any(|v| v == "close") {
                return Err(format!("no `Connection: close`; {:?}", reply.headers));
            }
            // Whatever was sent, the refusal repeats little of it.
            if reply.message().chars().count() > 400 {
                return Err(format!("a message of {} characters", reply.message().len()));
            }
            Ok(())
        }
        Expect::Answer(accept) => {
            if reply.status != 200 || reply.body.get("error").is_some() {
                return Err(format!("expected a result; {}", got()));
            }
            accept(&reply.body["result"]).map_err(|why| format!("{why}; {}", got()))
        }
        Expect::Host { code, says } => {
            if reply.status != 200
                || reply.body["jsonrpc"] != "2.0"
                || !is_json(&reply)
                || reply.body["error"]["code"] != *code
                || !reply.message().contains(says.as_str())
            {
                return Err(format!(
                    "expected the SDK's error {code} with {says:?}; {}",
                    got()
                ));
            }
            Ok(())
        }
        Expect::Status(status) => {
            if reply.status != *status || !reply.body.is_null() || is_json(&reply) {
                return Err(format!("expected HTTP {status} and no JSON; {}", got()));
            }
            Ok(())
        }
        Expect::Unanswered => {
            if reply.status != 204 || !reply.body.is_null() || is_json(&reply) {
                return Err(format!("expected HTTP 204 and no body; {}", got()));
            }
            let now = known_now(agent);
            if now != *known {
                return Err(format!("the knowledge changed: {now}"));
            }
            Ok(())
        }
    }
}

/// Whether a reply says its body is JSON.
fn is_json(reply: &Reply) -> bool {
    reply
        .header("content-type")
        .any(|value| value.contains("json"))
}

/// What the agent knows, shown back over HTTP: the entries the catalogue
/// aims at (86 unknown), each show-back with its collection's version
/// count (`collectionVersion`), or the refusal.
fn known_now(agent: &Agent) -> Value {
    let entries = [
        ("routing_rules", "85"),
        ("routing_rules", "86"),
        ("clearance_limits", "broker-17"),
    ];
    entries
        .iter()
        .map(|(collection, entry)| {
            agent
                .call(SHOW_BACK, json!({"collection": collection, "entry": entry}))
                .body
        })
        .collect()
}

fn show(agent: &Agent, collection: &str, entry: &str) -> Value {
    agent
        .call(SHOW_BACK, json!({"collection": collection, "entry": entry}))
        .result()
        .clone()
}

/// The catalogue's size, and how many cases expect each kind of answer:
/// pinned, so that a case cannot be lost or silently change kind.
const CASES: usize = 177;
const KINDS: [(&str, usize); 11] = [
    ("HTTP 100 without a JSON-RPC body", 1),
    ("HTTP 400 without a JSON-RPC body", 4),
    ("HTTP 404 without a JSON-RPC body", 1),
    ("HTTP 405 without a JSON-RPC body", 4),
    ("HTTP 431 without a JSON-RPC body", 2),
    ("a JSON-RPC result, HTTP 200", 13),
    ("a learnables JSON-RPC error, HTTP 200", 114),
    ("a learnables JSON-RPC error, HTTP 400", 1),
    ("a learnables JSON-RPC error, HTTP 413", 4),
    ("a notification's HTTP 204, the knowledge unchanged", 16),
    ("the SDK's JSON-RPC error, HTTP 200", 17),
];

/// An agent on a fresh store taught the known lesson and a clearance
/// limit, and the known lesson's version id.
fn taught_agent(dir: &std::path::Path) -> (Agent, String) {
    let agent = Agent::start(dir);
    let taught = agent.call(TEACH, known_lesson());
    let version_id = taught.result()["versionId"].as_str().unwrap().to_owned();
    let proposed = agent.call(
        TEACH,
        json!({
            "collection": "clearance_limits", "entry": "broker-17",
            "value": {"amountEur": 25000}, "taughtBy": "alice@example.com"
        }),
    );
    // Clearance limits are reviewed: bob's approval makes the version.
    let approved = agent.call_with(
        learnables::REVIEW_METHOD,
        json!({
            "collection": "clearance_limits", "entry": "broker-17",
            "proposalId": proposed.result()["proposalId"], "decision": "approve",
            "reviewedBy": "bob@example.com"
        }),
        &[ACTIVATED, agent_harness::AS_BOB],
    );
    assert_eq!(approved.result()["learned"], true);
    (agent, version_id)
}

#[test]
fn every_hostile_request_gets_its_own_refusal_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (agent, version_id) = taught_agent(dir.path());
    let before = known_now(&agent);
    assert_eq!(before[1]["error"]["code"], codes::NOT_FOUND);

    let cases = catalogue(&version_id);
    let mut kinds = std::collections::BTreeMap::new();
    for case in &cases {
        *kinds.entry(case.expect.kind()).or_insert(0) += 1;
    }
    println!("{} hostile requests: {kinds:#?}", cases.len());
    assert_eq!(cases.len(), CASES, "a case was added or lost: update CASES");
    assert_eq!(
        kinds
            .iter()
            .map(|(kind, count)| (kind.as_str(), *count))
            .collect::<Vec<_>>(),
        KINDS,
        "a case changed its kind of answer: update KINDS"
    );
    let mut names = std::collections::HashSet::new();
    for case in &cases {
        assert!(names.insert(&case.name), "two cases named {:?}", case.name);
    }
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|case| {
            // A case that panics (no answer in time, say) is one failure
            // among the others, not the end of the catalogue.
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                check(&agent, case, &before)
            }))
            .unwrap_or_else(|panic| {
                Err(format!(
                    "no reply: {}",
                    panic
                        .downcast_ref::<String>()
                        .map_or("a panic", String::as_str)
                ))
            })
            .err()
            .map(|why| format!("{}: {why}", case.name))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );

    // The agent still answers, and knows exactly what it knew.
    let task = agent.route(85, None, &[ACTIVATED]);
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED");
    assert_eq!(known_now(&agent), before);
    agent.stop();
    let knowledge = Knowledge::open(dir.path()).unwrap();
    assert_eq!(knowledge.pin().position(), 2, "no other version was made");
}

#[test]
fn the_notification_check_sees_a_notification_that_teaches() {
    // The control: each new value the catalogue's notifications carry,
    // sent with everything a lesson needs, is carried out, and the check
    // those notifications pass reports the change; so their passing means
    // that nothing was learned.
    let dir = tempfile::tempdir().unwrap();
    let (agent, _) = taught_agent(dir.path());
    for (i, lesson) in [new_desk_by("alice@example.com"), new_entry(), new_limit()]
        .into_iter()
        .enumerate()
    {
        let before = known_now(&agent);
        let case = Case {
            name: format!("an authenticated, activated notification {i}"),
            request: post(body(
                &json!({"jsonrpc": "2.0", "method": TEACH, "params": lesson}),
            )),
            expect: Expect::Unanswered,
        };
        let why = check(&agent, &case, &before).expect_err("the change is seen");
        assert!(why.starts_with("the knowledge changed"), "{why}");
    }
    let shown = show(&agent, "routing_rules", "85");
    assert_eq!(shown["lessonFields"][1]["default"], "general");
    assert_eq!(shown["collectionVersion"], 3, "two routing lessons learned");
    assert_eq!(show(&agent, "routing_rules", "86")["entry"], "86");
    // Clearance limits are reviewed: the new limit waits as a proposal.
    let limit = show(&agent, "clearance_limits", "broker-17");
    assert_eq!(limit["collectionVersion"], 1);
    assert_eq!(
        limit["proposals"].as_array().map(Vec::len),
        Some(1),
        "{limit}"
    );
}

#[test]
fn a_lesson_names_the_teacher_as_authenticated_whatever_the_letter_case() {
    let dir = tempfile::tempdir().unwrap();
    let agent = Agent::start(dir.path());
    let lesson = lesson_with("/taughtBy", json!("Alice@Example.COM"));
    assert_eq!(agent.call(TEACH, lesson).result()["learned"], true);
    assert_eq!(
        show(&agent, "routing_rules", "85")["taughtBy"],
        "alice@example.com"
    );
}

/// Sends `bytes` one at a time, `pause` apart.
fn trickle(stream: &mut std::net::TcpStream, bytes: &[u8], pause: Duration) {
    for byte in bytes {
        stream.write_all(&[*byte]).unwrap();
        thread::sleep(pause);
    }
}

#[test]
fn slow_and_stalled_clients_do_not_hold_up_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let agent = Agent::start(dir.path());
    agent.call(TEACH, known_lesson()).result();

    // Clients that send their headers and part of a body, then stall.
    let lesson = body(&envelope(TEACH, lesson_with("/entry", json!("86"))));
    let head = format!(
        "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nA2A-Version: 1.0\r\nA2A-Extensions: {EXTENSION_URI}\r\n\
         Authorization: Bearer alice-token\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n",
        lesson.len()
    );
    let mut stalled = Vec::new();
    for _ in 0..16 {
        let mut stream = agent.connect();
        stream.write_all(head.as_bytes()).unwrap();
        stream.write_all(&lesson[..lesson.len() / 2]).unwrap();
        stalled.push(stream);
    }
    // Clients that stall in the middle of their headers.
    for _ in 0..16 {
        let mut stream = agent.connect();
        stream
            .write_all(b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            .unwrap();
        stalled.push(stream);
    }
    // A client that trickles a whole request, a byte every 4 ms.
    let request = [
        head.replace(
            &format!("Content-Length: {}", lesson.len()),
            &format!(
                "Content-Length: {}",
                body(&envelope(
                    SHOW_BACK,
                    json!({"collection": "routing_rules", "entry": "85"})
                ))
                .len()
            ),
        )
        .into_bytes(),
        body(&envelope(
            SHOW_BACK,
            json!({"collection": "routing_rules", "entry": "85"}),
        )),
    ]
    .concat();
    let mut slow = agent.connect();
    let trickler = thread::spawn(move || {
        trickle(&mut slow, &request, Duration::from_millis(4));
        read_reply(&mut slow)
    });

    // Meanwhile everyone else is answered promptly.
    let started = Instant::now();
    let mut answered = 0;
    while !trickler.is_finished() || answered < 20 {
        let asked = Instant::now();
        assert_eq!(show(&agent, "routing_rules", "85")["entry"], "85");
        assert!(
            asked.elapsed() < Duration::from_secs(2),
            "a request took {:?} while slow clients were connected",
            asked.elapsed()
        );
        answered += 1;
        thread::sleep(Duration::from_millis(20));
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the trickle never ended"
        );
    }
    let slow_reply = trickler.join().unwrap();
    assert_eq!(slow_reply.status, 200);
    assert_eq!(slow_reply.body["result"]["entry"], "85");

    // The stalled clients leave; their half-sent lesson was never taught.
    drop(stalled);
    let missing = agent.call(
        SHOW_BACK,
        json!({"collection": "routing_rules", "entry": "86"}),
    );
    assert_eq!(missing.code(), codes::NOT_FOUND);
    assert_eq!(agent.teach_rule(84, "general").result()["learned"], true);
}

#[test]
fn a_refused_oversized_body_does_not_break_the_clients_next_request() {
    // The refusal closes the connection, and says so: a client that keeps
    // connections alive must not try to send its next request on it.
    let dir = tempfile::tempdir().unwrap();
    let agent = Agent::start(dir.path());
    agent.call(TEACH, known_lesson()).result();
    for _ in 0..40 {
        let refused = agent.post(padded_show_back(LIMIT + 1), &[ACTIVATED, AS_ALICE]);
        assert_eq!(refused.status, 413);
        assert_eq!(show(&agent, "routing_rules", "85")["entry"], "85");
    }
}
