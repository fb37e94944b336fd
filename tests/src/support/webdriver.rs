//! A WebDriver client of the few commands the browser tests send (W3C
//! WebDriver over HTTP, JSON in and out, to the chromedriver on
//! 127.0.0.1 that [`Browser`](super::browser::Browser) starts): a session,
//! navigation, scripts, elements found by CSS, XPath or id, their text,
//! attributes and properties, clicks and keys, screenshots and alerts.
//!
//! A client of our own rather than a WebDriver crate: the one the tests
//! used brought 23 crates of its own into every test build (a second
//! Unicode segmenter among them), for these few requests.

use std::fmt;
use std::time::Duration;

use base64::Engine as _;
use serde_json::{Value, json};

/// The key under which WebDriver names an element (W3C WebDriver, "web
/// element identifier").
const ELEMENT_KEY: &str = "element-6066-11e4-a52e-4f735466cecf";

/// The longest a single command may take, starting Chromium included.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(60);

/// What a command failed with: the HTTP failure, or WebDriver's error code
/// and message.
#[derive(Debug)]
pub struct WebDriverError(String);

impl fmt::Display for WebDriverError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for WebDriverError {}

/// How an element is found.
#[derive(Debug, Clone, Copy)]
pub enum Locator<'a> {
    /// A CSS selector.
    Css(&'a str),
    /// An XPath expression.
    XPath(&'a str),
    /// The element's `id`.
    Id(&'a str),
}

impl Locator<'_> {
    fn body(self) -> Value {
        match self {
            Locator::Css(selector) => json!({"using": "css selector", "value": selector}),
            Locator::XPath(path) => json!({"using": "xpath", "value": path}),
            Locator::Id(id) => {
                json!({"using": "css selector", "value": format!("[id={}]", Value::from(id))})
            }
        }
    }
}

/// One WebDriver session.
#[derive(Debug, Clone)]
pub struct Client {
    http: reqwest::Client,
    /// `http://127.0.0.1:PORT/session/ID`.
    session: String,
}

/// An element of the page, as the session knows it.
#[derive(Debug, Clone)]
pub struct Element {
    client: Client,
    id: String,
}

impl Client {
    /// A new session with `capabilities`, at the WebDriver server `base`
    /// (`http://127.0.0.1:PORT`).
    pub async fn connect(base: &str, capabilities: Value) -> Result<Client, WebDriverError> {
        // reqwest's rustls needs the process's provider, even for plain HTTP.
        learnables_examples::install_crypto_provider();
        let http = reqwest::Client::builder()
            .timeout(COMMAND_TIMEOUT)
            .build()
            .map_err(|error| WebDriverError(format!("no HTTP client: {error}")))?;
        let body = json!({"capabilities": {"alwaysMatch": capabilities}});
        let value = send(
            &http,
            reqwest::Method::POST,
            &format!("{base}/session"),
            Some(body),
        )
        .await?;
        let id = value["sessionId"]
            .as_str()
            .ok_or_else(|| WebDriverError(format!("a new session without an id: {value}")))?;
        Ok(Client {
            http,
            session: format!("{base}/session/{id}"),
        })
    }

    async fn get(&self, path: &str) -> Result<Value, WebDriverError> {
        let url = format!("{}{path}", self.session);
        send(&self.http, reqwest::Method::GET, &url, None).await
    }

    async fn post(&self, path: &str, body: Value) -> Result<Value, WebDriverError> {
        let url = format!("{}{path}", self.session);
        send(&self.http, reqwest::Method::POST, &url, Some(body)).await
    }

    /// Goes to `url`.
    pub async fn goto(&self, url: &str) -> Result<(), WebDriverError> {
        self.post("/url", json!({"url": url})).await.map(drop)
    }

    /// Runs `script` (a function body) with `args`; what it returns.
    pub async fn execute(&self, script: &str, args: Vec<Value>) -> Result<Value, WebDriverError> {
        self.post("/execute/sync", json!({"script": script, "args": args}))
            .await
    }

    /// The element that has the focus.
    pub async fn active_element(&self) -> Result<Element, WebDriverError> {
        let value = self.get("/element/active").await?;
        self.element(&value)
    }

    /// The first element `locator` finds.
    pub async fn find(&self, locator: Locator<'_>) -> Result<Element, WebDriverError> {
        let value = self.post("/element", locator.body()).await?;
        self.element(&value)
    }

    /// Every element `locator` finds, in document order.
    pub async fn find_all(&self, locator: Locator<'_>) -> Result<Vec<Element>, WebDriverError> {
        let value = self.post("/elements", locator.body()).await?;
        self.elements(&value)
    }

    /// The page's title.
    pub async fn title(&self) -> Result<String, WebDriverError> {
        text(self.get("/title").await?)
    }

    /// The page's address.
    pub async fn current_url(&self) -> Result<String, WebDriverError> {
        text(self.get("/url").await?)
    }

    /// Resizes the window to `width` x `height`.
    pub async fn set_window_size(&self, width: u32, height: u32) -> Result<(), WebDriverError> {
        self.post("/window/rect", json!({"width": width, "height": height}))
            .await
            .map(drop)
    }

    /// The text of the open alert; an error when none is open.
    pub async fn get_alert_text(&self) -> Result<String, WebDriverError> {
        text(self.get("/alert/text").await?)
    }

    /// A PNG of the page.
    pub async fn screenshot(&self) -> Result<Vec<u8>, WebDriverError> {
        let encoded = text(self.get("/screenshot").await?)?;
        base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .map_err(|error| WebDriverError(format!("a screenshot not in base64: {error}")))
    }

    /// Ends the session: the browser quits.
    pub async fn close(self) -> Result<(), WebDriverError> {
        send(&self.http, reqwest::Method::DELETE, &self.session, None)
            .await
            .map(drop)
    }

    fn element(&self, value: &Value) -> Result<Element, WebDriverError> {
        let id = value[ELEMENT_KEY]
            .as_str()
            .ok_or_else(|| WebDriverError(format!("not an element: {value}")))?;
        Ok(Element {
            client: self.clone(),
            id: id.to_owned(),
        })
    }

    fn elements(&self, value: &Value) -> Result<Vec<Element>, WebDriverError> {
        let list = value
            .as_array()
            .ok_or_else(|| WebDriverError(format!("not a list of elements: {value}")))?;
        list.iter().map(|value| self.element(value)).collect()
    }
}

impl Element {
    async fn get(&self, path: &str) -> Result<Value, WebDriverError> {
        self.client
            .get(&format!("/element/{}{path}", self.id))
            .await
    }

    async fn post(&self, path: &str, body: Value) -> Result<Value, WebDriverError> {
        self.client
            .post(&format!("/element/{}{path}", self.id), body)
            .await
    }

    /// Clicks it.
    pub async fn click(&self) -> Result<(), WebDriverError> {
        self.post("/click", json!({})).await.map(drop)
    }

    /// Types `keys` into it (WebDriver's key codes, `\u{e007}` for Enter,
    /// included).
    pub async fn send_keys(&self, keys: &str) -> Result<(), WebDriverError> {
        self.post("/value", json!({"text": keys})).await.map(drop)
    }

    /// Empties it (an input).
    pub async fn clear(&self) -> Result<(), WebDriverError> {
        self.post("/clear", json!({})).await.map(drop)
    }

    /// Its rendered text.
    pub async fn text(&self) -> Result<String, WebDriverError> {
        text(self.get("/text").await?)
    }

    /// Its attribute `name`, if it has one.
    pub async fn attr(&self, name: &str) -> Result<Option<String>, WebDriverError> {
        optional_text(self.get(&format!("/attribute/{name}")).await?)
    }

    /// Its property `name` as text, if set.
    pub async fn prop(&self, name: &str) -> Result<Option<String>, WebDriverError> {
        optional_text(self.get(&format!("/property/{name}")).await?)
    }

    /// Its computed CSS property `name`.
    pub async fn css_value(&self, name: &str) -> Result<String, WebDriverError> {
        text(self.get(&format!("/css/{name}")).await?)
    }

    /// Its tag's name, in lower case.
    pub async fn tag_name(&self) -> Result<String, WebDriverError> {
        text(self.get("/name").await?)
    }

    /// Whether it is shown.
    pub async fn is_displayed(&self) -> Result<bool, WebDriverError> {
        let value = self.get("/displayed").await?;
        value
            .as_bool()
            .ok_or_else(|| WebDriverError(format!("displayed is not a boolean: {value}")))
    }

    /// The first element inside it that `locator` finds.
    pub async fn find(&self, locator: Locator<'_>) -> Result<Element, WebDriverError> {
        let value = self.post("/element", locator.body()).await?;
        self.client.element(&value)
    }

    /// Chooses the option whose value is `value` (a select).
    pub async fn select_by_value(&self, value: &str) -> Result<(), WebDriverError> {
        let selector = format!("option[value={}]", Value::from(value));
        self.find(Locator::Css(&selector)).await?.click().await
    }
}

/// Sends one command; its `value`, or the error WebDriver answered.
async fn send(
    http: &reqwest::Client,
    method: reqwest::Method,
    url: &str,
    body: Option<Value>,
) -> Result<Value, WebDriverError> {
    let mut request = http.request(method, url);
    if let Some(body) = body {
        request = request
            .header("content-type", "application/json")
            .body(body.to_string());
    }
    let failed = |error: reqwest::Error| WebDriverError(format!("{url}: {error}"));
    let response = request.send().await.map_err(failed)?;
    let status = response.status();
    let bytes = response.bytes().await.map_err(failed)?;
    let answer: Value = serde_json::from_slice(&bytes).map_err(|error| {
        WebDriverError(format!("{url} answered {status} with no JSON: {error}"))
    })?;
    let value = answer.get("value").cloned().unwrap_or(Value::Null);
    if !status.is_success() || value.get("error").is_some() {
        return Err(WebDriverError(format!(
            "{url} answered {status}: {} ({})",
            value["error"].as_str().unwrap_or("no error code"),
            value["message"].as_str().unwrap_or("no message")
        )));
    }
    Ok(value)
}

fn text(value: Value) -> Result<String, WebDriverError> {
    match value {
        Value::String(text) => Ok(text),
        other => Err(WebDriverError(format!("not text: {other}"))),
    }
}

fn optional_text(value: Value) -> Result<Option<String>, WebDriverError> {
    match value {
        Value::Null => Ok(None),
        Value::String(text) => Ok(Some(text)),
        other => Ok(Some(other.to_string())),
    }
}
