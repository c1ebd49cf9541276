"""Providers and streams: resolve a model, send a request, decode the answer into ``StreamEvent``s.

Importing this package is cheap: httpx is imported by the lean decoders only, litellm only when a
request takes the litellm route.
"""
