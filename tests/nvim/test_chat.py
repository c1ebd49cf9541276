"""The Neovim plugin in a real headless Neovim against the real server and the scripted fake model."""

from __future__ import annotations

import json

from demo.config import fake_model_config
from demo.fake_model import FakeModelServer
from demo.fake_script import Turn
from tests.nvim.harness import Nvim


def test_a_full_turn(nvim: Nvim) -> None:
    hello = str(nvim.project / "hello.py")
    nvim.model.script(
        Turn.reasoning("Let me look at hello.py")
        .text("I will fix ")
        .text("the greeting.", chunks=5)
        .tool_call("edit", {"filePath": hello, "oldString": "hello", "newString": "bye"}),
        Turn.text("Done: it says bye now.", chunks=4),
    )
    run = nvim.run("turn.lua").check()
    assert nvim.model.pending == 0, run.stderr


def test_abort_mid_stream(nvim: Nvim) -> None:
    nvim.model.script(Turn.text("Once upon a time there was a very long story", chunks=20).stall(after=4))
    nvim.run("abort.lua").check()


def test_server_killed_mid_answer(nvim: Nvim) -> None:
    nvim.model.script(
        Turn.text("Once upon a time there was a very long story", chunks=20).stall(after=4),
        Turn.text("The end."),
    )
    run = nvim.run("restart.lua").check()
    assert nvim.model.pending == 0, run.stderr
    # The second prompt went to the restarted server with the first one in its history.
    assert "tell me a long story" in str(nvim.model.requests[-1].messages), run.stderr


def test_a_server_that_keeps_dying_is_left_stopped(nvim: Nvim) -> None:
    nvim.run("crash_loop.lua").check()


def test_switching_sessions_and_reopening_neovim(nvim: Nvim) -> None:
    nvim.model.script(Turn.text("first answer", chunks=3), Turn.text("second answer", chunks=3))
    nvim.run("sessions.lua").check()
    # A second Neovim, on the same data directory: the sessions and their transcripts are there.
    nvim.run("reopen.lua").check()


def test_a_picked_model_the_settings_drop(nvim: Nvim) -> None:
    provider = fake_model_config(nvim.model, nvim.titles)["provider"]
    provider["fake"]["models"]["m2"] = provider["fake"]["models"]["m"]
    nvim.extra_config.update(provider=provider)
    nvim.model.script(Turn.text("answer one"), Turn.text("answer two"))
    run = nvim.run("dropped.lua").check()
    assert [r.body["model"] for r in nvim.model.requests] == ["m2", "m"], run.stderr


def test_the_chat_opens_before_the_server_answers(nvim: Nvim) -> None:
    nvim.model.script(Turn.text("hello back"))
    nvim.run("opening.lua").check()
    assert nvim.model.pending == 0


def test_checkhealth(nvim: Nvim) -> None:
    run = nvim.run("health.lua").check()
    assert "model: fake/m" in run.stdout + run.stderr


def test_edits_keep_unsaved_user_changes_and_create_files(nvim: Nvim) -> None:
    calc = nvim.project / "calc.py"
    calc.write_text("def add(a, b):\n    return a - b\n\n\n    return a * b\n")
    question = {
        "questions": [
            {
                "question": "Which test runner?",
                "header": "Runner",
                "options": [{"label": "pytest", "description": "the usual"}, {"label": "unittest"}],
            }
        ]
    }
    notes = "# Notes\nadd() adds now\n"
    nvim.model.script(
        Turn.tool_call("question", question),
        Turn.tool_call("edit", {"filePath": str(calc), "oldString": "a - b", "newString": "a + b"}),
        Turn.tool_call("write", {"filePath": str(nvim.project / "notes.md"), "content": notes}).tool_call(
            "todowrite",
            {
                "todos": [
                    {"content": "fix add", "status": "completed", "priority": "high"},
                    {"content": "write notes", "status": "pending", "priority": "low"},
                ]
            },
        ),
        Turn.text("Done.").usage(input=1000, output=200),
    )
    nvim.run("edits.lua").check()
    prompt = nvim.model.requests[0].messages[-1]
    assert "return a * b  # mine" in str(prompt), "the agent read the unsaved buffer"


def test_fix_on_a_visual_range(nvim: Nvim) -> None:
    calc = nvim.project / "calc.py"
    calc.write_text("def add(a, b):\n    return a - b\n\n\ndef div(a):\n    return a / 0\n")
    nvim.model.script(Turn.text("Fixed line 6."))
    run = nvim.run("fix_range.lua").check()
    assert len(nvim.model.requests) == 1, run.stderr  # the selection without diagnostics sent nothing
    prompt = json.dumps(nvim.model.requests[0].body)
    assert "line 6: divides by zero [fake-lint]" in prompt
    assert "subtracts" not in prompt
    assert "def div(a)" in prompt, "the file is attached"


def test_review_workflow(nvim: Nvim) -> None:
    calc = nvim.project / "calc.py"
    calc.write_text("def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n")
    hello = nvim.project / "hello.py"
    provider = fake_model_config(nvim.model, nvim.titles)["provider"]
    provider["fake"]["models"]["m2"] = provider["fake"]["models"]["m"]
    nvim.extra_config.update(snapshot=True, provider=provider)
    nvim.model.script(
        Turn.text("They subtract."),
        Turn.tool_call("edit", {"filePath": str(calc), "oldString": "a - b", "newString": "a + c"}).tool_call(
            "edit", {"filePath": str(hello), "oldString": "hello", "newString": "bye"}
        ),
        Turn.text("Fixed, but c is not defined."),
    )
    nvim.run("review.lua").check()
    ask, fix, after_edit = (json.dumps(r.body) for r in nvim.model.requests)
    # The pickers: the plan agent (its reminder) on the second model, then build on the first.
    assert [r.body["model"] for r in nvim.model.requests] == ["m2", "m", "m"]
    assert "You are the plan agent" in ask and "You are the plan agent" not in fix
    # The visual selection: lines 2-3 of calc.py, as a file part with its range.
    assert '<file path=\\"calc.py\\" lines=\\"2-3\\">' in ask
    assert "return a - b" in ask and "def add" not in ask.split("lines=")[1]
    # :AgentlsFix: the other server's diagnostic, and the file.
    assert "line 2: subtracts where add() should add [fake-pyright]" in fix
    # After the edit, that server's fresh report reached the edit tool's output.
    assert '\\"c\\" is not defined' in after_edit and '\\"c\\" is not defined' not in fix


def test_settings_changed_in_neovim(nvim: Nvim) -> None:
    with FakeModelServer.threaded() as other:
        provider = fake_model_config(nvim.model, nvim.titles)["provider"]
        options = {"api_base": other.openai_base, "api_key": "offline"}
        wire = {"litellm_provider": "openai", "options": options}
        limit = {"limit": {"context": 100_000, "output": 4_000}}
        provider["other"] = {**wire, "models": {"o": limit, "p": limit}}
        nvim.extra_config.update(provider=provider)
        nvim.model.script(Turn.text("fake one"), Turn.text("fake three"))
        other.script(Turn.text("other two"), Turn.text("other four"))
        run = nvim.run("config.lua").check()
        # The default moved to other/o (the session followed it), the pick of fake/m outlived a second
        # move of the default, and the default applied again once the settings dropped that model.
        assert [r.body["model"] for r in nvim.model.requests] == ["m", "m"], run.stderr
        assert [r.body["model"] for r in other.requests] == ["o", "o"], run.stderr


def test_a_config_the_agent_rejects(nvim: Nvim) -> None:
    nvim.extra_config.update(model=123)
    nvim.run("broken.lua").check()


def test_a_dialog_in_a_picker_plugin_waits_for_a_choice(nvim: Nvim) -> None:
    nvim.extra_config.update(permission={"edit": "ask", "bash": "ask"})
    # Only a command dialog: `touch` would ask for the file (edit) first under the defaults.
    touch = {"command": "python3 -c \"open('ran.txt', 'w').close()\"", "description": "Make a file"}
    nvim.model.script(Turn.tool_call("bash", touch), Turn.text("Done."))
    run = nvim.run("dialog_picker.lua").check()
    assert (nvim.project / "ran.txt").exists(), run.stderr
    assert nvim.model.pending == 0, run.stderr


def test_a_warning_is_notified(nvim: Nvim) -> None:
    # No OPENAI_API_KEY here: no model for titles, an agent.warning.
    nvim.extra_config.update(small_model="openai/nowhere")
    nvim.model.script(Turn.text("Hello there."))
    nvim.run("warning.lua").check()


def test_prompts_sent_while_the_agent_works_are_queued_steered_edited_and_removed(nvim: Nvim) -> None:
    nvim.extra_config.update(permission={"bash": "ask"})
    touch = {"command": "touch ran.txt", "description": "Touch a file"}
    nvim.model.script(Turn.tool_call("bash", touch), Turn.text("Done."), Turn.text("queued answer"))
    run = nvim.run("queue.lua").check()
    assert nvim.model.pending == 0, run.stderr
    requests = [str(r.messages) for r in nvim.model.requests]
    assert len(requests) == 3, run.stderr
    assert "steer this" in requests[1] and "then one" not in requests[1]  # steered, not queued
    assert "then one, edited" in requests[2]
    assert "drop me" not in str(requests)


def test_stop_and_send_aborts_the_story_and_answers_the_new_prompt(nvim: Nvim) -> None:
    nvim.model.script(
        Turn.text("Once upon a time there was a very long story", chunks=20).stall(after=4),
        Turn.text("Right away."),
    )
    run = nvim.run("stop_send.lua").check()
    assert len(nvim.model.requests) == 2, run.stderr
    assert "stop, do this instead" in str(nvim.model.requests[1].messages), run.stderr


def test_searching_sessions_from_the_picker(nvim: Nvim) -> None:
    nvim.model.script(
        Turn.text("Zebras have stripes.", chunks=3), Turn.text("Okapis have stripes too.", chunks=3)
    )
    nvim.run("search.lua").check()


def test_a_sub_agents_steps_show_in_its_task_fold(nvim: Nvim) -> None:
    hello = str(nvim.project / "hello.py")
    task = {"description": "fix the greeting", "prompt": "Make hello.py say bye", "subagent_type": "general"}
    nvim.model.script(
        Turn.tool_call("task", task),
        Turn.text("Editing hello.py.").tool_call(
            "edit", {"filePath": hello, "oldString": "hello", "newString": "bye"}
        ),
        Turn.text("Fixed the greeting."),
        Turn.text("The sub-agent fixed it."),
    )
    run = nvim.run("subagent.lua").check()
    assert nvim.model.pending == 0, run.stderr
