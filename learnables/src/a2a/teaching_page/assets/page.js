// The teacher's page: sign in, read what the agent can be taught, teach it
// through the lessonFields form, answer its question, and see an entry shown
// back with its history.

import {
  AgentError, CODES, SHOW_BACK_METHOD, call, declarationOf, loadCard, rpcPath, signIn,
  signOut, signedIn,
} from "./agent.js";
import { el, field, lessonForm, select, textInput } from "./form.js";
import { answerForm, answerOfTask, fromFragment, questionOfTask, questionWords, readTask, teachBlock } from "./question.js";
import { renderReviews } from "./review.js";
import { setText, shown, shownParagraph } from "./shown.js";
import { changeLines, fieldChanges, textOr, versionText, when } from "./words.js";

const MAX_HISTORY = 20; // versions a history page holds
const $ = (id) => document.getElementById(id);

const state = { card: null, declaration: null, rpc: "/" };

function show(id, visible) {
  $(id).hidden = !visible;
}

function pageError(message) {
  const node = $("page-error");
  setText(node, message);
  node.hidden = !message;
}

// The spec's decidedBy values in words; any other is shown as the card says it.
const DECIDED_BY = { rules: "fixed rules", model: "a model", hybrid: "rules and a model" };
const decidedBy = (value) => (Object.hasOwn(DECIDED_BY, value) ? DECIDED_BY[value] : value);

const capitalized = (text) => (text ? text[0].toUpperCase() + text.slice(1) : text);

function descriptorOf(collection) {
  return state.declaration.learnables.find((l) => l.collection === collection) ?? null;
}

// ---- signing in -------------------------------------------------------

function renderSignIn() {
  const teacher = signedIn();
  show("sign-in", !teacher);
  show("who", Boolean(teacher));
  setText($("who-name"), teacher ? teacher.teacher : "");
  document.body.classList.toggle("signed-in", Boolean(teacher));
  if (teacher) return;
  const form = $("sign-in-form");
  form.replaceChildren();
  const secret = document.createElement("input");
  secret.type = "password";
  secret.autocomplete = "current-password";
  secret.required = true;
  const token = field(
    secret,
    "Your token",
    "The agent knows whose it is. Kept in this tab only, and sent to the agent as a bearer token.",
  );
  const submit = el("button", "Sign in");
  submit.type = "submit";
  form.append(token.wrapper, submit);
  secret.focus();
  form.onsubmit = async (event) => {
    event.preventDefault();
    token.clearError();
    if (!secret.value.trim()) return token.showError("Enter your token."), secret.focus();
    try {
      await signIn(state.rpc, secret.value.trim());
    } catch (error) {
      token.showError(error.message);
      secret.focus();
      return;
    }
    pageError("");
    renderSignIn();
    renderLearnables();
    await openFromLink();
    // The sign-in form is gone: focus goes to what the teacher came for,
    // the question when a link opened one, else what can be taught.
    const focused = document.activeElement;
    if (!focused || focused === document.body || $("sign-in").contains(focused)) {
      $(isShown("question") ? "teach" : "learnables-title").focus();
    }
  };
}

function isShown(id) {
  return !$(id).hidden;
}

// ---- what it can be taught ---------------------------------------------

function renderLearnables() {
  const list = $("learnable-list");
  list.replaceChildren();
  const teacher = signedIn();
  for (const learnable of state.declaration.learnables) {
    const item = el("li", null, "learnable");
    item.append(el("h3", learnable.teaches || learnable.collection));
    const facts = el("dl");
    for (const [term, value] of [
      ["How it decides today", learnable.how],
      ["Decided by", decidedBy(learnable.decidedBy)],
    ]) {
      facts.append(el("dt", term), el("dd", value || "—"));
    }
    item.append(facts);
    if (teacher) {
      const actions = el("div", null, "actions");
      const teach = el("button", `Teach a ${learnable.entry}`);
      teach.type = "button";
      teach.onclick = () => openTeach({ learnable });
      const look = el("button", `Show a ${learnable.entry} back`, "secondary");
      look.type = "button";
      look.onclick = () => openShowBack(learnable.collection, "");
      actions.append(teach, look);
      item.append(actions);
    }
    list.append(item);
  }
  show("learnables", true);
  show("no-learnables", state.declaration.learnables.length === 0);
  reviews();
}

// The lessons waiting for review, for a card that names a reviewMethod.
function reviews() {
  return renderReviews({
    rpc: state.rpc,
    method: state.declaration.reviewMethod,
    nounOf: (collection) => descriptorOf(collection)?.entry ?? "entry",
    refusedSignIn: (error) => {
      if (error.code !== CODES.unauthenticated) return false;
      signOut();
      renderSignIn();
      renderLearnables();
      pageError(`Sign in again: ${error.message}`);
      return true;
    },
  });
}

// ---- teaching ----------------------------------------------------------

// Opens the teach form for `learnable`, its fields the card's: for
// `entries` (a question's) or an entry the person types, its fields
// prefilled with `prefill` over their defaults.
function openTeach({ learnable, entries = null, prefill = {}, task = null, fromLink = false }) {
  show("teach", true);
  setText($("teach-title"), `Teach: ${learnable.teaches || learnable.collection}`);
  setText($("teach-how"), learnable.how ? `How it decides today: ${learnable.how}` : "");
  $("teach-result").hidden = true;
  const formError = $("teach-error");
  formError.hidden = true;
  const form = $("teach-form");
  form.replaceChildren();

  const entryControl =
    entries && entries.length > 1 ? select(entries, entries[0]) : textInput(entries ? entries[0] : "");
  if (entries && entries.length === 1) entryControl.readOnly = true;
  // The field that is the entry's key is asked for once, as the entry: the
  // agent fills it from the entry (the card marks it `entryKey`).
  const allFields = learnable.lessonFields;
  const key = allFields.find((f) => f.entryKey) ?? null;
  const entry = field(
    entryControl,
    key ? key.label : capitalized(learnable.entry),
    entries
      ? fromLink
        ? `The ${learnable.entry} the link names: check it.`
        : `The ${learnable.entry} the agent asked about.`
      : (key?.help || `Which ${learnable.entry} you are teaching.`),
  );
  const lesson = lessonForm(allFields.filter((f) => f !== key), prefill);
  // What a link preselected is marked as the link's, beside its field.
  if (fromLink) {
    for (const name of Object.keys(prefill)) {
      lesson.fields.get(name)?.wrapper.append(el("p", "Preselected by the link, not by the agent: check it.", "from-link"));
    }
  }
  const reasonBox = document.createElement("textarea");
  reasonBox.rows = 2;
  const reason = field(reasonBox, "Why (optional)", "Kept with the lesson and shown back with it.");
  const submit = el("button", "Teach the agent");
  submit.type = "submit";
  form.append(entry.wrapper, ...lesson.nodes, reason.wrapper, submit);

  const byKey = new Map([["entry", entry], ["reason", reason]]);
  for (const [name, built] of lesson.fields) byKey.set(`value.${name}`, built);
  if (key) byKey.set(`value.${key.name}`, entry);

  form.onsubmit = async (event) => {
    event.preventDefault();
    for (const built of byKey.values()) built.clearError();
    formError.hidden = true;
    $("teach-result").hidden = true;
    const teacher = signedIn();
    if (!teacher) return renderSignIn();
    if (!entryControl.value.trim()) {
      entry.showError(`Say which ${learnable.entry} you are teaching.`);
      return entryControl.focus();
    }
    const params = {
      collection: learnable.collection,
      entry: entryControl.value.trim(),
      value: lesson.values(),
      taughtBy: teacher.teacher,
    };
    // The key field, asked for as the entry, is sent as it too (an own
    // key whatever its name, `__proto__` included).
    if (key) params.value = Object.fromEntries([...Object.entries(params.value), [key.name, params.entry]]);
    if (reasonBox.value.trim()) params.reason = reasonBox.value.trim();
    submit.disabled = true;
    try {
      const result = await call(state.rpc, state.declaration.teachMethod, params);
      await showTaught(result, learnable, params.entry, task);
    } catch (error) {
      refused(error, byKey, formError);
    } finally {
      submit.disabled = false;
    }
  };
  entryControl.readOnly ? form.querySelector("input:not([readonly]), select, textarea")?.focus() : entryControl.focus();
}

async function showTaught(result, learnable, entry, task) {
  const box = $("teach-result");
  const answered = $("teach-answered");
  answered.hidden = true;
  // The lesson a question asked for resumes the task that asked: say so,
  // with the agent's answer.
  if (task && result?.learned) {
    try {
      const now = answerOfTask(await readTask(state.rpc, task));
      if (now.answered) {
        answered.textContent = now.text
          ? `The agent's question is answered: ${shownParagraph(now.text)}`
          : "The agent's question is answered.";
        answered.hidden = false;
        show("question", false);
      }
    } catch {
      // The lesson is taught; where the task stands is only a courtesy.
    }
  }
  setText($("teach-describes"), typeof result?.describes === "string" ? result.describes : "");
  // A reviewed learnable's lesson is a proposal: nothing a task reads
  // changes until another teacher approves it, and a question it answers
  // stays open until then.
  const proposed = typeof result?.proposalId === "string" && result.proposalId !== "";
  setText($("teach-version"), proposed
    ? task
      ? "Waiting for review: another teacher must approve this answer; the agent's question stays open until then."
      : "Waiting for review: another teacher must approve this lesson before the agent uses it."
    : result?.learned
      ? "Learned. Tasks that start from now on use it."
      : "Nothing changed: the agent already knew this.");
  if (proposed) reviews();
  $("teach-show-back").onclick = () => openShowBack(learnable.collection, entry);
  box.hidden = false;
  box.focus();
}

// Puts a refusal next to the field it names (and each problem next to its
// own field), else above the form.
function refused(error, byKey, formError) {
  if (error.code === CODES.unauthenticated) {
    signOut();
    renderSignIn();
    renderLearnables();
    pageError(`Sign in again: ${error.message}`);
    return;
  }
  const placed = [];
  for (const violation of error.violations ?? []) {
    const target = byKey.get(violation.field);
    if (target && !placed.includes(target)) {
      target.showError(violation.description);
      placed.push(target);
    }
  }
  setText(formError, placed.length
    ? "The agent refused the lesson: see the field marked below."
    : `The agent refused the lesson: ${error.message}`);
  formError.hidden = false;
  (placed[0]?.control ?? formError).focus();
}

// ---- showing back --------------------------------------------------------

function openShowBack(collection, entry) {
  show("show-back", true);
  $("show-back-result").hidden = true;
  const form = $("show-back-form");
  form.replaceChildren();
  const collections = state.declaration.learnables.map((l) => l.collection);
  const names = state.declaration.learnables.map((l) => l.teaches);
  const which = field(select(collections, collection, names), "What", "What the agent was taught.");
  const entryInput = textInput(entry);
  const key = field(entryInput, "Entry", "The entry to show back, as it was taught.");
  const submit = el("button", "Show back");
  submit.type = "submit";
  form.append(which.wrapper, key.wrapper, submit);
  const byKey = new Map([["collection", which], ["entry", key]]);
  form.onsubmit = async (event) => {
    event.preventDefault();
    which.clearError();
    key.clearError();
    if (!entryInput.value.trim()) return key.showError("Say which entry to show back."), entryInput.focus();
    await showBack(which.control.value, entryInput.value.trim(), byKey);
  };
  if (entry) showBack(collection, entry, byKey);
  else entryInput.focus();
  $("show-back").scrollIntoView();
}

async function showBack(collection, entry, byKey) {
  const errorNode = $("show-back-error");
  errorNode.hidden = true;
  $("show-back-result").hidden = true;
  let current;
  try {
    current = await call(state.rpc, SHOW_BACK_METHOD, { collection, entry, history: { limit: MAX_HISTORY } });
  } catch (error) {
    if (error.code === CODES.unauthenticated) return refused(error, byKey, errorNode);
    // Beside the field it names, in the words the agent gives for it.
    const violation = (error.violations ?? []).find((v) => byKey.has(v.field));
    if (violation) byKey.get(violation.field).showError(violation.description);
    setText(errorNode, error.message);
    errorNode.hidden = Boolean(violation);
    return;
  }
  const learnable = descriptorOf(collection);
  const thing = learnable?.entry || "entry";
  setText($("show-back-describes"), current.retracted
    ? `The agent no longer knows this ${thing}: it was retracted.`
    : textOr(current.describes, ""));
  const details = $("show-back-details");
  details.replaceChildren();
  const fields = current.retracted || !Array.isArray(current.lessonFields) ? [] : current.lessonFields;
  for (const f of fields) {
    details.append(el("dt", textOr(f?.label, textOr(f?.name, "?"))), el("dd", textOr(f?.default, "—")));
  }
  const approvers = Array.isArray(current.approvedBy) ? current.approvedBy.filter((a) => typeof a === "string") : [];
  // An entry with no version yet has only its proposals to show.
  const facts = current.unlearned === true ? [] : [
    [current.retracted ? "Retracted by" : "Taught by", current.taughtBy],
    ...(approvers.length ? [["Approved by", approvers.join(", ")]] : []),
    ["When", when(current.taughtAt)],
    ["Why", current.reason],
    ["Version", versionText(current, thing)],
  ];
  for (const [term, value] of facts) {
    details.append(el("dt", term), el("dd", textOr(value, "—")));
  }
  // Lessons for this entry waiting for review: who, why, what they'd change.
  for (const proposal of Array.isArray(current.proposals) ? current.proposals : []) {
    if (!proposal || typeof proposal !== "object") continue;
    const changed = changeLines(proposal.changes).join("; ") || textOr(proposal.describes, "");
    const why = textOr(proposal.reason, "") ? ` (${proposal.reason})` : "";
    details.append(
      el("dt", "Waiting for review"),
      el("dd", `${changed}: proposed by ${textOr(proposal.proposedBy, "?")}, ${when(proposal.proposedAt)}${why}`),
    );
  }
  renderHistory(learnable, collection, entry, current.history, byKey);
  $("show-back-result").hidden = false;
  // Announced (the result is a live region) and where focus goes next.
  $("show-back-result").focus();
}

// The entry's versions, newest first, each with what it changed; every
// older one can be gone back to (a revert: its value taught again).
function renderHistory(learnable, collection, entry, page, byKey) {
  const list = $("show-back-history");
  list.replaceChildren();
  const versions = Array.isArray(page?.versions) ? page.versions.filter((v) => v && typeof v === "object") : [];
  const thing = learnable?.entry || "entry";
  for (const [index, version] of versions.entries()) {
    const item = el("li");
    const said = version.retracted ? `Retracted: the agent stopped using this ${thing}.` : textOr(version.describes, "—");
    item.append(el("p", said, "describes"));
    const who = `${versionText(version, thing) || "A version"}, ${version.retracted ? "retracted" : "taught"} by ${textOr(version.taughtBy, "?")}, ${when(version.taughtAt)}`;
    item.append(el("p", who, "meta"));
    if (textOr(version.reason, "")) item.append(el("p", `Why: ${version.reason}`, "meta"));
    const approvers = Array.isArray(version.approvedBy) ? version.approvedBy.filter((a) => typeof a === "string") : [];
    if (approvers.length) item.append(el("p", `Approved by ${approvers.join(", ")}`, "meta"));
    const changed = changeLines(version.changes);
    if (changed.length) {
      const changes = el("ul", null, "changes");
      changes.setAttribute("aria-label", "What it changed");
      for (const text of changed) changes.append(el("li", text));
      item.append(changes);
    }
    if (index > 0 && learnable) {
      const button = revertButton(learnable, collection, entry, versions[0], version, item, byKey);
      if (button) item.append(button);
    }
    list.append(item);
  }
  // Rejected proposals made no version: who proposed what, who said no.
  for (const rejected of Array.isArray(page?.rejected) ? page.rejected : []) {
    if (!rejected || typeof rejected !== "object") continue;
    const item = el("li", null, "rejected");
    item.append(el("p", `Rejected: ${textOr(rejected.describes, "—")}`, "describes"));
    item.append(el("p", `Proposed by ${textOr(rejected.proposedBy, "?")}, ${when(rejected.proposedAt)}; rejected by ${textOr(rejected.rejectedBy, "?")}, ${when(rejected.rejectedAt)}`, "meta"));
    if (textOr(rejected.rejection, "")) item.append(el("p", `Why not: ${rejected.rejection}`, "meta"));
    list.append(item);
  }
  setText($("show-back-history-note"), page?.next ? `Only the latest ${versions.length} versions are shown.` : "");
}

// The button that goes back to `target`, or null when it cannot: a
// version whose value no longer reads, or a retraction on an agent that
// serves no retraction.
function revertButton(learnable, collection, entry, current, target, item, byKey) {
  const retracting = Boolean(target.retracted);
  if (retracting ? !state.declaration.retractMethod : !Array.isArray(target.lessonFields)) return null;
  if (!state.declaration.teachMethod && !retracting) return null;
  const button = el("button", "Go back to this version", "secondary");
  button.type = "button";
  button.onclick = () => {
    // One revert at a time.
    $("revert-form")?.cancel();
    button.hidden = true;
    item.append(revertForm(learnable, collection, entry, current, target, button, byKey));
  };
  return button;
}

// Asks for a reason and a confirmation, showing what going back changes,
// then teaches the version's value again (or retracts the entry again).
function revertForm(learnable, collection, entry, current, target, opener, byKey) {
  const thing = learnable.entry || "entry";
  const form = el("form", null, "revert");
  form.id = "revert-form";
  form.noValidate = true;
  const number = versionText(target, thing).replace(/^This/, "this");
  form.append(el("p", `Go back to ${number || "this version"}?`, "describes"));
  const preview = target.retracted
    ? [`The agent stops using this ${thing}.`]
    : changeLines(fieldChanges(current, target));
  const changes = el("ul", null, "changes");
  changes.setAttribute("aria-label", "What going back changes");
  for (const text of preview.length ? preview : ["Nothing changes: the agent knows this already."]) {
    changes.append(el("li", text));
  }
  const reasonBox = document.createElement("textarea");
  reasonBox.rows = 2;
  const reason = field(reasonBox, "Why go back", "Kept with the change and shown in the history.");
  const error = el("p", null, "error banner");
  error.setAttribute("role", "alert");
  error.hidden = true;
  const confirm = el("button", "Yes, go back");
  confirm.type = "submit";
  const cancel = el("button", "Cancel", "secondary");
  cancel.type = "button";
  const buttons = el("div", null, "actions");
  buttons.append(confirm, cancel);
  form.append(changes, reason.wrapper, error, buttons);
  form.cancel = () => {
    form.remove();
    opener.hidden = false;
  };
  cancel.onclick = () => {
    form.cancel();
    opener.focus();
  };
  form.onsubmit = async (event) => {
    event.preventDefault();
    reason.clearError();
    error.hidden = true;
    const teacher = signedIn();
    if (!teacher) return renderSignIn();
    const why = reasonBox.value.trim();
    if (!why) return reason.showError("Say why you are going back: it is kept in the history."), reasonBox.focus();
    const params = { collection, entry, taughtBy: teacher.teacher, reason: why };
    let method = state.declaration.retractMethod;
    if (!target.retracted) {
      method = state.declaration.teachMethod;
      params.value = Object.fromEntries(
        target.lessonFields
          .filter((f) => typeof f?.name === "string" && typeof f.default === "string")
          .map((f) => [f.name, f.default]),
      );
    }
    confirm.disabled = true;
    try {
      await call(state.rpc, method, params);
    } catch (failure) {
      if (failure.code === CODES.unauthenticated) return refused(failure, byKey, error);
      setText(error, `The agent did not go back: ${failure.message}`);
      error.hidden = false;
      error.focus();
      return;
    } finally {
      confirm.disabled = false;
    }
    await showBack(collection, entry, byKey);
  };
  setTimeout(() => reasonBox.focus());
  return form;
}

// ---- a question from a link ----------------------------------------------

async function openFromLink() {
  let asked;
  try {
    asked = fromFragment(location.hash);
  } catch (error) {
    return pageError(error.message);
  }
  show("question-waiting", Boolean(asked) && !signedIn());
  if (!asked || !signedIn()) return;
  try {
    // The task is read once: whether it still asks, and its question.
    const task = asked.task ? await readTask(state.rpc, asked.task) : null;
    if (task) {
      const now = answerOfTask(task);
      if (now.answered) {
        setText($("question-title"), "The agent asks");
        $("question-text").textContent = now.text
          ? `This question is answered already: ${shownParagraph(now.text)}`
          : "This question is answered already.";
        setText($("suggestion-label"), "");
        dropped([]);
        show("question", true);
        show("teach", false);
        return;
      }
    }
    // The question is the agent's own; the form is the card's, which the
    // block may only narrow to its entries and prefill.
    const question = task ? questionOfTask(task) : { text: "", block: teachBlock(asked.block) };
    const learnable = descriptorOf(question.block.collection);
    if (!learnable) throw new AgentError(`this agent cannot be taught "${question.block.collection}"`);
    const fromLink = !task;
    const answer = answerForm(question.block, learnable, fromLink);
    const words = questionWords(question, fromLink);
    setText($("question-title"), words.title);
    $("question-text").textContent = question.text ? shownParagraph(question.text) : words.text;
    $("suggestion-label").className = words.labelClass;
    setText($("suggestion-label"), words.label);
    dropped(answer.dropped);
    pageError("");
    show("question", true);
    openTeach({
      learnable,
      entries: answer.entries,
      prefill: answer.prefill,
      task: asked.task ?? null,
      fromLink,
    });
  } catch (error) {
    // Nothing of an earlier question stays open under this one's failure.
    for (const id of ["question", "teach"]) show(id, false);
    pageError(`The question could not be opened: ${error.message}`);
  }
}

// Says which of the question's suggestions the form left out, and why.
function dropped(reasons) {
  const node = $("suggestion-dropped");
  setText(node, reasons.length ? `Left out of the suggestion: ${reasons.join("; ")}.` : "");
  node.hidden = reasons.length === 0;
}

// ---- start ---------------------------------------------------------------

async function start() {
  $("sign-out").onclick = () => {
    signOut();
    pageError("");
    for (const id of ["teach", "show-back", "question", "review"]) show(id, false);
    renderSignIn();
    renderLearnables();
  };
  try {
    state.card = await loadCard();
  } catch (error) {
    setText($("agent-name"), "The agent could not be reached");
    return pageError(error.message);
  }
  state.declaration = declarationOf(state.card);
  state.rpc = rpcPath(state.card);
  const name = typeof state.card.name === "string" && state.card.name ? state.card.name : "This agent";
  setText($("agent-name"), name);
  document.title = `Teach ${shown(name)}`;
  setText($("agent-description"), typeof state.card.description === "string" ? state.card.description : "");
  if (!state.declaration.declared) pageError("This agent's card does not declare the Learnables extension.");
  renderSignIn();
  renderLearnables();
  window.addEventListener("hashchange", () => openFromLink());
  await openFromLink();
  document.body.dataset.ready = "true";
}

start();
