//! The teacher's page: a small web page, served by the agent itself, on
//! which a person signs in with their token, reads what the agent can be
//! taught, teaches it through the `lessonFields` form, answers a question's
//! teach block with its suggestion prefilled, and sees an entry shown back
//! with its history of versions.
//!
//! The page is plain HTML, CSS and JavaScript modules compiled into the
//! binary (no build step, no CDN, no external font), and talks to the agent
//! only as any client can: the agent card, the teach method the card names,
//! `rsaxb.learnables.ShowBack` and `GetTask` over JSON-RPC. Every response
//! carries a strict Content-Security-Policy (no inline script, no `eval`,
//! nothing from another origin, no framing), `X-Content-Type-Options:
//! nosniff` and `Referrer-Policy: no-referrer`.
//!
//! A person signs in with their email and token: the token stays in the
//! tab's session storage (never in a URL or a cookie) and goes to the agent
//! as `Authorization: Bearer`, with the activation header, on every call;
//! the email is the lessons' `taughtBy`, which the agent refuses unless it
//! is the token's principal. Sign-in checks the token with a show-back of no
//! entry, which the agent authenticates before it reads it.
//!
//! A question opened by [`task_link`] is only ever the agent's own: the
//! message by which the agent put the task in input-required (its status
//! message, `ROLE_AGENT`), never a message of the task's history, where a
//! client's own message, teach block in its metadata included, is kept
//! too. The form is always the card's (its fields, labels, choices and
//! what each choice means): a teach block, from a task or from
//! [`block_link`], narrows the entries and suggests values, and a
//! suggestion the card's field would refuse is left out where the teacher
//! sees it. Every text from the agent or a teacher is shown with its
//! control, bidirectional and invisible characters escaped, as
//! [`Untrusted`](crate::untrusted::Untrusted) escapes them on a terminal.
//!
//! Off unless the agent mounts [`router`] (feature `teaching-page`). A
//! question can link to the page with [`task_link`] or [`block_link`].

mod link;

pub use link::{block_link, task_link};

use axum::Router;
use axum::extract::Request;
use axum::http::header::{
    CACHE_CONTROL, CONTENT_SECURITY_POLICY, CONTENT_TYPE, ETAG, IF_NONE_MATCH, LOCATION,
    REFERRER_POLICY, X_CONTENT_TYPE_OPTIONS, X_FRAME_OPTIONS,
};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

/// The Content-Security-Policy of every page response: scripts, styles and
/// images from the agent only, no inline script or `eval`, fetches to the
/// agent only, no form posts, no `<base>`, and no framing.
///
/// ```
/// use learnables::a2a::teaching_page::CONTENT_SECURITY_POLICY_VALUE;
/// assert!(CONTENT_SECURITY_POLICY_VALUE.contains("frame-ancestors 'none'"));
/// ```
pub const CONTENT_SECURITY_POLICY_VALUE: &str = "default-src 'none'; script-src 'self'; \
    style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'none'; \
    base-uri 'none'; frame-ancestors 'none'";

/// One file of the page.
struct Asset {
    name: &'static str,
    content_type: &'static str,
    body: &'static [u8],
}

const HTML: &str = "text/html; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";
const JS: &str = "text/javascript; charset=utf-8";
const SVG: &str = "image/svg+xml";

const fn asset(name: &'static str, content_type: &'static str, body: &'static [u8]) -> Asset {
    Asset {
        name,
        content_type,
        body,
    }
}

/// The page's files: `index.html` at the page's own path.
const ASSETS: &[Asset] = &[
    asset("", HTML, include_bytes!("assets/index.html")),
    asset("page.css", CSS, include_bytes!("assets/page.css")),
    asset("page.js", JS, include_bytes!("assets/page.js")),
    asset("agent.js", JS, include_bytes!("assets/agent.js")),
    asset("form.js", JS, include_bytes!("assets/form.js")),
    asset("question.js", JS, include_bytes!("assets/question.js")),
    asset("shown.js", JS, include_bytes!("assets/shown.js")),
    asset("review.js", JS, include_bytes!("assets/review.js")),
    asset("words.js", JS, include_bytes!("assets/words.js")),
    asset("icon.svg", SVG, include_bytes!("assets/icon.svg")),
];

/// A router serving the teacher's page at `path` (a path ending in `/`,
/// such as `/learnables/`; a missing leading or trailing slash is added).
/// The path without its trailing slash redirects to it. Merge it into the
/// agent's router; it answers nothing else.
///
/// ```
/// use axum::Router;
/// use learnables::a2a::teaching_page;
/// let router: Router = Router::new().merge(teaching_page::router("/learnables/"));
/// ```
pub fn router(path: &str) -> Router {
    let base = normalized(path);
    let mut router = Router::new();
    for asset in ASSETS {
        router = router.route(
            &format!("{base}{}", asset.name),
            get(move |headers: HeaderMap| async move { serve(asset, &headers) }),
        );
    }
    if base != "/" {
        let bare = base.trim_end_matches('/').to_owned();
        let target = base.clone();
        router = router.route(
            &bare,
            get(move |request: Request| async move {
                let location = match request.uri().query() {
                    Some(query) => format!("{target}?{query}"),
                    None => target,
                };
                page_response(StatusCode::PERMANENT_REDIRECT, location_header(&location))
            }),
        );
    }
    router
}

/// `path` with one leading and one trailing slash.
fn normalized(path: &str) -> String {
    let inner = path.trim_matches('/');
    if inner.is_empty() {
        "/".to_owned()
    } else {
        format!("/{inner}/")
    }
}

fn location_header(location: &str) -> HeaderMap {
    let mut headers = HeaderMap::new();
    if let Ok(value) = HeaderValue::from_str(location) {
        headers.insert(LOCATION, value);
    }
    headers
}

/// A response with the page's security headers.
fn page_response(status: StatusCode, mut headers: HeaderMap) -> Response {
    headers.insert(
        CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY_VALUE),
    );
    headers.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    headers.insert(X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    let mut response = (status, headers).into_response();
    // The page's scripts name the extension's URI (they activate it), and
    // no question is ever in them: the layer passes them on as they are.
    response.extensions_mut().insert(super::CarriesNoTeachBlock);
    response
}

fn serve(asset: &'static Asset, request: &HeaderMap) -> Response {
    let etag = etag(asset.body);
    let mut headers = HeaderMap::new();
    // Revalidated on every load, so that an upgraded agent serves its new
    // page at once; unchanged files cost a 304.
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    if let Ok(value) = HeaderValue::from_str(&etag) {
        headers.insert(ETAG, value);
    }
    let unchanged = request
        .get_all(IF_NONE_MATCH)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .any(|tag| tag.trim() == etag);
    if unchanged {
        return page_response(StatusCode::NOT_MODIFIED, headers);
    }
    headers.insert(CONTENT_TYPE, HeaderValue::from_static(asset.content_type));
    let mut response = page_response(StatusCode::OK, headers);
    *response.body_mut() = axum::body::Body::from(asset.body);
    response
}

/// A strong entity tag of `body` (FNV-1a, 64 bits).
fn etag(body: &[u8]) -> String {
    let hash = body.iter().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("\"{hash:016x}\"")
}

#[cfg(test)]
mod tests {
    use super::{etag, normalized};

    #[test]
    fn paths_are_normalized() {
        assert_eq!(normalized("/learnables/"), "/learnables/");
        assert_eq!(normalized("learnables"), "/learnables/");
        assert_eq!(normalized("/a/b"), "/a/b/");
        assert_eq!(normalized("/"), "/");
        assert_eq!(normalized(""), "/");
    }

    #[test]
    fn entity_tags_follow_the_bytes() {
        assert_eq!(etag(b"a"), etag(b"a"));
        assert_ne!(etag(b"a"), etag(b"b"));
        assert!(etag(b"").starts_with('"') && etag(b"").ends_with('"'));
    }
}
