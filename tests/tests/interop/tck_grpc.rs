//! The official A2A TCK over gRPC (`--transports grpc`): its mandatory and
//! capabilities categories against the example agent on both bindings
//! (`customs_agent --grpc`, Learnables' gRPC layer over the SDK's
//! `GrpcHandler`) and against the same agent without Learnables on either.
//! The layer must change no outcome but the extension tests' (and the push
//! config tests registered without activation, which the example refuses
//! on purpose: `ActivatedPushConfigs`, as in `tck_comparison`). The TCK is
//! read where it is, as in `tck_comparison`.

use super::tck_comparison::{installed, outcomes_with};
use learnables_tests::support::agent::Agent;

#[test]
fn over_grpc_the_layer_changes_no_tck_outcome_but_the_extension_tests() {
    let Some((tck, python)) = installed() else {
        return;
    };
    let data = tempfile::tempdir().unwrap();
    let plain_data = tempfile::tempdir().unwrap();
    // The TCK's gRPC client reads the card's gRPC URL only with a scheme
    // (`grpc://`); without one it dials `None:80`.
    let card_url = |address| format!("grpc://{address}");
    let (example, _) = Agent::start_with_grpc(data.path(), true, card_url);
    let (plain, _) = Agent::start_with_grpc(plain_data.path(), false, card_url);
    let reports = tempfile::tempdir().unwrap();
    let options = ["--transports", "grpc"];
    let with_layer = outcomes_with(
        &tck,
        &python,
        &example.base_url,
        reports.path(),
        "example-grpc",
        &options,
    );
    let without = outcomes_with(
        &tck,
        &python,
        &plain.base_url,
        reports.path(),
        "plain-grpc",
        &options,
    );
    assert!(
        without.len() > 50,
        "the TCK ran only {} tests over gRPC against the plain agent",
        without.len()
    );
    let mut changed = Vec::new();
    let mut extension_tests = Vec::new();
    for (test, plain_outcome) in &without {
        let example_outcome = with_layer
            .get(test)
            .map_or("not run", |o| o.outcome.as_str());
        if example_outcome == plain_outcome.outcome {
            continue;
        }
        let change = format!("{test}: {} -> {example_outcome}", plain_outcome.outcome);
        if test.to_ascii_lowercase().contains("extension")
            || test.contains("test_push_notification_config_methods.py")
        {
            extension_tests.push(change);
        } else {
            changed.push(change);
        }
    }
    assert!(
        changed.is_empty(),
        "over gRPC the layer changed {} TCK outcomes:\n{}",
        changed.len(),
        changed.join("\n")
    );
    let passed = without
        .values()
        .filter(|outcome| outcome.outcome == "passed")
        .count();
    println!(
        "TCK over gRPC: {} tests ({passed} passed on the plain agent), the same outcome with \
         and without the layer but {} extension and push config tests ({})",
        without.len(),
        extension_tests.len(),
        extension_tests.join("; ")
    );
}
