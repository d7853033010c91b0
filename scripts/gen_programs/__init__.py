"""The random golden programs of scripts/gen_programs.py: the vocabulary, the builder (its
state and constructors in builder.py, its statement kinds in views.py, statements.py and
errors.py), whole programs and the random cases (programs.py), and blocks (blocks.py)."""
