// The page's words for what the agent answers: a version's number and
// time, what a version changed, a text or its fallback. Pure functions of
// the answer, no page state.

export const textOr = (value, fallback) => (typeof value === "string" && value !== "" ? value : fallback);

export function when(stamp) {
  if (typeof stamp !== "string") return "";
  const date = new Date(stamp);
  return Number.isNaN(date.getTime()) ? stamp : date.toLocaleString();
}

// 1st, 2nd, 3rd, 4th, 11th, 21st.
function ordinal(n) {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? "th" : ({ 1: "st", 2: "nd", 3: "rd" })[n % 10] ?? "th";
  return `${n}${suffix}`;
}

// "This routing rule's 2nd version": the entry's own count, never an id.
export function versionText(version, thing) {
  const number = Number.isSafeInteger(version?.entryVersion) ? version.entryVersion : 0;
  return number > 0 ? `This ${thing}'s ${ordinal(number)} version` : "";
}

// What a version changed, one line a field: "Desk: general → cold chain".
export function changeLines(changes) {
  const side = (value) => textOr(value, "(empty)");
  return (Array.isArray(changes) ? changes : [])
    .filter((c) => c && typeof c === "object")
    .map((c) => `${textOr(c.label, "?")}: ${side(c.before)} → ${side(c.after)}`);
}

// The fields whose shown values differ from `from` to `to`, as the agent
// reports changes: {label, before, after}.
export function fieldChanges(from, to) {
  const valueIn = (version, name) =>
    (Array.isArray(version?.lessonFields) ? version.lessonFields : []).find((f) => f?.name === name)?.default ?? null;
  return (Array.isArray(to.lessonFields) ? to.lessonFields : [])
    .filter((f) => typeof f?.name === "string" && valueIn(from, f.name) !== (f.default ?? null))
    .map((f) => ({ label: f.label, before: valueIn(from, f.name), after: f.default ?? null }));
}
