"""The compile side of Jinja2's constant folding (analysis/folding.py): its nodes → closures, and the evaluator it
computes constant values with while the template compiles.
"""

from ..analysis.folding import FoldedSlice, NotConstant, fold_like_jinja2, may_fold
from ..builtins.filters import FILTERS
from ..builtins.tests import TESTS
from ..core.budget import charge_result
from ..core.errors import located
from ..core.state import RenderState, enter_render, leave_render
from ..runtime.printing import to_str
from ..runtime.sandbox import getitem_
from .expressions import e_slice

__all__ = ["FOLDING_EXPRESSIONS", "fold_constants", "may_fold"]

# The steps all the constant expressions of one template may take to evaluate while it compiles (what runs past
# it is left to the render, which is what Jinja2 does with an expression its folder fails on)
_FOLDING_FUEL = 20_000


class _NotConstantError(Exception):
    pass


def e_not_constant(c, node):
    def ev(f):
        raise _NotConstantError
    return ev


def e_folded_slice(c, node):
    # obj[a:b] through the sandbox's item lookup: an undefined where the subscript fails.
    obj_ev, key_ev = c.expr(node.obj), e_slice(c, node.key)
    span = node.span

    def ev(f, key_ev=key_ev, obj_ev=obj_ev, span=span):
        obj, key = obj_ev(f), key_ev(f)
        try:
            return charge_result(f[0], getitem_(obj, key, f[0]))
        except Exception as exc:
            raise located(exc, span)
    return ev


FOLDING_EXPRESSIONS = {NotConstant: e_not_constant, FoldedSlice: e_folded_slice}


def fold_constants(c, template):
    # folding.fold_like_jinja2 with this compile's evaluator.
    env = c.env
    rs = RenderState(env, {}, {}, c.autoescape, fuel=_FOLDING_FUEL)

    def evaluate(node, printed, c=c, env=env, rs=rs):
        if rs.fuel <= 0 or printed and env.finalize is not None:
            raise _NotConstantError   # (a finalize function is not folded into {{ }} here)
        ev = c.expr(node)
        token = enter_render(rs)
        try:
            value = ev([rs, None])
            return to_str(value, rs) if printed else value
        finally:
            leave_render(token)
    return fold_like_jinja2(template, evaluate, env.filters, env.tests, FILTERS, TESTS)
