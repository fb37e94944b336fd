// A question to answer, from the link that opened the page: `#task=<id>`
// (the page reads the task's question and its teach block with GetTask) or
// `#block=<base64url JSON>` (the teach block itself). Never a token.

import { EXTENSION_URI, AgentError, call, lessonFields } from "./agent.js";

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

// A teach block checked for the shape the page relies on.
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
    lessonFields: Array.isArray(block.lessonFields) ? lessonFields(block.lessonFields) : null,
  };
}

const blockOf = (message) => message?.metadata?.[EXTENSION_URI]?.teach;

const textOf = (message) =>
  (Array.isArray(message?.parts) ? message.parts : [])
    .map((part) => (typeof part?.text === "string" ? part.text : ""))
    .filter(Boolean)
    .join("\n");

// The question a task asks: its text and teach block, from the task's
// status message, else the latest message of its history that carries one.
export function questionOfTask(task) {
  const history = Array.isArray(task?.history) ? [...task.history].reverse() : [];
  const message = [task?.status?.message, ...history].find((m) => blockOf(m));
  if (!message) throw new AgentError("the task asks no question with a teach block");
  return { text: textOf(message), block: teachBlock(blockOf(message)) };
}

// The task `taskId`, as the agent has it now.
export function readTask(rpcPath, taskId) {
  return call(rpcPath, "GetTask", { id: taskId });
}

// Where a task stands: answered once it no longer waits for input (a
// lesson that answers its question resumes it), with the text of its
// latest status message.
export function answerOfTask(task) {
  const state = task?.status?.state;
  return {
    answered: typeof state === "string" && state !== "TASK_STATE_INPUT_REQUIRED",
    text: textOf(task?.status?.message),
  };
}
