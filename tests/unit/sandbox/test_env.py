"""Which variables a sandboxed command keeps: a table of names, and what the config passes."""

from __future__ import annotations

import pytest

from core.sandbox.env import holds_secret, sandbox_environment

SECRETS = [
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "MY_SERVICE_APIKEY",
    "GITHUB_TOKEN",
    "GH_TOKEN",
    "NPM_TOKEN",
    "NODE_AUTH_TOKEN",
    "HF_TOKEN",
    "CI_JOB_TOKEN",
    "SLACK_BOT_TOKENS",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_PROFILE",
    "AZURE_CLIENT_ID",
    "GCP_PROJECT",
    "GOOGLE_CLOUD_PROJECT",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "DOCKER_CREDENTIAL",
    "DB_PASSWORD",
    "PGPASSWORD",
    "BOTTOKEN",
    "MYSQL_PASSWD",
    "GPG_PASSPHRASE",
    "STRIPE_SECRET",
    "DJANGO_SECRET_KEY",
    "APP_SECRETS",
    "SSH_AUTH_SOCK",
    "SENTRY_AUTH",
    "PRIVATE_KEY",
    "api_key",
    "github_token",
]
KEPT = [
    "PATH",
    "HOME",
    "LANG",
    "TERM",
    "USER",
    "SHELL",
    "PWD",
    "VIRTUAL_ENV",
    "PYTHONPATH",
    "GIT_AUTHOR_NAME",
    "GIT_AUTHOR_EMAIL",
    "XDG_RUNTIME_DIR",
    "KEYTIMEOUT",
    "SSH_ASKPASS",
    "GPG_TTY",
    "TIKTOKEN_CACHE_DIR",
    "XKB_DEFAULT_KEYMAP",
    "TOKENIZERS_PARALLELISM_X",
    "MONKEY",
    "CARGO_HOME",
    "NODE_ENV",
]


@pytest.mark.parametrize("name", SECRETS)
def test_a_name_that_says_secret_is_dropped(name: str) -> None:
    assert holds_secret(name)
    assert name not in sandbox_environment({name: "v", "PATH": "/bin"}, [], "/t")


@pytest.mark.parametrize("name", KEPT)
def test_an_ordinary_name_is_kept(name: str) -> None:
    assert not holds_secret(name)
    assert sandbox_environment({name: "v"}, [], "/t")[name] == "v"


@pytest.mark.parametrize(
    ("passed", "kept"),
    [
        (["GITHUB_TOKEN"], {"GITHUB_TOKEN"}),
        (["NPM_*"], {"NPM_TOKEN"}),
        (["*_TOKEN"], {"GITHUB_TOKEN", "NPM_TOKEN"}),
        (["github_token"], set()),  # patterns are case-sensitive, as variable names are
        ([], set()),
    ],
)
def test_the_config_passes_what_it_names(passed: list[str], kept: set[str]) -> None:
    base = {"GITHUB_TOKEN": "g", "NPM_TOKEN": "n", "AWS_SECRET_ACCESS_KEY": "a"}
    env = sandbox_environment(base, passed, "/t")
    assert set(env) - {"TMPDIR", "TMP", "TEMP"} == kept


def test_the_temp_variables_point_at_the_private_dir() -> None:
    env = sandbox_environment({"TMPDIR": "/var/tmp", "TEMP": "/x"}, [], "/priv")
    assert env["TMPDIR"] == env["TMP"] == env["TEMP"] == "/priv"
