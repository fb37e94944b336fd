//! The command against agents that misbehave on the wire: redirects to
//! other origins, TLS with an authority of the test's own, bodies past
//! their bound, answers that never end, and a card whose teachMethod is
//! an A2A core method. Each agent is a scripted stub on 127.0.0.1.

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use common::run;
use common::stub::{Body, Reply, Request, Stub, self_signed_localhost, teach_rules};
use learnables::{EXTENSION_URI, SHOW_BACK_METHOD, TEACH_METHOD};
use serde_json::{Value, json};

/// A card that follows the spec, with one learnable, `rules`.
fn card_with(teach_method: &str) -> Value {
    json!({
        "name": "Stub agent",
        "skills": [{"id": "route", "name": "Route"}],
        "capabilities": {"extensions": [{"uri": EXTENSION_URI, "required": false, "params": {
            "teachMethod": teach_method,
            "learnables": [{
                "collection": "rules", "entry": "rule", "teaches": "Which desk handles it",
                "how": "A table kept by the customs team", "decidedBy": "rules",
                "lessonFields": [
                    {"name": "desk", "label": "Desk", "kind": "choice",
                     "choices": ["general", "cold chain"]},
                    {"name": "note", "label": "Note", "kind": "text"}
                ]
            }]
        }}]}
    })
}

fn card() -> Value {
    card_with(TEACH_METHOD)
}

fn lesson_result() -> Value {
    json!({"learned": true, "describes": "Rule taught", "definitionVersion": 1,
           "versionId": "v1"})
}

/// An agent with `card`, answering every call with `call`.
fn agent(card: Value, call: impl Fn(&Request) -> Reply + Send + Sync + 'static) -> Stub {
    Stub::start(move |request| {
        if request.is_card() {
            Reply::json(&card)
        } else {
            call(request)
        }
    })
}

fn teach_args(url: &str) -> Vec<String> {
    teach_rules(url, "tok", &["--set", "desk=general", "--set", "note="])
}

fn show_args(url: &str) -> Vec<String> {
    ["show", url, "-c", "rules", "-e", "r1", "--token", "tok"]
        .map(str::to_owned)
        .to_vec()
}

fn strs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

fn posts(stub: &Stub) -> Vec<Request> {
    stub.requests()
        .into_iter()
        .filter(|request| request.method == "POST")
        .collect()
}

#[test]
fn a_lesson_redirected_to_another_origin_is_not_followed() {
    let elsewhere = Stub::start(|_| Reply::result(lesson_result()));
    let target = elsewhere.url.clone();
    let agent = agent(card(), move |_| Reply::redirect(307, &target));
    let err = run(&strs(&teach_args(&agent.url))).failed_with(4);
    assert!(
        err.contains(&format!(
            "answered `{TEACH_METHOD}` with a redirect to {} (HTTP 307 Temporary Redirect)",
            elsewhere.url
        )),
        "{err}"
    );
    assert!(err.contains("follows no redirect for the lesson"), "{err}");
    assert!(
        elsewhere.requests().is_empty(),
        "the lesson reached the other server: {:?}",
        elsewhere.requests()
    );
    assert_eq!(posts(&agent).len(), 1);
}

#[test]
fn a_show_back_follows_no_redirect_even_within_its_origin() {
    let agent = agent(card(), |request| {
        if request.path == "/" {
            Reply::redirect(308, "/moved")
        } else {
            Reply::result(json!({}))
        }
    });
    let err = run(&strs(&show_args(&agent.url))).failed_with(4);
    assert!(
        err.contains(&format!(
            "answered `{SHOW_BACK_METHOD}` with a redirect to {}moved (HTTP 308",
            agent.url
        )),
        "{err}"
    );
    let posts = posts(&agent);
    assert_eq!(posts.len(), 1, "{posts:?}");
    assert_eq!(posts[0].path, "/");
}

#[test]
fn a_card_redirected_to_another_origin_is_refused_naming_the_target() {
    let elsewhere = Stub::start(|_| Reply::json(&card()));
    let target = format!("{}.well-known/agent-card.json", elsewhere.url);
    let agent = {
        let target = target.clone();
        Stub::start(move |_| Reply::redirect(302, &target))
    };
    let err = run(&["card", &agent.url]).failed_with(4);
    assert!(
        err.contains(&format!(
            "redirects to {target} (HTTP 302 Found), another origin"
        )),
        "{err}"
    );
    assert!(elsewhere.requests().is_empty());
    // The same for the commands that go on to teach: nothing is sent.
    let err = run(&strs(&teach_args(&agent.url))).failed_with(4);
    assert!(err.contains("another origin"), "{err}");
    assert!(elsewhere.requests().is_empty());
    assert!(posts(&agent).is_empty());
}

#[test]
fn a_redirect_target_is_named_escaped() {
    let agent = Stub::start(|_| Reply::redirect(302, "http://127.0.0.2:9/\u{202e}gpj.exe"));
    let err = run(&["card", &agent.url]).failed_with(4);
    assert!(
        err.contains("redirects to http://127.0.0.2:9/%E2%80%AEgpj.exe (HTTP 302 Found)"),
        "{err}"
    );
    assert!(!err.contains('\u{202e}'), "{err}");
}

#[test]
fn a_card_may_be_redirected_within_its_origin_a_few_times() {
    let agent = Stub::start(|request| match request.path.as_str() {
        "/.well-known/agent-card.json" => Reply::redirect(302, "/cards/1"),
        "/cards/1" => Reply::redirect(301, "/cards/2"),
        "/cards/2" => Reply::json(&card()),
        _ => Reply::redirect(302, "/loop"),
    });
    let out = run(&["card", &agent.url]).ok();
    assert!(
        out.starts_with("Stub agent can be taught 1 collection."),
        "{out}"
    );
    let looping = Stub::start(|request| Reply::redirect(302, &format!("{}x", request.path)));
    let err = run(&["card", &looping.url]).failed_with(4);
    assert!(err.contains("more than 5 redirects"), "{err}");
    assert_eq!(looping.requests().len(), 6);
}

#[test]
fn https_works_with_the_agents_authority_and_fails_clearly_without_it() {
    let (tls, pem) = self_signed_localhost();
    let agent = Stub::start_tls(Arc::clone(&tls), |request| {
        if request.is_card() {
            Reply::json(&card())
        } else {
            Reply::result(lesson_result())
        }
    });
    assert!(agent.url.starts_with("https://localhost:"));
    let dir = tempfile::tempdir().unwrap();
    let ca = dir.path().join("ca.pem");
    std::fs::write(&ca, &pem).unwrap();
    let ca = ca.to_str().unwrap();

    let out = run(&["card", &agent.url, "--ca-cert", ca]).ok();
    assert!(out.contains("Lint: ok"), "{out}");
    let out = run(&[&strs(&teach_args(&agent.url))[..], &["--ca-cert", ca]].concat()).ok();
    assert!(out.starts_with("Learned: Rule taught\n"), "{out}");
    let lesson = posts(&agent);
    assert_eq!(lesson.len(), 1);
    assert!(
        lesson[0]
            .headers
            .contains(&("authorization".into(), "Bearer tok".into()))
    );

    let before = agent.requests().len();
    let err = run(&["card", &agent.url]).failed_with(3);
    assert!(
        err.contains("has a TLS certificate this machine does not trust"),
        "{err}"
    );
    assert!(err.contains("--ca-cert FILE"), "{err}");
    let err = run(&strs(&teach_args(&agent.url))).failed_with(3);
    assert!(err.contains("does not trust"), "{err}");
    assert_eq!(
        agent.requests().len(),
        before,
        "nothing read past a refused handshake"
    );

    let not_pem = dir.path().join("not.pem");
    std::fs::write(&not_pem, "just text").unwrap();
    let err = run(&["card", &agent.url, "--ca-cert", not_pem.to_str().unwrap()]).failed_with(2);
    assert!(err.contains("holds no certificate"), "{err}");
}

#[test]
fn a_card_past_its_bound_is_refused_while_streaming() {
    // An endless body: the command can only finish by stopping at the bound.
    let endless = Stub::start(|_| Reply::streamed(Body::Endless));
    let err = run(&["card", &endless.url]).failed_with(4);
    assert!(err.contains("the agent card from"), "{err}");
    assert!(
        err.contains("is larger than 4 MiB: learnables reads no more"),
        "{err}"
    );
    // An announced length past the bound is refused before reading.
    let big = Stub::start(|_| Reply::streamed(Body::Bytes(vec![b' '; 4 * 1024 * 1024 + 1])));
    let err = run(&["card", &big.url]).failed_with(4);
    assert!(err.contains("is larger than 4 MiB"), "{err}");
    // A file, too.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("card.json");
    std::fs::write(&file, vec![b' '; 4 * 1024 * 1024 + 1]).unwrap();
    let err = run(&["check", file.to_str().unwrap()]).failed_with(2);
    assert!(err.contains("is larger than 4 MiB"), "{err}");
}

#[test]
fn an_answer_past_its_bound_is_refused_while_streaming() {
    let agent = agent(card(), |_| Reply::streamed(Body::Endless));
    let err = run(&strs(&teach_args(&agent.url))).failed_with(4);
    assert!(
        err.contains("its answer from") && err.contains("is larger than 1 MiB"),
        "{err}"
    );
    let err = run(&strs(&show_args(&agent.url))).failed_with(4);
    assert!(err.contains("is larger than 1 MiB"), "{err}");
}

#[test]
fn an_agent_that_never_finishes_is_cut_off_by_the_timeout() {
    let dripping = Stub::start(|_| Reply::streamed(Body::Drip(Duration::from_millis(200))));
    let err = run(&["card", &dripping.url, "--timeout", "2"]).failed_with(3);
    assert!(err.contains("in time"), "{err}");
    let silent = agent(card(), |_| {
        std::thread::sleep(Duration::from_secs(8));
        Reply::result(lesson_result())
    });
    let err =
        run(&[&strs(&teach_args(&silent.url))[..], &["--timeout", "2"]].concat()).failed_with(3);
    assert!(err.contains("did not answer in time"), "{err}");
}

/// The lint flags a teachMethod equal to an A2A core method (`SendMessage`,
/// ...): the command refuses whatever the lint reports at `teachMethod`.
#[test]
fn a_core_a2a_method_as_teach_method_stops_teach_and_show_before_sending() {
    let agent = agent(card_with("SendMessage"), |_| Reply::result(lesson_result()));
    let err = run(&strs(&teach_args(&agent.url))).failed();
    assert!(
        err.contains("declares a teachMethod the Learnables spec refuses"),
        "{err}"
    );
    assert!(err.contains("teachMethod"), "{err}");
    let err = run(&strs(&show_args(&agent.url))).failed();
    assert!(
        err.contains("declares a teachMethod the Learnables spec refuses"),
        "{err}"
    );
    assert!(posts(&agent).is_empty(), "{:?}", posts(&agent));
}

/// Every call says which A2A version it speaks (a request without
/// `A2A-Version` counts as 0.3 to an A2A v1.0 server), with activation.
#[test]
fn every_call_carries_the_a2a_version_and_the_activation() {
    let agent = agent(card(), |_| Reply::result(lesson_result()));
    run(&strs(&teach_args(&agent.url))).ok();
    let calls = posts(&agent);
    assert_eq!(calls.len(), 1, "{calls:?}");
    let header = |name: &str| {
        calls[0]
            .headers
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.clone())
    };
    assert_eq!(header("a2a-version").as_deref(), Some("1.0"));
    assert_eq!(
        header("a2a-extensions").as_deref(),
        Some(learnables::EXTENSION_URI)
    );
}
