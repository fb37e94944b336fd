// Forms built from lessonFields, as the spec says: the label above the
// input, help under it, a `choice` as a select starting on its default, any
// other kind as a text input (a date picker for `date`), the default
// prefilled. A list of choices is a multi-select, a list of text a box of
// one item a line; a field's checks are the input's attributes and words
// under it. Every text is set with textContent or value, never as HTML,
// and every text shown is escaped as `shown` says.

import { hasHazard, shown } from "./shown.js";

let counter = 0;

// An element with `text` as its text, shown safely.
export function el(tag, text = null, className = null) {
  const node = document.createElement(tag);
  if (text !== null) node.textContent = shown(text);
  if (className) node.className = className;
  return node;
}

// A labelled field around `control`: label above, help and error text under
// it, both tied to the control by aria-describedby.
export function field(control, label, help) {
  const id = `f${++counter}`;
  control.id = id;
  const wrapper = el("div", null, "field");
  const labelNode = el("label", label);
  labelNode.htmlFor = id;
  wrapper.append(labelNode, control);
  const described = [];
  if (help) {
    const helpNode = el("p", help, "help");
    helpNode.id = `${id}-help`;
    wrapper.append(helpNode);
    described.push(helpNode.id);
  }
  const error = el("p", null, "error");
  error.id = `${id}-error`;
  error.hidden = true;
  wrapper.append(error);
  if (described.length) control.setAttribute("aria-describedby", described.join(" "));
  return {
    wrapper,
    control,
    showError(message) {
      error.textContent = shown(message);
      error.hidden = false;
      control.setAttribute("aria-invalid", "true");
      control.setAttribute("aria-describedby", [error.id, ...described].join(" "));
      wrapper.classList.add("invalid");
    },
    clearError() {
      error.textContent = "";
      error.hidden = true;
      control.removeAttribute("aria-invalid");
      if (described.length) control.setAttribute("aria-describedby", described.join(" "));
      else control.removeAttribute("aria-describedby");
      wrapper.classList.remove("invalid");
    },
  };
}

// A text input holding `value`.
export function textInput(value) {
  const input = document.createElement("input");
  input.type = "text";
  input.autocomplete = "off";
  input.value = value ?? "";
  return input;
}

// A select of `choices` starting on `selected` (or on an empty "Choose…"
// when none of them is selected), each shown as its `labels` entry if given.
export function select(choices, selected, labels = choices) {
  const control = document.createElement("select");
  if (!choices.includes(selected)) {
    const none = el("option", "Choose…");
    none.value = "";
    control.append(none);
  }
  for (const [index, choice] of choices.entries()) {
    const option = el("option", labels[index] || choice);
    option.value = choice;
    control.append(option);
  }
  control.value = choices.includes(selected) ? selected : "";
  return control;
}

// The checks of `spec` in words, for under the field: "At least 100, at
// most 1,000,000." "At most 200 characters." (as the agent refuses them).
export function checksInWords(spec) {
  const grouped = (bound) => (typeof bound === "number" ? bound.toLocaleString("en-US") : String(bound));
  const unit = (n) => (spec.list ? (n === 1 ? "item" : "items") : n === 1 ? "character" : "characters");
  const parts = [];
  if (spec.minimum !== null && spec.minimum !== undefined) parts.push(`at least ${grouped(spec.minimum)}`);
  if (spec.maximum !== null && spec.maximum !== undefined) parts.push(`at most ${grouped(spec.maximum)}`);
  if (spec.minLength !== null && spec.minLength !== undefined) parts.push(`at least ${spec.minLength} ${unit(spec.minLength)}`);
  if (spec.maxLength !== null && spec.maxLength !== undefined) parts.push(`at most ${spec.maxLength} ${unit(spec.maxLength)}`);
  if (spec.pattern) parts.push(`matching the pattern ${spec.pattern}`);
  const words = parts.join(", ");
  return words ? `${words[0].toUpperCase()}${words.slice(1)}.` : null;
}

// A number's bounds, a text's lengths and pattern as the input's own
// attributes, so that the browser says them before the agent does.
function constrain(control, spec) {
  if (spec.valueType === "integer" || spec.valueType === "number") {
    control.type = "number";
    control.step = spec.valueType === "integer" ? "1" : "any";
  }
  const isNumber = control.type === "number" || control.type === "date";
  if (isNumber && spec.minimum !== null && spec.minimum !== undefined) control.min = String(spec.minimum);
  if (isNumber && spec.maximum !== null && spec.maximum !== undefined) control.max = String(spec.maximum);
  if (control.type === "text" && spec.minLength !== null && spec.minLength !== undefined) control.minLength = spec.minLength;
  if (control.type === "text" && spec.maxLength !== null && spec.maxLength !== undefined) control.maxLength = spec.maxLength;
  if (control.type === "text" && spec.pattern) control.pattern = spec.pattern;
}

// A list's items from a prefill: an array as it is, a text one item a line.
function items(value) {
  if (Array.isArray(value)) return value.map((item) => (typeof item === "string" ? item : JSON.stringify(item)));
  if (typeof value === "string") return value.split("\n").map((item) => item.trim()).filter((item) => item !== "");
  return [];
}

// A list's control: a multi-select of its choices, or a box of lines.
function listControl(spec, start, labels) {
  if (labels) {
    const control = document.createElement("select");
    control.multiple = true;
    for (const [index, choice] of spec.choices.entries()) {
      const option = el("option", labels[index] || choice);
      option.value = choice;
      option.selected = start.includes(choice);
      control.append(option);
    }
    return control;
  }
  const control = document.createElement("textarea");
  control.rows = Math.max(3, start.length + 1);
  control.value = start.join("\n");
  return control;
}

// A list control's items: the options chosen, or the lines written.
function listValue(control) {
  if (control.tagName === "SELECT") return [...control.selectedOptions].map((option) => option.value);
  return items(control.value);
}

// A prefill as text: strings as they are, other JSON written out.
function asText(value) {
  if (value === undefined || value === null) return null;
  return typeof value === "string" ? value : JSON.stringify(value);
}

// The inputs of `fields`, each starting on `prefill[name]` when given,
// else on its default. `values()` reads the lesson value (empty inputs
// left out), `showError(name, message)` puts a refusal next to a field.
export function lessonForm(fields, prefill = {}) {
  const byName = new Map();
  const nodes = [];
  for (const spec of fields) {
    if (spec.list) {
      const isChoice = spec.kind === "choice" && Array.isArray(spec.choices) && spec.choices.length > 0;
      const labels = isChoice
        ? spec.choices.map((c, i) => (spec.choiceDescriptions?.[i] ? `${c}: ${spec.choiceDescriptions[i]}` : c))
        : null;
      const start = items(Object.hasOwn(prefill, spec.name) ? prefill[spec.name] : spec.default);
      const control = listControl(spec, start, labels);
      control.name = spec.name;
      const how = isChoice ? "Choose one or more." : "One a line.";
      const words = [spec.help, how, checksInWords(spec)].filter(Boolean).join(" ");
      const built = field(control, spec.label, words);
      built.list = true;
      byName.set(spec.name, built);
      nodes.push(built.wrapper);
      continue;
    }
    let start = asText(Object.hasOwn(prefill, spec.name) ? prefill[spec.name] : null) ?? spec.default;
    const isChoice = spec.kind === "choice" && Array.isArray(spec.choices) && spec.choices.length > 0;
    let help = spec.help;
    // A text input shows its value as it is (a select shows its choices
    // escaped): a default that would read as something else is named in
    // the help instead, and the field starts empty.
    if (!isChoice && hasHazard(start)) {
      help = `${help ? `${help} ` : ""}The agent's default, "${shown(start)}", holds invisible or direction-changing characters: the field starts empty.`;
      start = null;
    }
    // Each choice with what it means, where the agent says.
    const labels = isChoice
      ? spec.choices.map((c, i) => (spec.choiceDescriptions?.[i] ? `${c}: ${spec.choiceDescriptions[i]}` : c))
      : null;
    const control = isChoice ? select(spec.choices, start, labels) : textInput(start);
    // A date picker for the open kind `date` (its value is YYYY-MM-DD).
    if (!isChoice && spec.kind === "date") control.type = "date";
    if (!isChoice) constrain(control, spec);
    control.name = spec.name;
    const words = [help, checksInWords(spec)].filter(Boolean).join(" ");
    const built = field(control, spec.label, words || null);
    byName.set(spec.name, built);
    nodes.push(built.wrapper);
  }
  return {
    nodes,
    fields: byName,
    values() {
      // Own keys only, whatever the names (`__proto__` included).
      // A list as an array of its items (left out when it has none).
      return Object.fromEntries(
        [...byName]
          .map(([name, built]) => [name, built.list ? listValue(built.control) : built.control.value])
          .filter(([, value]) => (Array.isArray(value) ? value.length > 0 : value !== "")),
      );
    },
  };
}
