"""The environment a sandboxed command gets: the agent's, minus variables whose names say they hold
a secret, plus a private temp dir.

A sandbox that keeps a command from writing outside the project does little if the command can read
``AWS_SECRET_ACCESS_KEY`` from its own environment and print it into the session (and the next model
request). The rule works on the words of a name (split on ``_``), upper-cased:

- a word that names a secret anywhere: ``KEY``, ``APIKEY``, ``TOKEN``, ``SECRET``, ``PASSWORD``,
  ``PASSWD``, ``PASSPHRASE``, ``CREDENTIAL(S)``, ``AUTH`` (``GH_TOKEN``, ``OPENAI_API_KEY``,
  ``SSH_AUTH_SOCK``, ``DB_PASSWORD``, ``GOOGLE_APPLICATION_CREDENTIALS``);
- a word that ends in one of them: ``PGPASSWORD``, ``BOTTOKEN``;
- a whole family of cloud credentials by prefix: ``AWS_``, ``AZURE_``, ``GCP_``… (``AWS_PROFILE`` is
  enough to pick a key file that is readable in the sandbox).

``sandbox.env.pass`` in the config names variables (``fnmatch`` patterns) that are passed anyway.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping

SECRET_WORDS = frozenset(
    {
        "KEY",
        "KEYS",
        "APIKEY",
        "TOKEN",
        "TOKENS",
        "SECRET",
        "SECRETS",
        "PASSWORD",
        "PASSWD",
        "PASSPHRASE",
        "CREDENTIAL",
        "CREDENTIALS",
        "AUTH",
    }
)
SECRET_PREFIXES = ("AWS_", "AZURE_", "GCP_", "GOOGLE_CLOUD_", "ALIBABA_CLOUD_", "DIGITALOCEAN_")
# Names with a secret word that hold none and that builds need.
SECRET_ENDINGS = ("PASSWORD", "PASSWD", "TOKEN", "SECRET", "APIKEY")
HARMLESS = frozenset(
    {"KEYTIMEOUT", "SSH_ASKPASS", "GPG_TTY", "TIKTOKEN_CACHE_DIR", "CUSTOM_TIKTOKEN_CACHE_DIR"}
)


def holds_secret(name: str) -> bool:
    """Whether a variable's name says it holds a key, a token or a password."""
    upper = name.upper()
    if upper in HARMLESS:
        return False
    if upper.startswith(SECRET_PREFIXES):
        return True
    return any(word in SECRET_WORDS or word.endswith(SECRET_ENDINGS) for word in upper.split("_"))


def sandbox_environment(base: Mapping[str, str], passed: Iterable[str], tmpdir: str) -> dict[str, str]:
    """``base`` without secret-looking variables (unless a ``passed`` pattern names them), with the
    temp dir variables pointing at ``tmpdir``."""
    patterns = list(passed)
    env = {
        name: value
        for name, value in base.items()
        if not holds_secret(name) or any(fnmatch.fnmatchcase(name, p) for p in patterns)
    }
    env.update(TMPDIR=tmpdir, TMP=tmpdir, TEMP=tmpdir)
    return env
