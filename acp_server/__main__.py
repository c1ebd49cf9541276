"""``python -m acp_server``: the same as ``agentls acp``."""

import sys

from acp_server.acp_cmd import main

sys.exit(main())
