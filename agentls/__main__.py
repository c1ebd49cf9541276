"""``python -m agentls``: the same as the ``agentls`` console script."""

from agentls.cli import main

main()
