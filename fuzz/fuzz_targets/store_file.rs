//! Bytes as the embedded store's file: opening it reads every version or
//! refuses the file as damaged, never panics; a store that opens takes a
//! lesson (or refuses it) and reopens with at least what it held.
#![no_main]

use learnables::{Knowledge, Lesson};
use learnables_examples::RoutingRule;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir().join(format!("learnables-fuzz-store-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("knowledge.log"), data).unwrap();
    let Ok(knowledge) = Knowledge::open(&dir) else {
        return;
    };
    let held = knowledge.pin().position();
    if knowledge.register::<RoutingRule>().is_ok() {
        let value = serde_json::json!({"chapter": "84", "desk": "general"});
        let lesson = Lesson::new("routing_rules", "84", value.try_into().unwrap(), "ana@example.nl");
        let _ = knowledge.teach(&lesson);
    }
    let after = knowledge.pin().position();
    drop(knowledge);
    let reopened = Knowledge::open(&dir).expect("a store that opened reopens");
    assert_eq!(reopened.pin().position(), after);
    assert!(after >= held);
});
