"""Plan review: the plan agent presents its plan file; the user approves, revises or rejects it."""
