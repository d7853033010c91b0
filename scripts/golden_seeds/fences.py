"""The fences of seed document 003 (and seed 001's section 23.6 program), read from the copies
in tests/data/explain_fences/."""

import os

_FENCES = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "data", "explain_fences"
)


def fence(name: str) -> str:
    """A fence of seed document 003, copied into tests/data/explain_fences/ (unchanged)."""
    with open(os.path.join(_FENCES, name), encoding="utf-8") as f:
        return f.read()
