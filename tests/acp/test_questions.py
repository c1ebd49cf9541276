"""The question tool through ACP permission dialogs: several questions in turn, multi-select until Done."""

from __future__ import annotations

import json

from demo.fake_script import Turn
from tests.acp.conftest import Acp

QUESTIONS = {
    "questions": [
        {
            "question": "Which test runner?",
            "header": "Runner",
            "options": [{"label": "pytest", "description": "the usual"}, {"label": "unittest"}],
        },
        {
            "question": "Which checks?",
            "header": "Checks",
            "options": [{"label": "ruff"}, {"label": "mypy"}, {"label": "bandit"}],
            "multiple": True,
        },
    ]
}


async def test_two_questions_one_multi_select_are_answered_in_dialogs(acp: Acp) -> None:
    acp.model.script(Turn.tool_call("question", QUESTIONS), Turn.text("pytest with ruff and bandit."))
    run = await acp.run("turn", PROMPT="set up CI", PICKS=json.dumps(["pytest", "ruff", "bandit", "Done"]))
    assert run.failure is None, run.failure
    assert run.results["prompt"] == {"stopReason": "end_turn"}
    dialogs = [e["params"] for e in run.log if e["kind"] == "permission"]
    titles = [d["toolCall"]["title"] for d in dialogs]
    assert titles[0] == "(1/2) Which test runner?"
    assert titles[1].startswith("(2/2) Which checks?") and "then Done" in titles[1]
    assert titles[2] == "(2/2) Which checks? — chosen: ruff"
    # Each dialog offers only the choices not taken yet, plus Done (multi-select) and Dismiss.
    assert [o["name"] for o in dialogs[0]["options"]] == ["pytest", "unittest", "Dismiss"]
    assert [o["name"] for o in dialogs[2]["options"]] == ["mypy", "bandit", "Done", "Dismiss"]
    assert len(dialogs) == 4
    answer = str(acp.model.requests[1].messages)
    assert '"Which test runner?" = "pytest"' in answer
    assert '"Which checks?" = "ruff, bandit"' in answer


async def test_a_dismissed_question_ends_the_turn_and_nothing_is_answered(acp: Acp) -> None:
    acp.model.script(Turn.tool_call("question", QUESTIONS), Turn.text("never asked"))
    run = await acp.run("turn", PROMPT="set up CI", PICKS=json.dumps(["unittest", "Dismiss"]))
    assert run.failure is None, run.failure
    assert len([e for e in run.log if e["kind"] == "permission"]) == 2
    # As a rejected permission: the question call fails and the turn stops to wait for the user.
    assert run.results["prompt"] == {"stopReason": "end_turn"}
    assert len(acp.model.requests) == 1
    updates = [u for u in run.updates("tool_call_update") if u.get("status")]
    assert updates[-1]["status"] == "failed"
    assert updates[-1]["rawOutput"] == {"error": "The user dismissed the question without answering."}


async def test_a_client_with_forms_gets_every_choice_as_its_own_value(acp: Acp) -> None:
    questions = {
        "questions": [
            *QUESTIONS["questions"],
            {"question": "Anything else?", "header": "Notes", "options": []},
        ]
    }
    acp.model.script(Turn.tool_call("question", questions), Turn.text("pytest with mypy."))
    answer = {"action": "accept", "content": {"q1": "unittest", "q2": ["mypy", "bandit"], "q3": "no"}}
    run = await acp.run("turn", PROMPT="set up CI", FORM_ANSWERS=json.dumps([answer]))
    assert run.failure is None, run.failure
    assert run.results["prompt"] == {"stopReason": "end_turn"}
    assert [e for e in run.log if e["kind"] == "permission"] == []  # no kind-labelled dialogs
    (form,) = [e["params"] for e in run.log if e["kind"] == "form"]
    fields = form["requestedSchema"]["properties"]
    assert fields["q1"]["oneOf"] == [
        {"const": "pytest", "title": "pytest", "description": "the usual"},
        {"const": "unittest", "title": "unittest"},
    ]
    assert [o["const"] for o in fields["q2"]["items"]["anyOf"]] == ["ruff", "mypy", "bandit"]
    assert fields["q3"]["type"] == "string" and "oneOf" not in fields["q3"]  # free text
    assert form["requestedSchema"]["required"] == ["q1", "q2", "q3"]
    sent = str(acp.model.requests[1].messages)
    assert '"Which test runner?" = "unittest"' in sent
    assert '"Which checks?" = "mypy, bandit"' in sent
    assert '"Anything else?" = "no"' in sent


async def test_a_declined_form_dismisses_the_question(acp: Acp) -> None:
    acp.model.script(Turn.tool_call("question", QUESTIONS), Turn.text("never asked"))
    run = await acp.run("turn", PROMPT="set up CI", FORM_ANSWERS=json.dumps([{"action": "decline"}]))
    assert run.failure is None, run.failure
    assert run.results["prompt"] == {"stopReason": "end_turn"}
    assert len(acp.model.requests) == 1
    updates = [u for u in run.updates("tool_call_update") if u.get("status")]
    assert updates[-1]["status"] == "failed"
