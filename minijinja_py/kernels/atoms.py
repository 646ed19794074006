"""Atoms: the kinds of test on one read (ir.Atom) lowering describes (compile/lower.py) — its truth, `== 'x'`, `'x' in`,
`is defined`, `is none`, `is string`, `in ['a', 'b']`, `> 1`."""

# Only a walk over items reads them now (walks.py: one `{% if item.key == c %}` first in its body); the deciders
# that ran the others in line went with the switch rule and the if kernels (issue 22's rule 5: the general closures
# of conditionals.py cost no more).

__all__ = ["TRUTHY", "FALSY", "EQ", "NE", "DEFINED", "UNDEFINED", "NONE", "NOT_NONE", "IN", "NOT_IN", "TYPE_IS",
           "TYPE_IS_NOT", "ONE_OF", "NONE_OF", "LT", "LE", "GT", "GE", "NEGATION"]

TRUTHY, FALSY, EQ, NE, DEFINED, UNDEFINED, NONE, NOT_NONE, IN, NOT_IN, TYPE_IS, TYPE_IS_NOT, ONE_OF, \
    NONE_OF, LT, LE, GT, GE = range(18)
# (`idx > 1`: an int against an int constant; for ints, not < is >=: the negations are exact)
NEGATION = {TRUTHY: FALSY, FALSY: TRUTHY, EQ: NE, NE: EQ, DEFINED: UNDEFINED, UNDEFINED: DEFINED,
            NONE: NOT_NONE, NOT_NONE: NONE, IN: NOT_IN, NOT_IN: IN, TYPE_IS: TYPE_IS_NOT,
            TYPE_IS_NOT: TYPE_IS, ONE_OF: NONE_OF, NONE_OF: ONE_OF, LT: GE, GE: LT, LE: GT, GT: LE}
