//! Text a person reads on the teacher's page, in a real browser against the
//! example agent: a lesson's bidirectional and control characters are shown
//! as visible escapes, in the notation of the command
//! (`learnables::untrusted`), in the show-back and in the history, so that
//! "Pay to IBAN \u{202e}0987654321\u{202c} only" never reads as "Pay to
//! IBAN 1234567890 only".

use learnables_tests::support::agent as agent_harness;
use learnables_tests::support::browser as browser_harness;

use agent_harness::Agent;
use browser_harness::{Browser, browser_available, control, runtime, submit, type_into};
use learnables::untrusted::{Untrusted, is_hazard};
use serde_json::json;

/// A note whose digits a right-to-left override turns around.
const NOTE: &str = "Pay to IBAN \u{202e}0987654321\u{202c} only";
/// A reason with a bell, a tab, a carriage return and a zero-width space.
const REASON: &str = "Agreed\u{7} with\tthe bank\r\u{200b}";

/// Every character of `text` that would act or hide instead of being read
/// (a line feed is the browser's own, between blocks).
fn hazards(text: &str) -> Vec<char> {
    text.chars()
        .filter(|c| *c != '\n' && is_hazard(*c))
        .collect()
}

#[test]
fn bidi_and_control_characters_show_as_escapes_as_the_command_shows_them() {
    if !browser_available("bidi_and_control_characters_show_as_escapes_as_the_command_shows_them") {
        return;
    }
    let data = tempfile::tempdir().expect("a temporary directory");
    let agent = Agent::start(data.path());
    for (desk, note) in [
        ("general", "Ask before clearing"),
        ("dangerous-goods", NOTE),
    ] {
        let reply = agent.call(
            learnables::TEACH_METHOD,
            json!({
                "collection": "routing_rules",
                "entry": "85",
                "value": {"chapter": "85", "desk": desk, "note": note},
                "taughtBy": "alice@example.com",
                "reason": REASON,
            }),
        );
        assert_eq!(reply.result()["learned"], true, "{:?}", reply.result());
    }
    // As the command shows them.
    let note = Untrusted::new(NOTE).to_string();
    let reason = Untrusted::new(REASON).to_string();
    assert_eq!(note, r"Pay to IBAN \u{202e}0987654321\u{202c} only");
    assert_eq!(reason, r"Agreed\u{7} with\tthe bank\r\u{200b}");
    let page = format!("{}learnables/", agent.base_url);

    runtime().block_on(async {
        let browser = Browser::start(1000, 1200).await;
        browser.open(&page).await;
        browser.sign_in("alice-token").await;
        browser.click_button("Show a routing rule back").await;
        type_into(&control(&browser, "show-back-form", "Entry").await, "85").await;
        submit(&browser, "show-back-form").await;
        browser
            .until(
                "!document.getElementById('show-back-result').hidden && document.querySelectorAll('#show-back-history > li').length === 2",
                "chapter 85 is shown back with its two versions",
            )
            .await;

        let details = browser.text("#show-back-details").await;
        assert!(details.contains(&note), "the show-back reads:\n{details}");
        assert!(details.contains(&reason), "the show-back reads:\n{details}");
        let history = browser.text("#show-back-history").await;
        assert!(
            history.contains(&format!("Note for the broker: Ask before clearing → {note}")),
            "the history reads:\n{history}"
        );
        assert!(history.contains(&format!("Why: {reason}")), "the history reads:\n{history}");
        let text = browser.eval("document.body.textContent").await;
        let text = text.as_str().unwrap_or_default();
        assert_eq!(hazards(text), [] as [char; 0], "the page shows them raw");
        browser.screenshot("15-bidi-escaped").await;
        browser.close().await;
    });
}

#[test]
fn the_page_escapes_the_characters_the_command_escapes_in_its_notation() {
    if !browser_available("the_page_escapes_the_characters_the_command_escapes_in_its_notation") {
        return;
    }
    let data = tempfile::tempdir().expect("a temporary directory");
    let agent = Agent::start(data.path());
    let page = format!("{}learnables/", agent.base_url);
    // Every character the command escapes, and its escapes of them all.
    let escaped: Vec<u32> = (0..=0x10_ffff_u32)
        .filter_map(char::from_u32)
        .filter(|c| is_hazard(*c))
        .map(u32::from)
        .collect();
    let all: String = escaped.iter().filter_map(|c| char::from_u32(*c)).collect();
    let command = Untrusted::new(&all).max_chars(usize::MAX).to_string();

    runtime().block_on(async {
        let browser = Browser::start(800, 600).await;
        browser.open(&page).await;
        browser
            .eval("(import('./shown.js').then((module) => { window.shownModule = module; }), true)")
            .await;
        browser
            .until("window.shownModule", "the page's module loads")
            .await;
        let shown = browser
            .eval(&format!(
                "window.shownModule.shown({})",
                browser_harness::js(&all)
            ))
            .await;
        assert_eq!(shown.as_str(), Some(command.as_str()));
        // Which characters the page escapes, of every one there is.
        let on_the_page = browser
            .eval(
                "(() => { const out = []; for (let cp = 0; cp <= 0x10ffff; cp++) { \
                 if (cp >= 0xd800 && cp <= 0xdfff) continue; const c = String.fromCodePoint(cp); \
                 if (window.shownModule.shown(c) !== c) out.push(cp); } return out; })()",
            )
            .await;
        let on_the_page: Vec<u32> = serde_json::from_value(on_the_page).expect("code points");
        assert_eq!(on_the_page, escaped);
        browser.close().await;
    });
}
