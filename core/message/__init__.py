"""The message model: sessions, messages, parts and prompt inputs (the ground floor of the core)."""
