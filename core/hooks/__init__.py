"""Hooks: the user's own commands, run at fixed moments of a turn.

The events and their input and output follow Claude Code's documented hook format, so a project's
``.claude/settings.json`` hooks work unchanged; agentls config takes the same shape under
``hooks``. ``settings`` reads them, ``runner`` runs one command, ``decision`` reads what it said,
and ``service.Hooks`` is what the session loop calls. Hooks are project config: an untrusted
project's hooks are never read (``core.trust``). A hook may stop or restrict what the agent does,
never widen it: a PreToolUse "allow" leaves the user's permission rules in charge.
"""
