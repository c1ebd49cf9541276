"""URI templates (RFC 6570, levels 1-3) as MCP resource templates use them: their variables, a URI
made from one, and whether a URI is one a template makes."""

from __future__ import annotations

import re
from urllib.parse import quote

from core.errors import InvalidInputError

# RFC 6570 expressions: {var}, {+var}, {#var}, {/var}, {.var}, {;var}, {?var}, {&var}, several a,b.
_EXPRESSION = re.compile(r"\{([+#./;?&]?)([^{}]+)\}")
_RESERVED = ":/?#[]@!$&'()*+,;="


def template_variables(template: str) -> tuple[str, ...]:
    """The variables of a URI template, in order, each once."""
    names: list[str] = []
    for match in _EXPRESSION.finditer(template):
        for name in match.group(2).split(","):
            name = name.strip().rstrip("*").split(":")[0]
            if name and name not in names:
                names.append(name)
    return tuple(names)


def expand_template(template: str, values: dict[str, str]) -> str:
    """The URI of ``template`` with ``values`` (RFC 6570 levels 1-3); InvalidInputError names a
    variable that has no value."""
    missing = [n for n in template_variables(template) if not values.get(n)]
    if missing:
        raise InvalidInputError(
            f"the resource template {template} needs {', '.join(missing)} (fill in every variable)"
        )

    def expand(match: re.Match[str]) -> str:
        op, names = match.group(1), [n.strip().rstrip("*").split(":")[0] for n in match.group(2).split(",")]
        safe = _RESERVED if op in ("+", "#") else ""
        parts = [quote(values[n], safe=safe) for n in names]
        if op in ("", "+"):
            return ",".join(parts)
        if op == "#":
            return "#" + ",".join(parts)
        if op in ("/", "."):
            return op + op.join(parts)
        if op == ";":
            return "".join(f";{n}={v}" for n, v in zip(names, parts, strict=True))
        first = "?" if op == "?" else "&"
        return first + "&".join(f"{n}={v}" for n, v in zip(names, parts, strict=True))

    return _EXPRESSION.sub(expand, template)


def template_matches(template: str, uri: str) -> bool:
    """Whether ``uri`` is one ``template`` makes (each expression taking at least one character)."""
    pattern, end = [], 0
    for match in _EXPRESSION.finditer(template):
        pattern.append(re.escape(template[end : match.start()]))
        pattern.append(".+" if match.group(1) in ("+", "#") else "[^/]+")
        end = match.end()
    pattern.append(re.escape(template[end:]))
    return re.fullmatch("".join(pattern), uri) is not None
