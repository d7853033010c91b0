"""Hand-written golden programs: every worked example of ../shared/seeds plus edge cases.

Each entry is (name, program).  scripts/gen_programs.py runs them under PyTorch and writes
tests/golden/seeds.jsonl (and large.jsonl.gz for reports too big for plain text).  The
entries live in one module per topic; SEEDS keeps their order (the order of the golden files).
"""

from . import autograd, blocks, documents, edge_layouts, edge_values, edge_views, issue10

SEEDS: list[tuple[str, str]] = (
    documents.SEEDS
    + edge_layouts.SEEDS
    + edge_values.SEEDS
    + edge_views.SEEDS
    + issue10.SEEDS
    + blocks.SEEDS
    + autograd.SEEDS
)
