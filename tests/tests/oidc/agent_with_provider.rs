//! The example agent with its teachers authenticated by a real OpenID
//! provider, over HTTP on 127.0.0.1: alice and bob sign in (the device
//! code approved in Chromium), alice proposes a clearance limit, her own
//! second session cannot approve it and bob's approval makes the version;
//! a client's own token reads but cannot teach; an expired token, a token
//! for another audience, one signed by a key the provider does not
//! publish, and one whose e-mail is unverified are refused, each naming
//! its check; tokens signed with the provider's rotated keys (ES256, then
//! EdDSA) are accepted.

use std::time::Duration;

use a2a_server::HttpPushSender;
use learnables::a2a::json_rpc::codes;
use learnables::a2a::oidc::OidcAuthenticator;
use learnables_examples::customs_agent::{
    BoundedTaskStore, agent_card, openid_card, router_signed_in,
};
use learnables_tests::support::agent::{ACTIVATED, Agent, Reply};
use learnables_tests::support::browser::{Browser, browser_available, runtime};
use learnables_tests::support::oidc::{AUDIENCE, OTHER_AUDIENCE, Provider, provider_available};
use serde_json::{Value, json};

const REVIEW: &str = "rsaxb.learnables.Review";
const TEACH: &str = "rsaxb.learnables.Teach";
const SHOW_BACK: &str = "rsaxb.learnables.ShowBack";

/// The example agent over `knowledge`, its teachers the provider's.
fn agent_of(provider: &Provider) -> Agent {
    let issuer = provider.issuer.clone();
    Agent::start_router(move |base_url| {
        // The agent's own runtime (multi-threaded) fetches the provider's
        // keys, as the example's `main` does before it serves.
        let authenticator = tokio::task::block_in_place(|| {
            tokio::runtime::Handle::current().block_on(
                OidcAuthenticator::builder(&issuer, AUDIENCE)
                    .allow_loopback_http()
                    // Expired means expired: the provider's "stale" tokens
                    // live one second.
                    .leeway(Duration::ZERO)
                    // The rotation below is followed at once.
                    .refresh_at_most_every(Duration::ZERO)
                    .discover(),
            )
        })
        .expect("the provider is discovered");
        let card = openid_card(agent_card(base_url), &authenticator.discovery_url());
        let knowledge = learnables::Knowledge::in_memory();
        router_signed_in(
            knowledge,
            authenticator,
            card,
            base_url,
            BoundedTaskStore::default(),
            HttpPushSender::new(None),
        )
        .expect("the agent's router")
    })
}

fn bearer(token: &str) -> String {
    format!("Bearer {token}")
}

fn call(agent: &Agent, method: &str, params: Value, token: &str) -> Reply {
    let authorization = bearer(token);
    agent.call_with(
        method,
        params,
        &[ACTIVATED, ("Authorization", &authorization)],
    )
}

fn propose(agent: &Agent, euros: u32, token: &str, email: &str) -> Reply {
    let lesson = json!({"collection": "clearance_limits", "entry": "broker-17",
        "value": {"amountEur": euros.to_string()}, "taughtBy": email,
        "reason": format!("the ministry's letter sets {euros}")});
    call(agent, TEACH, lesson, token)
}

fn decide(agent: &Agent, id: &str, token: &str, email: &str) -> Reply {
    let params = json!({"collection": "clearance_limits", "entry": "broker-17", "proposalId": id,
        "decision": "approve", "reviewedBy": email, "reason": format!("{email} checked it")});
    call(agent, REVIEW, params, token)
}

fn show_back(agent: &Agent, token: &str) -> Reply {
    let params = json!({"collection": "clearance_limits", "entry": "broker-17"});
    call(agent, SHOW_BACK, params, token)
}

/// A token with the right issuer and audience, signed by a key of the
/// test's own that the provider never published.
fn token_of_an_unknown_key(issuer: &str) -> String {
    let pair = rcgen::KeyPair::generate_for(&rcgen::PKCS_ED25519).expect("a key");
    let key = jsonwebtoken::EncodingKey::from_ed_der(&pair.serialize_der());
    let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::EdDSA);
    header.kid = Some("not-published".into());
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let claims = json!({"iss": issuer, "aud": AUDIENCE, "sub": "alice", "exp": now + 600,
        "iat": now, "email": "alice@example.com", "email_verified": true});
    jsonwebtoken::encode(&header, &claims, &key).expect("a token")
}

/// Signs `person` in through the device flow, in a browser of their own
/// (so that no one's session at the provider is another's).
async fn signed_in(provider: &Provider, person: &str) -> String {
    let browser = Browser::start(900, 900).await;
    let tokens = provider.sign_in(&browser, person).await;
    browser.close().await;
    tokens.access_token
}

#[test]
fn people_of_a_real_provider_teach_and_approve_and_every_other_token_is_refused_with_its_reason() {
    let test = "people_of_a_real_provider_teach_and_approve";
    if !provider_available(test) || !browser_available(test) {
        return;
    }
    let provider = Provider::start();
    let agent = agent_of(&provider);

    // The card names the provider's discovery document.
    let card = agent.card();
    assert_eq!(
        card["securitySchemes"]["teacher"]["openIdConnectSecurityScheme"]["openIdConnectUrl"],
        format!("{}/.well-known/openid-configuration", provider.issuer),
        "{card}"
    );

    // `learnables card` finds the provider on it, and lints it clean.
    let linted = std::process::Command::new(env!("CARGO_BIN_EXE_learnables_command"))
        .args(["card", &agent.base_url, "--json"])
        .output()
        .expect("the command runs");
    let report: Value = serde_json::from_slice(&linted.stdout).expect("a JSON report");
    assert!(linted.status.success(), "{report}");
    assert_eq!(
        report["signIn"],
        json!({"openIdConnect": [format!("{}/.well-known/openid-configuration", provider.issuer)],
            "problems": []}),
        "{report}"
    );

    let (alice, alice_again, bob, carol, reporting, stale, other) = runtime().block_on(async {
        (
            signed_in(&provider, "alice").await,
            signed_in(&provider, "alice").await,
            signed_in(&provider, "bob").await,
            signed_in(&provider, "carol").await,
            provider
                .client_token("reporting", "reporting-secret", None)
                .await,
            provider.client_token("stale", "stale-secret", None).await,
            provider
                .client_token("reporting", "reporting-secret", Some(OTHER_AUDIENCE))
                .await,
        )
    });
    assert_ne!(
        alice, alice_again,
        "a second session has a token of its own"
    );

    // Alice proposes; her second session (a new token, the same `sub`)
    // cannot approve her own proposal; bob's approval makes the version.
    let proposed = propose(&agent, 30_000, &alice, "alice@example.com");
    assert_eq!(proposed.result()["learned"], false, "{}", proposed.result());
    let id = proposed.result()["proposalId"]
        .as_str()
        .expect("a proposal")
        .to_owned();
    let own = decide(&agent, &id, &alice_again, "alice@example.com");
    assert_eq!(own.code(), codes::FORBIDDEN, "{}", own.message());
    assert_eq!(own.reason(), Some("SELF_APPROVAL"), "{}", own.message());
    let approved = decide(&agent, &id, &bob, "bob@example.com");
    assert_eq!(approved.result()["learned"], true, "{}", approved.result());
    let shown = show_back(&agent, &bob);
    assert_eq!(shown.result()["taughtBy"], "alice@example.com");
    assert_eq!(
        shown.result()["describes"],
        "broker-17 may now clear up to EUR 30000 alone"
    );

    // A client's own token reads, and cannot teach.
    let read = show_back(&agent, &reporting);
    assert_eq!(read.result()["taughtBy"], "alice@example.com");
    let taught = propose(&agent, 1, &reporting, "reporting");
    assert_eq!(taught.code(), codes::FORBIDDEN, "{}", taught.message());
    assert!(
        taught.message().contains("service account"),
        "{}",
        taught.message()
    );

    // Each refused token names the check it failed.
    let refused = |token: &str, reason: &str| {
        let reply = show_back(&agent, token);
        assert_eq!(reply.code(), codes::UNAUTHENTICATED, "{}", reply.message());
        assert!(
            reply.message().contains(reason),
            "{reason:?} not in {:?}",
            reply.message()
        );
        assert!(!reply.message().contains(token));
    };
    refused(&other, "another audience");
    refused(&token_of_an_unknown_key(&provider.issuer), "unknown key");
    refused(&carol, "no verified e-mail");
    // The stale client's tokens live one second.
    std::thread::sleep(Duration::from_millis(2_100));
    refused(&stale, "expired");

    // The provider rotates its key: the next tokens name a key the agent
    // has not fetched yet, and are accepted.
    for algorithm in ["ES256", "EdDSA"] {
        let token = runtime().block_on(async {
            let kid = provider.rotate(algorithm).await;
            let token = provider
                .client_token("reporting", "reporting-secret", None)
                .await;
            let header = jsonwebtoken::decode_header(&token).unwrap();
            assert_eq!(header.kid.as_deref(), Some(kid.as_str()));
            token
        });
        let read = show_back(&agent, &token);
        assert_eq!(
            read.result()["taughtBy"],
            "alice@example.com",
            "{algorithm}"
        );
    }
    agent.stop();
}
