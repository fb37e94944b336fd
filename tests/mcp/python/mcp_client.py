"""`learnables mcp` driven by the official MCP Python SDK's client (mcp 2.x).

Usage: mcp_client.py --bin PATH --url http://127.0.0.1:PORT/ --taught-by EMAIL
                     --case CASE [--mode legacy|auto]
with the teacher's bearer token in the LEARNABLES_TOKEN environment variable,
which the server inherits (it is never an argument).

The agent must have fresh knowledge. `--mode legacy` negotiates a protocol
revision with the initialize handshake (forms come as `elicitation/create`
requests); `auto` negotiates 2026-07-28 (forms come in an
`InputRequiredResult`, the SDK calling again with the answer). Either way
the SDK's `elicitation_callback` answers them, as a person would.

Each step prints what it proved; the first failed expectation prints FAILED
with what was expected and exits 1. Text from the agent is printed
JSON-escaped.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import urllib.error
import urllib.request
import uuid
from typing import Any

from mcp import Client, StdioServerParameters
from mcp import types

URI = "https://rsaxb.com/a2a/learnables/v1"
TOOLS = {"list_learnables", "show", "history", "teach", "answer_question", "revert", "retract", "review"}
ARGUMENTS = {"collection", "entry", "reason", "link", "to", "proposal"}
DESKS = {
    "general": "Everything without a specialist desk.",
    "dangerous-goods": "Hazardous materials.",
    "cold chain": "Goods that must stay cold.",
}
TIMEOUT_SECONDS = 30.0


def expect(condition: bool, what: str, found: Any = None) -> None:
    if not condition:
        print(f"FAILED: {what}" + ("" if found is None else f"; found {json.dumps(found, default=str)}"))
        sys.exit(1)
    print(f"ok: {what}")


def rpc(url: str, token: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
    """A JSON-RPC call to the agent over HTTP, the extension activated."""
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
    request = urllib.request.Request(
        url,
        data=body,
        headers={
            "Content-Type": "application/json",
            "A2A-Extensions": URI,
            "A2A-Version": "1.0",
            "Authorization": f"Bearer {token}",
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as error:
        return json.loads(error.read())


def show_back(args: argparse.Namespace, collection: str, entry: str) -> dict[str, Any]:
    return rpc(args.url, args.token, "rsaxb.learnables.ShowBack", {"collection": collection, "entry": entry})


def field_value(shown: dict[str, Any], name: str) -> Any:
    for field in shown["result"].get("lessonFields", []):
        if field["name"] == name:
            return field.get("default")
    return None


class Person:
    """The elicitation callback: answers each form with the next answer
    (a dict to accept, "decline" or "cancel"), and keeps what it was asked."""

    def __init__(self, *answers: Any) -> None:
        self.answers = list(answers)
        self.asked: list[types.ElicitRequestFormParams] = []

    async def __call__(self, context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.asked.append(params)
        answer = self.answers.pop(0) if self.answers else "cancel"
        if isinstance(answer, dict):
            return types.ElicitResult(action="accept", content=answer)
        return types.ElicitResult(action=answer)


def schema_of(params: Any) -> dict[str, Any]:
    return params.requested_schema if isinstance(params.requested_schema, dict) else params.requested_schema.model_dump(
        by_alias=True, exclude_none=True
    )


def client(args: argparse.Namespace, person: Person | None) -> Client:
    server = StdioServerParameters(
        command=args.bin,
        args=["mcp", args.url],
        env={"LEARNABLES_TOKEN": args.token},
    )
    return Client(
        server,
        mode=args.mode,
        elicitation_callback=person,
        read_timeout_seconds=TIMEOUT_SECONDS,
    )


def result_text(result: types.CallToolResult) -> str:
    return " ".join(block.text for block in result.content if isinstance(block, types.TextContent))


async def case_tools(args: argparse.Namespace) -> None:
    async with client(args, Person()) as mcp:
        listed = await mcp.list_tools()
        names = {tool.name for tool in listed.tools}
        expect(names == TOOLS, "the tools are the eight the API names", sorted(names))
        for tool in listed.tools:
            properties = set(tool.input_schema.get("properties", {}))
            expect(properties <= ARGUMENTS, f"{tool.name} takes no lesson value", sorted(properties))
            expect(args.token not in json.dumps(tool.model_dump()), f"{tool.name}'s description has no token")
        refused = await mcp.call_tool(
            "teach", {"collection": "routing_rules", "entry": "85", "desk": "cold chain"}
        )
        expect(refused.is_error, "a teach call carrying a value is refused", result_text(refused))
        expect("no tool takes a lesson's value" in result_text(refused), "and says why", result_text(refused))
        listed_learnables = await mcp.call_tool("list_learnables", {})
        data = listed_learnables.structured_content or {}
        collections = [learnable["collection"] for learnable in data.get("learnables", [])]
        expect("routing_rules" in collections, "list_learnables names the routing rules", collections)
    # A host without elicitation: refused, nothing taught.
    async with client(args, None) as mcp:
        refused = await mcp.call_tool("teach", {"collection": "routing_rules", "entry": "85"})
        expect(refused.is_error, "a host without forms is refused", result_text(refused))
        expect("cannot show forms" in result_text(refused), "saying it cannot show forms", result_text(refused))
    expect("error" in show_back(args, "routing_rules", "85"), "nothing was taught")


async def case_teach(args: argparse.Namespace) -> None:
    person = Person({"desk": "cold chain"})
    async with client(args, person) as mcp:
        result = await mcp.call_tool(
            "teach", {"collection": "routing_rules", "entry": "85", "reason": "Electronics ship cold"}
        )
        expect(not result.is_error, "the lesson is taught", result_text(result))
        expect((result.structured_content or {}).get("learned") is True, "the agent learned it")
        expect((result.structured_content or {}).get("entryVersion") == 1, "the entry's first version",
               result.structured_content)
        expect('Version 1 of the routing rule "85"' in result_text(result), "said in words", result_text(result))
        expect(len(person.asked) == 1, "the person was asked once", len(person.asked))
        params = person.asked[0]
        expect("85" in params.message and "routing rule" in params.message, "the form names the entry", params.message)
        schema = schema_of(params)
        properties = schema["properties"]
        expect(schema["type"] == "object", "the requested schema is an object")
        expect(
            all(p.get("type") in ("string", "number", "integer", "boolean") for p in properties.values()),
            "of primitive properties only",
            properties,
        )
        expect("chapter" not in properties, "the entry key is not asked", sorted(properties))
        expect("chapter" not in schema.get("required", []), "nor required")
        desk = properties["desk"]
        consts = [option["const"] for option in desk["oneOf"]]
        expect(sorted(consts) == sorted(DESKS), "desk offers exactly the card's three choices", consts)
        for option in desk["oneOf"]:
            expect(DESKS[option["const"]] in option["title"], f"{option['const']!r} is titled with its meaning", option)
        expect(desk.get("title") == "Desk", "the desk's label is its title", desk)
        shown = show_back(args, "routing_rules", "85")
        expect(shown.get("result", {}).get("taughtBy") == args.taught_by, "show-back names the token's teacher", shown)
        expect(field_value(shown, "desk") == "cold chain", "the agent learned the cold chain desk", shown)
        show = await mcp.call_tool("show", {"collection": "routing_rules", "entry": "85"})
        expect(not show.is_error and "cold chain" in result_text(show), "show reads it back", result_text(show))
        expect(args.token not in result_text(show) + result_text(result), "no result carries the token")


async def case_decline(args: argparse.Namespace) -> None:
    for answer in ("decline", "cancel"):
        person = Person(answer)
        async with client(args, person) as mcp:
            result = await mcp.call_tool("teach", {"collection": "routing_rules", "entry": "85"})
            expect(len(person.asked) == 1, f"the form was shown ({answer})")
            expect("Nothing was taught" in result_text(result), f"a {answer} says nothing was taught", result_text(result))
            expect((result.structured_content or {}).get("taught") is False, "and its data says so")
    expect("error" in show_back(args, "routing_rules", "85"), "the agent learned nothing")


async def case_question(args: argparse.Namespace) -> None:
    message = {
        "messageId": str(uuid.uuid4()),
        "role": "ROLE_USER",
        "parts": [{"text": "Route a declaration for HS chapter 85"}],
    }
    asked = rpc(args.url, args.token, "SendMessage", {"message": message})
    task = asked["result"]["task"]
    expect(task["status"]["state"] == "TASK_STATE_INPUT_REQUIRED", "the agent asks a question", task["status"])
    link = f"{args.url.rstrip('/')}/learnables/#task={task['id']}"
    person = Person({"desk": "cold chain"})
    async with client(args, person) as mcp:
        result = await mcp.call_tool("answer_question", {"link": link})
        expect(not result.is_error, "the question is answered", result_text(result))
        data = result.structured_content or {}
        expect(data.get("task", {}).get("answered") is True, "the result says the task is answered", data)
    expect(len(person.asked) == 1, "through one form")
    expect("chapter" not in schema_of(person.asked[0])["properties"], "that does not ask the entry")
    found = rpc(args.url, args.token, "GetTask", {"id": task["id"]})
    state = found["result"]["status"]["state"]
    expect(state == "TASK_STATE_COMPLETED", "the task that asked is completed", state)
    async with client(args, Person({"desk": "general"})) as mcp:
        again = await mcp.call_tool("answer_question", {"link": link})
        expect(again.is_error and "waits for no answer" in result_text(again),
               "an answered question is not asked again", result_text(again))
    expect(field_value(show_back(args, "routing_rules", "85"), "desk") == "cold chain", "the lesson stands")


async def case_refused(args: argparse.Namespace) -> None:
    person = Person({"amountEur": "lots"}, {"amountEur": "5000"})
    async with client(args, person) as mcp:
        result = await mcp.call_tool("teach", {"collection": "clearance_limits", "entry": "broker-7"})
        expect(not result.is_error, "the corrected lesson is taught", result_text(result))
    expect(len(person.asked) == 2, "the form was asked again after the refusal", len(person.asked))
    again = person.asked[1]
    expect("Limit in euros" in again.message, "the refusal names the field by its label", again.message)
    expect("lots" in again.message, "and the value refused", again.message)
    # The limit is an integer property with its bounds; "lots" is no
    # integer, so the form asked again starts empty rather than on it.
    amount = schema_of(again)["properties"]["amountEur"]
    expect(amount.get("type") == "integer", "a whole-number field is an integer property", amount)
    expect(amount.get("minimum") == 0 and amount.get("maximum") == 4294967295, "with its type's range", amount)
    expect(amount.get("default") is None, "a refused text is not put in a number's input", amount)
    # Clearance limits are reviewed: the corrected value waits for another teacher.
    expect("Waiting for review" in result_text(result), "the person is told it waits", result_text(result))
    listed = rpc(args.url, args.token, "rsaxb.learnables.Review", {"collection": "clearance_limits", "entry": "broker-7"})
    proposals = listed.get("result", {}).get("proposals", [])
    after = proposals[0]["changes"][0].get("after") if len(proposals) == 1 and proposals[0]["changes"] else None
    expect(after == "5000", "the corrected value is the one proposed", listed)


async def case_retract(args: argparse.Namespace) -> None:
    taught = rpc(
        args.url,
        args.token,
        "rsaxb.learnables.Teach",
        {"collection": "routing_rules", "entry": "85", "value": {"desk": "general"}, "taughtBy": args.taught_by},
    )
    expect("result" in taught, "an entry to retract", taught)
    person = Person({"confirm": False}, {"confirm": True, "reason": "Wrong desk"})
    async with client(args, person) as mcp:
        kept = await mcp.call_tool("retract", {"collection": "routing_rules", "entry": "85"})
        expect("Nothing changed" in result_text(kept), "an unconfirmed retraction changes nothing", result_text(kept))
        expect(field_value(show_back(args, "routing_rules", "85"), "desk") == "general", "the entry stays")
        done = await mcp.call_tool("retract", {"collection": "routing_rules", "entry": "85"})
        expect(not done.is_error, "a confirmed retraction is made", result_text(done))
    schema = schema_of(person.asked[0])
    expect(schema["properties"]["confirm"]["type"] == "boolean", "the confirmation is a yes/no", schema)
    expect("reason" in schema["properties"], "with a reason", schema)
    shown = show_back(args, "routing_rules", "85")
    expect(shown.get("result", {}).get("retracted") is True or "error" in shown, "the entry is retracted", shown)


async def case_revert(args: argparse.Namespace) -> None:
    for desk in ("general", "dangerous-goods"):
        taught = rpc(
            args.url,
            args.token,
            "rsaxb.learnables.Teach",
            {"collection": "routing_rules", "entry": "85", "value": {"desk": desk}, "taughtBy": args.taught_by},
        )
        expect("result" in taught, f"the {desk} desk is taught over HTTP", taught)
    person = Person({"confirm": True, "reason": "Back to general"})
    async with client(args, person) as mcp:
        history = await mcp.call_tool("history", {"collection": "routing_rules", "entry": "85"})
        versions = (history.structured_content or {}).get("history", {}).get("versions", [])
        expect(len(versions) == 2, "history lists both versions, newest first", versions)
        first = versions[-1]["versionId"]
        result = await mcp.call_tool("revert", {"collection": "routing_rules", "entry": "85", "to": first})
        expect(not result.is_error, "the confirmed revert is taught", result_text(result))
    expect(len(person.asked) == 1, "the person was asked to confirm")
    expect("Revert" in person.asked[0].message and "version 1" in person.asked[0].message,
           "the form says what it reverts to", person.asked[0].message)
    shown = show_back(args, "routing_rules", "85")
    expect(field_value(shown, "desk") == "general", "the entry holds version 1's desk again", shown)
    expect(shown["result"].get("reason") == "Back to general", "with the person's reason", shown)


async def case_review(args: argparse.Namespace) -> None:
    # The test proposed bob's limit before this ran; alice proposes her own.
    own = rpc(
        args.url,
        args.token,
        "rsaxb.learnables.Teach",
        {"collection": "clearance_limits", "entry": "broker-9", "value": {"amountEur": "7000"},
         "taughtBy": args.taught_by},
    )
    own_id = own.get("result", {}).get("proposalId")
    expect(own_id is not None and own["result"]["learned"] is False, "alice's lesson waits for review", own)
    person = Person("decline", {"decision": "approve", "reason": "Matches the contract"})
    async with client(args, person) as mcp:
        listed = await mcp.call_tool("review", {})
        proposals = (listed.structured_content or {}).get("proposals", [])
        bobs = [p for p in proposals if p["proposedBy"] == "bob@example.com"]
        expect(len(bobs) == 1 and bobs[0]["mayDecide"] is True, "the review tool lists bob's proposal", proposals)
        mine = [p for p in proposals if p["proposalId"] == own_id]
        expect(len(mine) == 1 and mine[0]["mayDecide"] is False, "and alice's own, not hers to decide", proposals)
        declined = await mcp.call_tool("review", {"proposal": bobs[0]["proposalId"]})
        expect("Nothing decided" in result_text(declined), "a declined form decides nothing", result_text(declined))
        approved = await mcp.call_tool("review", {"proposal": bobs[0]["proposalId"]})
        expect(not approved.is_error, "the approval in the form is made", result_text(approved))
        expect("Learned" in result_text(approved), "and the agent learns the limit", result_text(approved))
        refused = await mcp.call_tool("review", {"proposal": own_id})
        expect(len(person.asked) == 2, "alice is never asked about her own", len(person.asked))
    expect("Limit in euros" in person.asked[0].message, "the form says what would change", person.asked[0].message)
    schema = schema_of(person.asked[0])
    expect(schema["properties"]["decision"]["oneOf"][0]["const"] == "approve", "the decision is a choice", schema)
    expect(refused.is_error and "another teacher" in result_text(refused),
           "her own is refused, saying why", result_text(refused))
    shown = show_back(args, "clearance_limits", "broker-17")
    expect(field_value(shown, "amountEur") == "12000", "bob's limit is learned", shown)


async def case_lists(args: argparse.Namespace) -> None:
    """The desk plan agent: a list of desks is a multi-select, a checked
    limit an integer with its range; out of range it is refused by label and
    asked again, then two desks and a good limit are taught."""
    person = Person(
        {"desks": ["general", "cold chain"], "limit_eur": 2000000},
        {"desks": ["general", "cold chain"], "limit_eur": 5000},
    )
    async with client(args, person) as mcp:
        result = await mcp.call_tool("teach", {"collection": "desk_plans", "entry": "85"})
        expect(not result.is_error, "the corrected lesson is taught", result_text(result))
    expect(len(person.asked) == 2, "the form was asked again after the refusal", len(person.asked))
    properties = schema_of(person.asked[0])["properties"]
    desks = properties["desks"]
    expect(desks.get("type") == "array", "the list of desks is an array property", desks)
    consts = [option.get("const") for option in desks.get("items", {}).get("anyOf", [])]
    expect(consts == list(DESKS), "a multi-select of the three desks", desks)
    expect(desks.get("title") == "Desks the chapter may go to", "titled by its label", desks)
    limit = properties["limit_eur"]
    expect(limit.get("type") == "integer", "the limit is an integer property", limit)
    expect(limit.get("minimum") == 100 and limit.get("maximum") == 1000000, "with the range as its bounds", limit)
    again = person.asked[1]
    expect("Limit in euros" in again.message and "at most 1,000,000" in again.message,
           "the refusal names the field by its label and the range", again.message)
    expect("Chapter 85 may go to the general and cold chain desks, up to EUR 5000" in result_text(result),
           "the lesson is said back in words", result_text(result))
    shown = show_back(args, "desk_plans", "85")
    expect(field_value(shown, "desks") == "general\ncold chain", "the agent learned the two desks", shown)
    expect(field_value(shown, "limit_eur") == "5000", "and the limit", shown)


CASES = {
    "lists": case_lists,
    "review": case_review,
    "revert": case_revert,
    "tools": case_tools,
    "teach": case_teach,
    "decline": case_decline,
    "question": case_question,
    "refused": case_refused,
    "retract": case_retract,
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--url", required=True)
    parser.add_argument("--taught-by", required=True)
    parser.add_argument("--case", required=True, choices=sorted(CASES))
    parser.add_argument("--mode", default="auto", choices=["legacy", "auto"])
    args = parser.parse_args()
    args.token = os.environ["LEARNABLES_TOKEN"]
    asyncio.run(asyncio.wait_for(CASES[args.case](args), timeout=4 * TIMEOUT_SECONDS))
    print(f"PASSED: {args.case} ({args.mode})")


if __name__ == "__main__":
    main()
