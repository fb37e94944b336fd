//! A doc comment's Markdown as the plain text a label or help shows: what
//! rustdoc renders as formatting (code spans, emphasis, links, headings,
//! code fences) reduced to the words it formats, everything else as written.
//!
//! Written here rather than taken from a CommonMark parser
//! (`pulldown-cmark`): labels and help are a line or a short paragraph of a
//! field's doc comment, of which only the inline marks need undoing, and a
//! full parser would be a dependency of every agent for that. What this
//! does not recognise (HTML, tables, reference definitions) stays as
//! written, which is what a person would read in the source.

/// `markdown` as plain text: each line's marks undone, code fences dropped
/// (their lines kept), heading and quote markers taken off.
pub(crate) fn plain_text(markdown: &str) -> String {
    if !markdown.contains(['`', '*', '_', '[', '<', '\\', '#', '>', '~']) {
        return markdown.to_owned();
    }
    let mut lines = Vec::new();
    for line in markdown.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            continue;
        }
        let indent = &line[..line.len() - trimmed.len()];
        let body = heading_text(trimmed)
            .or_else(|| trimmed.strip_prefix("> "))
            .unwrap_or(trimmed);
        lines.push(format!("{indent}{}", inline(body)));
    }
    lines.join("\n")
}

/// The text of an ATX heading (`## Title`), without its markers.
fn heading_text(line: &str) -> Option<&str> {
    let hashes = line.chars().take_while(|c| *c == '#').count();
    if !(1..=6).contains(&hashes) {
        return None;
    }
    let rest = &line[hashes..];
    if rest.is_empty() {
        return Some("");
    }
    let text = rest.strip_prefix(' ')?;
    Some(text.trim_end().trim_end_matches('#').trim_end())
}

/// One line's inline marks undone.
fn inline(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    while at < chars.len() {
        let c = chars[at];
        match c {
            '\\' if chars.get(at + 1).is_some_and(char::is_ascii_punctuation) => {
                out.push(chars[at + 1]);
                at += 2;
            }
            '`' => {
                let (code, next) = code_span(&chars, at);
                out.push_str(&code);
                at = next;
            }
            '!' if chars.get(at + 1) == Some(&'[') => match link(&chars, at + 1) {
                Some((label, next)) => {
                    out.push_str(&inline(&label));
                    at = next;
                }
                None => {
                    out.push(c);
                    at += 1;
                }
            },
            '[' => match link(&chars, at) {
                Some((label, next)) => {
                    out.push_str(&inline(&label));
                    at = next;
                }
                None => {
                    out.push(c);
                    at += 1;
                }
            },
            '<' => match autolink(&chars, at) {
                Some((url, next)) => {
                    out.push_str(&url);
                    at = next;
                }
                None => {
                    out.push(c);
                    at += 1;
                }
            },
            '*' | '_' | '~' => match emphasis(&chars, at) {
                Some((inner, next)) => {
                    out.push_str(&inline(&inner));
                    at = next;
                }
                None => {
                    // A run that opens nothing is text, all of it.
                    let run = run_length(&chars, at);
                    out.extend(&chars[at..at + run]);
                    at += run;
                }
            },
            _ => {
                out.push(c);
                at += 1;
            }
        }
    }
    out
}

fn run_length(chars: &[char], at: usize) -> usize {
    chars[at..].iter().take_while(|c| **c == chars[at]).count()
}

/// A code span opening at `at`: its content and where it ends; the
/// backticks as text when no run of the same length closes it.
fn code_span(chars: &[char], at: usize) -> (String, usize) {
    let run = run_length(chars, at);
    let mut close = at + run;
    while close < chars.len() {
        if chars[close] == '`' {
            let length = run_length(chars, close);
            if length == run {
                let content: String = chars[at + run..close].iter().collect();
                // One space on each side is padding, not content.
                let content = match content.strip_prefix(' ').and_then(|c| c.strip_suffix(' ')) {
                    Some(inner) if !inner.trim().is_empty() => inner.to_owned(),
                    _ => content,
                };
                return (content, close + length);
            }
            close += length;
        } else {
            close += 1;
        }
    }
    (chars[at..at + run].iter().collect(), at + run)
}

/// A link opening at the `[` at `at`: `[text](destination)`,
/// `[text][reference]`, `[text][]`, or rustdoc's ``[`Item`]``; its text and
/// where it ends. A bare `[words]` is text as written.
fn link(chars: &[char], at: usize) -> Option<(String, usize)> {
    let close = matching(chars, at, '[', ']')?;
    let label: String = chars[at + 1..close].iter().collect();
    match chars.get(close + 1) {
        Some('(') => {
            let end = matching(chars, close + 1, '(', ')')?;
            Some((label, end + 1))
        }
        Some('[') => {
            let end = matching(chars, close + 1, '[', ']')?;
            Some((label, end + 1))
        }
        _ if label.starts_with('`') && label.ends_with('`') && label.len() > 1 => {
            Some((label, close + 1))
        }
        _ => None,
    }
}

/// The index of the `close` that balances the `open` at `at`.
fn matching(chars: &[char], at: usize, open: char, close: char) -> Option<usize> {
    let mut depth = 0usize;
    let mut index = at;
    while index < chars.len() {
        match chars[index] {
            '\\' => index += 1,
            c if c == open => depth += 1,
            c if c == close => {
                depth -= 1;
                if depth == 0 {
                    return Some(index);
                }
            }
            _ => {}
        }
        index += 1;
    }
    None
}

/// `<scheme:...>` or `<name@host>`: the address and where it ends.
fn autolink(chars: &[char], at: usize) -> Option<(String, usize)> {
    let end = at + chars[at..].iter().position(|c| *c == '>')?;
    let inner: String = chars[at + 1..end].iter().collect();
    let is_url = inner.split_once(':').is_some_and(|(scheme, _)| {
        scheme.len() >= 2
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
    });
    let is_mail = inner.contains('@') && !inner.contains(' ');
    ((is_url || is_mail) && !inner.contains(char::is_whitespace)).then_some((inner, end + 1))
}

/// Emphasis opening at `at` (`*x*`, `**x**`, `_x_`, `__x__`, `~~x~~`): its
/// content and where it ends, when the run opens (a word follows it; for
/// `_`, none precedes it) and a run of the same length closes it.
fn emphasis(chars: &[char], at: usize) -> Option<(String, usize)> {
    let mark = chars[at];
    let run = run_length(chars, at);
    if (mark == '~' && run != 2) || run > 3 {
        return None;
    }
    let before = at.checked_sub(1).map(|i| chars[i]);
    let after = chars.get(at + run)?;
    if after.is_whitespace() || (mark == '_' && before.is_some_and(char::is_alphanumeric)) {
        return None;
    }
    let mut index = at + run;
    while index < chars.len() {
        if chars[index] == '`' {
            index = code_span(chars, index).1;
            continue;
        }
        if chars[index] == mark {
            let length = run_length(chars, index);
            let previous = chars[index - 1];
            let next = chars.get(index + length);
            let closes = length == run
                && !previous.is_whitespace()
                && !(mark == '_' && next.is_some_and(|c| c.is_alphanumeric()));
            if closes {
                return Some((chars[at + run..index].iter().collect(), index + length));
            }
            index += length;
        } else {
            index += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::plain_text;

    #[test]
    fn inline_marks_are_undone() {
        for (markdown, plain) in [
            ("The `HS` chapter", "The HS chapter"),
            ("Limit in *euros*", "Limit in euros"),
            ("**Strong** and __strong__", "Strong and strong"),
            ("_Emphasis_ here", "Emphasis here"),
            ("~~Old~~ new", "Old new"),
            (
                "See [the tariff](https://example.com/tariff)",
                "See the tariff",
            ),
            (
                "See [the tariff][tariff] and [`Desk`]",
                "See the tariff and Desk",
            ),
            ("A [`Desk`](crate::Desk) choice", "A Desk choice"),
            ("Mail <desk@example.com>", "Mail desk@example.com"),
            ("Page <https://example.com>", "Page https://example.com"),
            ("An ![icon](i.png) here", "An icon here"),
            ("Literal \\*stars\\*", "Literal *stars*"),
            ("``a `b` c``", "a `b` c"),
            ("*nested `code`*", "nested code"),
        ] {
            assert_eq!(plain_text(markdown), plain, "{markdown}");
        }
    }

    #[test]
    fn what_is_not_markdown_stays_as_written() {
        for text in [
            "review_after days",
            "2 * 3 * 4",
            "a_b_c",
            "[optional] note",
            "x < y > z",
            "Price in € (net)",
            "C# and F#",
            "an `unclosed code span",
            "**",
            "snake_case_name and _",
        ] {
            assert_eq!(plain_text(text), text, "{text}");
        }
    }

    #[test]
    fn block_marks_are_taken_off() {
        assert_eq!(
            plain_text("## Heading ##\n> quoted `x`\n```\ncode\n```\n- item *one*"),
            "Heading\nquoted x\ncode\n- item one"
        );
    }
}
