"""The backends: bubblewrap's arguments and its check, Seatbelt's profile (as text: no macOS here)."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from core.sandbox.bubblewrap import bwrap_argv, probe
from core.sandbox.policy import SandboxPolicy
from core.sandbox.seatbelt import quote, seatbelt_argv, seatbelt_profile


def policy(tmp_path: Path, network: bool = False) -> SandboxPolicy:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    return SandboxPolicy(
        mode="workspace-write",
        writable=(project, tmp),
        read_only=(project / ".git",),
        hidden=(),
        network=network,
        env_pass=(),
        tmpdir=tmp,
    )


def test_bwrap_binds_root_read_only_then_writable_roots_then_carve_outs(tmp_path: Path) -> None:
    p = policy(tmp_path)
    argv = bwrap_argv("/usr/bin/bwrap", p, str(tmp_path / "project"))
    assert argv[:5] == ["/usr/bin/bwrap", "--ro-bind", "/", "/", "--dev"]
    assert "--unshare-net" in argv and "--die-with-parent" in argv and "--new-session" not in argv
    joined = " ".join(argv)
    project = tmp_path / "project"
    assert joined.index(f"--bind {project} {project}") < joined.index(f"--ro-bind {project}/.git")
    assert argv[-3:] == ["--chdir", str(project), "--"]
    assert "--unshare-net" not in bwrap_argv("bwrap", policy(tmp_path / "n", network=True), "/")


def test_bwrap_hides_a_folder_as_empty_and_a_file_as_dev_null(tmp_path: Path) -> None:
    secret_dir, secret_file = tmp_path / ".ssh", tmp_path / ".netrc"
    secret_dir.mkdir()
    secret_file.write_text("password")
    p = replace(policy(tmp_path), hidden=(secret_dir, secret_file))
    joined = " ".join(bwrap_argv("bwrap", p, "/"))
    assert f"--tmpfs {secret_dir} --remount-ro {secret_dir}" in joined
    assert f"--ro-bind {p.tmpdir}.empty {secret_file}" in joined
    profile = seatbelt_profile(p)
    assert f'(deny file-read* file-write* (subpath "{secret_dir}"))' in profile
    assert f'(deny file-read* file-write* (literal "{secret_file}"))' in profile


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed here")
def test_a_hidden_file_reads_empty_in_a_real_sandbox(tmp_path: Path) -> None:
    secret_dir, secret_file = tmp_path / ".ssh", tmp_path / ".netrc"
    secret_dir.mkdir()
    (secret_dir / "id_ed25519").write_text("PRIVATE KEY")
    secret_file.write_text("password")
    p = replace(policy(tmp_path), hidden=(secret_dir, secret_file))
    (tmp_path / "tmp.empty").touch()  # what private_tmp() makes beside the temp dir
    argv = [
        *bwrap_argv(shutil.which("bwrap") or "bwrap", p, "/"),
        "sh",
        "-c",
        f"ls -A {secret_dir}; cat {secret_file}",
    ]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    assert done.returncode == 0 and done.stdout == "", done.stderr


def test_probe_names_a_missing_bwrap(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    found = probe()
    assert not found.works and found.detail == "bubblewrap (bwrap) is not installed"


def test_probe_names_a_bwrap_that_cannot_sandbox(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    fake = tmp_path / "bwrap"  # what bwrap says where user namespaces are off
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to creating new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    found = probe()
    assert not found.works
    assert "cannot create a sandbox here" in found.detail and "No permissions" in found.detail


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed here")
def test_bwrap_argv_confines_a_real_shell(tmp_path: Path) -> None:
    p = policy(tmp_path)
    project = tmp_path / "project"
    outside = tmp_path / "outside"
    outside.mkdir()
    script = (
        f"echo a > {project}/ok; echo b > {outside}/no; echo c > {project}/.git/no; echo d > {p.tmpdir}/ok"
    )
    argv = [*bwrap_argv(shutil.which("bwrap") or "bwrap", p, str(project)), "sh", "-c", script]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    assert (project / "ok").exists() and (p.tmpdir / "ok").exists()
    assert not (outside / "no").exists() and not (project / ".git" / "no").exists()
    assert done.stderr.count("Read-only file system") == 2


def test_seatbelt_profile_allows_writes_only_under_the_roots(tmp_path: Path) -> None:
    p = policy(tmp_path)
    profile = seatbelt_profile(p)
    project = tmp_path / "project"
    assert profile.startswith("(version 1)\n(allow default)\n(deny file-write*)\n")
    assert (
        f'(allow file-write* (require-all (subpath "{project}") (require-not (subpath "{project}/.git"))))'
        in profile
    )
    assert f'(allow file-write* (subpath "{p.tmpdir}"))' in profile
    assert '(literal "/dev/null")' in profile
    assert "(deny network-outbound (remote ip))" in profile
    assert "network" not in seatbelt_profile(policy(tmp_path / "n", network=True))
    assert seatbelt_argv(p)[:2] == ["/usr/bin/sandbox-exec", "-p"]


def test_seatbelt_quotes_what_would_end_a_string() -> None:
    assert quote('/a "b"\\c') == '"/a \\"b\\"\\\\c"'
    odd = Path('/x/"); (allow network*) ("')
    p = SandboxPolicy(
        mode="workspace-write",
        writable=(odd,),
        read_only=(),
        hidden=(),
        network=False,
        env_pass=(),
        tmpdir=odd,
    )
    assert f"(allow file-write* (subpath {quote(str(odd))}))" in seatbelt_profile(p)
    assert '"/x/\\"); (allow network*) (\\""' in seatbelt_profile(p)
