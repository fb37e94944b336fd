//! A spinner on standard error while the client waits on the network,
//! drawn only when standard error is a terminal.

use std::io::{IsTerminal, Write};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::Duration;

const FRAMES: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/// A running spinner; it stops, and clears its line, when dropped.
#[derive(Debug)]
pub struct Spinner {
    running: Option<(mpsc::Sender<()>, JoinHandle<()>)>,
}

impl Spinner {
    /// Starts a spinner with `message`, or nothing when standard error is
    /// not a terminal.
    pub fn start(message: &str) -> Spinner {
        if !std::io::stderr().is_terminal() {
            return Spinner { running: None };
        }
        let (stop, stopped) = mpsc::channel::<()>();
        let message = message.to_owned();
        let thread = std::thread::spawn(move || {
            let mut stderr = std::io::stderr();
            for frame in FRAMES.iter().cycle() {
                let _ = write!(stderr, "\r{frame} {message}");
                let _ = stderr.flush();
                match stopped.recv_timeout(Duration::from_millis(80)) {
                    Err(RecvTimeoutError::Timeout) => {}
                    Ok(()) | Err(RecvTimeoutError::Disconnected) => break,
                }
            }
            // Back to the line's start, and the line cleared (crossterm's
            // sequence, already in the tree under the form).
            let _ = crossterm::execute!(
                stderr,
                crossterm::style::Print('\r'),
                crossterm::terminal::Clear(crossterm::terminal::ClearType::CurrentLine)
            );
        });
        Spinner {
            running: Some((stop, thread)),
        }
    }

    /// Runs `work` with a spinner showing `message`.
    pub fn during<T>(message: &str, work: impl FnOnce() -> T) -> T {
        let spinner = Spinner::start(message);
        let result = work();
        drop(spinner);
        result
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        if let Some((stop, thread)) = self.running.take() {
            let _ = stop.send(());
            let _ = thread.join();
        }
    }
}
