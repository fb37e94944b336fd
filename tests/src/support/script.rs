//! A script of an official SDK's (Python or JavaScript) run as a child
//! process: its output read on two threads so that neither pipe fills, kept
//! up to a bound, and the script killed when it outlives its time.

use std::io::Read;
use std::process::{Child, Command, ExitStatus};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The most of each output stream kept (a runaway script cannot fill the
/// test's memory).
pub const OUTPUT_LIMIT: usize = 256 * 1024;

/// A script running.
///
/// ```
/// use std::process::{Command, Stdio};
/// use std::time::Duration;
/// use learnables_tests::support::script::ScriptRun;
/// let mut echo = Command::new("echo");
/// echo.arg("hello").stdout(Stdio::piped()).stderr(Stdio::piped());
/// let (status, stdout, _) = ScriptRun::start(&mut echo, "echo").finish(Duration::from_secs(5));
/// assert!(status.is_some_and(|status| status.success()));
/// assert_eq!(stdout, "hello\n");
/// ```
pub struct ScriptRun {
    child: Child,
    stdout: JoinHandle<String>,
    stderr: JoinHandle<String>,
}

impl ScriptRun {
    /// Starts `command`, whose standard output and error are piped; one
    /// that cannot start fails the test, saying to run `setup` (what
    /// installs the script's SDK).
    pub fn start(command: &mut Command, setup: &str) -> ScriptRun {
        let mut child = command.spawn().unwrap_or_else(|error| {
            panic!("cannot start the script ({error}): run `{setup}` (or `tests/run`) to install what it needs")
        });
        let stdout = read_all(child.stdout.take().expect("a piped stdout"));
        let stderr = read_all(child.stderr.take().expect("a piped stderr"));
        ScriptRun {
            child,
            stdout,
            stderr,
        }
    }

    /// Waits up to `timeout`; a script still running then is killed and its
    /// status is `None`. The status, then what it wrote to its standard
    /// output and error.
    pub fn finish(mut self, timeout: Duration) -> (Option<ExitStatus>, String, String) {
        let deadline = Instant::now() + timeout;
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("the script's status") {
                break Some(status);
            }
            if Instant::now() >= deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let stdout = self.stdout.join().unwrap_or_default();
        let stderr = self.stderr.join().unwrap_or_default();
        (status, stdout, stderr)
    }
}

fn read_all(mut stream: impl Read + Send + 'static) -> JoinHandle<String> {
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        let mut chunk = [0u8; 8192];
        while let Ok(read) = stream.read(&mut chunk) {
            if read == 0 {
                break;
            }
            let room = OUTPUT_LIMIT.saturating_sub(kept.len());
            kept.extend_from_slice(&chunk[..read.min(room)]);
        }
        String::from_utf8_lossy(&kept).into_owned()
    })
}
