//! The child process of the crash test (`tests/knowledge_crash.rs`): teaches
//! lessons into the embedded store in `DIR` from several threads, forever,
//! printing `ack POSITION VERSION_ID` for each lesson once `teach` has
//! acknowledged it. The test kills it at random moments.
//!
//! `teach_loop DIR`

use std::io::Write;
use std::sync::{Arc, Mutex};

use learnables::{Knowledge, Lesson, LessonValue};
use learnables_examples::RoutingRule;

const THREADS: usize = 4;

fn main() {
    let Some(dir) = std::env::args().nth(1) else {
        eprintln!("usage: teach_loop DIR");
        std::process::exit(2);
    };
    let knowledge = match Knowledge::open(&dir) {
        Ok(knowledge) => knowledge,
        Err(error) => {
            eprintln!("{error}");
            std::process::exit(1);
        }
    };
    if let Err(error) = knowledge.register::<RoutingRule>() {
        eprintln!("{error}");
        std::process::exit(1);
    }
    let out = Arc::new(Mutex::new(std::io::stdout()));
    let threads: Vec<_> = (0..THREADS)
        .map(|thread| {
            let knowledge = knowledge.clone();
            let out = out.clone();
            std::thread::spawn(move || {
                let desks = ["general", "cold chain", "dangerous-goods"];
                for i in 0usize.. {
                    // A cycle of 97 (over 96 chapters) does not line up with
                    // the three desks: every round keeps teaching new values.
                    let chapter = learnables_examples::Chapter::nth((i * THREADS + thread) % 97);
                    let value = LessonValue::try_from(serde_json::json!({
                        "chapter": chapter.to_string(),
                        "desk": desks[(i + thread) % desks.len()],
                    }))
                    .expect("an object");
                    let lesson = Lesson::new(
                        "routing_rules",
                        chapter.to_string(),
                        value,
                        format!("teacher{thread}@example.com"),
                    );
                    match knowledge.teach(&lesson) {
                        Ok(result) if result.learned => {
                            let mut out = out.lock().unwrap_or_else(|e| e.into_inner());
                            let id = result.version_id.unwrap_or_default();
                            let _ = writeln!(out, "ack {} {id}", result.definition_version);
                            let _ = out.flush();
                        }
                        Ok(_) => {}
                        Err(error) => {
                            eprintln!("{error}");
                            std::process::exit(1);
                        }
                    }
                }
            })
        })
        .collect();
    for thread in threads {
        let _ = thread.join();
    }
}
