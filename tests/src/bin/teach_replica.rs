//! The child process of the two-process contention test
//! (`tests/knowledge_processes.rs`): one replica of an agent, on the
//! PostgreSQL database at `URL`, teaching `LESSONS` lessons from each of
//! `THREADS` threads once the file `GO` exists, and printing one line per
//! lesson: `learned TAG VERSION_ID`, `unchanged TAG`, or `refused TAG ERROR`.
//!
//! `teach_replica URL NAME THREADS LESSONS GO`

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use learnables::{Knowledge, Lesson, LessonValue};
use learnables_examples::RoutingRule;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [url, name, threads, lessons, go] = args.as_slice() else {
        eprintln!("usage: teach_replica URL NAME THREADS LESSONS GO");
        std::process::exit(2);
    };
    let (Ok(threads), Ok(lessons)) = (threads.parse::<usize>(), lessons.parse::<usize>()) else {
        eprintln!("THREADS and LESSONS are numbers");
        std::process::exit(2);
    };
    let knowledge = Knowledge::connect(url).unwrap_or_else(|error| {
        eprintln!("{error}");
        std::process::exit(1);
    });
    knowledge.register::<RoutingRule>().unwrap_or_else(|error| {
        eprintln!("{error}");
        std::process::exit(1);
    });
    // Both replicas start teaching at once.
    let go = PathBuf::from(go);
    let deadline = Instant::now() + Duration::from_secs(60);
    while !go.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(2));
    }
    let lines: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|thread| {
                let knowledge = &knowledge;
                scope.spawn(move || {
                    (0..lessons)
                        .map(|i| {
                            let tag = format!("{name}-{thread}-{i}");
                            let chapter = 1 + (thread * 7 + i) % 40;
                            let desk = ["general", "cold chain", "dangerous-goods"][i % 3];
                            // The tag as the note: every lesson is a new value,
                            // whichever process teaches the entry first.
                            let value = serde_json::json!({
                                "chapter": chapter.to_string(), "desk": desk, "note": tag,
                            });
                            let lesson = Lesson::new(
                                "routing_rules",
                                chapter.to_string(),
                                LessonValue::try_from(value).expect("an object"),
                                "alice@example.com",
                            )
                            .with_reason(&tag);
                            match knowledge.teach(&lesson) {
                                Ok(result) if result.learned => format!(
                                    "learned {tag} {}",
                                    result.version_id.unwrap_or_default()
                                ),
                                Ok(_) => format!("unchanged {tag}"),
                                Err(error) => format!("refused {tag} {error}"),
                            }
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|handle| handle.join().expect("a teacher thread"))
            .collect()
    });
    let mut out = std::io::stdout().lock();
    for line in lines {
        let _ = writeln!(out, "{line}");
    }
}
