//! Bytes -> JSON -> a card's declaration, and declaration params.
#![no_main]

use learnables::DeclarationParams;
use learnables::a2a::CardDeclaration;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(json) = serde_json::from_slice::<serde_json::Value>(data) else {
        return;
    };
    match CardDeclaration::read(&json) {
        Ok(_) => {}
        Err(violations) => {
            let _ = violations.to_string();
        }
    }
    if let Ok(params) = serde_json::from_value::<DeclarationParams>(json) {
        if let Err(violations) = params.validate() {
            let _ = violations.to_string();
        }
    }
});
