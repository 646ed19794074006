"""Atoms: the kinds of test on one read (ir.Atom) lowering describes (compile/lower.py) — `== c` and `!= c`, what a
walk decides in line."""

# Only a walk over items reads them (walks.py: one `{% if item.key == c %}` first in its body); the other kinds and
# the deciders that ran them in line went with the switch rule and the if kernels (issue 22's rule 5: the general
# closures of conditionals.py cost no more).

__all__ = ["EQ", "NE", "NEGATION"]

EQ, NE = range(2)
NEGATION = {EQ: NE, NE: EQ}   # (`not x == c` is `x != c`)
