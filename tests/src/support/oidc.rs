//! A real OpenID provider for a test: `oidc-provider` (npm, installed by
//! tests/oidc/setup) run by tests/oidc/provider/provider.mjs on a free port
//! of 127.0.0.1, killed when dropped; and what a test asks of it: a
//! client's own token, a person's tokens by the device authorization grant
//! (the person approving the code in Chromium, as they would), a key
//! rotation.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::browser::{Browser, js};
use super::webdriver::Locator;

/// The audience the provider's tokens name by default: the test agent's.
pub const AUDIENCE: &str = "urn:learnables:agent";

/// Another resource's audience, which the provider also issues tokens for.
pub const OTHER_AUDIENCE: &str = "urn:learnables:other";

/// How long the provider may take to start, and a request to it.
const PATIENCE: Duration = Duration::from_secs(20);

/// The directory of the provider's script and its `node_modules`.
fn provider_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("oidc/provider")
}

/// Whether the provider can run: when its packages are missing, a failure
/// saying to run tests/oidc/setup, or `false` (after printing `SKIPPED:`)
/// where `LEARNABLES_ALLOW_SKIP` names `oidc`.
pub fn provider_available(test: &str) -> bool {
    if provider_dir().join("node_modules/oidc-provider").is_dir() {
        return true;
    }
    crate::skip::cannot_run(
        test,
        "oidc",
        "oidc-provider is not installed: run tests/oidc/setup (tests/run does)",
    );
    false
}

/// A person's tokens, as the provider's token endpoint answered.
#[derive(Debug, Clone)]
pub struct Tokens {
    /// The access token (a JWT for [`AUDIENCE`]).
    pub access_token: String,
    /// The refresh token, when the provider gave one.
    pub refresh_token: Option<String>,
}

/// A running provider.
pub struct Provider {
    /// Its issuer, `http://127.0.0.1:PORT`.
    pub issuer: String,
    child: Child,
    http: reqwest::Client,
}

impl Provider {
    /// Starts the provider and waits until it listens.
    pub fn start() -> Provider {
        let mut child = Command::new("node")
            .arg("provider.mjs")
            .arg(AUDIENCE)
            .current_dir(provider_dir())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("node starts the provider");
        let stdout = child.stdout.take().expect("the provider's output");
        let (line, read) = std::sync::mpsc::channel();
        // Its output is read to the end, so that nothing it writes later
        // finds the pipe closed.
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut first = String::new();
            let _ = reader.read_line(&mut first);
            let _ = line.send(first);
            let _ = std::io::copy(&mut reader, &mut std::io::sink());
        });
        let first = read
            .recv_timeout(PATIENCE)
            .expect("the provider says where it listens");
        let said: Value = serde_json::from_str(&first)
            .unwrap_or_else(|error| panic!("the provider's first line {first:?}: {error}"));
        learnables_examples::install_crypto_provider();
        Provider {
            issuer: said["issuer"].as_str().expect("an issuer").to_owned(),
            child,
            http: reqwest::Client::builder()
                .timeout(PATIENCE)
                .build()
                .expect("a client"),
        }
    }

    /// The token the client `id` gets for itself (client credentials),
    /// for `resource` ([`AUDIENCE`] when `None`).
    pub async fn client_token(&self, id: &str, secret: &str, resource: Option<&str>) -> String {
        let mut form = vec![
            ("grant_type", "client_credentials"),
            ("scope", "learnables"),
        ];
        if let Some(resource) = resource {
            form.push(("resource", resource));
        }
        let answer: Value = self
            .http
            .post(format!("{}/token", self.issuer))
            .basic_auth(id, Some(secret))
            .form(&form)
            .send()
            .await
            .expect("the token endpoint answers")
            .json()
            .await
            .expect("a JSON answer");
        answer["access_token"]
            .as_str()
            .unwrap_or_else(|| panic!("no access token: {answer}"))
            .to_owned()
    }

    /// `person`'s tokens by the device authorization grant of the client
    /// `learnables-cli`: the code approved in `browser` as the person
    /// would (the link opened, the device confirmed, signed in).
    pub async fn sign_in(&self, browser: &Browser, person: &str) -> Tokens {
        let started: Value = self
            .http
            .post(format!("{}/device/auth", self.issuer))
            .form(&[
                ("client_id", "learnables-cli"),
                ("scope", "openid email offline_access"),
            ])
            .send()
            .await
            .expect("the device authorization endpoint answers")
            .json()
            .await
            .expect("a JSON answer");
        let link = started["verification_uri_complete"]
            .as_str()
            .unwrap_or_else(|| panic!("no verification link: {started}"));
        approve(browser, link, person).await;
        let answer: Value = self
            .http
            .post(format!("{}/token", self.issuer))
            .form(&[
                ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"),
                ("client_id", "learnables-cli"),
                (
                    "device_code",
                    started["device_code"].as_str().expect("a device code"),
                ),
            ])
            .send()
            .await
            .expect("the token endpoint answers")
            .json()
            .await
            .expect("a JSON answer");
        Tokens {
            access_token: answer["access_token"]
                .as_str()
                .unwrap_or_else(|| panic!("no access token: {answer}"))
                .to_owned(),
            refresh_token: answer["refresh_token"].as_str().map(str::to_owned),
        }
    }

    /// Makes the provider sign with a new key of `algorithm` (`ES256`,
    /// `EdDSA`, `RS256`), the old ones still published; its key id.
    pub async fn rotate(&self, algorithm: &str) -> String {
        let answer: Value = self
            .http
            .post(format!("{}/test/rotate?alg={algorithm}", self.issuer))
            .send()
            .await
            .expect("the provider rotates its key")
            .json()
            .await
            .expect("a JSON answer");
        answer["kid"].as_str().expect("a key id").to_owned()
    }
}

impl Drop for Provider {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Approves a device code at `link` in `browser` as `person`: confirms the
/// device, signs in on the provider's page (any password), allows offline
/// access, and waits for
/// the provider to say so.
pub async fn approve(browser: &Browser, link: &str, person: &str) {
    browser.client.goto(link).await.expect("the link opens");
    until_heading(browser, "Confirm Device").await;
    click(browser, "//button[@autofocus]").await;
    until_heading(browser, "Sign-in").await;
    let login = browser
        .client
        .find(Locator::Css("input[name=login]"))
        .await
        .expect("the login field");
    login.send_keys(person).await.expect("the login is typed");
    let password = browser
        .client
        .find(Locator::Css("input[name=password]"))
        .await
        .expect("the password field");
    password
        .send_keys("any password\u{e007}")
        .await
        .expect("the password is typed");
    // The provider asks the person to allow offline access (the refresh
    // token) every time.
    until_heading(browser, "Authorize").await;
    click(browser, "//button[@autofocus]").await;
    until_heading(browser, "Sign-in Success").await;
}

/// Waits until the page's heading reads `heading`.
async fn until_heading(browser: &Browser, heading: &str) {
    let started = Instant::now();
    let expression = format!(
        "return Array.from(document.querySelectorAll('h1')).some(h => h.textContent.trim() === {});",
        js(heading)
    );
    loop {
        if matches!(
            browser.client.execute(&expression, vec![]).await,
            Ok(Value::Bool(true))
        ) {
            return;
        }
        if started.elapsed() > PATIENCE {
            let text = browser.eval("document.body.innerText").await;
            panic!(
                "the provider's page never read {heading:?}; it reads:\n{}",
                text.as_str().unwrap_or_default()
            );
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Clicks the element `xpath` finds.
async fn click(browser: &Browser, xpath: &str) {
    browser
        .client
        .find(Locator::XPath(xpath))
        .await
        .unwrap_or_else(|error| panic!("no `{xpath}`: {error}"))
        .click()
        .await
        .expect("it clicks");
}
