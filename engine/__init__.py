"""The encounter model, its file format and the rule systems (no Qt)."""
