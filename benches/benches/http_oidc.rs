//! A lesson over HTTP with a JWT checked against cached keys
//! (`a2a::oidc::OidcAuthenticator`), against the same lesson with the
//! token table (`Tokens`), in the same run: the customs agent's
//! `rsaxb.learnables.Teach` through the layer, 16 concurrent clients over
//! keep-alive connections, paired rounds (the two back to back, in
//! alternating order) and the median of their throughput ratios. The
//! provider is a discovery document and a JWKS served on 127.0.0.1 in the
//! same process (its keys fetched once, at start); the token is ES256.
//! Budget: JWT/table ≥ 0.9.
//!
//! `cargo bench -p learnables-benches --bench http_oidc`

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use a2a_server::HttpPushSender;
use axum::Router;
use axum::routing::get;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use learnables::Knowledge;
use learnables::a2a::oidc::OidcAuthenticator;
use learnables_examples::customs_agent::{self, BoundedTaskStore, Teacher};
use learnables_tests::loopback;
use serde_json::{Value, json};
use tokio::runtime::Runtime;

const CLIENTS: u64 = 16;
const EMAIL: &str = "alice@example.com";
const AUDIENCE: &str = "urn:learnables:bench";
const DESKS: [&str; 3] = ["general", "dangerous-goods", "cold chain"];

/// The teach body of the `n`th request, as `http_teach` sends it.
fn teach_body(n: u64) -> String {
    let count = learnables_examples::Chapter::COUNT as u64;
    let chapter = learnables_examples::Chapter::nth((n % count) as usize);
    let desk = DESKS[((n / count) % 3) as usize];
    json!({"jsonrpc": "2.0", "id": n, "method": "rsaxb.learnables.Teach",
        "params": {"collection": "routing_rules", "entry": chapter.to_string(),
            "value": {"chapter": chapter.to_string(), "desk": desk}, "taughtBy": EMAIL}})
    .to_string()
}

#[derive(Clone)]
struct Target {
    url: String,
    token: String,
    next: Arc<AtomicU64>,
}

impl Target {
    fn new(address: SocketAddr, token: &str) -> Target {
        Target {
            url: format!("http://{address}/"),
            token: token.to_owned(),
            next: Arc::new(AtomicU64::new(0)),
        }
    }

    async fn send(&self, client: &reqwest::Client) -> Value {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let response = client
            .post(&self.url)
            .header("A2A-Version", "1.0")
            .header(learnables::ACTIVATION_HEADER, learnables::EXTENSION_URI)
            .header("Authorization", format!("Bearer {}", self.token))
            .header("Content-Type", "application/json")
            .body(teach_body(n))
            .send()
            .await
            .expect("a response");
        response.json().await.expect("a JSON answer")
    }

    fn load(&self, runtime: &Runtime, client: &reqwest::Client, iters: u64) -> Duration {
        learnables_tests::load::spread(runtime, CLIENTS, iters, |count| {
            let target = self.clone();
            let client = client.clone();
            async move {
                for _ in 0..count {
                    std::hint::black_box(target.send(&client).await);
                }
            }
        })
    }
}

/// A provider of one ES256 key on 127.0.0.1, and a token it signed for
/// alice: its issuer and the token.
fn provider(runtime: &Runtime) -> (String, String) {
    let pair = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).expect("a key");
    let key = jsonwebtoken::EncodingKey::from_ec_der(&pair.serialize_der());
    let mut jwk = jsonwebtoken::jwk::Jwk::from_encoding_key(&key, jsonwebtoken::Algorithm::ES256)
        .expect("the key's JWK");
    jwk.common.key_id = Some("bench".into());
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .expect("a free port");
    let issuer = format!("http://{}", listener.local_addr().expect("an address"));
    let discovery = json!({"issuer": issuer, "jwks_uri": format!("{issuer}/jwks")});
    let keys = json!({"keys": [jwk]});
    let router = Router::new()
        .route(
            "/.well-known/openid-configuration",
            get(move || async move { axum::Json(discovery) }),
        )
        .route("/jwks", get(move || async move { axum::Json(keys) }));
    runtime.spawn(async move { axum::serve(listener, router).await });
    let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::ES256);
    header.kid = Some("bench".into());
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_secs();
    let claims = json!({"iss": issuer, "aud": AUDIENCE, "sub": "alice", "client_id": "cli",
        "exp": now + 3_600, "iat": now, "email": EMAIL, "email_verified": true});
    let token = jsonwebtoken::encode(&header, &claims, &key).expect("a token");
    (issuer, token)
}

fn http_oidc(c: &mut Criterion) {
    learnables_examples::install_crypto_provider();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let _entered = runtime.enter();
    let (issuer, token) = provider(&runtime);
    let authenticator = runtime
        .block_on(
            OidcAuthenticator::builder(&issuer, AUDIENCE)
                .allow_loopback_http()
                .discover(),
        )
        .expect("the provider is discovered");

    let table_knowledge = Knowledge::in_memory();
    let teachers = [Teacher {
        email: EMAIL.to_owned(),
        token: "bench-token".to_owned(),
    }];
    let table = customs_agent::router(table_knowledge, &teachers, "http://127.0.0.1/")
        .expect("the table agent");
    let card = customs_agent::openid_card(
        customs_agent::agent_card("http://127.0.0.1/"),
        &authenticator.discovery_url(),
    );
    let jwt = customs_agent::router_signed_in(
        Knowledge::in_memory(),
        authenticator,
        card,
        "http://127.0.0.1/",
        BoundedTaskStore::default(),
        HttpPushSender::new(None),
    )
    .expect("the OIDC agent");
    let table = Target::new(loopback::serve_on(&runtime, table), "bench-token");
    let jwt = Target::new(loopback::serve_on(&runtime, jwt), &token);
    let client = learnables_tests::load::client(CLIENTS as usize);

    runtime.block_on(async {
        for target in [&table, &jwt] {
            let answer = target.send(&client).await;
            assert_eq!(answer["result"]["learned"], true, "{answer}");
        }
    });

    let mut group = c.benchmark_group("http_oidc");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(2))
        .measurement_time(Duration::from_secs(5))
        .throughput(Throughput::Elements(1));
    group.bench_function("jwt", |b| {
        b.iter_custom(|iters| jwt.load(&runtime, &client, iters));
    });
    group.bench_function("table", |b| {
        b.iter_custom(|iters| table.load(&runtime, &client, iters));
    });
    group.finish();

    let testing = std::env::args().any(|arg| arg == "--test");
    let (rounds, round_trips) = if testing { (1, 100) } else { (10, 20_000) };
    let mut ratios: Vec<f64> = (0..rounds)
        .map(|round| {
            let (jwt_time, table_time) = if round % 2 == 0 {
                let jwt_time = jwt.load(&runtime, &client, round_trips);
                (jwt_time, table.load(&runtime, &client, round_trips))
            } else {
                let table_time = table.load(&runtime, &client, round_trips);
                (jwt.load(&runtime, &client, round_trips), table_time)
            };
            table_time.as_secs_f64() / jwt_time.as_secs_f64()
        })
        .collect();
    ratios.sort_by(f64::total_cmp);
    let median = (ratios[(rounds - 1) / 2] + ratios[rounds / 2]) / 2.0;
    println!(
        "jwt/table throughput over {rounds} paired rounds of {round_trips} round trips each: \
         median {median:.2}, range {:.2}-{:.2}",
        ratios[0],
        ratios[rounds - 1]
    );
}

criterion_group!(benches, http_oidc);
criterion_main!(benches);
