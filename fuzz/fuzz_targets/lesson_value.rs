//! Bytes -> JSON -> lesson value -> the example learnables, and back.
#![no_main]

use learnables::{Learnable, LessonValue};
use learnables_examples::{ClearanceLimit, RoutingRule};
use libfuzzer_sys::fuzz_target;

fn round_trip<T: Learnable + PartialEq + std::fmt::Debug>(value: &LessonValue) {
    match T::from_lesson_value(value) {
        Ok(parsed) => {
            let again = T::from_lesson_value(&parsed.to_lesson_value())
                .expect("a learnable's own lesson value parses");
            assert_eq!(again, parsed, "the lesson value round-trips");
        }
        Err(error) => {
            let _ = error.to_string();
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(json) = serde_json::from_slice::<serde_json::Value>(data) else {
        return;
    };
    match LessonValue::try_from(json) {
        Ok(value) => {
            round_trip::<RoutingRule>(&value);
            round_trip::<ClearanceLimit>(&value);
        }
        Err(error) => {
            let _ = error.to_string();
        }
    }
});
