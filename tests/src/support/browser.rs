//! Headless Chromium driven through WebDriver (Debian's `chromium` and
//! `chromium-driver`, which `.ci/run` installs), for the teacher's page.
//!
//! A test that needs the browser fails when it is missing, saying to run
//! `.ci/run`, unless `LEARNABLES_ALLOW_SKIP` names `browser` (see
//! `learnables_tests::skip`): then it prints `SKIPPED:` and passes.
//!
//! A session leaves nothing behind in `TMPDIR`: chromedriver and Chromium
//! run with a `TMPDIR` of their own (beside the profile, in one temporary
//! directory), which is removed once every process of the session has
//! ended.

use std::net::{TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::webdriver::{Client, Element, Locator};

const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// How long a page gets to reach a state the test waits for.
const PATIENCE: Duration = Duration::from_secs(20);

/// How long the processes of a killed session get to be gone.
const GONE_WITHIN: Duration = Duration::from_secs(10);

/// A Chromium session and the chromedriver behind it; chromedriver and
/// Chromium are killed when dropped (call [`Browser::close`] first to end
/// the session), then their temporary directory is removed.
pub struct Browser {
    /// The WebDriver session.
    pub client: Client,
    driver: Child,
    /// The profile and the `TMPDIR` of the session: dropped after the
    /// `Drop` of `Browser` has ended its processes, so nothing writes into
    /// it while it is removed.
    _scratch: tempfile::TempDir,
}

/// Whether the browser tests run: when the browser is missing, a failure
/// saying to run `.ci/run`, or `false` (after printing `SKIPPED:`) where
/// `LEARNABLES_ALLOW_SKIP` names `browser`.
pub fn browser_available(test: &str) -> bool {
    for program in [CHROMIUM, CHROMEDRIVER] {
        if !Path::new(program).exists() {
            crate::skip::cannot_run(
                test,
                "browser",
                &format!(
                    "{program} is missing: run .ci/run (it installs the Debian packages \
                     chromium and chromium-driver)"
                ),
            );
            return false;
        }
    }
    true
}

impl Browser {
    /// Starts chromedriver on a free port and a fresh headless Chromium
    /// with a window of `width` x `height`.
    pub async fn start(width: u32, height: u32) -> Browser {
        let port = free_port();
        // Chromium keeps scratch directories (`org.chromium.Chromium.*`)
        // in TMPDIR, and a killed one cannot remove them: its TMPDIR is
        // ours, removed with the profile.
        let scratch = tempfile::tempdir().expect("a temporary directory for the browser");
        let profile = scratch.path().join("profile");
        let tmp = scratch.path().join("tmp");
        for dir in [&profile, &tmp] {
            std::fs::create_dir(dir).expect("the browser's directories");
        }
        // In a process group of its own, with the Chromium it starts, so
        // that a test that fails half way leaves no browser behind.
        let driver = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .env("TMPDIR", &tmp)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .expect("chromedriver starts");
        // Declared after `scratch`, so dropped first: the processes end
        // before their directory is removed.
        let mut driver = DriverGuard(Some(driver));
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                started.elapsed() < PATIENCE,
                "chromedriver did not listen on port {port} within {PATIENCE:?}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let args = vec![
            "--headless".to_owned(),
            "--no-sandbox".to_owned(),
            "--disable-gpu".to_owned(),
            "--disable-quic".to_owned(),
            "--no-first-run".to_owned(),
            "--disable-background-networking".to_owned(),
            "--disable-component-update".to_owned(),
            "--disable-sync".to_owned(),
            "--disable-dev-shm-usage".to_owned(),
            format!("--window-size={width},{height}"),
            format!("--user-data-dir={}", profile.display()),
        ];
        let capabilities = json!({
            "goog:chromeOptions": {"binary": CHROMIUM, "args": args},
            // An alert the page opened stays open, for the test to find.
            "unhandledPromptBehavior": "ignore",
        });
        let client = tokio::time::timeout(
            PATIENCE,
            Client::connect(&format!("http://127.0.0.1:{port}"), capabilities),
        )
        .await
        .expect("Chromium starts in time")
        .expect("a WebDriver session with Chromium");
        Browser {
            client,
            driver: driver.0.take().expect("the driver"),
            _scratch: scratch,
        }
    }

    /// Ends the session (Chromium quits) and stops chromedriver.
    pub async fn close(self) {
        let client = self.client.clone();
        let _ = tokio::time::timeout(PATIENCE, client.close()).await;
    }

    /// The process group of chromedriver and the Chromium it started.
    pub fn process_group(&self) -> u32 {
        self.driver.id()
    }

    /// Evaluates `expression` in the page.
    pub async fn eval(&self, expression: &str) -> Value {
        self.client
            .execute(&format!("return ({expression});"), vec![])
            .await
            .unwrap_or_else(|error| panic!("`{expression}` could not be evaluated: {error}"))
    }

    /// Waits until `expression` is true in the page; panics with `what`
    /// and the page's text if it does not become so in time.
    pub async fn until(&self, expression: &str, what: &str) {
        let started = Instant::now();
        loop {
            let value = self
                .client
                .execute(&format!("return Boolean({expression});"), vec![])
                .await;
            if matches!(value, Ok(Value::Bool(true))) {
                return;
            }
            if started.elapsed() > PATIENCE {
                let text = self.eval("document.body.innerText").await;
                panic!(
                    "{what}: `{expression}` is still not true after {PATIENCE:?}; the page reads:\n{}",
                    text.as_str().unwrap_or_default()
                );
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Goes to `url` and waits for the page to start.
    pub async fn open(&self, url: &str) {
        self.client.goto(url).await.expect("the page opens");
        self.until("document.body.dataset.ready === 'true'", "the page starts")
            .await;
    }

    /// Signs in as a person does: `token` typed into the focused token
    /// field, then Enter; waits until the page says who is signed in.
    pub async fn sign_in(&self, token: &str) {
        let field = self.client.active_element().await.expect("the token field");
        field
            .send_keys(&format!("{token}\u{e007}"))
            .await
            .expect("the token field takes keys");
        self.until("!document.getElementById('who').hidden", "signing in")
            .await;
    }

    /// Clicks the button whose text is `text`.
    pub async fn click_button(&self, text: &str) {
        let xpath = format!("//button[.={}]", js(text));
        self.client
            .find(Locator::XPath(&xpath))
            .await
            .unwrap_or_else(|error| panic!("no button {text:?}: {error}"))
            .click()
            .await
            .expect("the button clicks");
    }

    /// The text of the first element `selector` matches.
    pub async fn text(&self, selector: &str) -> String {
        let found = self
            .client
            .find(Locator::Css(selector))
            .await
            .unwrap_or_else(|error| panic!("no `{selector}`: {error}"));
        found.text().await.expect("an element's text")
    }

    /// Saves a screenshot of the page as `name`.png under
    /// `target/teaching-page-screenshots/`.
    pub async fn screenshot(&self, name: &str) -> PathBuf {
        let png = self.client.screenshot().await.expect("a screenshot");
        let dir = screenshot_dir();
        std::fs::create_dir_all(&dir).expect("the screenshot directory");
        let path = dir.join(format!("{name}.png"));
        std::fs::write(&path, png).expect("the screenshot is saved");
        path
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        stop(&mut self.driver);
    }
}

/// Kills chromedriver if starting the session fails half way.
struct DriverGuard(Option<Child>);

impl Drop for DriverGuard {
    fn drop(&mut self) {
        if let Some(mut child) = self.0.take() {
            stop(&mut child);
        }
    }
}

/// Kills chromedriver's process group (chromedriver and the Chromium it
/// started), reaps chromedriver, and waits until no process of the group
/// runs any more (a zombie writes nothing).
fn stop(driver: &mut Child) {
    let group = driver.id();
    let killed = Command::new("kill")
        .args(["-KILL", "--", &format!("-{group}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    if !killed.is_ok_and(|status| status.success()) {
        let _ = driver.kill();
    }
    let _ = driver.wait();
    let started = Instant::now();
    while group_runs(group) && started.elapsed() < GONE_WITHIN {
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Whether a process of the process group `group` runs (is not a zombie),
/// from `/proc/<pid>/stat`: the state and the group follow the command's
/// name in parentheses (`pid (comm) state ppid pgrp ...`).
pub fn group_runs(group: u32) -> bool {
    let Ok(processes) = std::fs::read_dir("/proc") else {
        return false;
    };
    processes.filter_map(Result::ok).any(|process| {
        let Ok(stat) = std::fs::read_to_string(process.path().join("stat")) else {
            return false;
        };
        let Some((_, after_name)) = stat.rsplit_once(')') else {
            return false;
        };
        let mut fields = after_name.split_whitespace();
        let state = fields.next();
        let pgrp = fields.nth(1).and_then(|field| field.parse::<u32>().ok());
        pgrp == Some(group) && state != Some("Z") && state != Some("X")
    })
}

/// A runtime for a browser test's session.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime")
}

/// The control the label `label` names in the form `form`.
pub async fn control(browser: &Browser, form: &str, label: &str) -> Element {
    let xpath = format!(
        "//form[@id='{form}']//label[normalize-space(.)={}]",
        js(label)
    );
    let found = browser
        .client
        .find(Locator::XPath(&xpath))
        .await
        .unwrap_or_else(|error| panic!("no label `{label}` in #{form}: {error}"));
    let id = found
        .attr("for")
        .await
        .expect("the label's for")
        .unwrap_or_else(|| panic!("the label `{label}` names no control"));
    browser
        .client
        .find(Locator::Id(&id))
        .await
        .unwrap_or_else(|error| panic!("label `{label}` names a missing #{id}: {error}"))
}

/// The text of the error tied to `control` by aria-describedby, if shown.
pub async fn error_of(browser: &Browser, control: &Element) -> Option<String> {
    let described = control.attr("aria-describedby").await.ok()??;
    for id in described
        .split_whitespace()
        .filter(|id| id.ends_with("-error"))
    {
        let node = browser.client.find(Locator::Id(id)).await.ok()?;
        if node.is_displayed().await.unwrap_or(false) {
            return Some(node.text().await.unwrap_or_default());
        }
    }
    None
}

/// Types `text` into `control`, after clearing it.
pub async fn type_into(control: &Element, text: &str) {
    control.clear().await.expect("the input clears");
    control.send_keys(text).await.expect("the input takes keys");
}

/// The value of `control`.
pub async fn value_of(control: &Element) -> String {
    control
        .prop("value")
        .await
        .expect("a value")
        .unwrap_or_default()
}

/// Clicks the submit button of the form `form`.
pub async fn submit(browser: &Browser, form: &str) {
    browser
        .client
        .find(Locator::Css(&format!("#{form} button[type=submit]")))
        .await
        .expect("a submit button")
        .click()
        .await
        .expect("the button clicks");
}

/// `target/teaching-page-screenshots/`: beside the profile's folder of the
/// running test binary (`target/debug/deps/browser-…`).
pub fn screenshot_dir() -> PathBuf {
    let binary = std::env::current_exe().expect("the test binary's path");
    binary
        .ancestors()
        .nth(3)
        .expect("the target directory")
        .join("teaching-page-screenshots")
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port()
}

/// A JavaScript string literal of `text`.
pub fn js(text: &str) -> String {
    Value::String(text.to_owned()).to_string()
}
