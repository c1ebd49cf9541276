"""agentls config: schema, paths, and the layered loader."""
