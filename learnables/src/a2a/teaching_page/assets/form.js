// Forms built from lessonFields, as the spec says: the label above the
// input, help under it, a `choice` as a select starting on its default, any
// other kind as a text input (a date picker for `date`), the default
// prefilled. Every text is set with textContent or value, never as HTML,
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
    control.name = spec.name;
    const built = field(control, spec.label, help);
    byName.set(spec.name, built);
    nodes.push(built.wrapper);
  }
  return {
    nodes,
    fields: byName,
    values() {
      // Own keys only, whatever the names (`__proto__` included).
      return Object.fromEntries(
        [...byName]
          .filter(([, built]) => built.control.value !== "")
          .map(([name, built]) => [name, built.control.value]),
      );
    },
  };
}
