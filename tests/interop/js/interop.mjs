// The example customs agent driven by the official A2A JavaScript SDK
// (@a2a-js/sdk 1.x), in plain Node.js.
//
// Usage: node interop.mjs --url http://127.0.0.1:PORT/ --taught-by EMAIL
// with the teacher's bearer token in the LEARNABLES_TOKEN environment variable.
//
// The agent must have fresh knowledge (no routing rule for HS chapter 85).
// Each step prints what it proved; the first failed expectation prints FAILED
// with what was expected and exits 1. Text that comes from the agent is
// printed JSON-escaped.

import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';

import { AgentCard, Role, SendMessageResponse, Task, TaskState } from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  ServiceParameters,
  withA2AExtensions,
  withA2AVersion,
} from '@a2a-js/sdk/client';
import { ExtensionSupportRequiredError, TaskNotFoundError } from '@a2a-js/sdk/errors';

const URI = 'https://rsaxb.com/a2a/learnables/v1';
const QUESTION = 'Route a declaration for HS chapter 85';
const TIMEOUT_MS = 10_000;

class Unexpected extends Error {}

/** Agent-supplied data, escaped for a terminal (C0 and C1 controls, DEL). */
function shown(value) {
  const text = JSON.stringify(value) ?? String(value);
  return text.replace(/[\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).slice(0, 2000);
}

function expect(condition, what) {
  if (!condition) throw new Unexpected(what);
}

function ok(what) {
  console.log(`ok: ${what}`);
}

/**
 * Records every response the SDK's fetch receives, so the raw JSON and
 * headers can be checked alongside what the SDK made of them.
 */
class Wire {
  last = undefined;
  lastBody = undefined;

  fetch = async (input, init) => {
    const response = await fetch(input, { ...init, signal: init?.signal ?? AbortSignal.timeout(TIMEOUT_MS) });
    this.last = response;
    this.lastBody = await response.clone().text();
    return response;
  };

  echoed() {
    expect(this.last !== undefined, 'a response was recorded');
    const value = this.last.headers.get('A2A-Extensions') ?? '';
    return value.split(',').map((item) => item.trim()).filter((item) => item !== '');
  }

  json() {
    return JSON.parse(this.lastBody);
  }
}

/** A proto3 default, which the SDK's toJSON leaves out. */
// Proto3's defaults, which its JSON leaves out: an empty map among them,
// as an empty list (a security requirement of no scheme, say).
function isDefault(value) {
  const emptyMap = value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0;
  return value === false || value === 0 || value === '' || (Array.isArray(value) && value.length === 0) || emptyMap;
}

/**
 * The paths in `raw` the SDK's type dropped: parsed with the SDK's fromJSON
 * and written back with its toJSON, a field the SDK cannot read is lost.
 */
function dropped(raw, back, path = '') {
  if (Array.isArray(raw)) {
    return raw.flatMap((item, index) => dropped(item, back?.[index], `${path}/${index}`));
  }
  if (raw === null || typeof raw !== 'object') return [];
  return Object.entries(raw).flatMap(([key, value]) => {
    if (back === null || typeof back !== 'object' || !(key in back)) {
      return isDefault(value) ? [] : [`${path}/${key}`];
    }
    return dropped(value, back[key], `${path}/${key}`);
  });
}

function understood(raw, type, what) {
  const lost = dropped(raw, type.toJSON(type.fromJSON(raw)));
  expect(lost.length === 0, `${what} to be read whole by the SDK, but it drops ${shown(lost)}`);
}

function teachBlock(message) {
  const extension = message?.metadata?.[URI];
  if (extension === undefined) return undefined;
  expect(typeof extension === 'object' && extension !== null, `metadata[${URI}] is an object`);
  return extension.teach;
}

function routeRequest() {
  return {
    message: {
      messageId: randomUUID(),
      role: Role.ROLE_USER,
      parts: [{ content: { $case: 'text', value: QUESTION } }],
    },
  };
}

/** Sends the routing question through the SDK's client; the answer must be a task. */
async function send(client, options) {
  const answer = await client.sendMessage(routeRequest(), options);
  expect(answer !== undefined && 'status' in answer && 'id' in answer, `SendMessage answers with a task, got ${shown(answer)}`);
  return answer;
}

function stateName(state) {
  return TaskState[state] ?? String(state);
}

async function run(url, token, taughtBy) {
  const wire = new Wire();

  // 1. The card, through the SDK's resolver, and a client from its ClientFactory.
  const resolver = new DefaultAgentCardResolver({ fetchImpl: wire.fetch });
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl: wire.fetch })],
      cardResolver: resolver,
    }),
  );
  const client = await factory.createFromUrl(url);
  const rawCard = wire.json();
  understood(rawCard, AgentCard, 'the agent card');
  const card = await client.getAgentCard();
  expect(typeof card.name === 'string' && card.name !== '', 'the card has a name');
  ok(`card resolved by the SDK's resolver and read whole by its AgentCard: ${shown(card.name)}`);

  // 2. The Learnables extension and its params.
  const extension = (card.capabilities?.extensions ?? []).find((item) => item.uri === URI);
  expect(extension !== undefined, `capabilities.extensions holds ${URI}`);
  expect(!extension.required, 'the extension is not required');
  const params = extension.params ?? {};
  const teachMethod = params.teachMethod;
  expect(typeof teachMethod === 'string' && teachMethod !== '', `the extension's params name a teachMethod, got ${shown(params)}`);
  const learnables = new Map((params.learnables ?? []).map((item) => [item.collection, item]));
  expect(learnables.has('routing_rules'), `routing_rules is declared, got ${shown([...learnables.keys()])}`);
  const declaredFields = new Map(learnables.get('routing_rules').lessonFields.map((field) => [field.name, field]));
  expect(
    (declaredFields.get('desk')?.choices ?? []).includes('cold chain'),
    `the desk field offers 'cold chain', got ${shown(declaredFields.get('desk'))}`,
  );
  ok(`extension found with ${learnables.size} learnables, teachMethod ${shown(teachMethod)}`);

  // 3. A question with the extension activated carries a teach block.
  const activated = { serviceParameters: ServiceParameters.create(withA2AExtensions(URI)) };
  const asked = await send(client, activated);
  understood(wire.json().result, SendMessageResponse, 'the SendMessage result');
  expect(
    asked.status.state === TaskState.TASK_STATE_INPUT_REQUIRED,
    `the agent has no rule for chapter 85 yet and asks (is its knowledge fresh?), got ${stateName(asked.status.state)}`,
  );
  expect(wire.echoed().includes(URI), `the activation is echoed, got ${shown(wire.echoed())}`);
  const question = asked.status.message;
  expect((question.extensions ?? []).includes(URI), 'the question lists the extension in its extensions');
  const block = teachBlock(question);
  expect(block !== undefined, 'the question carries a teach block');
  expect(block.collection === 'routing_rules', `the block teaches routing_rules: ${shown(block)}`);
  expect((block.entries ?? []).includes('85'), `the block's entries hold 85: ${shown(block)}`);
  const suggested = block.suggested ?? {};
  expect(
    Object.keys(suggested).every((key) => declaredFields.has(key)),
    `the suggestion's keys are declared lesson fields: ${shown(suggested)}`,
  );
  ok(`activated SendMessage: input-required with a teach block ${shown(block)}`);

  // 4. GetTask through the SDK: the pinned question keeps its block.
  const fetched = await client.getTask({ id: asked.id }, activated);
  understood(wire.json().result, Task, 'the GetTask result');
  expect(fetched.id === asked.id, 'GetTask returns the task asked for');
  expect(
    fetched.status.state === TaskState.TASK_STATE_INPUT_REQUIRED,
    `the task still waits for input, got ${stateName(fetched.status.state)}`,
  );
  expect(shown(teachBlock(fetched.status.message)) === shown(block), 'GetTask shows the same teach block');
  ok('GetTask: the task still asks, with the same teach block');
  const missing = await client.getTask({ id: `no-such-task-${randomUUID()}` }).then(
    () => undefined,
    (error) => error,
  );
  expect(missing instanceof TaskNotFoundError, `GetTask of an unknown task to fail with TaskNotFoundError, got ${shown(String(missing))}`);
  ok("GetTask of an unknown task: the SDK throws its TaskNotFoundError");

  // 5. The same question without activation: no block, no echo.
  const plain = await send(client, undefined);
  expect(
    plain.status.state === TaskState.TASK_STATE_INPUT_REQUIRED,
    `without activation the agent still asks, got ${stateName(plain.status.state)}`,
  );
  expect(teachBlock(plain.status.message) === undefined, 'no teach block without activation');
  expect(!wire.echoed().includes(URI), 'no echo without activation');
  expect(!(plain.status.message.extensions ?? []).includes(URI), 'no extension listed without activation');
  ok('SendMessage without activation: a question with no teach block');

  // 6. Teach, through the method the card names, with the SDK's JSON-RPC
  // transport: `callExtensionMethod` is how @a2a-js/sdk calls a method A2A
  // does not define (present on its JsonRpcTransport, though left out of the
  // published type declarations). It bypasses the client's header handling,
  // so the A2A version, the activation and the token go in as service
  // parameters here, the way the client adds them to its own calls.
  expect(
    typeof client.transport.callExtensionMethod === 'function',
    "the SDK's JSON-RPC transport offers callExtensionMethod",
  );
  const lesson = {
    collection: 'routing_rules',
    entry: '85',
    value: { ...suggested, chapter: '85', desk: 'cold chain' },
    taughtBy,
    reason: 'Electrical machinery ships refrigerated at this port',
  };
  const version = withA2AVersion(client.protocolVersion);
  const anonymous = { serviceParameters: ServiceParameters.create(version, withA2AExtensions(URI)) };
  let refusal;
  try {
    await client.transport.callExtensionMethod(teachMethod, lesson, anonymous);
  } catch (error) {
    refusal = error;
  }
  expect(refusal !== undefined, 'a lesson without a token is refused');
  ok(`teach without a token refused: ${shown(refusal.message)}`);
  const bearer = (parameters) => {
    parameters.Authorization = `Bearer ${token}`;
  };
  const unactivated = await client.transport
    .callExtensionMethod(teachMethod, lesson, { serviceParameters: ServiceParameters.create(version, bearer) })
    .then(
      (reply) => reply,
      (error) => error,
    );
  expect(
    unactivated instanceof ExtensionSupportRequiredError,
    `a lesson without activation to be refused with the SDK's ExtensionSupportRequiredError, got ${shown(String(unactivated?.name ?? unactivated))}`,
  );
  ok("teach without activation refused: the SDK throws its ExtensionSupportRequiredError");
  const asTeacher = { serviceParameters: ServiceParameters.createFrom(anonymous.serviceParameters, bearer) };
  // A lesson its learnable refuses: the SDK's error carries A2A v1.0's
  // typed details, whose BadRequest names the field at fault.
  const wrong = { ...lesson, value: { ...lesson.value, chapter: 'not a chapter' } };
  const refusedLesson = await client.transport.callExtensionMethod(teachMethod, wrong, asTeacher).then(
    (reply) => reply,
    (error) => error,
  );
  const badRequest = Array.isArray(refusedLesson?.data)
    ? refusedLesson.data.find((detail) => detail?.['@type'] === 'type.googleapis.com/google.rpc.BadRequest')
    : undefined;
  expect(
    badRequest?.fieldViolations?.[0]?.field === 'value.chapter',
    `the SDK's error for a refused lesson to name the field at fault, got ${shown(refusedLesson?.data ?? refusedLesson)}`,
  );
  ok("a refused lesson: the SDK's error names the field at fault");
  const reply = await client.transport.callExtensionMethod(teachMethod, lesson, asTeacher);
  const result = reply.result;
  expect(result?.learned === true, `the lesson is learned, got ${shown(reply)}`);
  expect(typeof result.describes === 'string' && result.describes !== '', `the result describes what was learned: ${shown(result)}`);
  expect(Number.isInteger(result.definitionVersion), `a definitionVersion: ${shown(result)}`);
  expect(wire.echoed().includes(URI), "the teach call's activation is echoed");
  ok(`taught: ${shown(result.describes)}`);

  // 7. Show-back: the entry as learned.
  const shownBack = await client.transport.callExtensionMethod(
    'rsaxb.learnables.ShowBack',
    { collection: 'routing_rules', entry: '85' },
    asTeacher,
  );
  expect(shownBack.result?.versionId === result.versionId, `show-back shows the version just taught: ${shown(shownBack)}`);
  expect(shownBack.result.taughtBy === taughtBy, 'show-back names the teacher');
  ok("show-back shows the lesson's version and teacher");

  // 8. A new task is answered from the new rule.
  const answered = await send(client, activated);
  expect(
    answered.status.state === TaskState.TASK_STATE_COMPLETED,
    `the agent now answers, got ${stateName(answered.status.state)}`,
  );
  const text = answered.status.message.parts
    .filter((part) => part.content?.$case === 'text')
    .map((part) => part.content.value)
    .join(' ');
  expect(text.includes('cold chain'), `the answer names the taught desk, got ${shown(text)}`);
  expect(teachBlock(answered.status.message) === undefined, 'an answer carries no teach block');
  ok(`SendMessage after teaching: completed, ${shown(text)}`);
}

async function main() {
  const { values } = parseArgs({
    options: { url: { type: 'string' }, 'taught-by': { type: 'string' } },
  });
  if (!values.url || !values['taught-by']) {
    console.error('usage: node interop.mjs --url URL --taught-by EMAIL (token in LEARNABLES_TOKEN)');
    return 2;
  }
  const token = process.env.LEARNABLES_TOKEN ?? '';
  if (token === '') {
    console.error("FAILED: set LEARNABLES_TOKEN to the teacher's bearer token");
    return 2;
  }
  try {
    await run(values.url, token, values['taught-by']);
  } catch (error) {
    if (error instanceof Unexpected) {
      console.error(`FAILED: expected ${error.message}`);
    } else {
      // The SDK refusing what the agent sent, or the network.
      console.error(`FAILED: ${error?.name}: ${shown(String(error?.message ?? error))}`);
    }
    return 1;
  }
  console.log('PASSED: @a2a-js/sdk (JavaScript) interoperates with the agent');
  return 0;
}

process.exitCode = await main();
