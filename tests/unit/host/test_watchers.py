"""The host's bookkeeping of who shows which session (host/watchers.py), without connections."""

from __future__ import annotations

from host.watchers import Notice, Watchers


def watchers() -> Watchers[str]:
    return Watchers(lambda front: front.split("#")[0])  # "Neovim#2": a second Neovim


def told(notices: list[Notice[str]]) -> set[tuple[str, str, tuple[str, ...]]]:
    return {(n.front, n.session, tuple(n.clients)) for n in notices}


def test_the_first_to_show_a_session_learns_that_no_one_else_does() -> None:
    hub = watchers()
    assert told(hub.show("VS Code", "p", ["s1"])) == {("VS Code", "s1", ())}


def test_a_second_front_end_showing_it_is_told_of_the_first_and_the_first_of_it() -> None:
    hub = watchers()
    hub.show("VS Code", "p", ["s1"])
    assert told(hub.show("Neovim", "p", ["s1"])) == {
        ("VS Code", "s1", ("Neovim",)),
        ("Neovim", "s1", ("VS Code",)),
    }
    assert told(hub.show("Zed", "p", ["s1"])) == {
        ("VS Code", "s1", ("Neovim", "Zed")),
        ("Neovim", "s1", ("VS Code", "Zed")),
        ("Zed", "s1", ("VS Code", "Neovim")),  # in the order they attached
    }


def test_switching_session_tells_those_of_the_old_one_and_of_the_new_one() -> None:
    hub = watchers()
    hub.show("VS Code", "p", ["s1"])
    hub.show("Neovim", "p", ["s2"])
    hub.show("Zed", "p", ["s1"])
    assert told(hub.show("Zed", "p", ["s2"])) == {
        ("VS Code", "s1", ()),
        ("Neovim", "s2", ("Zed",)),
        ("Zed", "s2", ("Neovim",)),
    }


def test_showing_nothing_and_going_away_tell_the_others_and_no_one_else() -> None:
    hub = watchers()
    hub.show("VS Code", "p", ["s1", "s2"])
    hub.show("Neovim", "p", ["s1"])
    hub.show("Zed", "p", ["s3"])
    assert told(hub.show("Neovim", "p", [])) == {("VS Code", "s1", ())}
    hub.show("Neovim", "p", ["s2"])
    assert told(hub.drop("VS Code")) == {("Neovim", "s2", ())}
    assert hub.shows("VS Code", "p") == frozenset()
    assert told(hub.drop("VS Code")) == set()  # gone already: nothing more to say


def test_one_session_shown_through_two_projects_is_one_session_and_an_editor_may_show_several() -> None:
    hub = watchers()
    hub.show("VS Code", "p", ["s1"])
    # Neovim opened the same folder with other config layers: another handle, the same session.
    assert told(hub.show("Neovim", "q", ["s1"])) == {
        ("VS Code", "s1", ("Neovim",)),
        ("Neovim", "s1", ("VS Code",)),
    }
    notices = hub.show("Zed", "p", ["s1", "s2"])
    assert {(n.front, n.project) for n in notices if n.session == "s1"} == {
        ("VS Code", "p"),
        ("Neovim", "q"),
        ("Zed", "p"),
    }
    assert hub.others("VS Code", "s1") == ["Neovim", "Zed"]
    assert told(hub.show("Zed", "p", ["s1", "s2"])) == set()  # nothing changed, no one is told again


def test_two_front_ends_of_one_name_are_each_listed() -> None:
    hub = watchers()
    hub.show("Neovim#1", "p", ["s1"])
    hub.show("Neovim#2", "p", ["s1"])
    assert told(hub.show("VS Code", "p", ["s1"])) >= {("VS Code", "s1", ("Neovim", "Neovim"))}
    assert hub.others("Neovim#1", "s1") == ["Neovim", "VS Code"]
