"""The permission service end to end: events, replies, persisted approvals, deny and abort."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from core.bus import Bus
from core.errors import NotFoundError, PermissionDeniedError, PermissionRejectedError
from core.events import PermissionAsked, PermissionReplied
from core.permission.request import PermissionAsk, Proposal
from core.permission.rules import Rule, defaults, from_config
from core.permission.service import Permissions, Reply
from core.storage import Store

ASK_ALL = [Rule("*", "*", "ask")]


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    opened = await Store.open(tmp_path / "agentls.db")
    yield opened
    await opened.close()


@pytest.fixture
async def project_id(store: Store, tmp_path: Path) -> str:
    worktree = tmp_path / "project"
    worktree.mkdir()
    return (await store.ensure_project(worktree)).id


@pytest.fixture
async def service(store: Store, project_id: str) -> Permissions:
    return await Permissions.open(Bus(), store, project_id)


def bash(command: str, always: str | None = None) -> PermissionAsk:
    return PermissionAsk("bash", [command], [always or command.split()[0] + " *"], title=command)


async def asked(
    service: Permissions, bus: Bus, ask: PermissionAsk, session: str = "ses_1"
) -> tuple[asyncio.Task[None], PermissionAsked]:
    """Start an ask and return it with the event it published."""
    with bus.subscribe(PermissionAsked) as sub:
        task = asyncio.create_task(service.ask(session, "msg_1", "call_1", ask, ASK_ALL))
        async with asyncio.timeout(5):
            event = await sub.get()
    assert isinstance(event, PermissionAsked)
    return task, event


def bus_of(service: Permissions) -> Bus:
    return service._bus


async def test_allowed_call_returns_without_asking(service: Permissions) -> None:
    with bus_of(service).subscribe() as sub:
        await service.ask("ses_1", "msg_1", "call_1", bash("ls"), defaults())
        assert sub.pending() == 0


async def test_deny_names_the_rule(service: Permissions) -> None:
    rules = [*defaults(), *from_config({"edit": {"*": "deny"}})]
    with pytest.raises(PermissionDeniedError) as info:
        await service.ask("ses_1", None, None, PermissionAsk("edit", ["src/a.py"]), rules)
    assert 'permission "edit" pattern "*"' in str(info.value)
    assert "src/a.py" in str(info.value)


async def test_one_denied_pattern_denies_the_call(service: Permissions) -> None:
    rules = from_config({"bash": {"*": "allow", "rm *": "deny"}})
    with pytest.raises(PermissionDeniedError):
        await service.ask("ses_1", None, None, PermissionAsk("bash", ["ls", "rm x"]), rules)


async def test_ask_publishes_the_request_and_once_resumes(service: Permissions) -> None:
    bus = bus_of(service)
    task, event = await asked(
        service, bus, PermissionAsk("bash", ["git push"], ["git push *"], "push", {"k": 1})
    )
    request = event.request
    assert request.id.startswith("per_")
    assert (request.sessionID, request.messageID, request.callID) == ("ses_1", "msg_1", "call_1")
    assert (request.permission, request.patterns, request.always) == ("bash", ["git push"], ["git push *"])
    assert (request.title, request.metadata) == ("push", {"k": 1})
    assert service.pending() == [request]
    assert not task.done()
    with bus.subscribe(PermissionReplied) as replies:
        await service.reply(request.id, "once")
        await asyncio.wait_for(task, 5)
        replied = await asyncio.wait_for(replies.get(), 5)
    assert isinstance(replied, PermissionReplied)
    assert (replied.requestID, replied.reply, replied.sessionID) == (request.id, "once", "ses_1")
    assert service.pending() == []
    assert service.approvals() == []


async def test_reject_without_message_stops(service: Permissions) -> None:
    task, event = await asked(service, bus_of(service), bash("rm -rf x"))
    other, _ = await asked(service, bus_of(service), bash("rm y"))
    await service.reply(event.request.id, "reject")
    with pytest.raises(PermissionRejectedError) as info:
        await asyncio.wait_for(task, 5)
    assert info.value.feedback is None
    # the same session's other dialogs are rejected with it
    with pytest.raises(PermissionRejectedError):
        await asyncio.wait_for(other, 5)
    assert service.pending() == []


async def test_reject_with_message_carries_feedback(service: Permissions) -> None:
    task, event = await asked(service, bus_of(service), bash("rm -rf x"))
    other, _ = await asked(service, bus_of(service), bash("ls"))
    await service.reply(event.request.id, "reject", message="use trash instead")
    with pytest.raises(PermissionRejectedError) as info:
        await asyncio.wait_for(task, 5)
    assert info.value.feedback == "use trash instead"
    assert "use trash instead" in str(info.value)
    assert [r.patterns for r in service.pending()] == [["ls"]]
    other.cancel()


async def test_always_persists_and_resolves_other_pending(
    service: Permissions, store: Store, project_id: str
) -> None:
    bus = bus_of(service)
    first, event = await asked(service, bus, bash("git status", "git status *"))
    second, _ = await asked(service, bus, bash("git status -s", "git status *"), session="ses_2")
    third, _ = await asked(service, bus, bash("git push", "git push *"))
    await service.reply(event.request.id, "always")
    await asyncio.wait_for(first, 5)
    await asyncio.wait_for(second, 5)  # resolved by itself: now allowed
    assert not third.done()
    assert [r.patterns for r in service.pending()] == [["git push"]]
    rows = await store.list_approvals(project_id)
    assert [(r.permission, r.pattern) for r in rows] == [("bash", "git status *")]
    # a later identical call does not ask
    await service.ask("ses_1", None, None, bash("git status --short"), ASK_ALL)
    third.cancel()


async def test_always_survives_a_reopened_store(tmp_path: Path) -> None:
    path = tmp_path / "agentls.db"
    worktree = tmp_path / "wt"
    worktree.mkdir()
    store = await Store.open(path)
    project = (await store.ensure_project(worktree)).id
    service = await Permissions.open(Bus(), store, project)
    task, event = await asked(service, bus_of(service), bash("npm run build", "npm run build *"))
    await service.reply(event.request.id, "always")
    await asyncio.wait_for(task, 5)
    await store.close()

    reopened = await Store.open(path)
    try:
        again = await Permissions.open(Bus(), reopened, project)
        assert again.approvals() == [Rule("bash", "npm run build *", "allow")]
        await again.ask("ses_9", None, None, bash("npm run build --prod"), ASK_ALL)
    finally:
        await reopened.close()


async def test_always_for_an_edit_covers_the_file_or_the_picked_glob(service: Permissions) -> None:
    bus = bus_of(service)
    edit = PermissionAsk("edit", ["src/a.py"], ["src/a.py"])
    task, event = await asked(service, bus, edit)
    await service.reply(event.request.id, "always")
    await asyncio.wait_for(task, 5)
    await service.ask("ses_1", None, None, edit, ASK_ALL)  # the same file: allowed
    other, event = await asked(service, bus, PermissionAsk("edit", ["src/b.py"], ["src/b.py"]))
    await service.reply(event.request.id, "always", patterns=["tests/*"])
    await asyncio.wait_for(other, 5)
    await service.ask("ses_1", None, None, PermissionAsk("edit", ["tests/x/y.py"]), ASK_ALL)
    third, _ = await asked(service, bus, PermissionAsk("edit", ["src/c.py"], ["src/c.py"]))
    assert not third.done()  # neither approval covers src/c.py
    third.cancel()


async def test_revoke_forgets_an_approval(service: Permissions, store: Store, project_id: str) -> None:
    task, event = await asked(service, bus_of(service), bash("make", "make *"))
    await service.reply(event.request.id, "always")
    await asyncio.wait_for(task, 5)
    (row,) = await store.list_approvals(project_id)
    await service.revoke(row.id)
    assert service.approvals() == []
    with pytest.raises(NotFoundError):
        await service.revoke(row.id)


async def test_cancel_session_rejects_only_that_session(service: Permissions) -> None:
    bus = bus_of(service)
    mine, _ = await asked(service, bus, bash("rm a"), session="ses_a")
    theirs, _ = await asked(service, bus, bash("rm b"), session="ses_b")
    with bus.subscribe(PermissionReplied) as replies:
        service.cancel_session("ses_a")
        replied = await asyncio.wait_for(replies.get(), 5)
    assert isinstance(replied, PermissionReplied) and replied.reply == "reject"
    with pytest.raises(PermissionRejectedError):
        await asyncio.wait_for(mine, 5)
    assert [r.sessionID for r in service.pending()] == ["ses_b"]
    theirs.cancel()


async def test_cancelled_call_closes_its_dialog(service: Permissions) -> None:
    task, _ = await asked(service, bus_of(service), bash("rm a"))
    with bus_of(service).subscribe(PermissionReplied) as replies:
        task.cancel()
        replied = await asyncio.wait_for(replies.get(), 5)
    assert isinstance(replied, PermissionReplied) and replied.reply == "reject"
    assert service.pending() == []


async def test_reply_to_unknown_request(service: Permissions) -> None:
    with pytest.raises(NotFoundError):
        await service.reply("per_missing", "once")


@pytest.mark.parametrize(
    ("reply", "edited", "approved"),
    [("once", None, True), ("always", None, True), ("once", "x = 2\n", True), ("reject", None, False)],
)
async def test_a_proposal_the_user_answers_in_its_dialog_is_marked_approved(
    service: Permissions, reply: Reply, edited: str | None, approved: bool
) -> None:
    proposal = Proposal("x = 1\n")
    ask = PermissionAsk("edit", ["a.py"], ["a.py"], proposal=proposal)
    task, event = await asked(service, bus_of(service), ask)
    await service.reply(event.request.id, reply, edited=edited)
    if reply == "reject":
        with pytest.raises(PermissionRejectedError):
            await task
    else:
        await task
    assert proposal.approved is approved


async def test_a_proposal_no_one_was_asked_about_is_not_approved(service: Permissions) -> None:
    proposal = Proposal("x = 1\n")
    allowed = from_config({"edit": {"*": "allow"}})  # as Auto-accept or an "always" rule allows it
    await service.ask("ses_1", None, None, PermissionAsk("edit", ["a.py"], proposal=proposal), allowed)
    assert proposal.approved is False


async def test_a_second_dialog_an_always_reply_answers_is_not_approved_by_it(service: Permissions) -> None:
    first, second = Proposal("1\n"), Proposal("2\n")
    bus = bus_of(service)
    task1, event1 = await asked(service, bus, PermissionAsk("edit", ["a.py"], ["*"], proposal=first))
    task2, _ = await asked(service, bus, PermissionAsk("edit", ["a.py"], ["*"], proposal=second))
    await service.reply(event1.request.id, "always")
    await task1
    await task2
    assert (first.approved, second.approved) == (True, False)  # the user saw only the first diff
