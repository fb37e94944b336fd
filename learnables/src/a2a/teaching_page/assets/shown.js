// Text from outside (the agent's card, questions, answers and refusals, a
// teacher's lessons), shown to a person with every character that could
// make it read as something else written as a visible escape: the same
// characters and the same notation as the command's `learnables::untrusted`
// (`\u{202e}`, `\t`, `\r`), so "Pay to IBAN \u{202e}0987654321" never reads
// as another account number.

// Control characters (C0, DEL, C1), bidirectional controls and invisible
// characters, as `learnables::untrusted::is_hazard` lists them; and lone
// surrogates, which no Rust string holds but a JSON string can.
const HAZARD =
  /[\u0000-\u001f\u007f-\u009f\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb\ufffe\uffff\u{110bd}\u{110cd}\u{13430}-\u{1343f}\u{1bca0}-\u{1bca3}\u{1d173}-\u{1d17a}\u{e0000}-\u{e007f}\ud800-\udfff]/u;
const HAZARDS = new RegExp(HAZARD.source, "gu");

const SHORT = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

function escaped(character) {
  return SHORT[character] ?? `\\u{${character.codePointAt(0).toString(16)}}`;
}

// `text` for a person to read on one line: every hazard escaped, `\n`
// included. Anything but a string shows as nothing.
export function shown(text) {
  return typeof text === "string" ? text.replace(HAZARDS, escaped) : "";
}

// `text` as a paragraph: its line feeds kept (the page shows them as
// spaces), every other hazard escaped.
export function shownParagraph(text) {
  return typeof text === "string"
    ? text.replace(HAZARDS, (c) => (c === "\n" ? c : escaped(c)))
    : "";
}

// Whether `text` holds a character `shown` would escape: such a text is
// never put in an input, where it would show as it is.
export function hasHazard(text) {
  return typeof text === "string" && HAZARD.test(text);
}

// Sets `node`'s text to `text`, shown safely (as text, never as HTML).
export function setText(node, text) {
  node.textContent = shown(text);
}
