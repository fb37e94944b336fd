//! Bytes -> a JSON-RPC request -> the learnables methods.
#![no_main]

use std::sync::OnceLock;

use learnables::a2a::json_rpc::{self, Limits};
use learnables::a2a::{Activation, LearnablesService, Principal, Tokens};
use learnables::{EXTENSION_URI, Knowledge};
use libfuzzer_sys::fuzz_target;

fn service() -> &'static LearnablesService {
    static SERVICE: OnceLock<LearnablesService> = OnceLock::new();
    SERVICE.get_or_init(|| {
        let knowledge = Knowledge::in_memory();
        learnables_examples::customs_agent::register(&knowledge).expect("the examples register");
        LearnablesService::new(
            knowledge,
            learnables_examples::customs_declaration(),
            Tokens::new().with("t", Principal::human("alice@example.com")),
        )
    })
}

fuzz_target!(|data: &[u8]| {
    match json_rpc::read_request(data, Limits::default()) {
        Ok(request) => {
            let activation = Activation::from_header_values([EXTENSION_URI]);
            if let Some(response) = service().call(request, &activation, Some("t")) {
                let _ = response.to_string();
            }
        }
        Err(error) => {
            let _ = json_rpc::failure(json_rpc::best_effort_id(data), error);
        }
    }
});
