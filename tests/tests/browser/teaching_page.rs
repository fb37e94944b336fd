//! The teacher's page in a real browser (headless Chromium through
//! WebDriver) against the example agent: sign in, teach through the form,
//! answer a question with its suggestion, see a refusal next to its field,
//! show an entry back with its history; a hostile card runs no script; and
//! every page response carries the security headers.
//!
//! Screenshots of the main views are saved under
//! `target/teaching-page-screenshots/`.

use learnables_tests::support::agent as agent_harness;
use learnables_tests::support::browser as browser_harness;

use agent_harness::{ACTIVATED, Agent};
use browser_harness::{
    Browser, browser_available, control, error_of, runtime, submit, type_into, value_of,
};
use learnables::a2a::json_rpc::{BAD_REQUEST_TYPE, codes};
use learnables::a2a::teaching_page::{self, CONTENT_SECURITY_POLICY_VALUE};
use learnables_tests::support::webdriver::Locator;
use serde_json::{Value, json};

const TAB: &str = "\u{e004}";
const ENTER: &str = "\u{e007}";

#[test]
fn a_teacher_teaches_answers_a_question_and_sees_what_the_agent_learned() {
    if !browser_available("a_teacher_teaches_answers_a_question_and_sees_what_the_agent_learned") {
        return;
    }
    let data = tempfile::tempdir().expect("a temporary directory");
    let agent = Agent::start(data.path());
    // A question the agent asks, with a teach block on it.
    let task = agent.route(72, None, &[ACTIVATED]);
    let task_id = task["id"].as_str().expect("a task id").to_owned();
    assert_eq!(task["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
    let page = format!("{}learnables/", agent.base_url);

    runtime().block_on(async {
        let browser = Browser::start(1000, 1000).await;
        let client = &browser.client;
        browser.open(&page).await;

        // What a person sees before signing in: the agent and what it can be taught.
        assert_eq!(browser.text("#agent-name").await, "Customs agent");
        let learnables = browser.text("#learnables").await;
        assert!(learnables.contains("Which desk handles a declaration"), "{learnables}");
        assert!(learnables.contains("How it decides today"), "{learnables}");
        assert!(
            learnables.contains("A table keyed on the HS chapter"),
            "{learnables}"
        );
        // In words, without the collection's internal name.
        assert!(learnables.contains("Decided by"), "{learnables}");
        assert!(learnables.contains("fixed rules"), "{learnables}");
        assert!(!learnables.contains("routing_rules"), "{learnables}");
        browser.screenshot("1-sign-in").await;
        // Signed out, nothing says who is signed in, and no link hints at a
        // question: none was opened.
        assert_eq!(
            browser
                .eval("getComputedStyle(document.getElementById('who')).display")
                .await,
            json!("none")
        );
        assert!(!browser.text("body").await.contains("Signed in as"));
        assert_eq!(
            browser.eval("document.getElementById('question-waiting').hidden").await,
            json!(true)
        );
        // Nobody types who they are: the form asks for the token alone.
        assert_eq!(
            browser
                .eval("document.querySelectorAll('#sign-in-form input').length")
                .await,
            json!(1)
        );

        // Keyboard only: the token field has the focus; a wrong token is
        // refused next to it.
        let focused = client.active_element().await.expect("a focused element");
        assert_eq!(focused.attr("type").await.unwrap().as_deref(), Some("password"));
        focused
            .send_keys(&format!("wrong-token{ENTER}"))
            .await
            .unwrap();
        let token = control(&browser, "sign-in-form", "Your token").await;
        browser
            .until(
                "document.querySelector('#sign-in-form [aria-invalid=true]')",
                "a wrong token is refused",
            )
            .await;
        let refusal = error_of(&browser, &token).await.expect("the token's error");
        assert!(refusal.contains("not valid"), "{refusal}");
        assert_eq!(browser.eval("sessionStorage.length").await, json!(0));
        token.clear().await.unwrap();
        token.send_keys(&format!("alice-token{ENTER}")).await.unwrap();
        browser
            .until("!document.getElementById('who').hidden", "signing in")
            .await;
        // The agent says whom the token names.
        assert_eq!(browser.text("#who-name").await, "alice@example.com");
        // The focus moves on to what can be taught, not to the page's body.
        assert_eq!(
            browser.eval("document.activeElement.id").await,
            json!("learnables-title")
        );
        // The token is kept in this tab's session storage only.
        assert_eq!(
            browser.eval("sessionStorage.getItem('learnables.token')").await,
            json!("alice-token")
        );
        assert_eq!(browser.eval("document.cookie").await, json!(""));
        assert!(!client.current_url().await.unwrap().as_str().contains("alice-token"));

        // Tab to "Teach a routing rule"; the focus shows; Enter opens the form.
        let mut reached = false;
        for _ in 0..40 {
            let focused = client.active_element().await.unwrap();
            if focused.text().await.unwrap_or_default() == "Teach a routing rule" {
                let outline = focused.css_value("outline-style").await.unwrap();
                assert_ne!(outline, "none", "the focused button shows its focus");
                focused.send_keys(ENTER).await.unwrap();
                reached = true;
                break;
            }
            focused.send_keys(TAB).await.unwrap();
        }
        assert!(reached, "the teach button is reachable with the keyboard");
        browser
            .until("!document.getElementById('teach').hidden", "the teach form opens")
            .await;

        // The form, as lessonFields say: labels above, help under, the
        // choice a select starting on its default; the chapter, the entry's
        // key, asked for once.
        let entry = control(&browser, "teach-form", "HS chapter").await;
        let chapter = entry.clone();
        assert_eq!(
            browser
                .eval("[...document.querySelectorAll('#teach-form label')].filter(l => l.textContent === 'HS chapter').length")
                .await,
            json!(1),
            "the chapter is typed once"
        );
        let desk = control(&browser, "teach-form", "Desk").await;
        assert_eq!(desk.tag_name().await.unwrap(), "select");
        assert_eq!(value_of(&desk).await, "general");
        // Each choice with what it means, from the variant's doc comment.
        assert_eq!(
            browser
                .eval("[...document.querySelector('#teach-form select').options].map(o => o.textContent)")
                .await,
            json!([
                "general: Everything without a specialist desk.",
                "dangerous-goods: Hazardous materials.",
                "cold chain: Goods that must stay cold."
            ])
        );
        let help = browser
            .eval("[...document.querySelectorAll('#teach-form .help')].map(h => h.textContent).join('|')")
            .await;
        assert!(
            help.as_str().unwrap_or_default().contains("Two-digit chapter of the Harmonized System"),
            "{help}"
        );
        assert_eq!(
            client.active_element().await.unwrap().attr("id").await.unwrap(),
            entry.attr("id").await.unwrap(),
            "the entry field has the focus"
        );
        type_into(&entry, "85").await;
        desk.select_by_value("dangerous-goods").await.unwrap();
        let reason = control(&browser, "teach-form", "Why (optional)").await;
        type_into(&reason, "Lithium batteries are dangerous goods").await;
        submit(&browser, "teach-form").await;
        browser
            .until("!document.getElementById('teach-result').hidden", "the lesson is taught")
            .await;
        assert_eq!(
            browser.text("#teach-describes").await,
            "Chapter 85 declarations now go to the dangerous-goods desk"
        );
        assert_eq!(
            browser.text("#teach-version").await,
            "Learned. Tasks that start from now on use it."
        );
        browser.screenshot("2-taught").await;

        // A refusal is shown next to the field it names.
        type_into(&chapter, "eighty-six").await;
        submit(&browser, "teach-form").await;
        browser
            .until(
                "!document.getElementById('teach-error').hidden",
                "the lesson is refused",
            )
            .await;
        assert_eq!(chapter.attr("aria-invalid").await.unwrap().as_deref(), Some("true"));
        let refusal = error_of(&browser, &chapter).await.expect("the chapter's error");
        assert!(!refusal.is_empty());
        assert!(error_of(&browser, &desk).await.is_none(), "only the field at fault is marked");
        let focused = client.active_element().await.unwrap().attr("id").await.unwrap();
        assert_eq!(focused, chapter.attr("id").await.unwrap(), "the focus moves to the field at fault");
        browser.screenshot("3-refusal").await;

        // A question link: the task's teach block, its suggestion prefilled.
        client
            .goto(&teaching_page::task_link(&page, &task_id))
            .await
            .unwrap();
        browser
            .until(
                "!document.getElementById('question').hidden && document.getElementById('teach-form').elements.length > 0",
                "the question opens",
            )
            .await;
        let asked = browser.text("#question-text").await;
        assert!(asked.contains("HS chapter 72"), "{asked}");
        assert_eq!(
            browser.text("#suggestion-label").await,
            "Suggested: Unmatched chapters go to the general desk today"
        );
        let entry = control(&browser, "teach-form", "HS chapter").await;
        assert_eq!(value_of(&entry).await, "72");
        assert_eq!(entry.attr("readonly").await.unwrap().as_deref(), Some("true"));
        assert_eq!(value_of(&control(&browser, "teach-form", "Desk").await).await, "general");
        browser.eval("window.scrollTo(0, 0) || true").await;
        browser.screenshot("4-question").await;
        submit(&browser, "teach-form").await;
        browser
            .until("!document.getElementById('teach-result').hidden", "the answer is taught")
            .await;
        assert_eq!(
            browser.text("#teach-describes").await,
            "Chapter 72 declarations now go to the general desk"
        );

        // A teach block in the link: its entry and its choice on the card's
        // own form; a link fills in no free text.
        let block = json!({
            "collection": "routing_rules",
            "entries": ["30"],
            "suggested": {"chapter": 30, "desk": "cold chain", "note": "Keep between 2 and 8 C"},
            "suggestionLabel": "Pharmaceuticals travel cold"
        });
        let block: learnables::TeachBlock = serde_json::from_value(block).expect("a teach block");
        client
            .goto(&teaching_page::block_link(&page, &block))
            .await
            .unwrap();
        browser
            .until(
                "document.getElementById('suggestion-label').textContent.includes('Pharmaceuticals')",
                "the block opens",
            )
            .await;
        assert_eq!(value_of(&control(&browser, "teach-form", "HS chapter").await).await, "30");
        assert_eq!(value_of(&control(&browser, "teach-form", "Desk").await).await, "cold chain");
        let note = control(&browser, "teach-form", "Note for the broker").await;
        assert_eq!(note.attr("type").await.unwrap().as_deref(), Some("text"));
        assert_eq!(value_of(&note).await, "");
        let left_out = browser.text("#suggestion-dropped").await;
        assert!(
            left_out.contains("Note for the broker \"Keep between 2 and 8 C\": a link fills in no free text"),
            "{left_out}"
        );
        type_into(&note, "Keep between 2 and 8 C").await;
        submit(&browser, "teach-form").await;
        browser
            .until("!document.getElementById('teach-result').hidden", "the block is taught")
            .await;
        assert!(
            browser.text("#teach-describes").await.starts_with("Chapter 30 declarations now go to the cold chain desk"),
        );

        // Teach chapter 85 again, then show it back with its history.
        client.goto(&page).await.unwrap();
        browser
            .until("document.body.dataset.ready === 'true'", "the page restarts")
            .await;
        browser.click_button("Teach a routing rule").await;
        let chapter = control(&browser, "teach-form", "HS chapter").await;
        type_into(&chapter, &format!("85{TAB}")).await;
        // The choice picked from the keyboard: Tab to it, type its start.
        let desk = client.active_element().await.unwrap();
        assert_eq!(desk.prop("name").await.unwrap().as_deref(), Some("desk"));
        desk.send_keys("cold").await.unwrap();
        assert_eq!(value_of(&desk).await, "cold chain");
        type_into(
            &control(&browser, "teach-form", "Why (optional)").await,
            "Battery shipments now need cooling",
        )
        .await;
        submit(&browser, "teach-form").await;
        browser
            .until("!document.getElementById('teach-result').hidden", "the second lesson")
            .await;
        client
            .find(Locator::Id("teach-show-back"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        browser
            .until(
                "!document.getElementById('show-back-result').hidden && document.querySelectorAll('#show-back-history > li').length === 2",
                "the entry is shown back with its history",
            )
            .await;
        assert_eq!(
            browser.text("#show-back-describes").await,
            "Chapter 85 declarations now go to the cold chain desk"
        );
        let details = browser.text("#show-back-details").await;
        for expected in ["alice@example.com", "Battery shipments now need cooling", "cold chain", "Desk"] {
            assert!(details.contains(expected), "{expected} in {details}");
        }
        let history = browser.text("#show-back-history").await;
        assert!(history.contains("dangerous-goods desk"), "{history}");
        assert!(history.contains("Lithium batteries are dangerous goods"), "{history}");
        browser.screenshot("5-show-back").await;

        // Every control has its label.
        assert_eq!(
            browser
                .eval("[...document.querySelectorAll('input, select, textarea')].every(c => c.labels.length === 1)")
                .await,
            json!(true)
        );
        // Readable on a phone: nothing wider than the screen.
        client.set_window_size(390, 844).await.unwrap();
        browser
            .until(
                "document.documentElement.scrollWidth <= window.innerWidth",
                "the page fits a phone's width",
            )
            .await;
        client.find(Locator::Id("teach")).await.unwrap();
        browser.screenshot("6-phone").await;
        browser.close().await;
    });

    // The agent learned what the page taught, from alice.
    let shown = agent.call(
        "rsaxb.learnables.ShowBack",
        json!({"collection": "routing_rules", "entry": "72"}),
    );
    assert_eq!(shown.result()["taughtBy"], "alice@example.com");
    assert_eq!(
        shown.result()["describes"],
        "Chapter 72 declarations now go to the general desk"
    );
    let refused = agent.call(
        "rsaxb.learnables.ShowBack",
        json!({"collection": "routing_rules", "entry": "86"}),
    );
    assert_eq!(
        refused.field(),
        Some("entry"),
        "the refused lesson taught nothing"
    );
}

/// Text that runs script wherever it is taken as HTML or as a link, and
/// reads as something else where its bidi and control characters act.
const PAYLOAD: &str = "<img src=x onerror=\"window.__pwned=1;document.title='pwned'\">\
    <script>window.__pwned=2;document.title='pwned'</script>\
    <svg onload=\"window.__pwned=3\"></svg><a href=\"javascript:window.__pwned=4\">x</a>\
    \u{202e}0987654321\u{202c}\u{1b}[31m\u{200b}\r";

/// `text` as the page shows it: escaped as the command escapes it.
fn shown(text: &str) -> String {
    learnables::untrusted::Untrusted::new(text)
        .max_chars(usize::MAX)
        .to_string()
}
const JS_LINK: &str = "javascript:window.__pwned=5;document.title='pwned'";

#[test]
fn a_question_opened_before_signing_in_waits_then_its_answer_completes_the_task() {
    if !browser_available(
        "a_question_opened_before_signing_in_waits_then_its_answer_completes_the_task",
    ) {
        return;
    }
    let data = tempfile::tempdir().expect("a temporary directory");
    let agent = Agent::start(data.path());
    let task = agent.route(61, None, &[ACTIVATED]);
    let task_id = task["id"].as_str().expect("a task id").to_owned();
    let page = format!("{}learnables/", agent.base_url);

    runtime().block_on(async {
        let browser = Browser::start(1000, 1000).await;
        let client = &browser.client;
        client
            .goto(&teaching_page::task_link(&page, &task_id))
            .await
            .expect("the page opens");
        browser
            .until("document.body.dataset.ready === 'true'", "the page starts")
            .await;
        // Signed out, the page says a question waits, without showing it.
        assert_eq!(
            browser.eval("document.getElementById('question-waiting').hidden").await,
            json!(false)
        );
        assert!(
            browser
                .text("#sign-in")
                .await
                .contains("The agent has a question waiting for you")
        );
        assert_eq!(
            browser.eval("document.getElementById('question').hidden").await,
            json!(true)
        );
        browser.screenshot("0-question-waiting").await;

        let focused = client.active_element().await.expect("a focused element");
        focused.send_keys(&format!("alice-token{ENTER}")).await.unwrap();
        browser
            .until(
                "!document.getElementById('question').hidden && document.getElementById('teach-form').elements.length > 0",
                "the question opens once signed in",
            )
            .await;
        assert!(browser.text("#question-text").await.contains("HS chapter 61"));
        assert_eq!(
            browser.eval("document.getElementById('question-waiting').hidden").await,
            json!(true)
        );
        // The focus is in the form that answers the question.
        assert_eq!(
            browser
                .eval("document.getElementById('teach').contains(document.activeElement)")
                .await,
            json!(true)
        );
        // The chapter is the question's entry, asked for once and not
        // typed; the desk is picked, and the lesson resumes the task that
        // asked, which the page says with the agent's answer.
        assert_eq!(
            value_of(&control(&browser, "teach-form", "HS chapter").await).await,
            "61"
        );
        control(&browser, "teach-form", "Desk")
            .await
            .select_by_value("cold chain")
            .await
            .unwrap();
        submit(&browser, "teach-form").await;
        browser
            .until(
                "!document.getElementById('teach-answered').hidden",
                "the page says the question is answered",
            )
            .await;
        assert_eq!(
            browser.text("#teach-answered").await,
            "The agent's question is answered: Chapter 61 declarations go to the cold chain desk."
        );
        assert_eq!(
            browser.eval("document.getElementById('question').hidden").await,
            json!(true),
            "the question is closed"
        );
        browser.screenshot("12-question-answered").await;
        // The link again: the question is answered already.
        client.goto(&format!("{page}#")).await.unwrap();
        client
            .goto(&teaching_page::task_link(&page, &task_id))
            .await
            .unwrap();
        browser
            .until(
                "document.body.dataset.ready === 'true' && !document.getElementById('question').hidden",
                "the page reopens the link",
            )
            .await;
        assert_eq!(
            browser.text("#question-text").await,
            "This question is answered already: Chapter 61 declarations go to the cold chain desk."
        );
        assert_eq!(browser.eval("document.getElementById('teach').hidden").await, json!(true));
        browser.close().await;
    });
    // The task that asked is completed, with the new rule's answer.
    let task = agent.call_with("GetTask", json!({"id": task_id}), &[ACTIVATED]);
    assert_eq!(task.result()["status"]["state"], "TASK_STATE_COMPLETED");
}

/// Lesson fields full of payloads, one of an unknown kind.
fn hostile_fields() -> Value {
    json!([
        {"name": "chapter", "label": PAYLOAD, "kind": "text", "help": JS_LINK, "default": PAYLOAD},
        {"name": "desk", "label": PAYLOAD, "kind": "choice", "choices": [PAYLOAD, JS_LINK], "default": PAYLOAD, "help": PAYLOAD},
        {"name": "note", "label": JS_LINK, "kind": PAYLOAD, "default": JS_LINK},
        {"name": "__proto__", "label": "__proto__", "kind": "text", "default": PAYLOAD}
    ])
}

fn hostile_card() -> Value {
    json!({
        "name": format!("Customs {PAYLOAD}"),
        "description": PAYLOAD,
        "version": "1.0.0",
        "supportedInterfaces": [{"url": JS_LINK, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {"extensions": [{
            "uri": learnables::EXTENSION_URI,
            "required": false,
            "params": {
                "teachMethod": learnables::TEACH_METHOD,
                "learnables": [{
                    "collection": "routing_rules",
                    "entry": PAYLOAD,
                    "teaches": PAYLOAD,
                    "how": PAYLOAD,
                    "decidedBy": JS_LINK,
                    "lessonFields": hostile_fields()
                }]
            }
        }]},
        "skills": [],
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"]
    })
}

/// A hostile agent's answers: every text a payload.
async fn hostile_rpc(body: axum::body::Bytes) -> axum::Json<Value> {
    let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let id = request["id"].clone();
    let params = &request["params"];
    let answer = match request["method"].as_str().unwrap_or_default() {
        "rsaxb.learnables.Teacher" => json!({"result": {"teacher": PAYLOAD}}),
        "rsaxb.learnables.ShowBack" if params["entry"] == "" => {
            json!({"error": {"code": codes::NOT_FOUND, "message": PAYLOAD, "data": [{
                "@type": BAD_REQUEST_TYPE,
                "fieldViolations": [{"field": "entry", "description": PAYLOAD}]
            }]}})
        }
        "rsaxb.learnables.ShowBack" => json!({"result": {
            "collection": "routing_rules", "entry": PAYLOAD, "describes": PAYLOAD,
            "lessonFields": hostile_fields(), "definitionVersion": 2, "versionId": PAYLOAD,
            "previousVersionId": JS_LINK, "collectionVersion": 2, "taughtBy": PAYLOAD,
            "reason": PAYLOAD, "taughtAt": PAYLOAD
        }}),
        "rsaxb.learnables.Teach" if params["value"]["chapter"] == "refuse" => json!({"error": {
            "code": -32602, "message": PAYLOAD,
            "data": [{
                "@type": BAD_REQUEST_TYPE,
                "fieldViolations": [{"field": "value.chapter", "description": PAYLOAD}]
            }]
        }}),
        "rsaxb.learnables.Teach" => json!({"result": {
            "learned": true, "describes": PAYLOAD, "definitionVersion": 1, "versionId": PAYLOAD
        }}),
        "GetTask" => json!({"result": {
            "id": "t1", "contextId": "c1",
            "status": {"state": "TASK_STATE_INPUT_REQUIRED", "message": {
                "messageId": "m1", "role": "ROLE_AGENT", "parts": [{"text": PAYLOAD}],
                "metadata": {learnables::EXTENSION_URI: {"teach": {
                    "collection": "routing_rules", "entries": [PAYLOAD, JS_LINK],
                    "suggested": {"chapter": PAYLOAD, "desk": JS_LINK},
                    "suggestionLabel": PAYLOAD, "lessonFields": hostile_fields()
                }}}
            }}
        }}),
        _ => json!({"error": {"code": -32601, "message": PAYLOAD}}),
    };
    let mut answer = answer;
    answer["jsonrpc"] = json!("2.0");
    answer["id"] = id;
    axum::Json(answer)
}

/// Whether any script from a payload ran, or left HTML behind, or any of
/// its bidi and control characters shows raw.
async fn assert_nothing_ran(browser: &Browser, title: &str) {
    assert_eq!(
        browser.eval("window.__pwned === undefined").await,
        json!(true)
    );
    assert_eq!(browser.client.title().await.unwrap(), title);
    let text = browser.eval("document.body.textContent").await;
    let raw: Vec<char> = text
        .as_str()
        .unwrap_or_default()
        .chars()
        .filter(|c| *c != '\n' && learnables::untrusted::is_hazard(*c))
        .collect();
    assert!(raw.is_empty(), "the page shows {raw:?} raw");
    assert!(
        browser.client.get_alert_text().await.is_err(),
        "no alert is open"
    );
    assert_eq!(browser.eval("document.images.length").await, json!(0));
    assert_eq!(browser.eval("document.scripts.length").await, json!(1));
    assert_eq!(
        browser
            .eval("document.querySelectorAll('svg, a, iframe, object, embed').length")
            .await,
        json!(0)
    );
    assert_eq!(
        browser
            .eval("[...document.querySelectorAll('*')].some(e => [...e.attributes].some(a => a.name.startsWith('on') || /javascript:/i.test(a.value) && a.name !== 'value'))")
            .await,
        json!(false),
        "no element carries a handler or a javascript: link"
    );
}

#[test]
fn a_hostile_card_block_and_answers_run_no_script() {
    if !browser_available("a_hostile_card_block_and_answers_run_no_script") {
        return;
    }
    runtime().block_on(async {
        let router = axum::Router::new()
            .route(
                "/.well-known/agent-card.json",
                axum::routing::get(|| async { axum::Json(hostile_card()) }),
            )
            .route("/", axum::routing::post(hostile_rpc))
            .merge(learnables::a2a::teaching_page::router("/learnables/"));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let server = tokio::spawn(async move { axum::serve(listener, router).await });
        let page = format!("http://{address}/learnables/");
        let title = format!("Teach Customs {}", shown(PAYLOAD));

        let browser = Browser::start(1000, 1000).await;
        let client = &browser.client;
        client.goto(&page).await.unwrap();
        browser
            .until("document.body.dataset.ready === 'true'", "the page starts")
            .await;
        // The payloads are shown as the text they are, escaped.
        assert_eq!(
            browser.text("#agent-name").await,
            format!("Customs {}", shown(PAYLOAD))
        );
        assert!(browser.text("#learnables").await.contains(&shown(PAYLOAD)));
        assert_nothing_ran(&browser, &title).await;

        let token = control(&browser, "sign-in-form", "Your token").await;
        type_into(&token, &format!("t0ken{ENTER}")).await;
        browser
            .until("!document.getElementById('who').hidden", "signing in")
            .await;
        // The agent's word for whom the token names is shown as text.
        assert_eq!(browser.text("#who-name").await, shown(PAYLOAD));
        assert_nothing_ran(&browser, &title).await;

        // A question whose text, block and fields are payloads.
        client.goto(&format!("{page}#task=t1")).await.unwrap();
        browser
            .until(
                "!document.getElementById('question').hidden",
                "the question opens",
            )
            .await;
        assert_eq!(browser.text("#question-text").await, shown(PAYLOAD));
        assert_nothing_ran(&browser, &title).await;
        submit(&browser, "teach-form").await;
        browser
            .until(
                "!document.getElementById('teach-result').hidden",
                "the answer is taught",
            )
            .await;
        assert_eq!(browser.text("#teach-describes").await, shown(PAYLOAD));
        assert_nothing_ran(&browser, &title).await;

        // A refusal whose message is a payload, next to its field.
        let labels = browser
            .client
            .find_all(Locator::Css("#teach-form label"))
            .await
            .unwrap();
        let chapter_id = labels[1].attr("for").await.unwrap().unwrap();
        let chapter = client.find(Locator::Id(&chapter_id)).await.unwrap();
        type_into(&chapter, "refuse").await;
        submit(&browser, "teach-form").await;
        browser
            .until(
                "!document.getElementById('teach-error').hidden",
                "the refusal",
            )
            .await;
        assert_eq!(error_of(&browser, &chapter).await, Some(shown(PAYLOAD)));
        assert_nothing_ran(&browser, &title).await;

        // A show-back of payloads.
        client
            .find(Locator::Css(".learnable .actions button.secondary"))
            .await
            .expect("the show-back button")
            .click()
            .await
            .unwrap();
        let entry = control(&browser, "show-back-form", "Entry").await;
        type_into(&entry, &format!("85{ENTER}")).await;
        browser
            .until(
                "!document.getElementById('show-back-result').hidden",
                "the show-back",
            )
            .await;
        assert_eq!(browser.text("#show-back-describes").await, shown(PAYLOAD));
        assert!(
            browser
                .text("#show-back-details")
                .await
                .contains(&shown(PAYLOAD))
        );
        browser.screenshot("7-hostile-card").await;
        assert_nothing_ran(&browser, &title).await;
        browser.close().await;
        server.abort();
    });
}

#[test]
fn every_page_response_carries_the_security_headers() {
    let data = tempfile::tempdir().expect("a temporary directory");
    let agent = Agent::start(data.path());
    learnables_examples::install_crypto_provider();
    let client = reqwest::blocking::Client::new();
    for (name, content_type) in [
        ("", "text/html; charset=utf-8"),
        ("page.js", "text/javascript; charset=utf-8"),
        ("agent.js", "text/javascript; charset=utf-8"),
        ("form.js", "text/javascript; charset=utf-8"),
        ("question.js", "text/javascript; charset=utf-8"),
        ("shown.js", "text/javascript; charset=utf-8"),
        ("page.css", "text/css; charset=utf-8"),
        ("icon.svg", "image/svg+xml"),
    ] {
        let url = format!("{}learnables/{name}", agent.base_url);
        let response = client.get(&url).send().expect("the page answers");
        assert_eq!(response.status(), 200, "{url}");
        let headers = response.headers().clone();
        let header = |name: &str| {
            headers
                .get(name)
                .and_then(|value| value.to_str().ok())
                .unwrap_or_else(|| panic!("{url} has no {name}"))
                .to_owned()
        };
        assert_eq!(header("content-type"), content_type, "{url}");
        assert_eq!(
            header("content-security-policy"),
            CONTENT_SECURITY_POLICY_VALUE
        );
        assert!(CONTENT_SECURITY_POLICY_VALUE.contains("frame-ancestors 'none'"));
        assert!(!CONTENT_SECURITY_POLICY_VALUE.contains("unsafe"));
        assert_eq!(header("x-content-type-options"), "nosniff");
        assert_eq!(header("referrer-policy"), "no-referrer");
        assert_eq!(header("cache-control"), "no-cache");
        let etag = header("etag");
        let body = response.text().expect("a body");
        assert!(!body.is_empty());
        if name.is_empty() {
            // No inline script or style, no handler attribute.
            assert!(
                !body.contains("<script>") && !body.contains("style="),
                "{body}"
            );
            assert!(!has_handler_attribute(&body), "{body}");
        }
        if name.ends_with(".js") {
            for sink in [
                "innerHTML",
                "outerHTML",
                "insertAdjacentHTML",
                "document.write",
                "eval(",
                "Function(",
            ] {
                assert!(!body.contains(sink), "{name} uses {sink}");
            }
        }
        // Unchanged: 304, with the headers still on it.
        let again = client
            .get(&url)
            .header("if-none-match", &etag)
            .send()
            .unwrap();
        assert_eq!(again.status(), 304, "{url}");
        assert_eq!(
            again.headers()["content-security-policy"],
            CONTENT_SECURITY_POLICY_VALUE
        );
    }
    // The path without its slash redirects to the page.
    let reply = agent.raw(b"GET /learnables HTTP/1.1\r\nHost: agent\r\nConnection: close\r\n\r\n");
    assert_eq!(reply.status, 308);
    assert_eq!(
        reply.header("location").collect::<Vec<_>>(),
        ["/learnables/"]
    );
    // Other paths are the agent's, not the page's.
    let missing = client
        .get(format!("{}learnables/other.js", agent.base_url))
        .send()
        .unwrap();
    assert_ne!(missing.status(), 200);
}

/// Whether `html` has an attribute like `onload=`.
fn has_handler_attribute(html: &str) -> bool {
    html.match_indices(" on").any(|(at, _)| {
        let rest = &html[at + 3..];
        let name_length = rest.chars().take_while(char::is_ascii_alphabetic).count();
        name_length > 0 && rest[name_length..].starts_with('=')
    })
}

#[test]
fn handler_attributes_are_recognized() {
    assert!(has_handler_attribute("<img src=x onerror=alert(1)>"));
    assert!(!has_handler_attribute("<p>Signed in as someone</p>"));
}

#[test]
fn the_page_is_off_unless_the_agent_mounts_it() {
    use learnables::a2a::{LearnablesService, Tokens};
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime");
    let address = runtime.block_on(async {
        let service = LearnablesService::new(
            learnables::Knowledge::in_memory(),
            learnables_examples::customs_declaration(),
            Tokens::new(),
        );
        let card = serde_json::to_value(learnables_examples::customs_agent::agent_card(
            "http://127.0.0.1/",
        ))
        .unwrap();
        let router = service.router(card, axum::Router::new()).unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, router).await });
        address
    });
    learnables_examples::install_crypto_provider();
    let client = reqwest::blocking::Client::new();
    let card = client
        .get(format!("http://{address}/.well-known/agent-card.json"))
        .send()
        .unwrap();
    assert_eq!(card.status(), 200, "the agent is up");
    let page = client
        .get(format!("http://{address}/learnables/"))
        .send()
        .unwrap();
    assert_eq!(page.status(), 404);
    drop(runtime);
}
