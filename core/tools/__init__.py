"""The tool framework and the core file and shell tools.

Import from the modules, not from this package, so that importing one tool module never drags in
every other tool (and the session modules some tools need): ``core.tools.context.ToolContext``,
``core.tools.base.Tool`` / ``ToolResult`` / ``ToolParams``, ``core.tools.runner.run_tool``,
``core.tools.registry.ToolRegistry`` / ``builtin_registry``.
"""
