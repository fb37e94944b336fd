//! The example agent as a process, as docker, systemd and Kubernetes run
//! it: `SIGTERM` stops it cleanly (the request in flight is answered, the
//! store's log is sealed, the process exits 0), so that damage to its last
//! lesson is told from a crash when it starts again; and a store whose log
//! ends in bytes never acknowledged starts, saying what it kept aside.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use learnables::{EXTENSION_URI, Knowledge};
use learnables_examples::RoutingRule;

const TOKEN: &str = "alice-token";

/// The agent, started on `data`, and the address it listens on.
struct Agent {
    child: Child,
    address: String,
    /// Its standard error, read on a thread until it exits.
    stderr: std::sync::mpsc::Receiver<String>,
}

impl Agent {
    fn start(data: &Path) -> Agent {
        let mut child = Command::new(env!("CARGO_BIN_EXE_customs_agent"))
            .args(["--addr", "127.0.0.1:0", "--data"])
            .arg(data)
            .args(["--teacher", &format!("alice@example.com={TOKEN}")])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the agent starts");
        let (lines, stderr) = std::sync::mpsc::channel();
        let mut errors = BufReader::new(child.stderr.take().unwrap());
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = errors.read_to_string(&mut text);
            let _ = lines.send(text);
        });
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        let address = loop {
            line.clear();
            if stdout.read_line(&mut line).unwrap() == 0 {
                let _ = child.wait();
                panic!(
                    "the agent exited before listening: {}",
                    stderr.recv().unwrap_or_default()
                );
            }
            if let Some(rest) = line.strip_prefix("customs agent listening on http://") {
                break rest.split('/').next().unwrap().to_owned();
            }
        };
        std::thread::spawn(move || std::io::copy(&mut stdout, &mut std::io::sink()));
        Agent {
            child,
            address,
            stderr,
        }
    }

    /// A teach request for `chapter`, whole.
    fn teach_request(chapter: u32, desk: &str) -> (String, String) {
        let body = serde_json::json!({
            "jsonrpc": "2.0", "id": chapter, "method": "rsaxb.learnables.Teach",
            "params": {"collection": "routing_rules", "entry": chapter.to_string(),
                       "value": {"chapter": chapter.to_string(), "desk": desk},
                       "taughtBy": "alice@example.com"}
        })
        .to_string();
        let head = format!(
            "POST / HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nA2A-Version: 1.0\r\n\
             A2A-Extensions: {EXTENSION_URI}\r\nAuthorization: Bearer {TOKEN}\r\n\
             Connection: close\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        (head, body)
    }

    fn connect(&self) -> TcpStream {
        let stream = TcpStream::connect(&self.address).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        stream
    }

    fn teach(&self, chapter: u32, desk: &str) -> String {
        let (head, body) = Agent::teach_request(chapter, desk);
        let mut stream = self.connect();
        stream.write_all(head.as_bytes()).unwrap();
        stream.write_all(body.as_bytes()).unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        answer
    }

    fn signal(&self, name: &str) {
        let sent = Command::new("kill")
            .args([&format!("-{name}"), &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success(), "kill -{name}");
    }

    /// Waits for the agent to exit; its status and what it wrote on
    /// standard error.
    fn wait(mut self) -> (std::process::ExitStatus, String) {
        let deadline = Instant::now() + Duration::from_secs(30);
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("the agent did not exit within 30 s");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        (status, self.stderr.recv().unwrap_or_default())
    }
}

/// The store's file ends in a seal: its last frame says the group before
/// it was synced (the layout is `docs/store-format.md`).
fn ends_sealed(file: &[u8]) -> bool {
    file.len() >= 16 && &file[file.len() - 16..file.len() - 12] == b"SEAL"
}

#[test]
fn sigterm_answers_the_request_in_flight_seals_the_log_and_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let agent = Agent::start(&data);
    let taught = agent.teach(84, "general");
    assert!(taught.contains("\"learned\":true"), "{taught}");
    let file = data.join("knowledge.log");
    assert!(
        !ends_sealed(&std::fs::read(&file).unwrap()),
        "a group is sealed by the write after it, or when the store closes"
    );

    // A request in flight: its head and half its body sent.
    let (head, body) = Agent::teach_request(85, "cold chain");
    let mut in_flight = agent.connect();
    in_flight.write_all(head.as_bytes()).unwrap();
    in_flight
        .write_all(&body.as_bytes()[..body.len() / 2])
        .unwrap();
    std::thread::sleep(Duration::from_millis(200));
    agent.signal("TERM");
    std::thread::sleep(Duration::from_millis(300));
    in_flight
        .write_all(&body.as_bytes()[body.len() / 2..])
        .unwrap();
    let mut answer = String::new();
    in_flight.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("\"learned\":true"), "{answer}");

    let (status, stderr) = agent.wait();
    assert!(status.success(), "{status:?}: {stderr}");
    assert!(stderr.contains("SIGTERM"), "{stderr}");
    let bytes = std::fs::read(&file).unwrap();
    assert!(ends_sealed(&bytes), "SIGTERM sealed the log");
    let reopened = Knowledge::open(&data).unwrap();
    reopened.register::<RoutingRule>().unwrap();
    assert_eq!(reopened.history("routing_rules").len(), 2);
    drop(reopened);

    // Sealed, one byte changed in the last lesson is damage: the agent
    // refuses to start, and the file stays as it was.
    let mut changed = bytes.clone();
    let in_last_group = bytes.len() - 20;
    changed[in_last_group] ^= 0x01;
    std::fs::write(&file, &changed).unwrap();
    let refused = Command::new(env!("CARGO_BIN_EXE_customs_agent"))
        .args(["--addr", "127.0.0.1:0", "--data"])
        .arg(&data)
        .args(["--teacher", &format!("alice@example.com={TOKEN}")])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(1));
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(said.contains("restore it from a backup"), "{said}");
    assert_eq!(std::fs::read(&file).unwrap(), changed, "nothing was cut");
}

#[test]
fn a_log_ending_in_bytes_never_acknowledged_starts_and_says_what_it_kept() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let agent = Agent::start(&data);
    assert!(agent.teach(84, "general").contains("\"learned\":true"));
    agent.signal("TERM");
    let (status, _) = agent.wait();
    assert!(status.success());
    let file = data.join("knowledge.log");
    let sealed = std::fs::read(&file).unwrap();
    let mut with_zeros = sealed.clone();
    with_zeros.extend([0; 4096]);
    std::fs::write(&file, &with_zeros).unwrap();

    let agent = Agent::start(&data);
    let taught = agent.teach(85, "cold chain");
    assert!(taught.contains("\"definitionVersion\":2"), "{taught}");
    agent.signal("TERM");
    let (status, stderr) = agent.wait();
    assert!(status.success(), "{stderr}");
    assert!(stderr.contains("WARN"), "{stderr}");
    assert!(stderr.contains("never acknowledged"), "{stderr}");
    assert!(
        stderr.contains(&format!("from={}", sealed.len())),
        "{stderr}"
    );
    let kept: Vec<_> = std::fs::read_dir(&data)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.starts_with("knowledge.log.cut-"))
        .collect();
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert_eq!(std::fs::read(data.join(&kept[0])).unwrap(), [0; 4096]);
}
