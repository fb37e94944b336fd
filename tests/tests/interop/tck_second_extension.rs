//! The official A2A TCK against the example's plain SDK agent
//! (`router_without_learnables`) with and without the layer of a second
//! extension, not Learnables (one method; `a2a_extensions`' layer): the
//! layer of an extension the TCK knows nothing of changes no outcome.
//! Needs what `tck_comparison` needs (the TCK's source and packages).

use a2a_extensions::{Call, Extension, ExtensionLayer, RpcError};
use learnables::Knowledge;
use learnables_examples::customs_agent;
use learnables_tests::support::agent::Agent;
use serde_json::{Value, json};

use super::tck_comparison::{installed, outcomes};

/// The plain agent for `base`, with the second extension's layer or not.
fn plain(base: &str, layered: bool) -> axum::Router {
    let knowledge = Knowledge::in_memory();
    customs_agent::register(&knowledge).unwrap();
    let router = customs_agent::router_without_learnables(knowledge, base);
    if !layered {
        return router;
    }
    let greeting = Extension::new("https://example.com/a2a/greeting/v1")
        .named("Greeting")
        .method("example.greeting.Greet");
    router.layer(ExtensionLayer::new(greeting, |call: Call| async move {
        Ok::<Value, RpcError>(json!({"greeting": format!("Hello, {}!", call.params["name"])}))
    }))
}

#[test]
fn a_second_extensions_layer_changes_no_tck_outcome() {
    let Some((tck, python)) = installed() else {
        return;
    };
    // The SDK's push sender builds its HTTP client with the router, before
    // the harness installs the crypto provider.
    learnables_examples::install_crypto_provider();
    let layered = Agent::start_router(|base| plain(base, true));
    let bare = Agent::start_router(|base| plain(base, false));
    let reports = tempfile::tempdir().unwrap();
    // One after the other: the TCK's push notification tests each start a
    // webhook on the same fixed port (8888), which two runs side by side
    // would contend for.
    let without = outcomes(&tck, &python, &bare.base_url, reports.path(), "bare");
    let with_layer = outcomes(&tck, &python, &layered.base_url, reports.path(), "layered");
    assert!(
        without.len() > 50,
        "the TCK ran only {} tests against the bare agent",
        without.len()
    );
    let changed: Vec<String> = without
        .iter()
        .filter_map(|(test, bare)| {
            let layered = with_layer
                .get(test)
                .map_or("not run", |o| o.outcome.as_str());
            (layered != bare.outcome).then(|| format!("{test}: {} -> {layered}", bare.outcome))
        })
        .chain(
            with_layer
                .keys()
                .filter(|test| !without.contains_key(*test))
                .map(|test| format!("{test}: run only with the layer")),
        )
        .collect();
    assert!(
        changed.is_empty(),
        "the second extension's layer changed {} TCK outcomes:\n{}",
        changed.len(),
        changed.join("\n")
    );
    println!(
        "TCK: {} tests, the same outcome with and without the second extension's layer",
        without.len()
    );
}
