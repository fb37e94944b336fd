//! The layer and `LearnablesService::call_with_headers` admit through one
//! path: each refusal (size, `A2A-Version`, activation, token, method) sent
//! over HTTP on 127.0.0.1 to the layer and handed to the service directly
//! gets the same code, reason and domain.

use axum::Router;
use axum::http::{HeaderMap, HeaderName, HeaderValue};
use learnables::a2a::json_rpc::Limits;
use learnables::a2a::{LearnablesLayer, LearnablesService, Principal, Tokens};
use learnables::{Declaration, EXTENSION_URI, Knowledge, TEACH_METHOD};
use learnables_tests::loopback;
use serde_json::{Value, json};

/// A request's headers, as names and values.
type Headers<'a> = Vec<(&'a str, &'a str)>;

fn service() -> LearnablesService {
    LearnablesService::new(
        Knowledge::in_memory(),
        Declaration::new().teach_method(TEACH_METHOD),
        Tokens::new().with("t0ken", Principal::human("alice@example.com")),
    )
    .with_limits(Limits {
        max_body_bytes: 1024,
        max_depth: 32,
    })
}

/// What a refusal says, less the words: code, reason and domain.
fn refusal(response: &Value) -> (Value, Value, Value) {
    let error = &response["error"];
    let info = error["data"]
        .as_array()
        .and_then(|details| details.iter().find(|detail| detail["reason"].is_string()))
        .cloned()
        .unwrap_or_default();
    (
        error["code"].clone(),
        info["reason"].clone(),
        info["domain"].clone(),
    )
}

#[test]
fn the_layer_and_the_service_refuse_the_same_things() {
    let runtime = loopback::runtime();
    let address = loopback::serve_on(
        &runtime,
        Router::new().layer(LearnablesLayer::new(service())),
    );
    // The crypto provider: run alone, no other test has installed it yet.
    learnables_examples::install_crypto_provider();
    let client = reqwest::blocking::Client::new();
    let teach = |params: Value| {
        json!({"jsonrpc": "2.0", "id": 1, "method": TEACH_METHOD, "params": params}).to_string()
    };
    let lesson = teach(
        json!({"collection": "c", "entry": "e", "value": {}, "taughtBy": "alice@example.com"}),
    );
    let full: &[(&str, &str)] = &[
        ("a2a-version", "1.0"),
        ("a2a-extensions", EXTENSION_URI),
        ("authorization", "Bearer t0ken"),
    ];
    let without = |name: &str| -> Vec<(&str, &str)> {
        full.iter()
            .copied()
            .filter(|(header, _)| *header != name)
            .collect()
    };
    let with = |name: &'static str, value: &'static str| -> Vec<(&str, &str)> {
        let mut headers = without(name);
        headers.push((name, value));
        headers
    };
    let too_large = teach(json!({"padding": "x".repeat(2000)}));
    let too_deep = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"{TEACH_METHOD}","params":{{"x":{}1{}}}}}"#,
        "[".repeat(40),
        "]".repeat(40)
    );
    let other_method = r#"{"jsonrpc":"2.0","id":1,"method":"rsaxb.learnables.Nothing"}"#.to_owned();
    let cases: Vec<(&str, String, Headers)> = vec![
        ("too large", too_large, full.to_vec()),
        ("no A2A-Version", lesson.clone(), without("a2a-version")),
        (
            "A2A-Version 0.3",
            lesson.clone(),
            with("a2a-version", "0.3"),
        ),
        ("not activated", lesson.clone(), without("a2a-extensions")),
        ("no token", lesson.clone(), without("authorization")),
        (
            "a wrong token",
            lesson.clone(),
            with("authorization", "Bearer nope"),
        ),
        ("too deep", too_deep, full.to_vec()),
        ("a method it does not serve", other_method, full.to_vec()),
    ];
    let service = service();
    for (case, body, headers) in cases {
        let mut map = HeaderMap::new();
        let mut request = client
            .post(format!("http://{address}/"))
            .header("content-type", "application/json")
            .body(body.clone());
        for (name, value) in &headers {
            request = request.header(*name, *value);
            map.append(
                HeaderName::from_static(name),
                HeaderValue::from_str(value).unwrap(),
            );
        }
        let over_http: Value = request.send().unwrap().json().unwrap_or_default();
        let direct = service
            .call_with_headers(&map, body.as_bytes())
            .unwrap_or_default();
        if case == "a method it does not serve" {
            // The layer hands a method it does not serve to the host (here
            // a router without routes: 404, no JSON); the service refuses
            // it as JSON-RPC does.
            assert_eq!(refusal(&direct).0, -32601, "{direct}");
            continue;
        }
        assert!(over_http["error"].is_object(), "{case}: {over_http}");
        assert_eq!(
            refusal(&over_http),
            refusal(&direct),
            "{case}: {over_http} / {direct}"
        );
        assert_eq!(refusal(&direct).2, EXTENSION_URI, "{case}: {direct}");
    }
}
