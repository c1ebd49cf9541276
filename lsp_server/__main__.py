"""``python -m lsp_server``: the same as ``agentls serve``."""

import sys

from lsp_server.serve_cmd import main

sys.exit(main())
