"""The example customs agent driven by the official A2A Python SDK (a2a-sdk 1.x).

Usage: interop.py --url http://127.0.0.1:PORT/ --taught-by EMAIL
with the teacher's bearer token in the LEARNABLES_TOKEN environment variable.

The agent must have fresh knowledge (no routing rule for HS chapter 85). Each
step prints what it proved; the first failed expectation prints FAILED with
what was expected and exits 1. Text that comes from the agent is printed
JSON-escaped.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import uuid
from typing import Any

import httpx
from google.protobuf.json_format import MessageToDict, ParseDict, ParseError

from a2a.client import (
    A2ACardResolver,
    ClientCallContext,
    ClientConfig,
    ClientFactory,
)
from a2a.client.service_parameters import (
    ServiceParametersFactory,
    with_a2a_extensions,
)
from a2a.client.transports.jsonrpc import JsonRpcTransport
from a2a.extensions.common import HTTP_EXTENSION_HEADER, find_extension_by_uri
from a2a.utils.errors import (
    JSON_RPC_ERROR_CODE_MAP,
    ExtensionSupportRequiredError,
    InvalidParamsError,
    TaskNotFoundError,
)
from a2a.utils.proto_utils import validate_proto_required_fields
from a2a.types.a2a_pb2 import (
    AgentCard,
    GetTaskRequest,
    Message,
    Part,
    Role,
    SendMessageRequest,
    SendMessageResponse,
    Task,
    TaskState,
)

URI = "https://rsaxb.com/a2a/learnables/v1"
QUESTION = "Route a declaration for HS chapter 85"
TIMEOUT_SECONDS = 10.0


class Unexpected(Exception):
    """A failed expectation."""


def shown(value: Any) -> str:
    """Agent-supplied data, escaped for a terminal."""
    return json.dumps(value, ensure_ascii=True, default=str)[:2000]


def expect(condition: bool, what: str) -> None:
    if not condition:
        raise Unexpected(what)


def ok(what: str) -> None:
    print(f"ok: {what}", flush=True)


class Wire:
    """Records every response the SDK's HTTP client receives, so the raw JSON
    and headers can be checked alongside what the SDK made of them."""

    def __init__(self) -> None:
        self.last: httpx.Response | None = None

    async def record(self, response: httpx.Response) -> None:
        await response.aread()
        self.last = response

    def echoed(self) -> list[str]:
        expect(self.last is not None, "a response was recorded")
        values = self.last.headers.get_list(HTTP_EXTENSION_HEADER)
        return [item.strip() for value in values for item in value.split(",")]

    def result(self) -> Any:
        expect(self.last is not None, "a response was recorded")
        return self.last.json().get("result")


def strictly(raw: Any, message: Any, what: str) -> None:
    """Parses raw JSON into an SDK proto type refusing unknown fields (the
    SDK's own parsing ignores them, which would hide a field it cannot read),
    then checks every field the v1.0 proto marks REQUIRED is set."""
    try:
        ParseDict(raw, message, ignore_unknown_fields=False)
    except ParseError as error:
        raise Unexpected(
            f"{what} is not valid A2A v1.0 ProtoJSON for the SDK: {error}"
        ) from error
    try:
        validate_proto_required_fields(message)
    except InvalidParamsError as error:
        raise Unexpected(
            f"{what} to set every field A2A v1.0 marks REQUIRED: {shown(error.data)}"
        ) from error


def json_or_none(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return None


def teach_block(message: Message) -> dict[str, Any] | None:
    """The Learnables teach block in a message's metadata, if any."""
    metadata = MessageToDict(message.metadata) if message.HasField("metadata") else {}
    extension = metadata.get(URI)
    if extension is None:
        return None
    expect(isinstance(extension, dict), f"metadata[{URI}] is an object")
    return extension.get("teach")


def route_request() -> SendMessageRequest:
    return SendMessageRequest(
        message=Message(
            message_id=str(uuid.uuid4()),
            role=Role.ROLE_USER,
            parts=[Part(text=QUESTION)],
        )
    )


async def send(client: Any, context: ClientCallContext | None) -> Task:
    """Sends the routing question through the SDK's client; the answer must be
    a task."""
    answers = [event async for event in client.send_message(route_request(), context=context)]
    expect(len(answers) == 1, f"one answer to SendMessage, got {len(answers)}")
    expect(
        answers[0].HasField("task"),
        f"SendMessage answers with a task, got {shown(MessageToDict(answers[0]))}",
    )
    return answers[0].task


async def rpc_call(
    http: httpx.AsyncClient,
    url: str,
    method: str,
    params: dict[str, Any],
    token: str | None,
    activate: bool = True,
) -> httpx.Response:
    """A JSON-RPC call to a method A2A does not define.

    The SDK 1.x offers no public way to call a custom JSON-RPC method (its
    transport's request helper is private), so this is raw JSON-RPC over the
    same httpx client the SDK uses (which carries the SDK's A2A-Version
    header), with the activation header built by the SDK's own
    service-parameter helpers."""
    headers = ServiceParametersFactory.create([with_a2a_extensions([URI] if activate else [])])
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    body = {"jsonrpc": "2.0", "id": str(uuid.uuid4()), "method": method, "params": params}
    return await http.post(url, json=body, headers=headers)


async def run(url: str, token: str, taught_by: str) -> None:
    wire = Wire()
    async with httpx.AsyncClient(
        timeout=TIMEOUT_SECONDS, event_hooks={"response": [wire.record]}
    ) as http:
        # 1. The card, through the SDK's resolver, into the SDK's AgentCard.
        card = await A2ACardResolver(http, url).get_agent_card()
        expect(isinstance(card, AgentCard), "the resolver returns an AgentCard")
        strictly(wire.last.json(), AgentCard(), "the agent card")
        ok(f"card resolved, parsed strictly into a2a AgentCard, REQUIRED fields set: {shown(card.name)}")

        # 2. The Learnables extension and its params.
        extension = find_extension_by_uri(card, URI)
        expect(extension is not None, f"capabilities.extensions holds {URI}")
        expect(not extension.required, "the extension is not required")
        params = MessageToDict(extension.params)
        teach_method = params.get("teachMethod")
        expect(
            isinstance(teach_method, str) and teach_method != "",
            f"the extension's params name a teachMethod, got {shown(params)}",
        )
        learnables = {item.get("collection"): item for item in params.get("learnables", [])}
        expect(
            "routing_rules" in learnables,
            f"routing_rules is declared, got {shown(sorted(map(str, learnables)))}",
        )
        declared_fields = {field["name"]: field for field in learnables["routing_rules"]["lessonFields"]}
        expect(
            "cold chain" in declared_fields.get("desk", {}).get("choices", []),
            f"the desk field offers 'cold chain', got {shown(declared_fields.get('desk'))}",
        )
        ok(f"extension found with {len(learnables)} learnables, teachMethod {shown(teach_method)}")

        # 3. A question with the extension activated carries a teach block.
        config = ClientConfig(httpx_client=http, streaming=False)
        client = ClientFactory(config).create(card)
        rpc_urls = [i.url for i in card.supported_interfaces if i.protocol_binding == "JSONRPC"]
        expect(len(rpc_urls) > 0, "the card lists a JSONRPC interface")
        rpc_url = rpc_urls[0]
        activated = ClientCallContext(
            service_parameters=ServiceParametersFactory.create([with_a2a_extensions([URI])])
        )
        asked = await send(client, activated)
        strictly(wire.result(), SendMessageResponse(), "the SendMessage result")
        expect(
            asked.status.state == TaskState.TASK_STATE_INPUT_REQUIRED,
            "the agent has no rule for chapter 85 yet and asks (is its knowledge fresh?), "
            f"got {TaskState.Name(asked.status.state)}",
        )
        expect(URI in wire.echoed(), f"the activation is echoed, got {shown(wire.echoed())}")
        question = asked.status.message
        expect(URI in question.extensions, "the question lists the extension in its extensions")
        block = teach_block(question)
        expect(block is not None, "the question carries a teach block")
        expect(block.get("collection") == "routing_rules", f"the block teaches routing_rules: {shown(block)}")
        expect("85" in block.get("entries", []), f"the block's entries hold 85: {shown(block)}")
        suggested = block.get("suggested", {})
        expect(
            set(suggested) <= set(declared_fields),
            f"the suggestion's keys are declared lesson fields: {shown(suggested)}",
        )
        ok(f"activated SendMessage: input-required with a teach block {shown(block)}")

        # 4. GetTask through the SDK: the pinned question keeps its block.
        fetched = await client.get_task(GetTaskRequest(id=asked.id), context=activated)
        strictly(wire.result(), Task(), "the GetTask result")
        expect(fetched.id == asked.id, "GetTask returns the task asked for")
        expect(
            fetched.status.state == TaskState.TASK_STATE_INPUT_REQUIRED,
            f"the task still waits for input, got {TaskState.Name(fetched.status.state)}",
        )
        expect(teach_block(fetched.status.message) == block, "GetTask shows the same teach block")
        ok("GetTask: the task still asks, with the same teach block")
        try:
            await client.get_task(GetTaskRequest(id=f"no-such-task-{uuid.uuid4()}"))
        except TaskNotFoundError:
            ok("GetTask of an unknown task: the SDK raises its TaskNotFoundError")
        else:
            raise Unexpected("GetTask of an unknown task to fail with TaskNotFoundError")

        # 5. The same question without activation: no block, no echo.
        plain = await send(client, None)
        expect(
            plain.status.state == TaskState.TASK_STATE_INPUT_REQUIRED,
            f"without activation the agent still asks, got {TaskState.Name(plain.status.state)}",
        )
        expect(teach_block(plain.status.message) is None, "no teach block without activation")
        expect(URI not in wire.echoed(), "no echo without activation")
        expect(URI not in plain.status.message.extensions, "no extension listed without activation")
        ok("SendMessage without activation: a question with no teach block")

        # 6. Teach, through the method the card names. Without a token first.
        value = dict(suggested)
        value["chapter"] = "85"
        value["desk"] = "cold chain"
        lesson = {
            "collection": "routing_rules",
            "entry": "85",
            "value": value,
            "taughtBy": taught_by,
            "reason": "Electrical machinery ships refrigerated at this port",
        }
        refused = await rpc_call(http, rpc_url, teach_method, lesson, None)
        refusal = json_or_none(refused)
        expect(
            refused.status_code in (401, 403)
            or (isinstance(refusal, dict) and isinstance(refusal.get("error"), dict)),
            "a lesson without a token is refused (HTTP 401/403 or a JSON-RPC error), got "
            f"HTTP {refused.status_code} {shown(refusal)}",
        )
        ok(f"teach without a token refused: HTTP {refused.status_code} {shown(refusal)}")
        unactivated = (
            await rpc_call(http, rpc_url, teach_method, lesson, token, activate=False)
        ).json()
        expect(
            unactivated.get("error", {}).get("code")
            == JSON_RPC_ERROR_CODE_MAP[ExtensionSupportRequiredError],
            "a lesson without activation is refused with the code the SDK reads as "
            f"ExtensionSupportRequiredError, got {shown(unactivated)}",
        )
        ok("teach without activation refused with A2A's ExtensionSupportRequired code")
        # A lesson its learnable refuses: the error, read by the SDK's own
        # JSON-RPC transport (the code that turns an error reply into the
        # SDK's error types), names the field at fault.
        wrong = dict(lesson, value=dict(value, chapter="not a chapter"))
        refused_reply = (await rpc_call(http, rpc_url, teach_method, wrong, token)).json()
        try:
            JsonRpcTransport(http, card, rpc_url)._check_jsonrpc_response(refused_reply)
        except InvalidParamsError as error:
            expect(
                isinstance(error.data, dict) and error.data.get("field") == "value.chapter",
                f"the SDK's InvalidParamsError names the field at fault, got {shown(error.data)}",
            )
        else:
            raise Unexpected(f"a refused lesson to raise InvalidParamsError, got {shown(refused_reply)}")
        ok("a refused lesson: the SDK's InvalidParamsError names the field at fault")
        reply = (await rpc_call(http, rpc_url, teach_method, lesson, token)).json()
        expect("result" in reply, f"the lesson is accepted, got {shown(reply)}")
        result = reply["result"]
        expect(result.get("learned") is True, f"the lesson is learned, got {shown(result)}")
        expect(
            isinstance(result.get("describes"), str) and result["describes"] != "",
            f"the result describes what was learned: {shown(result)}",
        )
        expect(isinstance(result.get("definitionVersion"), int), f"a definitionVersion: {shown(result)}")
        expect(URI in wire.echoed(), "the teach call's activation is echoed")
        ok(f"taught: {shown(result['describes'])}")

        # 7. Show-back: the entry as learned.
        shown_back = (
            await rpc_call(
                http, rpc_url, "rsaxb.learnables.ShowBack",
                {"collection": "routing_rules", "entry": "85"}, token,
            )
        ).json()
        expect("result" in shown_back, f"show-back answers, got {shown(shown_back)}")
        expect(
            shown_back["result"].get("versionId") == result.get("versionId"),
            f"show-back shows the version just taught: {shown(shown_back)}",
        )
        expect(shown_back["result"].get("taughtBy") == taught_by, "show-back names the teacher")
        ok("show-back shows the lesson's version and teacher")

        # 8. A new task is answered from the new rule.
        answered = await send(client, activated)
        expect(
            answered.status.state == TaskState.TASK_STATE_COMPLETED,
            f"the agent now answers, got {TaskState.Name(answered.status.state)}",
        )
        text = " ".join(part.text for part in answered.status.message.parts if part.HasField("text"))
        expect("cold chain" in text, f"the answer names the taught desk, got {shown(text)}")
        expect(teach_block(answered.status.message) is None, "an answer carries no teach block")
        ok(f"SendMessage after teaching: completed, {shown(text)}")
        await client.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True, help="the agent's base URL")
    parser.add_argument("--taught-by", required=True, help="the teacher the token belongs to")
    args = parser.parse_args()
    token = os.environ.get("LEARNABLES_TOKEN", "")
    if not token:
        print("FAILED: set LEARNABLES_TOKEN to the teacher's bearer token", file=sys.stderr)
        return 2
    try:
        asyncio.run(run(args.url, token, args.taught_by))
    except Unexpected as failure:
        print(f"FAILED: expected {failure}", file=sys.stderr)
        return 1
    except Exception as error:  # the SDK refusing what the agent sent, or the network
        print(f"FAILED: {type(error).__name__}: {shown(str(error))}", file=sys.stderr)
        return 1
    print("PASSED: a2a-sdk (Python) interoperates with the agent", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
