// The agent, as any client reaches it: its card, and JSON-RPC calls with
// the Learnables extension activated and the teacher's bearer token.

export const EXTENSION_URI = "https://rsaxb.com/a2a/learnables/v1";
export const ACTIVATION_HEADER = "A2A-Extensions";
export const SHOW_BACK_METHOD = "rsaxb.learnables.ShowBack";
export const TEACHER_METHOD = "rsaxb.learnables.Teacher";
export const DEFAULT_TEACH_METHOD = "rsaxb.learnables.Teach";
export const CODES = { unauthenticated: -31040, forbidden: -31041, notFound: -31042 };

// A2A v1.0 errors carry their details as an array of typed objects: a
// google.rpc.BadRequest names each field at fault.
const BAD_REQUEST_TYPE = "type.googleapis.com/google.rpc.BadRequest";

const CARD_PATH = "/.well-known/agent-card.json";
const MAX_RESPONSE_BYTES = 1 << 20;
const TIMEOUT_MS = 15000;
const TOKEN_KEY = "learnables.token";
const TEACHER_KEY = "learnables.teacher";

// The teacher signed in in this tab, or null. Kept in session storage only:
// never in a URL or a cookie.
export function signedIn() {
  const token = sessionStorage.getItem(TOKEN_KEY);
  const teacher = sessionStorage.getItem(TEACHER_KEY);
  return token && teacher ? { token, teacher } : null;
}

// Signs in with `token`: the agent says whom it names (or why not), and
// the page teaches as that person. Nothing is kept when it refuses.
export async function signIn(rpc, token) {
  sessionStorage.setItem(TOKEN_KEY, token);
  sessionStorage.removeItem(TEACHER_KEY);
  try {
    const answer = await call(rpc, TEACHER_METHOD, {});
    const teacher = typeof answer?.teacher === "string" ? answer.teacher : "";
    if (!teacher) throw new AgentError("the agent did not say whom the token names");
    sessionStorage.setItem(TEACHER_KEY, teacher);
    return teacher;
  } catch (error) {
    signOut();
    throw error;
  }
}

export function signOut() {
  sessionStorage.removeItem(TOKEN_KEY);
  sessionStorage.removeItem(TEACHER_KEY);
}

// A failed call: `message` says what went wrong, `code` and `data` are the
// JSON-RPC error's when the agent answered with one.
export class AgentError extends Error {
  constructor(message, code = null, data = null) {
    super(message);
    this.code = code;
    this.data = data;
  }

  // Each field the refusal names, as {field, description}: the field's
  // path in the params ("value.chapter", "entry").
  get violations() {
    const details = Array.isArray(this.data) ? this.data : [];
    const badRequest = details.find((detail) => detail?.["@type"] === BAD_REQUEST_TYPE);
    const listed = Array.isArray(badRequest?.fieldViolations) ? badRequest.fieldViolations : [];
    return listed.filter((v) => typeof v?.field === "string" && typeof v?.description === "string");
  }
}

// Reads at most MAX_RESPONSE_BYTES of a response as JSON.
async function boundedJson(response) {
  const reader = response.body.getReader();
  const chunks = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > MAX_RESPONSE_BYTES) {
      await reader.cancel();
      throw new AgentError(`the agent's answer is larger than ${MAX_RESPONSE_BYTES} bytes`);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new AgentError(`the agent's answer is not JSON (HTTP ${response.status})`);
  }
}

// The A2A protocol version the page speaks: A2A v1.0 servers refuse a
// request without it (as version 0.3) with VersionNotSupportedError.
const A2A_VERSION = "1.0";

function headers(token) {
  const list = { [ACTIVATION_HEADER]: EXTENSION_URI, "A2A-Version": A2A_VERSION };
  if (token) list.Authorization = `Bearer ${token}`;
  return list;
}

async function send(path, init) {
  let response;
  try {
    response = await fetch(path, {
      ...init,
      credentials: "omit",
      cache: "no-store",
      redirect: "error",
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (error) {
    throw new AgentError(`the agent could not be reached (${error.name})`);
  }
  return response;
}

// The agent card, and what the page needs from it.
export async function loadCard() {
  const response = await send(CARD_PATH, { headers: headers(null) });
  if (!response.ok) {
    throw new AgentError(`the agent card could not be read (HTTP ${response.status})`);
  }
  const card = await boundedJson(response);
  if (!card || typeof card !== "object") throw new AgentError("the agent card is not an object");
  return card;
}

const text = (value) => (typeof value === "string" ? value : "");

// The Learnables declaration on a card: its learnables (each checked for
// the shape the page relies on), the teach method and the retract method.
export function declarationOf(card) {
  const extensions = card?.capabilities?.extensions;
  const entry = Array.isArray(extensions)
    ? extensions.find((extension) => extension && extension.uri === EXTENSION_URI)
    : undefined;
  const params = entry && typeof entry.params === "object" && entry.params ? entry.params : {};
  const learnables = Array.isArray(params.learnables)
    ? params.learnables.filter((l) => l && typeof l.collection === "string").map((l) => ({
        collection: l.collection,
        entry: text(l.entry) || "entry",
        teaches: text(l.teaches),
        how: text(l.how),
        decidedBy: text(l.decidedBy),
        lessonFields: lessonFields(l.lessonFields),
      }))
    : [];
  const teachMethod = text(params.teachMethod) || DEFAULT_TEACH_METHOD;
  // Served beside teachMethod only where the card names it.
  const retractMethod = text(params.retractMethod) || null;
  const reviewMethod = text(params.reviewMethod) || null;
  return { declared: Boolean(entry), learnables, teachMethod, retractMethod, reviewMethod };
}

// The lessonFields an untrusted document gives, keeping the well-formed ones.
export function lessonFields(fields) {
  if (!Array.isArray(fields)) return [];
  return fields
    .filter((f) => f && typeof f.name === "string" && f.name !== "")
    .map((f) => ({
      name: f.name,
      label: text(f.label) || f.name,
      kind: text(f.kind) || "text",
      choices: Array.isArray(f.choices) ? f.choices.filter((c) => typeof c === "string") : null,
      default: typeof f.default === "string" ? f.default : null,
      help: text(f.help),
      entryKey: f.entryKey === true,
      // What each choice means (ours; a null where a choice says nothing).
      choiceDescriptions:
        Array.isArray(f.choices) && f.choices.every((c) => typeof c === "string") && Array.isArray(f.choiceDescriptions)
          ? f.choiceDescriptions.map((d) => (typeof d === "string" ? d : ""))
          : [],
      // Ours, beside the spec's keys: a list, a number's form, the checks.
      list: f.list === true,
      valueType: ["integer", "number", "boolean"].includes(f.valueType) ? f.valueType : null,
      minimum: bound(f.minimum),
      maximum: bound(f.maximum),
      minLength: count(f.minLength),
      maxLength: count(f.maxLength),
      pattern: typeof f.pattern === "string" && f.pattern !== "" ? f.pattern : null,
    }));
}

// A bound of `minimum` or `maximum`: a finite number or a text (a date).
function bound(value) {
  if (typeof value === "number" && Number.isFinite(value)) return value;
  return typeof value === "string" && value !== "" ? value : null;
}

// A count of `minLength` or `maxLength`: a whole number of 0 or more.
function count(value) {
  return Number.isSafeInteger(value) && value >= 0 ? value : null;
}

// The path of the agent's JSON-RPC endpoint: the card's JSON-RPC interface
// when it is on this origin (the page may only talk to its own), else `/`.
export function rpcPath(card) {
  const interfaces = Array.isArray(card?.supportedInterfaces) ? card.supportedInterfaces : [];
  for (const candidate of interfaces) {
    const binding = candidate?.protocolBinding ?? candidate?.transport;
    if (binding !== "JSONRPC" || typeof candidate.url !== "string") continue;
    try {
      const url = new URL(candidate.url, location.href);
      if (url.origin === location.origin) return url.pathname;
    } catch {
      // not a URL: try the next one
    }
  }
  return "/";
}

let nextId = 1;

// Calls `method` at `path`, with the extension activated and the token of
// this tab (while signing in, before the agent has named its teacher); the
// result, or an AgentError.
export async function call(path, method, params) {
  const token = sessionStorage.getItem(TOKEN_KEY);
  const id = nextId++;
  const response = await send(path, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers(token) },
    body: JSON.stringify({ jsonrpc: "2.0", id, method, params }),
  });
  const answer = await boundedJson(response);
  if (answer && typeof answer === "object" && answer.error && typeof answer.error === "object") {
    const error = answer.error;
    throw new AgentError(
      text(error.message) || `the agent refused (${String(error.code)})`,
      typeof error.code === "number" ? error.code : null,
      error.data && typeof error.data === "object" ? error.data : null,
    );
  }
  if (!answer || typeof answer !== "object" || !("result" in answer)) {
    throw new AgentError(`the agent's answer has no result (HTTP ${response.status})`);
  }
  return answer.result;
}
