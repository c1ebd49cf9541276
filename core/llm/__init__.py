"""Providers and streams: resolve a model, send a request, decode the answer into ``StreamEvent``s.

Importing this package is cheap: the lean decoders bring their HTTP client (core.llm.http), and
litellm (with httpx) comes only when a request takes the litellm route.
"""
