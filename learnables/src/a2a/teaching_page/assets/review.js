// The lessons waiting for review: each open proposal with who proposed it,
// when, why and what it would change field by field; Approve and Reject
// for the ones the signed-in teacher may decide, never on their own. Every
// piece the agent sends is shown as text.

import { call, signedIn } from "./agent.js";
import { el, field, textInput } from "./form.js";
import { setText } from "./shown.js";

const $ = (id) => document.getElementById(id);

const textOr = (value, fallback) => (typeof value === "string" && value !== "" ? value : fallback);

const valueText = (value) =>
  value === null || value === undefined ? "(none)" : typeof value === "string" ? value : JSON.stringify(value);

// Proposals asked for a page of the Review listing.
const PAGE_LIMIT = 20;

// Lists the open proposals in the review section, a page at a time (each
// page one answer, as the agent pages its listing: `{limit, from}` →
// `{proposals, next?}`), with a button for the next page while there is
// one; `context` gives the rpc path, the card's reviewMethod, the entry
// noun of a collection, and what to do on a refusal that signs the
// teacher out.
export async function renderReviews(context) {
  const section = $("review");
  const list = $("review-list");
  list.replaceChildren();
  $("review-more")?.remove();
  $("review-error").hidden = true;
  const teacher = signedIn();
  if (!teacher || !context.method) {
    section.hidden = true;
    return;
  }
  await renderPage(context, teacher.teacher, null);
}

// Appends the page of the listing from `from` (null: the first) and, when
// the agent says another follows, the button that asks for it.
async function renderPage(context, teacher, from) {
  const section = $("review");
  const list = $("review-list");
  const params = { limit: PAGE_LIMIT };
  if (from !== null) params.from = from;
  let listed;
  try {
    listed = await call(context.rpc, context.method, params);
  } catch (error) {
    section.hidden = false;
    if (context.refusedSignIn(error)) return;
    return failed(`The agent did not list the lessons waiting for review: ${error.message}`);
  }
  const proposals = Array.isArray(listed?.proposals) ? listed.proposals.filter((p) => p && typeof p === "object") : [];
  for (const proposal of proposals) list.append(item(context, proposal, teacher));
  $("review-none").hidden = list.children.length > 0;
  section.hidden = false;
  const next = typeof listed?.next === "string" && listed.next !== "" && listed.next !== from ? listed.next : null;
  if (next === null) return;
  const more = el("button", "Show more lessons waiting for review", "secondary");
  more.type = "button";
  more.id = "review-more";
  more.onclick = async () => {
    more.disabled = true;
    await renderPage(context, teacher, next);
    more.remove();
  };
  list.after(more);
}

function failed(message) {
  const node = $("review-error");
  setText(node, message);
  node.hidden = false;
}

function item(context, proposal, teacher) {
  const node = el("li", null, "proposal");
  node.dataset.proposal = textOr(proposal.proposalId, "");
  const noun = context.nounOf(proposal.collection);
  node.append(el("h3", `${noun[0]?.toUpperCase() ?? ""}${noun.slice(1)} "${textOr(proposal.entry, "")}"`));
  const facts = el("dl");
  const fact = (term, value) => facts.append(el("dt", term), el("dd", value));
  fact("Proposed by", `${textOr(proposal.proposedBy, "someone")}${proposal.proposedAt ? `, ${proposal.proposedAt}` : ""}`);
  if (typeof proposal.reason === "string" && proposal.reason) fact("Why", proposal.reason);
  if (typeof proposal.describes === "string" && proposal.describes) fact("Would mean", proposal.describes);
  for (const change of Array.isArray(proposal.changes) ? proposal.changes : []) {
    if (!change || typeof change !== "object") continue;
    fact(textOr(change.label, textOr(change.name, "field")), `${valueText(change.before)} → ${valueText(change.after)}`);
  }
  const approvedBy = Array.isArray(proposal.approvedBy) ? proposal.approvedBy.filter((a) => typeof a === "string") : [];
  const needed = Number.isInteger(proposal.approvalsNeeded) ? proposal.approvalsNeeded : 1;
  fact("Approvals", `${approvedBy.length ? approvedBy.join(", ") : "none yet"} (${approvedBy.length} of ${needed} needed)`);
  node.append(facts);
  const own = typeof proposal.proposedBy === "string" && proposal.proposedBy.toLowerCase() === teacher.toLowerCase();
  if (own || proposal.mayDecide !== true) {
    node.append(el("p", own
      ? "You proposed this lesson: another teacher reviews it."
      : textOr(proposal.cannotDecide, "You may not decide this proposal."), "meta"));
    return node;
  }
  node.append(decisionForm(context, proposal));
  return node;
}

// Approve (a reason optional) or Reject (a reason required), then the list
// again: a decided proposal leaves it.
function decisionForm(context, proposal) {
  const form = el("form", null, "decision");
  form.noValidate = true;
  const reasonInput = textInput("");
  const reason = field(reasonInput, "Why (needed to reject)", "Kept with your decision; the proposer reads it.");
  const error = el("p", null, "error banner");
  error.setAttribute("role", "alert");
  error.hidden = true;
  const result = el("p", null, "result");
  result.setAttribute("role", "status");
  result.hidden = true;
  const approve = el("button", "Approve");
  approve.type = "button";
  approve.className = "approve";
  const reject = el("button", "Reject", "secondary reject");
  reject.type = "button";
  const decide = async (decision) => {
    reason.clearError();
    error.hidden = true;
    const why = reasonInput.value.trim();
    if (decision === "reject" && !why) return reason.showError("Say why you reject it."), reasonInput.focus();
    const params = {
      collection: proposal.collection,
      entry: proposal.entry,
      proposalId: proposal.proposalId,
      decision,
      reviewedBy: signedIn()?.teacher ?? "",
    };
    if (why) params.reason = why;
    approve.disabled = reject.disabled = true;
    try {
      const answer = await call(context.rpc, context.method, params);
      setText(result, decision === "approve"
        ? `${answer?.learned ? "Approved and learned" : "Approved"}: ${textOr(answer?.describes, "")}`
        : "Rejected: nothing was learned.");
      result.hidden = false;
      form.replaceChildren(result);
      result.focus?.();
    } catch (refusal) {
      approve.disabled = reject.disabled = false;
      if (context.refusedSignIn(refusal)) return;
      setText(error, `The agent refused the ${decision === "approve" ? "approval" : "rejection"}: ${refusal.message}`);
      error.hidden = false;
    }
  };
  approve.onclick = () => decide("approve");
  reject.onclick = () => decide("reject");
  const actions = el("div", null, "actions");
  actions.append(approve, reject);
  form.append(reason.wrapper, error, actions);
  form.onsubmit = (event) => event.preventDefault();
  return form;
}
