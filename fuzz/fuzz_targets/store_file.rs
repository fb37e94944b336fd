//! Bytes as the embedded store's file: opening it reads every version or
//! refuses the file as damaged, never panics; a store that opens takes a
//! lesson (or refuses it) and reopens with at least what it held, and
//! whatever it cut off its log it kept aside, byte for byte.
#![no_main]

use learnables::{Knowledge, Lesson};
use learnables_examples::RoutingRule;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir().join(format!("learnables-fuzz-store-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("knowledge.log"), data).unwrap();
    if let Ok(knowledge) = Knowledge::open(&dir) {
        // The log kept, then what was cut off it: the file as it was,
        // unless the open sealed the last group (16 bytes more).
        let log = std::fs::read(dir.join("knowledge.log")).unwrap();
        let cut: Vec<u8> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.to_string_lossy().contains("knowledge.log.cut-"))
            .flat_map(|path| std::fs::read(path).unwrap())
            .collect();
        let kept = log.len().min(data.len()).saturating_sub(16);
        assert_eq!(&log[..kept], &data[..kept], "the log's bytes are kept");
        if !cut.is_empty() {
            assert!(data.ends_with(&cut), "the cut bytes are kept whole");
        }
        let held = knowledge.pin().position();
        if knowledge.register::<RoutingRule>().is_ok() {
            let value = serde_json::json!({"chapter": "84", "desk": "general"});
            let lesson = Lesson::new(
                "routing_rules",
                "84",
                value.try_into().unwrap(),
                "ana@example.nl",
            );
            let _ = knowledge.teach(&lesson);
        }
        let after = knowledge.pin().position();
        drop(knowledge);
        let reopened = Knowledge::open(&dir).expect("a store that opened reopens");
        assert_eq!(reopened.pin().position(), after);
        assert!(after >= held);
    }
    let _ = std::fs::remove_dir_all(&dir);
});
