"""Evals any user can run: small self-checking tasks in throw-away git repositories, run through
``agentls run`` against a model, with a table of pass rates, tokens, cost, time and steps.

``python -m bench.evals --model provider/model`` (see README); ``tests/e2e/test_evals.py`` runs every
task against the scripted fake model, once with a good run and once with a bad one, to show that
each check passes and fails as it should.
"""
