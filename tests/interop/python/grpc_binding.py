"""The example agent on both bindings, read over gRPC by the official A2A
Python SDK's gRPC client (a2a-sdk's `grpc` extra).

A question asked on JSON-RPC by a client that activated Learnables carries a
teach block. Read over gRPC by a client that did not activate (GetTask,
ListTasks, SubscribeToTask), nothing of Learnables shows: no block, no URI
anywhere in what arrives, no echo. An activated gRPC client sees the block
and the echo. Prints PASSED: at the end, or FAILED: and why.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import uuid
from typing import Any

import grpc
import httpx
from google.protobuf.json_format import MessageToDict

from a2a.client import A2ACardResolver, ClientCallContext, ClientConfig, ClientFactory
from a2a.client.service_parameters import ServiceParametersFactory, with_a2a_extensions
from a2a.utils.errors import TaskNotFoundError
from interop import QUESTION, TIMEOUT_SECONDS, URI, Unexpected, expect, ok, shown, teach_block
from a2a.types.a2a_pb2 import (
    GetTaskRequest,
    ListTasksRequest,
    Message,
    Part,
    Role,
    SendMessageConfiguration,
    SendMessageRequest,
    SubscribeToTaskRequest,
    Task,
    TaskState,
)



def names_uri(message: Any) -> bool:
    """Whether a protobuf message holds the URI anywhere (any field, any depth)."""
    return URI.encode() in message.SerializeToString()


class Echoes(grpc.aio.UnaryUnaryClientInterceptor, grpc.aio.UnaryStreamClientInterceptor):
    """Records the `a2a-extensions` response metadata of every gRPC call."""

    def __init__(self) -> None:
        self.last: list[str] = []

    async def _record(self, call: Any) -> None:
        metadata = await call.initial_metadata()
        self.last = [value for key, value in (metadata or []) if key == "a2a-extensions"]

    async def intercept_unary_unary(self, continuation, details, request):  # type: ignore[no-untyped-def]
        call = await continuation(details, request)
        await self._record(call)
        return call

    async def intercept_unary_stream(self, continuation, details, request):  # type: ignore[no-untyped-def]
        call = await continuation(details, request)
        await self._record(call)
        return call


def question(streaming_config: bool = False) -> SendMessageRequest:
    return SendMessageRequest(
        message=Message(message_id=str(uuid.uuid4()), role=Role.ROLE_USER, parts=[Part(text=QUESTION)]),
        configuration=SendMessageConfiguration(return_immediately=streaming_config),
    )


async def ask(client: Any, context: ClientCallContext | None) -> Task:
    answers = [event async for event in client.send_message(question(), context=context)]
    expect(len(answers) >= 1 and answers[-1].HasField("task"), f"a task, got {shown(answers)}")
    return answers[-1].task


async def run(url: str) -> None:
    activated = ClientCallContext(
        service_parameters=ServiceParametersFactory.create([with_a2a_extensions([URI])])
    )
    async with httpx.AsyncClient(timeout=TIMEOUT_SECONDS) as http:
        card = await A2ACardResolver(http, url).get_agent_card()
        bindings = [interface.protocol_binding for interface in card.supported_interfaces]
        expect("JSONRPC" in bindings and "GRPC" in bindings, f"the card names both bindings, got {bindings}")
        ok(f"the card's supportedInterfaces: {bindings}")

        # 1. Asked on JSON-RPC by a client that activated Learnables.
        json_rpc = ClientFactory(
            ClientConfig(httpx_client=http, streaming=False, supported_protocol_bindings=["JSONRPC"])
        ).create(card)
        asked = await ask(json_rpc, activated)
        expect(
            asked.status.state == TaskState.TASK_STATE_INPUT_REQUIRED,
            f"the agent asks (is its knowledge fresh?), got {TaskState.Name(asked.status.state)}",
        )
        block = teach_block(asked.status.message)
        expect(block is not None, "the JSON-RPC question carries a teach block")
        ok(f"asked on JSON-RPC, activated: input-required with a teach block for {shown(block.get('collection'))}")

        # 2. Read over gRPC by a client that did not activate.
        echoes = Echoes()
        grpc_config = ClientConfig(
            streaming=True,
            supported_protocol_bindings=["GRPC"],
            grpc_channel_factory=lambda target: grpc.aio.insecure_channel(target, interceptors=[echoes]),
        )
        over_grpc = ClientFactory(grpc_config).create(card)

        fetched = await over_grpc.get_task(GetTaskRequest(id=asked.id))
        expect(fetched.id == asked.id, "GetTask over gRPC returns the task")
        expect(not names_uri(fetched), f"GetTask over gRPC shows nothing of Learnables: {shown(MessageToDict(fetched))}")
        expect(teach_block(fetched.status.message) is None, "no teach block over gRPC")
        expect(echoes.last == [], f"no echo for a client that did not activate, got {echoes.last}")
        ok("GetTask over gRPC, not activated: the question without its block or the URI, no echo")

        # The host's own errors (trailers-only answers) reach such a client
        # as the host sent them: the SDK reads its typed error.
        try:
            await over_grpc.get_task(GetTaskRequest(id=f"no-such-task-{uuid.uuid4()}"))
        except TaskNotFoundError:
            ok("GetTask over gRPC of an unknown task, not activated: the SDK raises its TaskNotFoundError")
        else:
            raise Unexpected("GetTask over gRPC of an unknown task to fail with TaskNotFoundError")

        listed = await over_grpc.list_tasks(ListTasksRequest())
        expect(any(task.id == asked.id for task in listed.tasks), "ListTasks over gRPC lists the task")
        expect(not names_uri(listed), "ListTasks over gRPC shows nothing of Learnables")
        ok(f"ListTasks over gRPC, not activated: {len(listed.tasks)} tasks, no block, no URI")

        # SubscribeToTask: the SDK's handler streams a task only while its
        # execution runs; the customs agent's has ended with its question,
        # so the SDK refuses, and what arrives either way must be clean.
        received = []
        try:
            async def first_events() -> None:
                async for event in over_grpc.subscribe(SubscribeToTaskRequest(id=asked.id)):
                    received.append(event)
                    break

            await asyncio.wait_for(first_events(), TIMEOUT_SECONDS)
        except asyncio.TimeoutError:
            raise Unexpected("SubscribeToTask over gRPC to answer or refuse in time")
        except Exception as refused:  # the SDK's error for a task whose execution ended
            ok(f"SubscribeToTask over gRPC, not activated: refused by the SDK ({type(refused).__name__})")
        for event in received:
            expect(not names_uri(event), f"SubscribeToTask over gRPC shows nothing: {shown(MessageToDict(event))}")
        if received:
            ok(f"SubscribeToTask over gRPC, not activated: {len(received)} event(s), no block, no URI")

        # 3. An activated gRPC client sees the block and the echo.
        taught = await over_grpc.get_task(GetTaskRequest(id=asked.id), context=activated)
        expect(teach_block(taught.status.message) == block, "an activated gRPC client sees the same block")
        expect(URI in echoes.last, f"the activation is echoed over gRPC, got {echoes.last}")
        ok("GetTask over gRPC, activated: the teach block and the echo")

        asked_over_grpc = await ask(over_grpc, activated)
        expect(teach_block(asked_over_grpc.status.message) is not None, "a question asked over gRPC, activated, carries a block")
        expect(URI in echoes.last, "SendMessage over gRPC, activated: the echo")
        plain = await ask(over_grpc, None)
        expect(not names_uri(plain), "a question asked over gRPC without activation carries nothing of Learnables")
        ok("SendMessage over gRPC: a block when activated, none when not")
        await over_grpc.close()
        await json_rpc.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True, help="the agent's base URL (its card)")
    args = parser.parse_args()
    try:
        asyncio.run(run(args.url))
    except Unexpected as failure:
        print(f"FAILED: expected {failure}", file=sys.stderr)
        return 1
    except Exception as error:
        print(f"FAILED: {type(error).__name__}: {shown(str(error))}", file=sys.stderr)
        return 1
    print("PASSED: a2a-sdk's gRPC client reads nothing of Learnables without activating", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
