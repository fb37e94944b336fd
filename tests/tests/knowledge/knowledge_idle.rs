//! A knowledge that nobody teaches costs nothing: after a burst of lessons
//! its threads sleep until the next one, and a teacher sleeps until its
//! answer; neither polls.
//!
//! CPU is counted per thread: for the idle knowledge, every thread of a
//! child process that runs nothing else; for the teacher waiting for its
//! answer, the teacher's and the commit thread's.

use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

use learnables::Knowledge;
use learnables::knowledge::{MemoryStorage, Storage, StoreError, VersionRecord};
use learnables_examples::Chapter;
use learnables_tests::support::backend_suite::{registered, rule_lesson};

/// Set in the child process, which teaches and measures.
const CHILD: &str = "LEARNABLES_IDLE_CHILD";

/// How much CPU the whole idle process may use in its idle second.
const IDLE_BUDGET: Duration = Duration::from_millis(5);

/// The CPU time every thread of this process has used so far. Read from
/// each thread's `schedstat` (nanoseconds): `stat`'s utime and stime count
/// clock ticks of 10 ms, too coarse for a 5 ms budget. Threads that ended
/// are not counted, which is why the burst's teachers are joined first.
fn cpu_of_every_thread() -> Duration {
    let tasks = std::fs::read_dir("/proc/self/task").expect("the process's threads");
    let mut nanos: u64 = 0;
    for task in tasks {
        let path = task.expect("a thread").path().join("schedstat");
        // A thread may end between the listing and the read.
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let on_cpu = text.split_whitespace().next().expect("a first field");
        nanos += on_cpu.parse::<u64>().expect("nanoseconds on the CPU");
    }
    Duration::from_nanos(nanos)
}

/// 8 teachers at once, 12 lessons each, into the embedded store, whose
/// lessons go through the commit thread.
fn burst(knowledge: &Knowledge) {
    std::thread::scope(|scope| {
        for teacher in 0..8 {
            scope.spawn(move || {
                for i in 0..12 {
                    let entry = Chapter::nth(teacher * 12 + i).to_string();
                    assert!(
                        knowledge
                            .teach(&rule_lesson(&entry, "general"))
                            .unwrap()
                            .learned
                    );
                }
            });
        }
    });
}

#[test]
fn an_idle_knowledge_uses_no_cpu_after_a_burst_of_lessons() {
    if std::env::var_os(CHILD).is_none() {
        let status = run_in_child(concat!(
            module_path!(),
            "::an_idle_knowledge_uses_no_cpu_after_a_burst_of_lessons"
        ));
        assert!(status.success(), "the idle child failed: {status}");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let knowledge = registered(Knowledge::open(dir.path()).unwrap());
    burst(&knowledge);
    let before = cpu_of_every_thread();
    std::thread::sleep(Duration::from_secs(1));
    let used = cpu_of_every_thread().saturating_sub(before);
    assert_eq!(knowledge.history("routing_rules").len(), 96);
    println!("the idle second used {used:?} of CPU");
    assert!(
        used < IDLE_BUDGET,
        "an idle knowledge used {used:?} of CPU in one second (budget {IDLE_BUDGET:?})"
    );
}

/// A thread's id, as `/proc/self/task` names it.
fn thread_id() -> String {
    let link = std::fs::read_link("/proc/thread-self").expect("this thread's entry");
    let name = link.file_name().expect("a thread id");
    name.to_string_lossy().into_owned()
}

/// The CPU time the threads `ids` of this process have used so far
/// (`schedstat`: see [`cpu_of_every_thread`]).
fn cpu_of(ids: &[String]) -> Duration {
    ids.iter()
        .map(|id| {
            let text = std::fs::read_to_string(format!("/proc/self/task/{id}/schedstat"))
                .unwrap_or_else(|error| panic!("thread {id}: {error}"));
            let on_cpu = text.split_whitespace().next().expect("a first field");
            Duration::from_nanos(on_cpu.parse().expect("nanoseconds on the CPU"))
        })
        .sum()
}

/// How writes stand in [`GatedDisk`]: how many were started, how many
/// the test let through, and the thread that writes.
#[derive(Default)]
struct Gate {
    started: usize,
    let_through: usize,
    writer_thread: Option<String>,
}

/// Memory storage whose every write waits until the test lets it through:
/// the teacher is then waiting for its answer, and nothing else runs.
#[derive(Default, Clone)]
struct GatedDisk {
    inner: Arc<MemoryStorage>,
    gate: Arc<(Mutex<Gate>, Condvar)>,
}

/// How long the test waits for any one step of the other threads.
const STEP_AT_MOST: Duration = Duration::from_secs(30);

impl GatedDisk {
    /// Waits until `ready` holds of the gate, [`STEP_AT_MOST`] at most.
    fn wait_for(&self, what: &str, ready: impl Fn(&Gate) -> bool) -> MutexGuard<'_, Gate> {
        let (gate, changed) = &*self.gate;
        let (gate, timeout) = changed
            .wait_timeout_while(gate.lock().unwrap(), STEP_AT_MOST, |gate| !ready(gate))
            .unwrap();
        assert!(!timeout.timed_out(), "waited in vain for {what}");
        gate
    }
}

impl Storage for GatedDisk {
    fn load(&self) -> Result<Vec<VersionRecord>, StoreError> {
        self.inner.load()
    }

    fn append(&self, records: &[VersionRecord]) -> Result<(), StoreError> {
        let mut gate = self.gate.0.lock().unwrap();
        gate.started += 1;
        gate.writer_thread = Some(thread_id());
        let number = gate.started;
        self.gate.1.notify_all();
        drop(gate);
        drop(self.wait_for("the test to let the write through", |gate| {
            gate.let_through >= number
        }));
        self.inner.append(records)
    }
}

#[test]
fn teachers_and_the_commit_thread_sleep_while_they_wait() {
    // For each lesson, two moments in which neither the teacher nor the
    // commit thread has anything to do: while the write is held (the
    // teacher waits for its answer) and after the answer (the commit
    // thread waits for the next lesson). Only these two threads are
    // counted, so tests running beside this one do not count.
    const LESSONS: usize = 20;
    const MOMENT: Duration = Duration::from_millis(20);
    // Sleeping threads use next to nothing in these moments: what is left
    // is the end of the work just before each (the teacher's return, the
    // commit thread's going to sleep). A thread that polls for 300 µs
    // after each hand-over uses several times this.
    const BUDGET: Duration = Duration::from_millis(2);
    let disk = GatedDisk::default();
    let knowledge = registered(Knowledge::with_storage(disk.clone()).unwrap());
    let (go, next_lesson) = std::sync::mpsc::channel::<()>();
    let (answered, answer) = std::sync::mpsc::channel::<String>();
    let mut waiting = Duration::ZERO;
    std::thread::scope(|scope| {
        let knowledge = &knowledge;
        scope.spawn(move || {
            let teacher = thread_id();
            answered.send(teacher.clone()).unwrap();
            for i in 0..LESSONS {
                if next_lesson.recv_timeout(STEP_AT_MOST).is_err() {
                    return; // The test failed and stopped.
                }
                let entry = Chapter::nth(i).to_string();
                let result = knowledge.teach(&rule_lesson(&entry, "general"));
                answered.send(format!("{result:?}")).unwrap();
            }
            // Alive, so counted, until the test has measured: the end of
            // `go` ends it.
            let _ = next_lesson.recv_timeout(STEP_AT_MOST);
        });
        let teacher = answer.recv_timeout(STEP_AT_MOST).expect("the teacher's id");
        for i in 1..=LESSONS {
            go.send(()).unwrap();
            let gate = disk.wait_for("the lesson's write", |gate| gate.started == i);
            let writer = gate.writer_thread.clone().expect("the writing thread");
            drop(gate);
            let threads = [teacher.clone(), writer];
            let before = cpu_of(&threads);
            std::thread::sleep(MOMENT);
            waiting += cpu_of(&threads).saturating_sub(before);

            disk.gate.0.lock().unwrap().let_through = i;
            disk.gate.1.notify_all();
            let result = answer
                .recv_timeout(STEP_AT_MOST)
                .expect("the lesson's answer");
            assert!(result.starts_with("Ok("), "lesson {i}: {result}");
            let before = cpu_of(&threads);
            std::thread::sleep(MOMENT);
            waiting += cpu_of(&threads).saturating_sub(before);
        }
        drop(go);
    });
    println!("{LESSONS} lessons: {waiting:?} of CPU while waiting");
    assert!(
        waiting < BUDGET,
        "while waiting, the teacher and the commit thread used {waiting:?} of CPU over \
         {LESSONS} lessons (budget {BUDGET:?}): they poll instead of sleeping"
    );
}

/// Runs the test named `path` (its module path, crate first) alone in a
/// child process of this test binary, and waits for it, 2 minutes at most.
fn run_in_child(path: &str) -> std::process::ExitStatus {
    // The harness names a test by its path without the crate's name.
    let name = path.split_once("::").map_or(path, |(_, name)| name);
    let mut child = std::process::Command::new(std::env::current_exe().expect("the test binary"))
        .args(["--exact", name, "--nocapture", "--test-threads", "1"])
        .env(CHILD, "1")
        .spawn()
        .expect("start the child test");
    for _ in 0..1200 {
        if let Some(status) = child.try_wait().expect("the child's status") {
            return status;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = child.kill();
    panic!("the idle child did not end within 2 minutes");
}
