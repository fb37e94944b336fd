// A question to answer, from the link that opened the page: `#task=<id>`
// (the page reads the task's question and its teach block with GetTask) or
// `#block=<base64url JSON>` (the teach block itself). Never a token.

import { EXTENSION_URI, AgentError, call } from "./agent.js";
import { hasHazard, shown } from "./shown.js";

const MAX_FRAGMENT = 16384;

// What the fragment asks for: {task} or {block}, or null.
export function fromFragment(hash) {
  if (!hash || hash.length > MAX_FRAGMENT) return null;
  const params = new URLSearchParams(hash.replace(/^#/, ""));
  const task = params.get("task");
  if (task) return { task };
  const encoded = params.get("block");
  if (encoded) {
    try {
      const base64 = encoded.replace(/-/g, "+").replace(/_/g, "/");
      const binary = atob(base64 + "=".repeat((4 - (base64.length % 4)) % 4));
      const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
      return { block: JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes)) };
    } catch {
      throw new AgentError("the link's teach block is not base64url-encoded JSON");
    }
  }
  return null;
}

// A teach block checked for the shape the page relies on: its collection,
// the entries it asks about, its suggested values and their label. Its
// own lessonFields, if any, are never read: the form is the card's.
export function teachBlock(block) {
  if (!block || typeof block !== "object" || typeof block.collection !== "string") {
    throw new AgentError("the teach block has no collection");
  }
  const entries = Array.isArray(block.entries)
    ? block.entries.filter((entry) => typeof entry === "string" && entry !== "")
    : [];
  if (entries.length === 0) throw new AgentError("the teach block names no entry");
  return {
    collection: block.collection,
    entries,
    suggested:
      block.suggested && typeof block.suggested === "object" && !Array.isArray(block.suggested)
        ? block.suggested
        : {},
    suggestionLabel: typeof block.suggestionLabel === "string" ? block.suggestionLabel : "",
  };
}

// What a question's block may do to the card's form for `learnable`: narrow
// the entries and suggest values. Every suggestion the card's field would
// refuse (no such field, a choice the field does not offer, a value that
// is not one piece of text) is left out and named in `dropped`, as is an
// entry or a value that would show as something else in an input. A
// block `fromLink` (a `#block=` link, which anyone can write) preselects
// choices only: the words of a free-text value would be taken for the
// agent's, so it fills in none.
export function answerForm(block, learnable, fromLink = false) {
  const dropped = [];
  const entries = block.entries.filter((entry) => {
    if (!hasHazard(entry)) return true;
    dropped.push(`the ${learnable.entry} "${shown(entry)}": it holds invisible or direction-changing characters`);
    return false;
  });
  if (entries.length === 0) throw new AgentError(`the question names no ${learnable.entry} the page can show`);
  const prefill = {};
  for (const [name, value] of Object.entries(block.suggested)) {
    const spec = learnable.lessonFields.find((f) => f.name === name);
    const said = `"${shown(typeof value === "string" ? value : JSON.stringify(value) ?? "")}"`;
    let why = null;
    if (!spec) {
      why = `this agent's ${learnable.entry} has no field "${shown(name)}"`;
    } else if (spec.entryKey) {
      // The entry stands for its key field: the form asks for it once.
      continue;
    } else if (!["string", "number", "boolean"].includes(typeof value)) {
      why = "it is not one value";
    } else if (hasHazard(String(value))) {
      why = "it holds invisible or direction-changing characters";
    } else if (spec.kind === "choice" && spec.choices?.length && !spec.choices.includes(String(value))) {
      why = `it is not one of the choices ${spec.label} offers`;
    } else if (fromLink && !(spec.kind === "choice" && spec.choices?.length)) {
      why = "a link fills in no free text: type it yourself if it is right";
    }
    if (why) {
      dropped.push(`${spec ? spec.label : shown(name)} ${said}: ${why}`);
      continue;
    }
    // An own key whatever the field's name, `__proto__` included.
    Object.defineProperty(prefill, name, { value: String(value), enumerable: true });
  }
  return { entries, prefill, dropped };
}

// The heading and words a question is shown with. A `#block=` link may
// come from anyone: nothing of it is put in the agent's mouth, under its
// heading or in bold as a finding; its label is quoted as the link's.
export function questionWords(question, fromLink) {
  const label = question.block.suggestionLabel;
  if (!fromLink) {
    return { title: "The agent asks", text: "", label: label ? `Suggested: ${label}` : "", labelClass: "suggestion" };
  }
  return {
    title: "A link suggests a lesson",
    text: "A link, which anyone can write, suggests this lesson: check it before you teach.",
    label: label ? `The link says: "${label}"` : "",
    labelClass: "from-link",
  };
}

const blockOf = (message) => message?.metadata?.[EXTENSION_URI]?.teach;

const textOf = (message) =>
  (Array.isArray(message?.parts) ? message.parts : [])
    .map((part) => (typeof part?.text === "string" ? part.text : ""))
    .filter(Boolean)
    .join("\n");

// The question a task asks: its text and teach block, from the message by
// which the agent put the task in input-required (the task's status
// message, the agent's own) and from nothing else. A message of the history
// is not read: a client's own message, with a block in its metadata, is
// history too.
export function questionOfTask(task) {
  const message = task?.status?.state === "TASK_STATE_INPUT_REQUIRED" ? task.status.message : null;
  if (!message || message.role !== "ROLE_AGENT") {
    throw new AgentError("there is no question from the agent on this task");
  }
  const block = blockOf(message);
  if (!block) {
    throw new AgentError("the agent's question on this task has nothing to teach: answer it where it was asked");
  }
  return { text: textOf(message), block: teachBlock(block) };
}

// The task `taskId`, as the agent has it now.
export function readTask(rpcPath, taskId) {
  return call(rpcPath, "GetTask", { id: taskId });
}

// Where a task stands: answered once it no longer waits for input (a
// lesson that answers its question resumes it), with the text of its
// latest status message when the agent wrote it.
export function answerOfTask(task) {
  const state = task?.status?.state;
  const message = task?.status?.message;
  return {
    answered: typeof state === "string" && state !== "TASK_STATE_INPUT_REQUIRED",
    text: message?.role === "ROLE_AGENT" ? textOf(message) : "",
  };
}
