"""The reference side of the differential test: Jinja2 configured as transformers' apply_chat_template
configures it, and the comparison of its result with minijinja_py's.

Imports jinja2 (test_differential.py imports this module only after pytest.importorskip("jinja2")). The
environment is built here from Jinja2's public API, following the configuration transformers 5.x uses in
utils/chat_template_utils.py (_cached_compile_jinja_template): an ImmutableSandboxedEnvironment with
trim_blocks and lstrip_blocks, the loop-controls extension and an extension for {% generation %}; `tojson`
replaced by json.dumps (ensure_ascii=False, indent, separators, sort_keys); globals raise_exception,
strftime_now, `dict` (callable, plus dict.fromkeys) and `namespace` (refusing names that start with "_").

Outcome of one case: ("same", ...) when the outputs are identical or both sides raised the same kind of error;
("excluded", reason) when Jinja2's output is not deterministic (it shows a memory address: reprs of functions,
methods, generators and other objects); otherwise ("differ", category, detail).
"""

import builtins
import dataclasses
import datetime
import json
import re
import traceback
import types
import unicodedata

import jinja2
import jinja2.ext
import jinja2.nodes
import jinja2.utils
from jinja2.sandbox import ImmutableSandboxedEnvironment

import minijinja_py as mj
from differential_edges import copy_edge_value
from differential_gen import Obj, Point, User
from minijinja_py.syntax import nodes as mj_nodes
from minijinja_py.compile.composition import tag_modifiers
from minijinja_py.syntax.parse import normalize_newlines

FIXED_NOW = datetime.datetime(2026, 1, 15, 9, 5, 3)
_ADDRESS = re.compile(r" at 0x[0-9a-f]+(>|&gt;)", re.IGNORECASE)   # an object's default repr


class _Generation(jinja2.ext.Extension):
    """{% generation %}...{% endgeneration %}: renders its body (transformers also records where it went)."""

    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
        return jinja2.nodes.CallBlock(self.call_method("_render_body"), [], [], body).set_lineno(lineno)

    def _render_body(self, caller):
        return caller()


# transformers' functions, by their names (Python's arity errors name them: "tojson() takes from 1 to 5 ...")
def raise_exception(message):
    raise jinja2.exceptions.TemplateError(message)


def strftime_now(format):
    return FIXED_NOW.strftime(format)


def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


class _DictGlobal:
    def __call__(self, *args, **kwargs):
        return dict(*args, **kwargs)

    def fromkeys(self, *args, **kwargs):
        return dict.fromkeys(*args, **kwargs)


def _check_ns_name(name):
    if isinstance(name, str) and name.startswith("_"):
        raise jinja2.exceptions.SecurityError(
            f"Chat templates cannot store underscore-prefixed attributes on a namespace, but got {name!r}. "
            "Please rename the attribute.")


class _Namespace(jinja2.utils.Namespace):
    def __init__(*args, **kwargs):
        self, args = args[0], args[1:]
        attrs = dict(*args, **kwargs)
        for name in attrs:
            _check_ns_name(name)
        jinja2.utils.Namespace.__init__(self, attrs)

    def __setitem__(self, name, value):
        _check_ns_name(name)
        jinja2.utils.Namespace.__setitem__(self, name, value)


_envs = {}


def reference_env(trim_blocks=True, lstrip_blocks=True):
    key = (trim_blocks, lstrip_blocks)
    env = _envs.get(key)
    if env is None:
        env = _envs[key] = _build_reference_env(trim_blocks, lstrip_blocks)
    return env


def _build_reference_env(trim_blocks, lstrip_blocks, cls=ImmutableSandboxedEnvironment, **options):
    env = cls(trim_blocks=trim_blocks, lstrip_blocks=lstrip_blocks, extensions=[_Generation, jinja2.ext.loopcontrols],
              **options)
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    env.globals["dict"] = _DictGlobal()
    env.globals["namespace"] = _Namespace
    return env


_mj_envs = {}


def mj_env(trim_blocks=True, lstrip_blocks=True):
    key = (trim_blocks, lstrip_blocks)
    env = _mj_envs.get(key)
    if env is None:
        env = mj.chat_environment(trim_blocks=trim_blocks, lstrip_blocks=lstrip_blocks, now=lambda: FIXED_NOW)
        _mj_envs[key] = env
    return env


def _copy(value):
    """A deep copy of plain data and the caller's objects, so a render cannot affect the other one (it should not
    mutate anyway)."""
    edge = copy_edge_value(value, _copy)
    if edge is not None:
        return edge
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    if isinstance(value, (User, Point)):
        return type(value)(*(_copy(v) for v in value))
    if isinstance(value, tuple):
        return tuple(_copy(v) for v in value)
    if isinstance(value, Obj):
        return type(value)(**{k: _copy(v) for k, v in vars(value).items()})
    return value


def _with_loader(env, case, loader_class):
    """env with the case's templates as its loader (none when the case has none)."""
    env.loader = loader_class(case.templates) if case.templates else None
    return env


_overlays = {}


def _delimited(env, delimiters):
    """env (one the module keeps), or its overlay with the case's other delimiters (one per set, kept)."""
    if not delimiters:
        return env
    key = (id(env), tuple(sorted(delimiters.items())))
    if key not in _overlays:
        _overlays[key] = (env, env.overlay(**delimiters))   # env held: its id stays its own
    return _overlays[key][1]


def render_reference(case, env=None):
    """("ok", text) or ("error", exception, phase) with phase "compile" (from_string) or "render"."""
    if env is None:
        env = reference_env(case.trim_blocks, case.lstrip_blocks)
    env = _delimited(env, case.delimiters)
    _with_loader(env, case, jinja2.DictLoader)
    try:
        template = env.from_string(case.source)
    except Exception as exc:  # noqa: BLE001 - the reference's error is the expectation
        return ("error", exc, "compile")
    try:
        return ("ok", template.render(_copy(case.context)))
    except Exception as exc:  # noqa: BLE001
        return ("error", exc, "render")


def render_mj(case):
    try:
        env = _delimited(mj_env(case.trim_blocks, case.lstrip_blocks), case.delimiters)
        template = _with_loader(env, case, mj.DictLoader).from_string(case.source)
        return ("ok", template.render(_copy(case.context)))
    except Exception as exc:  # noqa: BLE001 - compared below; anything but a TemplateError is a failure
        return ("error", exc)


def _builtin_class(exc):
    for cls in type(exc).__mro__:
        if getattr(builtins, cls.__name__, None) is cls and issubclass(cls, BaseException) \
                and cls not in (Exception, BaseException):
            return cls
    return None


def reference_kind(exc):
    """The kind of a Jinja2 error: what minijinja_py must raise in its place."""
    if isinstance(exc, jinja2.TemplateSyntaxError):      # TemplateAssertionError included
        return "syntax"
    if isinstance(exc, jinja2.TemplateNotFound):         # TemplatesNotFound included
        return "not found"
    if isinstance(exc, jinja2.UndefinedError):
        return "undefined"
    if isinstance(exc, jinja2.exceptions.SecurityError):
        return "security"
    if isinstance(exc, jinja2.TemplateRuntimeError):
        return "runtime"
    if isinstance(exc, jinja2.TemplateError):            # raise_exception(message)
        return "raise"
    if isinstance(exc, (RecursionError, MemoryError)):   # minijinja_py turns these into LimitExceeded by design
        return "limit"
    cls = _builtin_class(exc)
    return cls.__name__ if cls is not None else type(exc).__name__


def mj_kind(exc):
    if not isinstance(exc, mj.TemplateError):
        return "NOT-A-TemplateError"
    if isinstance(exc, mj.TemplateSyntaxError):
        return "syntax"
    if isinstance(exc, mj.TemplateNotFound):
        return "not found"
    if isinstance(exc, mj.UndefinedError):
        return "undefined"
    if isinstance(exc, mj.SecurityError):
        return "security"
    if isinstance(exc, mj.LimitExceeded):
        return "limit"
    cls = _builtin_class(exc)
    if cls is not None:
        return cls.__name__
    if isinstance(exc, mj.TemplateRuntimeError):
        return "runtime"
    return "raise"


def _errors_match(ref, mine):
    if not isinstance(mine, mj.TemplateError):
        return False
    kind = reference_kind(ref)
    if kind == "raise":
        return mj_kind(mine) == "raise" and mine.message == ref.message
    if kind == "not found":
        return mj_kind(mine) == kind and mine.name == ref.name and getattr(mine, "templates", None) == ref.templates
    if kind in ("syntax", "undefined", "security", "runtime", "limit"):
        return mj_kind(mine) == kind
    # a Python built-in escaped Jinja2: minijinja_py's error must be a TemplateError that is also that built-in
    cls = _builtin_class(ref)
    return cls is not None and isinstance(mine, cls)


def assert_renders_as_reference(source, make_context):
    """A template renders the same text as in Jinja2, or fails with an error of the same kind (_errors_match) that
    carries Jinja2's message; make_context() gives each engine a context of its own."""
    try:
        expected = reference_env().from_string(source).render(make_context())
    except Exception as exc:  # noqa: BLE001 - compared with ours
        try:
            mj_env().from_string(source).render(make_context())
        except mj.TemplateError as got:
            assert _errors_match(exc, got) and str(exc) in str(got), (exc, got)
            return
        raise AssertionError(f"Jinja2 raised {exc!r}; minijinja_py did not") from None
    assert mj_env().from_string(source).render(make_context()) == expected


def _short(exc):
    text = getattr(exc, "message", None) or str(exc)
    return f"{type(exc).__name__}: {text.splitlines()[0] if text else ''}"[:160]


# ------------------------------------------------------------------------------------------ known differences
# Each is documented in README.md ("Known differences") with its reason. A difference is "known" only when its
# predicate recognises it from both results; everything else fails the test.
class Known:
    def __init__(self, key, reason, matches):
        self.key, self.reason, self.matches = key, reason, matches


def _message(exc):
    return getattr(exc, "message", None) or str(exc)


def _raised_in(result, module, functions):
    """Did this error come out of one of these functions of `module` (a path ending: "jinja2/sandbox.py")?"""
    if result[0] != "error":
        return False
    exc, seen = result[1], set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        for frame in traceback.extract_tb(exc.__traceback__):
            if frame.filename.replace("\\", "/").endswith("/" + module) and (functions is None
                                                                             or frame.name in functions):
                return True
        exc = exc.__cause__ or exc.__context__
    return False


def _sources(case):
    """The text of the case's template and of the templates it loads."""
    return "\n".join([case.source, *case.templates.values()])


def _nfkc_names(case, ref, mine):
    # Jinja2's generated Python code names variables after template names, and Python NFKC-normalises
    # identifiers: names that differ only in their Unicode normalisation (é vs e + U+0301) can share a variable
    return any(unicodedata.normalize("NFKC", word) != word
               for word in re.findall(r"(?:\w|[^\x00-\x7f\s])+", _sources(case)) if not word.isascii())


def _empty_print(delimiters):
    """A regexp finding an empty print statement written with the case's delimiters (and line statement prefix)."""
    start = re.escape(delimiters.get("block_start_string", "{%"))
    end = re.escape(delimiters.get("block_end_string", "%}"))
    forms = [rf"{start}[-+]?\s*print\s*[-+]?{end}"]
    if delimiters.get("line_statement_prefix"):
        forms.append(rf"^[ \t]*{re.escape(delimiters['line_statement_prefix'])}\s*print[ \t]*:?[ \t]*$")
    return re.compile("|".join(f"(?:{form})" for form in forms), re.M)


def _empty_print_with_extends(case, ref, mine):
    # a Jinja2 bug: in a template that has an {% extends %}, an empty {% print %} outside a macro or block
    # compiles to an `if` with no body, so Python refuses the generated code (IndentationError)
    return (ref[0] == "error" and isinstance(ref[1], IndentationError) and "extends" in _sources(case)
            and _empty_print(case.delimiters or {}).search(_sources(case)) is not None)


def _design_limit(case, ref, mine):
    # minijinja_py's resource limits (mj.Limits) are checked before the work; Jinja2 has none of them
    return (mine[0] == "error" and isinstance(mine[1], mj.LimitExceeded)
            and getattr(mine[1], "limit", None) not in (None, "recursion_limit", "memory"))


_NOT_TEXT = r"sequence item \d+: expected str instance, \w+ found"


def _output_not_text_first(case, ref, mine):
    # a piece of output that is not text (a filter block ending in |list or |length): minijinja_py fails where it
    # is made, Jinja2 when the output is joined, after the rest of the render (or the include) ran
    return mine[0] == "error" and isinstance(mine[1], TypeError) and re.match(_NOT_TEXT, _message(mine[1])) \
        and ref[0] == "error" and ref[2] == "render"


@jinja2.pass_context
def _identity_finalize(context, value):
    return value


_unfolded_envs = {}


def _constant_folding(case, ref, mine):
    # Jinja2 evaluates constant expressions while compiling (its optimizer, and constant {{ }} output). Checked:
    # minijinja_py agrees with Jinja2 compiling without folding (optimized=False, and a finalize that needs the
    # render context, which keeps {{ }} from being folded); output and error kind are otherwise those of Jinja2.
    # Not an error Jinja2's folder raises while compiling (a TypeError or ValueError of from_string):
    # minijinja_py raises those where Jinja2 does (analysis/folderrors.py)
    if ref[0] == "error" and ref[2] == "compile" and isinstance(ref[1], (TypeError, ValueError)) and \
            not isinstance(ref[1], jinja2.TemplateError):
        return False
    key = (case.trim_blocks, case.lstrip_blocks)
    env = _unfolded_envs.get(key)
    if env is None:
        env = _unfolded_envs[key] = _build_reference_env(case.trim_blocks, case.lstrip_blocks, optimized=False,
                                                         finalize=_identity_finalize)
    unfolded = render_reference(case, env)
    return unfolded[:2] != ref[:2] and _classify(unfolded, mine)[0] in ("same", "excluded")


_FLOAT_LITERAL = re.compile(r"(?<![\w.])\d[\d_]*(?:\.\d[\d_]*)?[eE][+-]?\d[\d_]*")


def _inf_literal(case, ref, mine):
    # any difference in a template with a float literal that overflows: Jinja2 fails with NameError where it
    # compiles it, and folds it to inf where it folds constants
    return any(float(literal.replace("_", "")) == float("inf") for literal in _FLOAT_LITERAL.findall(_sources(case)))


_UNSAFE = re.compile(r"access to attribute '[^']*' of '[^']*' object is unsafe\.$")


class _EagerSandbox(ImmutableSandboxedEnvironment):
    """Jinja2's sandbox refusing an unsafe attribute where it is read, not where its undefined is used."""

    def unsafe_undefined(self, obj, attribute):
        raise jinja2.exceptions.SecurityError(f"access to attribute {attribute!r} of {type(obj).__name__!r} object "
                                              "is unsafe.")


_eager_envs = {}


def _eager_unsafe_attribute(case, ref, mine):
    # checked: Jinja2 refusing the same attribute where it reads it gives minijinja_py's outcome (so the attribute
    # is one Jinja2's object has: the one refused here is not the engine's own)
    ref_security = ref[0] == "error" and isinstance(ref[1], jinja2.exceptions.SecurityError)
    if ref_security or mine[0] != "error" or not isinstance(mine[1], mj.SecurityError) or \
            _UNSAFE.match(_message(mine[1])) is None:
        return False
    for folded in (True, False):   # (and with constant folding's difference as well: see _constant_folding)
        key = (case.trim_blocks, case.lstrip_blocks, folded)
        env = _eager_envs.get(key)
        if env is None:
            options = {} if folded else {"optimized": False, "finalize": _identity_finalize}
            env = _eager_envs[key] = _build_reference_env(case.trim_blocks, case.lstrip_blocks, _EagerSandbox,
                                                          **options)
        if _classify(render_reference(case, env), mine)[0] in ("same", "excluded"):
            return True
    return False


def _string_formatting(case, ref, mine):
    # a str.format field through a '_' name the object has or a mutating method ('{0.__class__}'.format(x)):
    # minijinja_py's formatter fails at the field, as its attribute access does; Jinja2's hands out an undefined.
    # Other fields (a missing name: undefined; through an undefined: UndefinedError) read as Jinja2's do.
    return (mine[0] == "error" and isinstance(mine[1], mj.SecurityError)
            and _raised_in(mine, "minijinja_py/runtime/sandbox.py", {"get_field"}))


def _builtin_named(cls, name):
    """A subclass that prints as <class 'name'> (Python omits the module of builtins)."""
    return type(name, (cls,), {"__module__": "builtins"})


_short_class_envs = {}


# a printed class, also when quoted by a repr, escaped or URL-encoded: <class 'jinja2.utils.Joiner'>
_CLASS_NAME = re.compile(r"((?:<|&lt;|%3C)class(?: |%20)(?:\\?'|&#39;|%27))[\w.]+", re.IGNORECASE)


def _class_repr(case, ref, mine):
    # printing a class: Jinja2 shows its module path (<class 'jinja2.utils.Joiner'>), minijinja_py its name (or,
    # inside a container, its own module path). Checked: the outputs agree with the class names left out, or with
    # the cycler/joiner/namespace globals printing as minijinja_py's.
    if not any(name in _sources(case) for name in ("cycler", "joiner", "namespace")):
        return False
    if (ref[0] == "ok" and mine[0] == "ok"
            and _CLASS_NAME.sub(r"\1", ref[1]) == _CLASS_NAME.sub(r"\1", mine[1])):
        return True
    key = (case.trim_blocks, case.lstrip_blocks)
    env = _short_class_envs.get(key)
    if env is None:
        env = _short_class_envs[key] = _build_reference_env(case.trim_blocks, case.lstrip_blocks)
        for name, cls in (("cycler", jinja2.utils.Cycler), ("joiner", jinja2.utils.Joiner),
                          ("namespace", _Namespace)):
            env.globals[name] = _builtin_named(cls, cls.__name__.strip("_"))
    return _classify(render_reference(case, env), mine)[0] in ("same", "excluded")


def _limit_instead_of_overflow(case, ref, mine):
    return (ref[0] == "error" and isinstance(ref[1], (OverflowError, MemoryError))
            and mine[0] == "error" and isinstance(mine[1], mj.LimitExceeded))


# a subscript holding a comma and a colon outside parentheses: a tuple with a slice in it (x[0, 1:2], x[:1, 0])
_SLICE_IN_TUPLE = re.compile(r"\[[^\[\]()]*(?:,[^\[\]()]*:|:[^\[\]()]*,)")


def _slice_in_tuple_subscript(case, ref, mine):
    # Jinja2 writes a slice inside a tuple subscript as Python's `x[(0, :1)]`, which Python refuses (SyntaxError
    # when the template compiles, unless its folder evaluated the subscript); minijinja_py subscripts with the
    # tuple (0, slice(None, 1)), which reads as an undefined
    return (ref[0] == "error" and type(ref[1]) is SyntaxError
            and _SLICE_IN_TUPLE.search(_sources(case)) is not None)


# a block set whose target is or holds x.attr ({% set ns.a %}, {% set ns.a, %}, {% set x, ns.a %})
_BLOCK_SET_ATTR = re.compile(r"\{%[-+]?\s*set\s+[\w\s,]*\w\s*\.\s*\w+[\w\s,.]*(\||[-+]?%\})")


def _block_set_attribute_of_non_namespace(case, ref, mine):
    # Jinja2 skips the namespace check for {% set x.attr %}...{% endset %} and item-assigns (a TypeError, or a
    # dict mutated; in a tuple target, a ValueError of the unpacking may come first); minijinja_py refuses it as
    # {% set x.attr = ... %}
    return (mine[0] == "error" and _message(mine[1]) == "cannot assign attribute on non-namespace object"
            and _BLOCK_SET_ATTR.search(_sources(case)) is not None)


_BUFFERED = (mj_nodes.Macro, mj_nodes.CallBlock, mj_nodes.FilterBlock, mj_nodes.AssignBlock, mj_nodes.Generation)
_parse_env = mj.Environment(trim_blocks=True, lstrip_blocks=True, extensions=["loopcontrols", "generation", "do"])


def _include_without_context_buffered(case, ref, mine):
    # Jinja2 compiles {% include x without context %} to `yield from` whatever frame it is in: in a macro or call
    # block body or a recursive loop the function becomes a generator (its output is a generator object), in a set
    # or filter block the included text escapes the capture; minijinja_py includes it there as it does everywhere
    env = _delimited(_parse_env, case.delimiters)
    for source in (case.source, *case.templates.values()):
        if "without" not in source:
            continue
        try:
            tree = env.parse(source)
        except mj.TemplateError:
            continue
        text = normalize_newlines(source, False)
        stack = [(tree.body, False)]
        while stack:
            node, buffered = stack.pop()
            if isinstance(node, (list, tuple)):
                stack.extend((x, buffered) for x in node)
            elif isinstance(node, mj_nodes.Load):
                if buffered and node.kind == "include" and tag_modifiers(text, node, env._delimiters)[1] is False:
                    return True
            elif isinstance(node, mj_nodes.Node):
                # a recursive loop is a function of its own in Jinja2's generated code, buffered as a macro is
                inner = buffered or isinstance(node, _BUFFERED) or isinstance(node, mj_nodes.For) and node.recursive
                stack.extend((getattr(node, f), inner) for f in node.FIELDS)
    return False


KNOWN = [
    Known("constant-folding", "Jinja2 computes constant expressions while compiling: an unknown filter/test or a "
          "repeated keyword argument in a folded-away expression whose value is Markup ('<a>'|safe or x|nosuch) "
          "is no error; minijinja_py checks them (checked against Jinja2 without constant folding; the errors its "
          "folder raises, {[1]: 2}.x or x ~ 10 ** 5000 even in a branch never taken, and the names it folds away "
          "elsewhere, true or x|nosuch, minijinja_py treats as Jinja2 does)", _constant_folding),
    Known("inf-literal", "a float literal that overflows (1e400): Jinja2's generated code names an undefined "
          "`inf` (NameError); minijinja_py uses the float inf", _inf_literal),
    Known("eager-unsafe-attribute", "sandbox: an attribute starting with '_' that the object has (an undefined's "
          "`__class__` too), or a mutating method, raises SecurityError at once; Jinja2 returns an undefined that "
          "raises only when used; a mapping's items come first in both, and a '_' name the object lacks is "
          "undefined in both",
          _eager_unsafe_attribute),
    Known("limit-instead-of-overflow", "limits: minijinja_py refuses a huge list/string/int with LimitExceeded "
          "before allocating, where Jinja2 fails with OverflowError or MemoryError", _limit_instead_of_overflow),
    Known("sandbox-string-formatting", "sandbox: a str.format field through a '_' name the object has or a "
          "mutating method ('{0.__class__}'.format(x)) fails at the field; Jinja2's formatter hands out an "
          "undefined", _string_formatting),
    Known("class-repr", "printing a class object: Jinja2 shows its module path, minijinja_py only its name",
          _class_repr),
    Known("nfkc-names", "Jinja2 compiles names to Python identifiers, which Python NFKC-normalises: names that "
          "differ only in Unicode normalisation can clash there", _nfkc_names),
    Known("slice-in-tuple-subscript", "a slice inside a tuple subscript (x[0, :1]): Jinja2 generates `x[(0, :1)]`, "
          "which Python refuses (SyntaxError); minijinja_py subscripts with the tuple (an undefined)",
          _slice_in_tuple_subscript),
    Known("empty-print-with-extends", "Jinja2 generates invalid Python (IndentationError) for an empty {% print %} "
          "in a template with an {% extends %}; minijinja_py prints nothing there", _empty_print_with_extends),
    Known("design-limits", "minijinja_py's resource limits (list/string/int sizes, range, steps, output, call "
          "depth) are checked before the work; Jinja2 has none", _design_limit),
    Known("include-without-context-buffered", "{% include x without context %} inside a macro, call block, recursive "
          "loop, set or filter block: Jinja2's generated code yields the included text from the enclosing function "
          "(a macro or recursive loop then returns a generator, a set or filter block loses the text to the output); minijinja_py includes "
          "it there as everywhere else", _include_without_context_buffered),
    Known("output-not-text-first", "a piece of output that is not text (a filter block ending in |list): "
          "minijinja_py fails where it is made; Jinja2 joins the output at the end, so an error after it comes "
          "first", _output_not_text_first),
    Known("block-set-attribute", "{% set x.attr %}...{% endset %} on a non-namespace: Jinja2 skips its namespace "
          "check and item-assigns (TypeError, or mutates a dict); minijinja_py raises TemplateRuntimeError as for "
          "{% set x.attr = ... %}", _block_set_attribute_of_non_namespace),
]


def known_difference(case, ref, mine):
    for known in KNOWN:
        if known.matches(case, ref, mine):
            return known
    return None


def _reference_is_deterministic(case, ref):
    """Render the reference again (1) with other objects at the old addresses and (2) twice more with other reprs
    (a long one and a one-word one) for what shows a memory address in Jinja2: the iterators filters return,
    functions, methods, the `dict` global and the caller's plain objects (Obj). An output that changes depends on
    such a repr, perhaps transformed (`x|map('upper')|string|wordcount`, `users|string|length`)."""
    keep = [(i for i in ()) for _ in range(2000)] + [object() for _ in range(2000)]
    again = render_reference(case)
    del keep
    if _signature(again) != _signature(ref):
        return False
    for text in _RENAMES:
        renamed_case = dataclasses.replace(case, context=_renamed_objects(case.context, text))
        renamed = render_reference(renamed_case, _renamed_env(case.trim_blocks, case.lstrip_blocks, text))
        if _signature(renamed) != _signature(ref):
            return False
    return True


def _renamed_objects(value, text):
    """The context with each of the caller's plain objects (Obj, whose repr shows its address) one whose repr is
    text."""
    edge = copy_edge_value(value, lambda v: _renamed_objects(v, text))
    if edge is not None:
        return edge
    if isinstance(value, dict):
        return {k: _renamed_objects(v, text) for k, v in value.items()}
    if isinstance(value, list):
        return [_renamed_objects(v, text) for v in value]
    if isinstance(value, (User, Point)):
        return type(value)(*(_renamed_objects(v, text) for v in value))
    if isinstance(value, tuple):
        return tuple(_renamed_objects(v, text) for v in value)
    if isinstance(value, Obj):
        renamed = type("Obj", (Obj,), {"__repr__": lambda self: text, "__module__": Obj.__module__})
        return renamed(**{k: _renamed_objects(v, text) for k, v in vars(value).items()})
    return value


def _signature(result):
    """What must not change for a result to be deterministic: the text, or the error's kind and message."""
    if result[0] == "ok":
        return result[:2]
    return ("error", reference_kind(result[1]), _ADDRESS.sub(">", str(result[1])))


# Much longer than any repr they replace and with more words, or shorter with fewer: lengths and word counts
# computed from them change too.
_RENAMES = ("<" + " ".join(["renamed for the differential test"] * 6) + ">", "x")


class _RenamedIterator:
    """An iterator (what a filter returned) with another repr: only for the determinism check."""

    __slots__ = ("items", "text")

    def __init__(self, items, text):
        self.items, self.text = iter(items), text

    def __iter__(self):
        return self

    def __next__(self):
        return next(self.items)

    def __repr__(self):
        return self.text


class _RenamedCallable:
    """A function or method with another repr (and no attributes): only for the determinism check."""

    __slots__ = ("func", "text")

    def __init__(self, func, text):
        self.func, self.text = func, text

    def __call__(self, *args, **kwargs):
        return self.func(*args, **kwargs)

    def __repr__(self):
        return self.text


class _RenamedDictGlobal(_DictGlobal):
    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return self.text


_REPR_WITH_ADDRESS = (types.FunctionType, types.BuiltinFunctionType, types.MethodType, types.BuiltinMethodType,
                      types.MethodWrapperType)


def _renaming_sandbox(text):
    class RenamingSandbox(ImmutableSandboxedEnvironment):
        def getattr(self, obj, attribute):
            value = super().getattr(obj, attribute)
            return _RenamedCallable(value, text) if isinstance(value, _REPR_WITH_ADDRESS) else value

        def getitem(self, obj, argument):
            value = super().getitem(obj, argument)
            return _RenamedCallable(value, text) if isinstance(value, _REPR_WITH_ADDRESS) else value
    return RenamingSandbox


_renamed_envs = {}


def _renamed_env(trim_blocks, lstrip_blocks, text):
    key = (trim_blocks, lstrip_blocks, text)
    env = _renamed_envs.get(key)
    if env is None:
        env = _build_reference_env(trim_blocks, lstrip_blocks, _renaming_sandbox(text))
        for name, func in list(env.filters.items()):
            env.filters[name] = _renaming(func, text)
        for name, value in list(env.globals.items()):
            if isinstance(value, _REPR_WITH_ADDRESS):
                env.globals[name] = _RenamedCallable(value, text)
        env.globals["dict"] = _RenamedDictGlobal(text)
        _renamed_envs[key] = env
    return env


def _renaming(func, text):
    def filter_(*args, **kwargs):
        result = func(*args, **kwargs)
        if isinstance(result, types.GeneratorType) or (hasattr(result, "__next__") and _ADDRESS.search(repr(result))):
            return _RenamedIterator(result, text)   # generators, reversed(...), iter(...): reprs with an address
        return result
    pass_arg = getattr(func, "jinja_pass_arg", None)
    if pass_arg is not None:
        filter_.jinja_pass_arg = pass_arg
    return filter_


def compare(case):
    """Render with both engines: ("same", kind), ("excluded", reason), ("known", key, detail) or
    ("differ", category, detail)."""
    outcome, ref, mine = _compare(case)
    if outcome[0] == "differ" and not _reference_is_deterministic(case, ref):
        return ("excluded", "reference output depends on an object's repr")
    if outcome[0] == "differ" and not outcome[1].startswith("leak"):
        known = known_difference(case, ref, mine)
        if known is not None:
            return ("known", known.key, outcome[2])
    return outcome


def _compare(case):
    ref = render_reference(case)
    mine = render_mj(case)
    return _classify(ref, mine), ref, mine


def _classify(ref, mine):
    if mine[0] == "error" and not isinstance(mine[1], mj.TemplateError):
        reference = ref[1] if ref[0] == "ok" else _short(ref[1])
        return ("differ", f"leak {type(mine[1]).__name__}",
                f"minijinja_py let {_short(mine[1])} escape; reference {reference!r}")
    if ref[0] == "ok":
        if _ADDRESS.search(ref[1]):
            return ("excluded", "reference output shows a memory address")
        if mine[0] == "ok":
            if mine[1] == ref[1]:
                return ("same", "output")
            return ("differ", "output", f"reference {ref[1]!r}\nminijinja_py {mine[1]!r}")
        return ("differ", f"mj raised {mj_kind(mine[1])}, reference rendered",
                f"reference {ref[1]!r}\nminijinja_py {_short(mine[1])}")
    if mine[0] == "ok":
        return ("differ", f"reference raised {reference_kind(ref[1])}, mj rendered",
                f"reference {_short(ref[1])}\nminijinja_py {mine[1]!r}")
    if _errors_match(ref[1], mine[1]):
        return ("same", "error " + reference_kind(ref[1]))
    return ("differ", f"error kind: reference {reference_kind(ref[1])}, mj {mj_kind(mine[1])}",
            f"reference {_short(ref[1])}\nminijinja_py {_short(mine[1])}")
