"""Random chat-template-like Jinja templates and contexts, drawn from the grammar, for the differential test.

Every decision is drawn from a Chooser: RandomChooser (a seeded random.Random, for campaigns, see
differential_campaign.py) or the hypothesis-backed chooser of test_differential.py (so failures shrink). Option 0
of every choice is the simplest one, so shrinking moves toward small templates.

What is generated (grammar/jinja.lark names in brackets):
  expressions   literals (ints in every base, floats, strings with escapes, adjacent strings, true/none/...),
                lists, tuples, dicts, names (context variables, loop/macro variables, keyword-like names,
                undefined names), attribute/item/slice access [postfix], calls with positional, keyword, *args and
                **kwargs arguments [call_args], filters with arguments [filter], tests with and without arguments,
                also the one-argument form `x is divisibleby 3` [test], every binary operator and its precedence
                level, unary - and +, not/and/or, comparison chains and (not) in [compare], ~ [concat],
                conditional expressions with and without else [cond_expr]; operands are parenthesised as their
                precedence needs, but now and then left bare or wrapped in extra parentheses, so both parsers
                have to agree on precedence and associativity.
  statements    if/elif/else, for (tuple unpacking, else, loop filter, recursive, loop.*, break/continue), set
                (names, tuples, namespace attributes), block set with filters, macros (defaults, varargs, kwargs,
                caller) and their calls, call blocks, filter blocks, with, print, do, generation, comments and raw
                blocks; each tag with random whitespace control (`{%-`, `{%+`, `-%}`, `+%}`, `{{-`, `-}}`, `{#-`,
                ...) and random spacing inside, surrounded by text with spaces, tabs, newlines and indentation.
  contexts      strings (unicode, braces, newlines), ints, floats, bools, None, nested lists and dicts,
                chat messages (role/content, content parts, tool calls), trees for recursive loops, and the
                caller's own objects: plain objects with attributes and namedtuples, alone and in lists (`users`),
                read through attributes and the filters that take attribute= (map, selectattr, groupby, sort...).
  loaders       some cases come with other templates (Case.templates, given to both engines as a DictLoader): a
                part to {% include %} (with/without context, ignore missing, a list of names), a library of
                macros and variables to {% import %} / {% from ... import %}, a base with {% block %}s that the
                template {% extends %} (blocks with super(), self.<block>(), scoped and required ones).
  edges         the shapes of differential_edges.py: unary and ** with filters and folded operands, failing
                subscripts and slices, mappings with `_` and dunder keys, unsafe attributes of callables, methods
                and template objects, the caller's mappings whose __contains__ lies.
  options       mostly the transformers profile (trim_blocks and lstrip_blocks on), sometimes either turned off.
  delimiters    now and then the case is written with other delimiters (DELIMITER_SETS: ERB, PHP, HTML
                comments, LaTeX, `${ }`, delimiters that are prefixes of each other, line statements and line
                comments): the default delimiters of the generated template are replaced, tags alone on a line
                become line statements, and line comments are added at ends of lines (with_delimiters).
A small share of templates is then mutated (a character deleted, duplicated or inserted) to exercise syntax errors.

Not generated, because Jinja2's output is not deterministic: the `random` filter and `lipsum()`.
"""

import random
import re
from collections import namedtuple
from dataclasses import dataclass, field

import differential_edges

__all__ = ["Chooser", "RandomChooser", "Case", "generate_case"]


class Chooser:
    """The source of every decision. Subclasses implement below(n) -> int in range(n)."""

    def below(self, n):
        raise NotImplementedError

    def choice(self, seq):
        return seq[self.below(len(seq))] if len(seq) > 1 else seq[0]

    def chance(self, p):
        """True with probability p (0 is the shrunk answer: False)."""
        return self.below(1000) >= 1000 - int(p * 1000)

    def randint(self, lo, hi):
        return lo + self.below(hi - lo + 1)

    def weighted(self, options):
        """options: [(weight, value), ...]; the first option is the simplest."""
        total = sum(w for w, _ in options)
        pick = self.below(total)
        for w, value in options:
            if pick < w:
                return value
            pick -= w
        return options[-1][1]


class RandomChooser(Chooser):
    def __init__(self, seed):
        self.rng = random.Random(seed)

    def below(self, n):
        return self.rng.randrange(n) if n > 1 else 0


@dataclass
class Case:
    source: str
    context: dict
    trim_blocks: bool = True
    lstrip_blocks: bool = True
    notes: list = field(default_factory=list)
    templates: dict = field(default_factory=dict)   # name → source, loaded by {% include %} and friends
    delimiters: dict = field(default_factory=dict)  # Jinja2's delimiter options (block_start_string=...), if any

    def describe(self):
        loaded = f"\ntemplates={self.templates!r}" if self.templates else ""
        delimiters = f" {self.delimiters!r}" if self.delimiters else ""
        return (f"trim_blocks={self.trim_blocks} lstrip_blocks={self.lstrip_blocks}{delimiters}\n"
                f"context={self.context!r}\nsource={self.source!r}{loaded}")


class Obj:
    """A plain object of the caller's: attributes only (prints with its address in Jinja2)."""

    def __init__(self, **attrs):
        self.__dict__.update(attrs)


User = namedtuple("User", "name id role")
Point = namedtuple("Point", "x y")


# ------------------------------------------------------------------------------------------------ contexts
STRINGS = [
    "", "a", "hello", "Hello World", "hello world foo bar", "  padded  ", "line1\nline2", "tab\there", "ünïcødé",
    "日本語", "<b>bold</b> & 'q'", "{{ x }}", "{% if %}", "it's", 'say "hi"', "123", "-4", "3.5", "a,b,c",
    "CamelCase", "snake_case", "UPPER", "x", "\n", " ", "user", "assistant", "system", "tool", "%s", "{}", "100%",
    "a\\b", "😀 emoji", "multi\n\nline\n", "\t", "role", "content", "True", "none", "<|im_start|>", "a-b-c",
]
KEYS = ["role", "content", "name", "a", "b", "id", "items", "keys", "text", "type", "value", "x", "1", "_p"]
ROLES = ["system", "user", "assistant", "tool"]
VAR_NAMES = ["a", "b", "c", "n", "s", "x", "y", "items", "data", "msg", "messages", "tools", "cfg", "num",
             "text", "flag", "tree", "rows", "user", "values", "keys", "é", "名前", "_hidden"]


def gen_str(r):
    if r.chance(0.15):
        alphabet = "ab cXY_-,.:;!?\n\t'\"\\{}%#<>&é€😀0123"
        return "".join(r.choice(alphabet) for _ in range(r.randint(0, 12)))
    return r.choice(STRINGS)


def gen_scalar(r):
    kind = r.weighted([(4, "str"), (4, "int"), (2, "float"), (2, "bool"), (1, "none")])
    if kind == "str":
        return gen_str(r)
    if kind == "int":
        return r.weighted([(8, r.randint(0, 10)), (2, r.randint(-10, 100)), (1, 10 ** 20), (1, -(2 ** 63))])
    if kind == "float":
        return r.choice([0.0, 1.5, -2.25, 0.1, 3.14159, 1e-07, 1e20, 2.0, -0.0, float("inf"), float("nan"), 1e100])
    if kind == "bool":
        return r.choice([True, False])
    return None


def gen_value(r, depth=0):
    kind = r.weighted([(6, "scalar"), (3, "list"), (3, "dict"), (1, "message"), (1, "tuple"), (1, "object")]) \
        if depth < 3 else "scalar"
    if kind == "scalar":
        return gen_scalar(r)
    if kind == "object":
        return gen_object(r, depth)
    if kind == "list":
        return [gen_value(r, depth + 1) for _ in range(r.weighted([(3, r.randint(0, 4)), (1, r.randint(5, 9))]))]
    if kind == "tuple":
        return tuple(gen_value(r, depth + 1) for _ in range(r.randint(0, 3)))
    if kind == "message":
        return gen_message(r)
    d = {}
    for _ in range(r.randint(0, 4)):
        key = r.weighted([(8, r.choice(KEYS)), (1, r.randint(0, 3)), (1, gen_str(r))])
        d[key] = gen_value(r, depth + 1)
    return d


def gen_object(r, depth=0):
    """A plain object or a namedtuple, with the attribute names templates read."""
    kind = r.choice(["obj", "user", "point"])
    if kind == "user":
        return User(gen_str(r) if r.chance(0.3) else r.choice(["ann", "bob", "Cy"]), r.randint(0, 3), r.choice(ROLES))
    if kind == "point":
        return Point(r.randint(-2, 3), gen_value(r, depth + 1) if depth < 2 else r.randint(0, 2))
    names = ["name", "id", "role", "content", "value", "items"]
    return Obj(**{name: gen_value(r, depth + 1) if depth < 2 else gen_scalar(r)
                  for name in names[:r.randint(0, len(names))]})


def gen_users(r):
    """A list of the caller's objects, all of a kind (the attribute filters compare and sort them)."""
    kind = r.choice(["user", "obj", "mixed"])
    out = []
    for _ in range(r.randint(0, 4)):
        name = r.choice(["ann", "bob", "Cy", "dee"])
        if kind == "user" or kind == "mixed" and r.chance(0.5):
            out.append(User(name, r.randint(0, 3), r.choice(ROLES)))
        else:
            out.append(Obj(name=name, id=r.randint(0, 3), role=r.choice(ROLES),
                           **({"date": Obj(year=r.choice([2023, 2024]))} if r.chance(0.5) else {})))
    return out


def gen_message(r):
    role = r.choice(ROLES)
    msg = {"role": role}
    content = r.weighted([(6, gen_str(r)), (1, None),
                          (2, [{"type": "text", "text": gen_str(r)} for _ in range(r.randint(0, 2))]
                           + ([{"type": "image"}] if r.chance(0.3) else []))])
    if content is not None or r.chance(0.5):
        msg["content"] = content
    if role == "assistant" and r.chance(0.3):
        msg["tool_calls"] = [{"type": "function", "function": {"name": r.choice(["get_weather", "f"]),
                                                               "arguments": {"city": gen_str(r), "n": 1}}}]
    if r.chance(0.2):
        msg["reasoning_content"] = gen_str(r)
    return msg


def gen_tree(r, depth=0):
    return [{"name": gen_str(r) if r.chance(0.2) else f"n{depth}{i}",
             "children": gen_tree(r, depth + 1) if depth < 2 and r.chance(0.5) else []}
            for i in range(r.randint(0, 3))]


def kind_of(value):
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "str"
    if value is None:
        return "none"
    if isinstance(value, (list, tuple)):
        if value and all(isinstance(m, dict) and "role" in m for m in value):
            return "msgs"
        return "list"
    if isinstance(value, dict):
        return "msg" if "role" in value else "dict"
    if isinstance(value, (Obj, User, Point)):
        return "dict"   # read by attribute, as a dict is
    return "any"


def gen_context(r):
    ctx = {}
    if r.chance(0.6):
        ctx["messages"] = [gen_message(r) for _ in range(r.randint(1, 4))]
    for _ in range(r.randint(0, 6)):
        name = r.choice(VAR_NAMES)
        if name == "messages":
            continue
        ctx[name] = gen_tree(r) if name == "tree" else gen_value(r)
    if r.chance(0.25):
        ctx["users"] = gen_users(r)
    if r.chance(0.3):
        ctx["add_generation_prompt"] = r.choice([True, False])
    if r.chance(0.2):
        ctx["bos_token"] = "<s>"
        ctx["eos_token"] = "</s>"
    differential_edges.edge_context(r, ctx)
    return ctx


# --------------------------------------------------------------------------------------------- expressions
# Precedence levels, loosest first (the `prec` of a generated expression is that of its outermost operator).
TUPLE, COND, OR, AND, NOT, CMP, ADD, CONCAT, MUL, POW, UNARY, FILTER, POSTFIX, ATOM = range(14)

INT_LITERALS = ["0", "1", "2", "3", "4", "5", "7", "10", "42", "100", "1_000", "0x1F", "0o17", "0b101", "0XfF",
                "0B11", "00", "0_0"]
ODD_NUMBERS = ["007", "1_", "0x", "1e", "1.e3", "1..2", "1__0", "0b2", ".5", "5.", "1e3", "1E-2", "2.5e+1",
               "1_0.5", "0.0"]
FLOAT_LITERALS = ["0.5", "1.5", "2.0", "0.1", "3.14159", "1e3", "1E3", "1.5e-3", "1_000.5", "10.0", "0.0",
                  "2.5e+2"]
STRING_LITERALS = [
    "'a'", '"b"', "''", '""', "'hello world'", "'a\\nb'", "'tab\\t'", "'\\x41'", "'\\u00e9'", '"it\'s"',
    "'it\\'s'", "'say \"hi\"'", "'back\\\\slash'", "'\\q'", "'{{ x }}'", "'%s and %s'", "'{} {}'", "'{0}-{1}'",
    "'<b>&</b>'", "'ünï'", "'a,b,c'", "'  pad  '", "'\\N{BULLET}'", "'multi\nline'", "'%d'", "'%(a)s'", "'{a}'",
    "'role'", "'content'", "'user'", "'assistant'", "'\\r\\n'", "'\\\\n'", "' '", "'\\''", "'\\101'", "'x'",
    "'name'", "'%'", "'%%'", "'%5.1f'", "'{:>5}'", "'\\U0001F600'", "'\\\\'",
]
BAD_STRINGS = ["'unterminated", "'\\x4'", "'\\N{NOPE}'", "'\\u12'", "'a' 'b", '"\\"']
KEYWORDISH = ["if", "else", "in", "is", "and", "or", "not", "recursive", "elif", "endif", "for", "with", "set",
              "block", "loop", "self", "caller", "super", "varargs", "kwargs", "TRUE", "NONE", "None", "none",
              "True", "true", "false", "False", "namespace", "range", "dict", "joiner", "cycler", "endfor", "raw",
              "print", "do", "macro", "call", "filter", "endmacro", "generation"]
STR_METHODS = [("upper", 0), ("lower", 0), ("strip", 0), ("strip", 1), ("lstrip", 0), ("rstrip", 1),
               ("title", 0), ("capitalize", 0), ("split", 0), ("split", 1), ("rsplit", 1), ("startswith", 1),
               ("endswith", 1), ("replace", 2), ("find", 1), ("count", 1), ("join", 1), ("format", 2),
               ("center", 1), ("ljust", 1), ("zfill", 1), ("splitlines", 0), ("isdigit", 0), ("isalpha", 0),
               ("partition", 1), ("index", 1), ("swapcase", 0), ("casefold", 0), ("removeprefix", 1),
               ("encode", 0), ("format_map", 1), ("expandtabs", 0), ("isspace", 0), ("title", 1), ("mro", 0)]
DICT_METHODS = [("items", 0), ("keys", 0), ("values", 0), ("get", 1), ("get", 2), ("copy", 0), ("update", 1),
                ("pop", 1), ("setdefault", 2), ("clear", 0), ("__class__", -1), ("items", -1), ("fromkeys", 1)]
LIST_METHODS = [("index", 1), ("count", 1), ("append", 1), ("pop", 0), ("extend", 1), ("insert", 2),
                ("sort", 0), ("reverse", 0), ("copy", 0), ("remove", 1), ("clear", 0), ("__len__", 0)]
LOOP_ATTRS = ["index", "index0", "revindex", "revindex0", "first", "last", "length", "depth", "depth0",
              "previtem", "nextitem", "cycle", "changed", "nope"]
TESTS_NOARG = ["defined", "undefined", "none", "boolean", "false", "true", "integer", "float", "number", "string",
               "mapping", "sequence", "iterable", "callable", "lower", "upper", "odd", "even", "escaped", "filter",
               "test"]
TESTS_ARG = ["divisibleby", "eq", "equalto", "ne", "gt", "greaterthan", "ge", "lt", "lessthan", "le", "sameas",
             "in", "filter", "test"]
TESTS_SYMBOLIC = ["==", "!=", ">", ">=", "<", "<="]   # test names only select()/reject() can use
# filter name → how many arguments it commonly takes (min, max)
FILTERS = {
    "abs": (0, 0), "attr": (1, 1), "batch": (1, 2), "capitalize": (0, 0), "center": (0, 1), "count": (0, 0),
    "d": (0, 2), "default": (0, 2), "dictsort": (0, 3), "e": (0, 0), "escape": (0, 0), "filesizeformat": (0, 1),
    "first": (0, 0), "float": (0, 1), "forceescape": (0, 0), "format": (0, 3), "groupby": (1, 2),
    "indent": (0, 3), "int": (0, 2), "items": (0, 0), "join": (0, 2), "last": (0, 0), "length": (0, 0),
    "list": (0, 0), "lower": (0, 0), "map": (1, 2), "max": (0, 2), "min": (0, 2), "pprint": (0, 0),
    "reject": (0, 2), "rejectattr": (1, 3), "replace": (2, 3), "reverse": (0, 0), "round": (0, 2),
    "safe": (0, 0), "select": (0, 2), "selectattr": (1, 3), "slice": (1, 2), "sort": (0, 3), "string": (0, 0),
    "striptags": (0, 0), "sum": (0, 2), "title": (0, 0), "tojson": (0, 1), "trim": (0, 1), "truncate": (0, 4),
    "unique": (0, 2), "upper": (0, 0), "urlencode": (0, 0), "urlize": (0, 3), "wordcount": (0, 0),
    "wordwrap": (0, 4), "xmlattr": (0, 1), "nosuchfilter": (0, 1),
}
FILTER_KWARGS = {
    "sort": ["reverse", "case_sensitive", "attribute"], "unique": ["case_sensitive", "attribute"],
    "tojson": ["indent", "sort_keys", "ensure_ascii", "separators"], "indent": ["width", "first", "blank"],
    "truncate": ["length", "killwords", "end", "leeway"], "wordwrap": ["width", "break_long_words"],
    "join": ["attribute"], "round": ["precision", "method"], "dictsort": ["by", "reverse"],
    "groupby": ["attribute", "default", "case_sensitive"], "default": ["boolean"], "int": ["base", "default"],
    "map": ["attribute", "default"], "max": ["attribute"], "min": ["attribute"], "sum": ["attribute", "start"],
    "batch": ["fill_with"], "trim": ["chars"], "center": ["width"], "format": ["x"], "replace": ["count"],
}


def paren(text):
    return f"({text})"


class _Scope:
    """Names the template can see at one point, with a rough kind each (to bias toward well-typed templates)."""

    def __init__(self, names, parent=None):
        self.names = dict(names)
        self.parent = parent

    def all(self):
        out = dict(self.parent.all()) if self.parent else {}
        out.update(self.names)
        return out


class TemplateGen:
    def __init__(self, r, context, loadable=(), blocks=False):
        self.r = r
        self.loadable = list(loadable)   # names of the other templates of the case
        self.blocks = blocks             # generate {% block %}s (a base template, or one that extends it)
        self.scope = _Scope({k: kind_of(v) for k, v in context.items()})
        self.loops = []            # stack of (recursive?) for the enclosing for loops
        self.macros = {}           # name -> (positional parameter count, uses caller)
        self.in_macro = []         # stack of parameter-name lists of enclosing macros
        self.in_call_block = 0
        self.budget = r.randint(4, 30)
        self.max_depth = r.randint(2, 4)
        self.namespaces = []

    # ------------------------------------------------------------------------------------ helpers
    def spend(self, n=1):
        self.budget -= n
        return self.budget > 0

    def operand(self, sub, min_prec):
        """Embed a generated (text, prec) where at least min_prec binds; mostly parenthesised as needed."""
        text, prec = sub
        r = self.r
        if prec < min_prec:
            return text if r.chance(0.08) else paren(text)
        if r.chance(0.04):
            return paren(text)
        return text

    def sp(self):
        """Spacing between tokens."""
        return self.r.weighted([(12, " "), (3, ""), (1, "  "), (1, "\n"), (1, "\t")])

    def sp_word(self):
        """Spacing around a word operator (never empty)."""
        return self.r.weighted([(12, " "), (1, "  "), (1, "\n"), (1, "\t")])

    def names_of(self, *kinds):
        visible = self.scope.all()
        return [n for n, k in visible.items() if not kinds or k in kinds]

    # ------------------------------------------------------------------------------------ atoms
    def literal(self, kind):
        r = self.r
        if kind == "int":
            if r.chance(0.01):
                return r.choice(ODD_NUMBERS), ATOM
            return r.choice(INT_LITERALS), ATOM
        if kind == "float":
            if r.chance(0.01):
                return "1e400", ATOM   # overflows to inf: a known difference (see differential_ref.KNOWN)
            return r.choice(FLOAT_LITERALS), ATOM
        if kind == "str":
            if r.chance(0.01):
                return r.choice(BAD_STRINGS), ATOM
            if r.chance(0.05):
                return f"{r.choice(STRING_LITERALS)}{r.choice(['', ' ', chr(10)])}{r.choice(STRING_LITERALS)}", ATOM
            return r.choice(STRING_LITERALS), ATOM
        if kind == "bool":
            return r.choice(["true", "false", "True", "False"]), ATOM
        if kind == "none":
            return r.choice(["none", "None"]), ATOM
        if kind in ("list", "msgs"):
            items = [self.expr(r.choice(["int", "str", "any"]), 2) for _ in range(r.randint(0, 3))]
            trailing = "," if items and r.chance(0.1) else ""
            return "[" + ", ".join(self.operand(i, COND) for i in items) + trailing + "]", ATOM
        if kind == "tuple":
            items = [self.expr("any", 2) for _ in range(r.randint(0, 3))]
            if len(items) == 1:
                return "(" + self.operand(items[0], COND) + ",)", ATOM
            return "(" + ", ".join(self.operand(i, COND) for i in items) + ")", ATOM
        if kind in ("dict", "msg"):
            pairs = []
            for _ in range(r.randint(0, 3)):
                key = r.weighted([(6, f"'{r.choice(KEYS)}'"), (1, r.choice(INT_LITERALS)),
                                  (1, self.operand(self.expr("any", 2), COND))])
                pairs.append(f"{key}: {self.operand(self.expr('any', 2), COND)}")
            if kind == "msg":
                pairs.insert(0, f"'role': '{r.choice(ROLES)}'")
            return "{" + ", ".join(pairs) + "}", ATOM
        return self.literal(r.choice(["int", "str", "bool", "none", "float", "list", "dict"]))

    def name(self, kind):
        r = self.r
        candidates = self.names_of(kind) if kind != "any" else self.names_of()
        if kind == "any" and r.chance(0.02):
            return r.choice(KEYWORDISH), ATOM
        if kind == "any" and r.chance(0.05):
            return r.choice(["undefined_var", "missing", "foo", "é", "a·b", "e\u0301", "_x", "ℌ"]), ATOM
        if candidates:
            return r.choice(candidates), ATOM
        return None

    def leaf(self, kind, depth=None):
        r = self.r
        if r.chance(0.5):
            got = self.name(kind)
            if got is not None:
                return got
        if kind == "any":
            kind = r.choice(["int", "str", "bool", "none", "float", "list", "dict"])
        return self.literal(kind)

    # ------------------------------------------------------------------------------------ expressions
    def expr(self, kind="any", depth=0):
        """(text, prec) of an expression of roughly the given kind."""
        r = self.r
        if depth >= self.max_depth or not self.spend():
            return self.leaf(kind)
        productions = {
            "int": [(4, self.leaf), (4, self.arith), (1, self.unary), (3, self.num_filter), (1, self.method),
                    (2, self.loop_attr), (1, self.cond), (1, self.item), (1, self.edge)],
            "float": [(3, self.leaf), (3, self.arith), (1, self.num_filter), (1, self.cond)],
            "str": [(4, self.leaf), (3, self.concat), (4, self.str_filter), (2, self.method), (1, self.format),
                    (1, self.cond), (2, self.item), (1, self.macro_call), (1, self.global_call),
                    (1, self.attr), (1, self.object_filter)],
            "bool": [(2, self.leaf), (4, self.compare), (3, self.test), (2, self.logic), (1, self.not_),
                     (1, self.loop_attr), (1, self.method)],
            "list": [(3, self.leaf), (3, self.list_filter), (1, self.global_call), (1, self.arith),
                     (1, self.item), (1, self.method), (1, self.object_filter)],
            "dict": [(3, self.leaf), (1, self.global_call), (1, self.item), (1, self.attr)],
            "any": [(3, self.leaf), (2, self.arith), (2, self.concat), (2, self.str_filter), (1, self.list_filter),
                    (2, self.compare), (2, self.test), (1, self.logic), (1, self.not_), (1, self.unary),
                    (2, self.attr), (2, self.item), (1, self.slice), (1, self.method), (1, self.cond),
                    (1, self.call_any) if self.r.chance(0.3) else (1, self.leaf), (1, self.loop_attr),
                    (1, self.macro_call), (1, self.global_call),
                    (1, self.any_filter), (1, self.paren_tuple), (1, self.object_filter), (3, self.edge)],
        }
        if kind in ("none", "tuple"):
            return self.leaf(kind) if kind == "none" else self.literal("tuple")
        if kind in ("msgs",):
            kind = "list"
        if kind in ("msg",):
            kind = "dict"
        production = r.weighted(productions[kind])
        return production(kind, depth + 1)

    def sub(self, kind, depth):
        return self.expr(kind, depth)

    def edge(self, kind, depth):
        """One of the shapes of differential_edges.py (issue 23)."""
        text, level = differential_edges.edge(self, kind, depth)
        return text, globals()[level]

    def arith(self, kind, depth):
        r = self.r
        if kind == "str":
            kind = "any"
        op, prec = r.weighted([(4, ("+", ADD)), (3, ("-", ADD)), (3, ("*", MUL)), (2, ("/", MUL)),
                               (2, ("//", MUL)), (2, ("%", MUL)), (1, ("**", POW))])
        sub_kind = "list" if kind == "list" else r.choice(["int", "int", "float", "any"])
        if kind == "list":
            op, prec = r.choice([("+", ADD), ("*", MUL)])
        left = self.sub(sub_kind, depth)
        right = self.sub("int" if op in ("*", "**") else sub_kind, depth)
        if op == "**":
            # a small literal exponent: (10 ** 20) ** (10 ** 20) would keep Jinja2 busy for hours (minijinja_py
            # refuses it at once: design-limits); chains like a ** 2 ** 3 still exercise associativity
            right = (r.choice(["0", "1", "2", "3", "-1", "0.5", "-2", "1.5"]), ATOM)
        return (f"{self.operand(left, prec)}{self.sp()}{op}{self.sp()}{self.operand(right, prec + 1)}", prec)

    def unary(self, kind, depth):
        r = self.r
        op = r.choice(["-", "+", "-", "- -"])
        operand = self.sub(r.choice(["int", "float", "any"]), depth)
        return f"{op}{self.operand(operand, UNARY if r.chance(0.9) else POSTFIX)}", UNARY

    def concat(self, kind, depth):
        r = self.r
        parts = [self.sub(r.choice(["str", "str", "int", "any"]), depth) for _ in range(r.randint(2, 3))]
        if r.chance(0.3):  # string + string concatenates too
            return (f"{self.operand(parts[0], ADD)} + {self.operand(parts[1], ADD + 1)}", ADD)
        return (f"{self.sp()}~{self.sp()}".join(self.operand(p, CONCAT) if i == 0 else self.operand(p, MUL)
                                                 for i, p in enumerate(parts)), CONCAT)

    def format(self, kind, depth):
        r = self.r
        args = [self.sub(r.choice(["str", "int", "any"]), depth) for _ in range(r.randint(1, 2))]
        if r.chance(0.5):
            fmt = r.choice(["'%s'", "'%s-%s'", "'%d'", "'%5.2f'", "'%(a)s'", "'%r'", "'%%'", "'%x'"])
            rhs = self.operand(args[0], MUL + 1) if len(args) == 1 else \
                "(" + ", ".join(self.operand(a, COND) for a in args) + ")"
            return f"{fmt} % {rhs}", MUL
        fmt = r.choice(["'{}'", "'{} {}'", "'{0}{0}'", "'{!r}'", "'{:>4}'", "'{a}'", "'{0.real}'", "'{0[0]}'",
                        "'{0.__class__}'"])
        return f"{fmt}.format({', '.join(self.operand(a, COND) for a in args)})", POSTFIX

    def compare(self, kind, depth):
        r = self.r
        count = r.weighted([(6, 1), (1, 2)])
        sub_kind = r.choice(["int", "str", "any", "float"])
        text = self.operand(self.sub(sub_kind, depth), CMP + 1)
        for _ in range(count):
            op = r.choice(["==", "!=", "<", "<=", ">", ">=", "in", "not in"])
            right_kind = r.choice(["list", "str", "dict"]) if op.endswith("in") else sub_kind
            space = self.sp_word() if op[0].isalpha() else self.sp()
            text += f"{space}{op}{space}{self.operand(self.sub(right_kind, depth), CMP + 1)}"
        return text, CMP

    def logic(self, kind, depth):
        r = self.r
        op, prec = r.choice([("and", AND), ("or", OR)])
        left = self.sub(r.choice(["bool", "any"]), depth)
        right = self.sub(r.choice(["bool", "any"]), depth)
        return f"{self.operand(left, prec)} {op} {self.operand(right, prec + 1)}", prec

    def not_(self, kind, depth):
        return f"not {self.operand(self.sub(self.r.choice(['bool', 'any']), depth), NOT)}", NOT

    def test(self, kind, depth):
        r = self.r
        value = self.operand(self.sub(r.choice(["any", "int", "str"]), depth), UNARY)
        neg = "not " if r.chance(0.3) else ""
        if r.chance(0.5):
            return f"{value} is {neg}{r.choice(TESTS_NOARG) if r.chance(0.98) else 'nosuchtest'}", FILTER
        name = r.choice(TESTS_SYMBOLIC) if r.chance(0.03) else r.choice(TESTS_ARG)
        arg = self.sub(r.choice(["int", "str", "any", "list"]), depth)
        style = r.weighted([(3, "paren"), (2, "bare"), (1, "none")])
        if style == "paren":
            return f"{value} is {neg}{name}({self.operand(arg, COND)})", FILTER
        if style == "bare":
            # the one-argument form takes a primary with postfix operators: `x is divisibleby 3`
            return f"{value} is {neg}{name} {self.operand(arg, POSTFIX)}", FILTER
        return f"{value} is {neg}{name}", FILTER

    def filter_args(self, fname, depth):
        r = self.r
        lo, hi = FILTERS.get(fname, (0, 2))
        count = r.randint(lo, hi)
        if count == 0 and r.chance(0.8):
            return ""
        args = []
        for i in range(count):
            args.append(self.operand(self.filter_arg(fname, i, depth), COND))
        if fname in FILTER_KWARGS and r.chance(0.3):
            kw = r.choice(FILTER_KWARGS[fname])
            args.append(f"{kw}={self.operand(self.filter_arg(fname, -1, depth), COND)}")
        if r.chance(0.03):
            args.append(r.choice(["*[1]", "**{'x': 1}", "*()", "**{}"]))
        return "(" + ", ".join(args) + ")"

    def filter_arg(self, fname, i, depth):
        r = self.r
        if fname in ("map", "select", "reject", "selectattr", "rejectattr", "groupby", "attr", "sort", "unique",
                     "sum", "max", "min", "join", "dictsort") and r.chance(0.7):
            if fname in ("select", "reject") or (fname in ("selectattr", "rejectattr") and i == 1):
                test = r.choice(['odd', 'even', 'defined', 'none', 'string', 'eq', 'gt', 'in', 'lower', 'x'])
                return f"'{test}'", ATOM
            if fname == "map" and i == 0 and r.chance(0.5):
                return f"'{r.choice(['upper', 'lower', 'string', 'int', 'length', 'trim', 'first', 'nope'])}'", ATOM
            if fname == "join" and i == 0:
                return r.choice(["', '", "''", "'-'", "'\\n'"]), ATOM
            if fname == "dictsort":
                return r.choice(["false", "true", "'key'", "'value'"]), ATOM
            if fname in ("sort", "unique", "max", "min") and i == 0:
                return r.choice(["false", "true", "0"]), ATOM
            return r.choice(["'role'", "'content'", "'name'", "'a'", "'0'", "'role.x'", "'items'", "'x.0'",
                             "attribute='role'"]), ATOM
        if fname == "round" and i == 0:
            # a literal precision: round(5, -2 ** 63) makes CPython compute 10 ** (2 ** 63) in both engines and
            # never return (a minijinja_py limits issue, reported; the campaign's time limit catches it)
            return r.choice(["0", "1", "2", "-1", "-2", "true", "'2'", "none", "1.5"]), ATOM
        if fname in ("indent", "center", "truncate", "wordwrap", "round", "batch", "slice", "int", "float",
                     "filesizeformat", "trim"):
            return self.sub(r.choice(["int", "int", "bool", "str", "any"]), depth)
        if fname in ("replace",):
            return self.sub("str", depth)
        return self.sub(r.choice(["any", "str", "int"]), depth)

    def apply_filter(self, value, names, depth):
        r = self.r
        fname = r.choice(names)
        spacing = r.weighted([(10, ("", "")), (2, (" ", " ")), (1, ("\n", ""))])
        text = f"{self.operand(value, UNARY)}{spacing[0]}|{spacing[1]}{fname}{self.filter_args(fname, depth)}"
        if r.chance(0.1):
            text = f"{text}|{r.choice(['string', 'length', 'list', 'upper', 'first', 'join'])}"
        return text, FILTER

    def str_filter(self, kind, depth):
        return self.apply_filter(self.sub(self.r.choice(["str", "any"]), depth),
                                 ["upper", "lower", "title", "capitalize", "trim", "replace", "center", "indent",
                                  "truncate", "wordwrap", "string", "tojson", "format", "striptags", "escape", "e",
                                  "urlencode", "default", "d", "first", "last", "join", "pprint", "wordcount",
                                  "reverse", "forceescape", "safe", "xmlattr", "urlize", "filesizeformat"], depth)

    def num_filter(self, kind, depth):
        return self.apply_filter(self.sub(self.r.choice(["list", "str", "int", "float", "any"]), depth),
                                 ["length", "count", "int", "float", "abs", "round", "sum", "max", "min", "first",
                                  "last", "wordcount"], depth)

    def list_filter(self, kind, depth):
        return self.apply_filter(self.sub(self.r.choice(["list", "list", "str", "dict", "any"]), depth),
                                 ["list", "sort", "reverse", "unique", "select", "reject", "selectattr",
                                  "rejectattr", "map", "batch", "slice", "dictsort", "items", "groupby"], depth)

    def object_filter(self, kind, depth):
        """What templates do with lists of the caller's objects: attributes through filters and items."""
        r = self.r
        if "users" in self.scope.all() and r.chance(0.8):
            seq = "users"
        else:
            seq = self.operand(self.sub("list", depth), FILTER)
        attr = r.weighted([(4, "name"), (3, "id"), (3, "role"), (1, "date.year"), (1, "nope"), (1, "0"),
                           (1, "x"), (1, "_x")])
        forms = [
            f"{seq}|map(attribute='{attr}')|join(',')", f"{seq}|map(attribute='{attr}', default='d')|list",
            f"{seq}|selectattr('{attr}')|list|length", f"{seq}|rejectattr('{attr}', 'eq', 1)|map(attribute='name')|list",
            f"{seq}|selectattr('role', 'equalto', 'user')|map(attribute='name')|list",
            f"{seq}|groupby('{attr}')|map(attribute='grouper')|list", f"{seq}|groupby('{attr}')|list",
            f"{seq}|sort(attribute='{attr}')|map(attribute='name')|join", f"{seq}|join(', ', attribute='{attr}')",
            f"{seq}|sum(attribute='id')", f"{seq}|max(attribute='{attr}')", f"{seq}|min(attribute='id')",
            f"{seq}|unique(attribute='role')|list|length", f"{seq}|map(attribute='name')|map('upper')|list",
        ]
        if r.chance(0.3):
            return r.choice([f"{seq}[0].{attr}", f"({seq}|first).{attr}", f"({seq}|last)['{attr}']",
                             f"{seq}[0][1]"]), POSTFIX
        return r.choice(forms), FILTER

    def any_filter(self, kind, depth):
        names = sorted(FILTERS) if self.r.chance(0.1) else [f for f in sorted(FILTERS) if f != "nosuchfilter"]
        return self.apply_filter(self.sub("any", depth), names, depth)

    def method(self, kind, depth):
        r = self.r
        target = r.weighted([(3, "str"), (2, "dict"), (1, "list")])
        obj = self.sub(target, depth)
        table = {"str": STR_METHODS, "dict": DICT_METHODS, "list": LIST_METHODS}[target]
        name, nargs = r.choice(table)
        if nargs < 0:
            return f"{self.operand(obj, POSTFIX)}.{name}", POSTFIX
        args = ", ".join(self.operand(self.sub(r.choice(["str", "int", "any"]), depth), COND)
                         for _ in range(nargs))
        return f"{self.operand(obj, POSTFIX)}.{name}({args})", POSTFIX

    def attr(self, kind, depth):
        r = self.r
        obj = self.sub(r.choice(["dict", "msg", "any", "list"]), depth)
        name = r.weighted([(30, r.choice(KEYS)), (3, r.choice(["0", "1"])), (1, r.choice(["-1", "0.1", "'a'"])),
                           (2, r.choice(KEYWORDISH)),
                           (3, r.choice(["__class__", "_x", "real", "imag", "mro", "__dict__"]))])
        return f"{self.operand(obj, POSTFIX)}.{name}", POSTFIX

    def item(self, kind, depth):
        r = self.r
        obj = self.sub(r.choice(["list", "dict", "msgs", "str", "any"]), depth)
        key = r.weighted([(4, (r.choice(["0", "1", "-1", "2"]), ATOM)), (4, (f"'{r.choice(KEYS)}'", ATOM)),
                          (2, self.sub(r.choice(["int", "str", "any"]), depth)),
                          (1, (r.choice(["0, 1", "'a', 'b'", "0, 1,"]), TUPLE)), (1, ("0,", TUPLE)) if r.chance(0.1)
                          else (1, ("0", ATOM))])
        key_text = key[0] if key[1] == TUPLE else self.operand(key, COND)
        return f"{self.operand(obj, POSTFIX)}[{key_text}]", POSTFIX

    def slice(self, kind, depth):
        r = self.r
        obj = self.sub(r.choice(["list", "str", "any"]), depth)
        parts = [r.choice(["", "0", "1", "-1", "2", "-2", "none"]) for _ in range(3)]
        form = r.choice(["{0}:{1}", "{0}:{1}:{2}", ":", "::", "{0}:", ":{1}", "::{2}", "{0}::{2}"])
        return f"{self.operand(obj, POSTFIX)}[{form.format(*parts)}]", POSTFIX

    def cond(self, kind, depth):
        r = self.r
        then = self.sub(kind, depth)
        test = self.sub(r.choice(["bool", "any"]), depth)
        if r.chance(0.2):
            return f"{self.operand(then, OR)} if {self.operand(test, OR)}", COND
        else_ = self.sub(kind, depth)
        return f"{self.operand(then, OR)} if {self.operand(test, OR)} else {self.operand(else_, COND)}", COND

    def paren_tuple(self, kind, depth):
        return self.literal("tuple")

    def call_any(self, kind, depth):
        r = self.r
        func = self.sub(r.choice(["any", "str"]), depth)
        return f"{self.operand(func, POSTFIX)}({self.call_args(depth, r.randint(0, 2))})", POSTFIX

    def call_args(self, depth, count, kw_names=("x", "a", "b", "n")):
        r = self.r
        args = [self.operand(self.sub("any", depth), COND) for _ in range(count)]
        if r.chance(0.2):
            args.append(f"{r.choice(kw_names)}={self.operand(self.sub('any', depth), COND)}")
        if r.chance(0.05):
            args.append(r.choice(["*[1, 2]", "**{'a': 1}", "*x", "**d", "*()", "*'ab'", "**{}"]))
        if r.chance(0.01):
            args.append(r.choice(["x=1, x=2", "a=1, 2", "*a, *b", "**a, b=1", "**a, *b", "**a, **b"]))
        if args and r.chance(0.05):
            args[-1] += ","
        return ", ".join(args)

    def loop_attr(self, kind, depth):
        r = self.r
        if not self.loops:
            if r.chance(0.05):
                return f"loop.{r.choice(LOOP_ATTRS)}", POSTFIX
            return self.leaf(kind)
        attr = r.choice(LOOP_ATTRS)
        if r.chance(0.05):
            return r.choice(["loop|length", "loop|list|length", "loop|first", "loop|count"]), FILTER
        if attr == "cycle":
            return f"loop.cycle({', '.join(r.choice(STRING_LITERALS) for _ in range(r.randint(0, 3)))})", POSTFIX
        if attr == "changed":
            return f"loop.changed({self.operand(self.sub('any', depth), COND)})", POSTFIX
        return f"loop.{attr}", POSTFIX

    def macro_call(self, kind, depth):
        r = self.r
        if r.chance(0.2) and self.in_macro:
            return r.choice(["caller()", "varargs", "kwargs", "varargs|length", "kwargs|dictsort",
                             "caller(1)"]), POSTFIX
        if not self.macros:
            return self.leaf(kind)
        name = r.choice(sorted(self.macros))
        count, _ = self.macros[name]
        count = max(0, count + r.weighted([(6, 0), (1, -1), (1, 1), (1, 2)]))
        args = self.call_args(depth, count, ("x", "y", "k", "z") if r.chance(0.9) else ("caller",))
        if r.chance(0.1):
            return f"{name}.{r.choice(['name', 'arguments', 'catch_kwargs', 'catch_varargs', 'caller'])}", POSTFIX
        return f"{name}({args})", POSTFIX

    def global_call(self, kind, depth):
        r = self.r
        choice = r.choice(["range", "range", "dict", "namespace", "strftime_now", "joiner", "cycler", "raise",
                           "dictfromkeys"])
        if choice == "range":
            args = ", ".join(r.choice(["0", "1", "2", "3", "5", "-1", "10"]) for _ in range(r.randint(1, 3)))
            return f"range({args})", POSTFIX
        if choice == "dict":
            return f"dict({self.call_args(depth, 0, ('a', 'b', 'role', 'content'))})", POSTFIX
        if choice == "dictfromkeys":
            return "dict.fromkeys(" + self.operand(self.sub("list", depth), COND) + ")", POSTFIX
        if choice == "namespace":
            return f"namespace({self.call_args(depth, 0, ('a', 'b', 'found', '_x'))})", POSTFIX
        if choice == "strftime_now":
            return f"strftime_now({r.choice(['%Y-%m-%d', '%d %b %Y', '%H:%M', '%A', '%j'])!r})", POSTFIX
        if choice == "joiner":
            return "joiner(', ')()", POSTFIX
        if choice == "cycler":
            return "cycler('a', 'b').next()", POSTFIX
        if r.chance(0.3):
            return f"raise_exception({r.choice(STRING_LITERALS)})", POSTFIX
        return self.leaf(kind)

    # ------------------------------------------------------------------------------------ statements
    def tag_open(self):
        r = self.r
        return r.weighted([(12, "{%"), (3, "{%-"), (2, "{%+"), (1, "{%- "), (1, "{%+ ")]) + self.inner_ws()

    def tag_close(self):
        r = self.r
        return self.inner_ws() + r.weighted([(12, "%}"), (3, "-%}"), (2, "+%}")])

    def inner_ws(self):
        return self.r.weighted([(12, " "), (2, ""), (1, "  "), (1, "\n"), (1, "\t"), (1, " \n  ")])

    def tag(self, content):
        return f"{self.tag_open()}{content}{self.tag_close()}"

    def head(self, content):
        """The opening tag of a block: Jinja2 allows a Python-style colon before its end ({% if x: %})."""
        return self.tag(content + (":" if self.r.chance(0.03) else ""))

    def text(self):
        r = self.r
        pieces = []
        for _ in range(r.weighted([(4, 1), (3, 2), (2, 3), (1, 5)])):
            pieces.append(r.weighted([
                (6, r.choice(["hello", "Hi", "x", "user:", "<|im_start|>", "ä", "😀", "-", ",", "word"])),
                (5, r.choice([" ", "  ", "\n", "\n\n", "\t", " \n", "\n  ", "\n\t", "    "])),
                (1, r.choice(["\r\n", "\r", " \r\n  ", "\u00a0", "\u2028", "\x0c", "\u3000 "])),
                (1, r.choice(["}", "}}", "%}", "#}", "{ x", "%", "#", "{", "-}}", "{-"])),
            ]))
        return "".join(pieces)

    def output(self):
        r = self.r
        opener = r.weighted([(12, "{{"), (3, "{{-"), (1, "{{+")])
        closer = r.weighted([(120, "}}"), (30, "-}}"), (1, "+}}")])
        if r.chance(0.1):
            body = ", ".join(self.operand(self.expr("any"), COND) for _ in range(r.randint(1, 2))) + \
                (", " if r.chance(0.3) else "")
        else:
            body = self.expr(r.weighted([(5, "any"), (3, "str"), (2, "int"), (1, "list"), (1, "bool")]))[0]
        return f"{opener}{self.inner_ws()}{body}{self.inner_ws()}{closer}"

    def comment(self):
        r = self.r
        opener = r.weighted([(6, "{#"), (2, "{#-"), (1, "{#+")])
        closer = r.weighted([(6, "#}"), (2, "-#}"), (1, "+#}")])
        body = r.choice([" note ", "", " {{ x }} ", "\n multi\nline ", " {% if %} ", " # ", "}"])
        return f"{opener}{body}{closer}"

    def raw(self):
        r = self.r
        body = r.choice(["{{ x }}", " {% if %} ", "", "\n{# c #}\n", "text", "{% endfor %}", " {{ ", "\n  "])
        return f"{self.tag('raw')}{body}{self.tag('endraw')}"

    def body(self, depth, count=None):
        r = self.r
        if count is None:
            count = r.weighted([(2, 1), (3, 2), (2, 3), (1, 5)])
        parts = []
        for _ in range(count):
            if not self.spend():
                parts.append(self.output() if r.chance(0.5) else self.text())
                break
            parts.append(self.statement(depth))
        return "".join(parts)

    def statement(self, depth):
        r = self.r
        options = [(6, self.text), (8, self.output), (1, self.comment), (1, self.raw)]
        if depth < self.max_depth:
            options += [(4, self.if_block), (4, self.for_block), (3, self.set_stmt), (1, self.set_block),
                        (2, self.macro_block), (1, self.call_block), (1, self.filter_block), (1, self.with_block),
                        (1, self.generation_block)]
        options += [(1, self.print_stmt), (1, self.ns_set), (2, self.chat_idiom)]
        if self.loadable:
            options += [(3, self.load_stmt)]
        if self.blocks and depth < self.max_depth:
            options += [(4, self.block_stmt)]
        if self.loops:
            options += [(1, self.loop_control)]
        if r.chance(0.02):
            options = [(1, self.rare_stmt)]
        stmt = r.weighted(options)
        if stmt in (self.text, self.output, self.comment, self.raw, self.print_stmt, self.ns_set,
                    self.loop_control, self.rare_stmt, self.chat_idiom, self.load_stmt):
            return stmt()
        # a block: often on its own indented lines (what lstrip_blocks/trim_blocks are for)
        return stmt(depth + 1)

    def chat_idiom(self):
        """A fragment the way real chat templates are written (with the generator's whitespace control)."""
        r = self.r
        t, o = self.tag, r.choice(["{{", "{{-"])
        c = r.choice(["}}", "-}}"])
        idioms = [
            lambda: t("for message in messages") + t("if message['role'] == 'system'") +
            f"<|system|>{o} message['content'] | trim {c}" + t("elif message.role == 'user'") +
            f"{o} '<|user|>\n' + message['content'] + eos_token {c}" + t("else") +
            f"{o} '<|' ~ message.role ~ '|>' ~ (message.content if message.content is string else "
            f"message.content|map(attribute='text')|join) {c}" + t("endif") + t("endfor"),
            lambda: t("if messages[0]['role'] == 'system'") + t("set system_message = messages[0]['content']") +
            t("set loop_messages = messages[1:]") + t("else") + t("set loop_messages = messages") + t("endif") +
            t("for message in loop_messages") + f"{o} loop.index0 ~ ':' ~ message['role'] {c}" + t("endfor") +
            f"{o} system_message is defined {c}",
            lambda: t("set ns = namespace(found=false, last=-1)") + t("for m in messages") +
            t("if m.role == 'user'") + t("set ns.found = true") + t("set ns.last = loop.index0") + t("endif") +
            t("endfor") + f"{o} ns.found ~ ns.last {c}",
            lambda: t("if tools is defined and tools") + f"{o} tools | tojson(indent=2) {c}" + t("endif") +
            t("if add_generation_prompt") + "<|assistant|>\n" + t("endif"),
            lambda: t("for message in messages") + t("if (message['role'] == 'user') != (loop.index0 % 2 == 0)") +
            f"{o} raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') {c}" +
            t("endif") + f"{o} bos_token + '[INST] ' + message['content'] | trim + ' [/INST]' {c}" + t("endfor"),
            lambda: t("for message in messages") + t("if message.tool_calls is defined") +
            t("for tc in message.tool_calls") + f"{o} tc.function.name ~ '(' ~ tc.function.arguments|tojson ~ ')' "
            f"{c}" + t("if not loop.last") + ", " + t("endif") + t("endfor") + t("endif") + t("endfor"),
            lambda: t("macro render_content(content)") + t("if content is string") + f"{o} content {c}" +
            t("else") + t("for part in content") + t("if part.type == 'text'") + f"{o} part.text {c}" + t("endif") +
            t("endfor") + t("endif") + t("endmacro") + t("for m in messages") +
            f"[{o} render_content(m.content) {c}]" + t("endfor"),
            lambda: f"{o} messages | selectattr('role', 'equalto', 'user') | list | length {c}" +
            f"{o} (messages | last).role {c}" + f"{o} messages[-1]['content'] if messages {c}" +
            f"{o} strftime_now('%d %B %Y') {c}",
            lambda: t("set content = message.reasoning_content if message is defined and message.reasoning_content "
                      "is defined else ''") + f"{o} content.split('</think>')[-1].lstrip('\n') {c}",
            self.rebinding_idiom,
            self.subject_changed_idiom,
        ]
        return self.nl_indent() + r.choice(idioms)() + self.nl_indent()

    def rebinding_idiom(self):
        """A message loop whose switch rebinds the loop variable before another switch tests it again (a system
        message folded into the next turn): Jinja2 tests the new value."""
        r, t, (o, c) = self.r, self.tag, (self.r.choice(["{{", "{{-"]), self.r.choice(["}}", "-}}"]))
        first, second, new = r.choice(ROLES), r.choice(ROLES), r.choice(ROLES)
        rebind = r.choice([f"set m = {{'role': '{new}', 'content': m.content ~ '+'}}",
                           f"set m, extra = {{'role': '{new}'}}, 1"])
        rest = t(f"elif m.role == '{r.choice(ROLES)}'") + "E" if r.chance(0.5) else ""
        return (t("for m in messages") + t(f"if m.role == '{first}'") + t(rebind) + "R" + rest + t("endif") +
                t(f"if m.role == '{second}'") + f"<{o} m.content {c}>" + t(f"elif m.role == '{new}'") + "N" +
                t("endif") + t("endfor"))

    def subject_changed_idiom(self):
        """A switch on a namespace's dict whose `and` extra or `or` alternative calls a macro that replaces the
        dict: Jinja2 reads the subject again for the next test."""
        r, t = self.r, self.tag
        first, second = r.choice(ROLES), r.choice(ROLES)
        test = r.choice([f"st.m.role == '{first}' and swap('{second}')", f"st.m.role == 'x' or swap('{second}')"])
        return (t("macro swap(role)") + t("set st.m = {'role': role}") + t("endmacro") +
                t(f"set st = namespace(m={{'role': '{first}'}})") + t("for message in messages") + t(f"if {test}") +
                "A" + t(f"elif st.m.role == '{second}'") + "B" + t("else") + "E" + t("endif") + t("endfor"))

    def nl_indent(self):
        r = self.r
        return r.weighted([(4, ""), (3, "\n"), (2, "\n  "), (1, "\n\t"), (1, "  ")])

    def if_block(self, depth):
        r = self.r
        out = self.nl_indent() + self.head(f"if{self.sp()}{self.cond_expr_text()}") + self.body(depth)
        for _ in range(r.weighted([(5, 0), (2, 1), (1, 2)])):
            out += self.nl_indent() + self.head(f"elif {self.cond_expr_text()}") + self.body(depth)
        if r.chance(0.4):
            out += self.nl_indent() + self.head("else") + self.body(depth)
        return out + self.nl_indent() + self.tag("endif") + self.nl_indent()

    def cond_expr_text(self):
        """An if/elif test: no conditional expression on top (a tuple is allowed)."""
        r = self.r
        text, prec = self.expr(r.choice(["bool", "bool", "any"]))
        if prec <= COND and not r.chance(0.1):
            text = paren(text)
        return text

    def for_block(self, depth):
        r = self.r
        kind = r.weighted([(4, "list"), (2, "msgs"), (2, "items"), (1, "range"), (1, "str"), (1, "dict"),
                           (1, "tree"), (1, "any")])
        recursive = False
        if kind == "items":
            target, it, names = "key, value", f"{self.operand(self.expr('dict', 1), POSTFIX)}.items()", \
                {"key": "any", "value": "any"}
            if r.chance(0.3):
                it = f"{self.operand(self.expr('dict', 1), FILTER)}|dictsort"
        elif kind == "range":
            target, it, names = "i", f"range({r.choice(['3', '0', '1, 4', '5, 0, -2', 'n'])})", {"i": "int"}
        elif kind == "tree":
            target, it, names = "node", "tree", {"node": "dict"}
            recursive = True
        elif kind == "msgs":
            target, it, names = "message", r.choice(["messages", "messages[1:]", "messages|reverse",
                                                     "messages|selectattr('role', 'eq', 'user')"]), \
                {"message": "msg"}
        else:
            var = r.weighted([(8, "item"), (4, "x"), (4, "i"), (1, "caller"), (1, "a, b")]) if r.chance(0.98) \
                else "loop"
            target = var
            it, _ = self.expr(kind if kind != "any" else "any", 1)
            names = {v.strip(): "any" for v in var.split(",")}
        if r.chance(0.05):
            target = r.choice(["(a, b)", "a, (b, c)", "a,", "a.b", "1", "a, b, c"])
            names = {"a": "any", "b": "any", "c": "any"}
        if prec_needs_paren(it) and r.chance(0.9):
            it = paren(it)
        head = f"for {target} in {it}"
        if r.chance(0.2):
            head += f" if {self.operand(self.expr(r.choice(['bool', 'any']), 2), OR)}"
        if recursive or r.chance(0.05):
            head += " recursive"
            recursive = True
        self.scope = _Scope(names, self.scope)
        self.loops.append(recursive)
        out = self.nl_indent() + self.head(head)
        if recursive and kind == "tree":
            out += self.tag_open().strip() + " if node.children " + self.tag_close() + \
                "[{{ loop(node.children) }}]" + self.tag("endif")
        out += self.body(depth)
        self.loops.pop()
        self.scope = self.scope.parent
        if r.chance(0.25):
            out += self.head("else") + self.body(depth)
        return out + self.nl_indent() + self.tag("endfor") + self.nl_indent()

    def loop_control(self):
        return self.tag(self.r.choice(["break", "continue"]))

    def set_stmt(self, depth=0):
        r = self.r
        name = r.choice(["v", "total", "x", "a", "out", "msg", "n"]) if r.chance(0.97) else \
            r.choice(["loop", "caller", "varargs", "true", "ns"])
        form = r.weighted([(6, "name"), (1, "tuple"), (1, "paren")])
        if form == "tuple":
            self.scope.names.update({"p": "any", "q": "any"})
            value = r.choice(["1, 2", "[1, 2]", "'ab'", "(1, 2, 3)", "x", "range(2)", "messages[:2]"])
            return self.tag(f"set p, q = {value}")
        if form == "paren":
            self.scope.names.update({"p": "any", "q": "any"})
            return self.tag(f"set (p, q) = {r.choice(['[1, 2]', '1, 2', 'x'])}")
        kind = r.choice(["int", "str", "list", "any", "dict"])
        value = self.expr(kind, 1)[0]
        if r.chance(0.05):
            value += ", " + self.expr("any", 2)[0]
            kind = "tuple"
        self.scope.names[name] = kind
        return self.tag(f"set {name}{self.sp()}={self.sp()}{value}")

    def ns_set(self):
        r = self.r
        if not self.namespaces or r.chance(0.3):
            ns = r.choice(["ns", "state"])
            self.namespaces.append(ns)
            self.scope.names[ns] = "ns"
            init = r.choice(["", "found=false", "count=0, text=''", "a=1", "_x=1", "{'a': 1}", "x=[]"])
            return self.tag(f"set {ns} = namespace({init})")
        ns = r.choice(self.namespaces)
        attr = r.choice(["found", "count", "text", "a", "_y", "items"])
        value = r.choice([f"{ns}.count + 1", "true", f"{ns}.text ~ 'x'", "loop.index if loop is defined",
                          self.expr("any", 2)[0]])
        if r.chance(0.5):
            return self.tag(f"set {ns}.{attr} = {value}") + f"{{{{ {ns}.{attr} }}}}"
        return self.tag(f"set {ns}.{attr} = {value}")

    def set_block(self, depth):
        r = self.r
        name = r.choice(["block", "captured", "x"])
        filters = ""
        if r.chance(0.4):
            filters = "|" + "|".join(r.choice(["upper", "trim", "length", "replace('a', 'b')", "indent(2)",
                                               "nosuch", "e", "wordcount"]) for _ in range(r.randint(1, 2)))
        out = self.head(f"set {name}{filters}") + self.body(depth) + self.tag("endset")
        self.scope.names[name] = "str"
        return out + (f"{{{{ {name} }}}}" if r.chance(0.6) else "")

    def macro_block(self, depth, with_caller=False):
        r = self.r
        name = r.choice(["m", "render", "greet", "fmt"])
        params = []
        for p in ["x", "y", "k"][:r.randint(0, 3)]:
            if params and "=" in params[-1] or r.chance(0.3):
                params.append(f"{p}={self.expr('any', 2)[0]}")
            else:
                params.append(p)
        if r.chance(0.05):
            params.append(r.choice(["caller", "x", "varargs", "kwargs", "1"]))
        positional = sum(1 for p in params if "=" not in p)
        saved_scope, saved_loops = self.scope, self.loops
        self.scope = _Scope({p.split("=")[0]: "any" for p in params}, self.scope)
        self.loops = []
        self.in_macro.append(params)
        body = self.body(depth)
        if with_caller and "caller" not in body:
            body += r.choice(["{{ caller() }}", "[{{ caller(1) }}]", "{{ caller() ~ x }}"])
        self.in_macro.pop()
        self.scope, self.loops = saved_scope, saved_loops
        self.macros[name] = (positional, "caller" in body)
        out = self.head(f"macro {name}({', '.join(params)})") + body + self.tag("endmacro")
        if r.chance(0.6):
            out += self.nl_indent() + f"{{{{ {name}({self.call_args(2, positional)}) }}}}"
        return out

    def call_block(self, depth):
        r = self.r
        prefix = ""
        callers = sorted(name for name, (_, uses_caller) in self.macros.items() if uses_caller)
        if not callers or r.chance(0.2):
            prefix = self.macro_block(depth, with_caller=True)
            callers = sorted(name for name, (_, uses_caller) in self.macros.items() if uses_caller)
        # mostly a macro that calls caller() (Jinja2 refuses a call block on one that does not)
        name = r.choice(callers) if callers and r.chance(0.9) else r.choice(sorted(self.macros) or ["m"])
        count = self.macros.get(name, (0, False))[0]
        params = r.choice(["", "", "(a)", "(a, b=2)", "()", "(a=1)"])
        self.scope = _Scope({p.strip(" ()").split("=")[0]: "any" for p in params.split(",") if p.strip(" ()")},
                            self.scope)
        self.in_macro.append(["caller"])
        body = self.body(depth)
        if params and r.chance(0.7):
            body += "{{ a }}"
        self.in_macro.pop()
        self.scope = self.scope.parent
        call = f"{name}({self.call_args(2, count)})"
        if r.chance(0.05):
            call = r.choice([name, f"{name}(1)|upper", f"[{name}][0](1)", f"{name}(1) if true"])
        return prefix + self.head(f"call{params} {call}") + body + self.tag("endcall")

    def filter_block(self, depth):
        r = self.r
        chain = "|".join(r.choice(["upper", "trim", "replace('l', 'L')", "indent(2, true)", "center(20)",
                                   "truncate(5)", "title", "wordcount", "nosuchfilter", "e", "list", "length",
                                   "default('x')", "join(',')"]) for _ in range(r.randint(1, 2)))
        return self.head(f"filter {chain}") + self.body(depth) + self.tag("endfilter")

    def with_block(self, depth):
        r = self.r
        assigns = []
        names = {}
        for v in ["w", "z"][:r.randint(0, 2)]:
            assigns.append(f"{v} = {self.expr('any', 2)[0]}")
            names[v] = "any"
        if r.chance(0.05):
            assigns.append(r.choice(["(p, q) = (1, 2)", "p, q = 1, 2", "w.x = 1"]))
        self.scope = _Scope(names, self.scope)
        body = self.body(depth)
        self.scope = self.scope.parent
        return self.tag(("with " + ", ".join(assigns)).strip()) + body + self.tag("endwith")

    def generation_block(self, depth):
        return self.head("generation") + self.body(depth) + self.tag("endgeneration")

    def print_stmt(self):
        # {% print a, b %} prints each expression in turn; {% print %} prints nothing
        count = self.r.weighted([(8, 1), (2, 2), (1, 0)])
        return self.tag(" ".join(["print", ", ".join(self.expr("any")[0] for _ in range(count))]).strip())

    def rare_stmt(self):
        r = self.r
        return r.choice([
            self.tag("do 1"), self.tag("break"), self.tag("continue"), self.tag("endif"), self.tag("else"),
            self.tag("block b") + "x" + self.tag("endblock"), self.tag("include 'x'"), self.tag("import 'x' as y"),
            self.tag("extends 'base'"), self.tag("autoescape true") + "<" + self.tag("endautoescape"),
            self.tag(""), self.tag("nosuchtag"), "{{ }}", "{{", "{%", "{# unclosed", self.tag("raw") + "x",
            self.tag("endraw"), self.tag("set"), self.tag("set x"), self.tag("for x in"), self.tag("if"),
            self.tag("macro"), self.tag("call m"), self.tag("filter"), "{{ x }", "{{ {'a': {'b': 1}} }}",
            "{{ {'a': 1}}}", "{{ x }}}", "{{ '}}' }}", "{{ [1, 2][0] }}", self.tag("set x = 1 y"),
            self.tag("for a b in c") + self.tag("endfor"), self.tag("with x") + self.tag("endwith"),
            self.tag("if true") + "{% elif %}" + self.tag("endif"), self.tag("for x in [1]") + self.tag("endif"),
            self.tag("generation") + "g", self.tag("macro m(x, y=1, z)") + self.tag("endmacro"),
            self.tag("macro m(x, x)") + self.tag("endmacro"), "{{ f(a=1, 2) }}", "{{ f(*a, *b) }}",
            "{{ f(**a, b=1) }}", "{{ x|f(1)(2) }}", "{{ x is defined(1) }}", "{{ 1 if 2 else 3 else 4 }}",
            "{{ x is defined if y }}", "{{ x is defined in y }}", "{{ x is is y }}", "{{ not }}", "{{ a.b.0.1 }}",
            "{{ a.0.1 }}", "{{ (1)(2) }}", "{{ -x|abs }}", "{{ - 1 ** 2 }}", "{{ 2 ** 3 ** 2 }}",
        ])

    def template(self):
        r = self.r
        out = self.body(0, r.randint(1, 6))
        while self.budget > 0 and r.chance(0.5):
            out += self.statement(0)
        return out

    # ------------------------------------------------------------------------------------ loading
    def load_stmt(self):
        """{% include %}, {% import %} or {% from ... import %} of one of the case's templates (or a missing one)."""
        r = self.r
        name = r.choice(self.loadable) if r.chance(0.9) else r.choice(["missing", "x"])
        kind = r.weighted([(4, "include"), (2, "import"), (2, "from")])
        context = r.weighted([(6, ""), (1, " with context"), (1, " without context")])
        if kind == "include":
            target = r.weighted([(8, repr(name)), (1, f"['nope', {name!r}]"), (1, "[]"), (1, "none"),
                                 (1, "missing_name")])
            ignore = " ignore missing" if r.chance(0.2) else ""
            return self.nl_indent() + self.tag(f"include {target}{ignore}{context}") + self.nl_indent()
        if kind == "import":
            alias = r.choice(["lib", "mod"])
            self.scope.names[alias] = "dict"
            use = r.choice(["", f"{{{{ {alias} }}}}", f"{{{{ {alias}.m(1) }}}}", f"{{{{ {alias}.v }}}}",
                            f"{{{{ {alias}.render() }}}}", f"{{{{ {alias}['v'] }}}}", f"{{{{ {alias}.nope }}}}"])
            return self.tag(f"import {name!r} as {alias}{context}") + use
        picked = r.choice(["m", "v", "render", "m as mm", "v, m", "nope", "greet as g, fmt"])
        for part in picked.split(","):
            bound = part.split(" as ")[-1].strip()
            self.scope.names[bound] = "any"
            if bound in ("m", "render", "mm", "greet", "g", "fmt"):
                self.macros[bound] = (r.randint(0, 2), False)
        return self.tag(f"from {name!r} import {picked}{context}")

    def block_stmt(self, depth):
        """{% block %}, its body sometimes calling super() or another block through self."""
        r = self.r
        name = r.choice(["a", "b", "c"])
        modifier = r.weighted([(8, ""), (1, " scoped"), (1, " required")])
        if modifier == " required":
            body = r.choice(["", " ", "{# nothing #}", "\n"])
        else:
            body = self.body(depth) + r.weighted([(4, ""), (3, "{{ super() }}"), (1, "{{ self.b() }}"),
                                                  (1, "{{ self.c.super() if self.c is defined }}"),
                                                  (1, "[{{ super }}]")])
        end = self.tag(r.choice(["endblock", f"endblock {name}"]))
        return self.nl_indent() + self.head(f"block {name}{modifier}") + body + end + self.nl_indent()

    def child_template(self):
        """A template that extends the case's base: block overrides among other statements."""
        r = self.r
        target = r.weighted([(8, "'base'"), (1, "base_name"), (1, "'base' if true else 'x'"), (1, "'missing'")])
        out = self.body(0, r.randint(0, 2)) if r.chance(0.2) else ""
        out += self.tag(f"extends {target}") + self.body(0, r.randint(1, 5))
        return out


def gen_templates(r, context):
    """The other templates of a case: some of a part to include, a library to import, a base to extend."""
    templates = {}
    names = [name for name in ("part", "lib", "base") if r.chance(0.6)] or ["part"]
    for name in names:
        others = [n for n in names if n != name or r.chance(0.05)]   # now and then one that loads itself
        if name == "lib":
            gen = TemplateGen(r, context, loadable=others if r.chance(0.2) else ())
            parts = [gen.macro_block(1) for _ in range(r.randint(1, 2))] + [gen.set_stmt() for _ in range(2)]
            parts.append(gen.text() if r.chance(0.5) else "")
            templates[name] = "".join(parts)
        else:
            gen = TemplateGen(r, context, loadable=others if r.chance(0.3) else (), blocks=name == "base")
            gen.budget = r.randint(3, 15)
            templates[name] = gen.template()
    return templates


def prec_needs_paren(text):
    return " if " in text


def mutate(r, source):
    """A small random edit (to exercise error paths)."""
    if not source:
        return source
    pos = r.below(len(source))
    action = r.choice(["delete", "duplicate", "insert", "swap"])
    if action == "delete":
        return source[:pos] + source[pos + 1:]
    if action == "duplicate":
        return source[:pos] + source[pos] + source[pos:]
    if action == "insert":
        return source[:pos] + r.choice(["{", "}", "%", "(", ")", "'", ",", "|", " ", "-", "\n", "[", ":", "."]) + \
            source[pos:]
    if pos + 1 < len(source):
        return source[:pos] + source[pos + 1] + source[pos] + source[pos + 2:]
    return source


# ---------------------------------------------------------------------------------------------- delimiters
_DELIMITER_NAMES = ("block_start_string", "block_end_string", "variable_start_string", "variable_end_string",
                    "comment_start_string", "comment_end_string", "line_statement_prefix", "line_comment_prefix")
DELIMITER_SETS = [
    ("<%", "%>", "<%=", "%>", "<%#", "%>"),                       # ERB: one end, starts that share a prefix
    ("<?", "?>", "<?=", "?>", "<!--", "-->"),                     # PHP, HTML comments
    ("<!--", "-->", "${", "}", "<!--#", "-->"),                   # HTML comments, an end that starts with -
    ("{%", "%}", "${", "}"),                                      # a one-brace variable end
    ("[%", "%]", "[[", "]]", "[#", "#]"),                         # ends made of brackets
    ("\\BLOCK{", "}", "\\VAR{", "}", "\\#{", "}", "%%", "%#"),   # the LaTeX recipe (word characters)
    ("{%", "%}", "{{", "}}", "{#", "#}", "#", "##"),              # the defaults with line statements
    ("{%", "%}", "{{", "}}", "{#", "#}", "%"),
    ("<%", "%>", "${", "}", "<%#", "%>", "%", "##"),              # Jinja2's own test sets
    ("{%", "%}", "${", "}", "/*", "*/", "##", "#"),
    ("{{%", "%}}", "{{", "}}", "{#", "#}"),                       # a variable start that starts the block start
    ("(%", "%)", "((", "))", "(#", "#)", None, "//"),             # ends made of parentheses
]
_DEFAULT_DELIMITER = re.compile(r"\{%|%\}|\{\{|\}\}|\{#|#\}")


def _with_delimiters(r, source, spelling):
    """source (written with the default delimiters) written with others: spelling is {default: other} of the six
    delimiters, plus "line" (the line statement prefix) and "comment" (the line comment prefix), or None."""
    source = _DEFAULT_DELIMITER.sub(lambda m: spelling[m.group()], source)
    block, end, line = spelling["{%"], spelling["%}"], spelling["line"]
    if line is not None:
        # a tag alone on its line becomes a line statement, now and then
        tag = re.compile(r"^([ \t]*)" + re.escape(block) + r"[-+]?[ \t]*(.*?)[ \t]*[-+]?" + re.escape(end) + r"[ \t]*$",
                         re.M)

        def as_line(m):
            content = m.group(2)
            if block in content or end in content or content.startswith(("raw", "endraw")) or r.chance(0.3):
                return m.group()
            return f"{m.group(1)}{line} {content}"
        source = tag.sub(as_line, source)
    if spelling["comment"] is not None:
        comment = spelling["comment"]
        source = re.sub(r"\n", lambda m: f" {comment} note\n" if r.chance(0.15) else m.group(), source)
        if r.chance(0.3):
            source = f"{comment} first line\n" + source
    return source


def with_delimiters(r, case):
    """The case written with one of DELIMITER_SETS (its other templates too)."""
    chosen = r.choice(DELIMITER_SETS)
    options = dict(zip(_DELIMITER_NAMES, chosen))
    values = dict(zip(_DELIMITER_NAMES, ("{%", "%}", "{{", "}}", "{#", "#}", None, None)), **options)
    spelling = dict(zip(("{%", "%}", "{{", "}}", "{#", "#}", "line", "comment"), values.values()))
    case.source = _with_delimiters(r, case.source, spelling)
    case.templates = {name: _with_delimiters(r, text, spelling) for name, text in case.templates.items()}
    case.delimiters = options
    return case


def generate_case(r):
    """One Case (source, context, options) from a Chooser."""
    context = gen_context(r)
    trim, lstrip = r.weighted([(6, (True, True)), (1, (False, False)), (1, (True, False)), (1, (False, True))])
    templates = gen_templates(r, context) if r.chance(0.15) else {}
    if "base" in templates and r.chance(0.6):
        context["base_name"] = "base"
        gen = TemplateGen(r, context, loadable=sorted(templates), blocks=True)
        source = gen.child_template()
    else:
        gen = TemplateGen(r, context, loadable=sorted(templates), blocks=r.chance(0.05))
        source = gen.template()
        if templates and r.chance(0.8):   # make sure the other templates are used
            source = gen.load_stmt() + source if r.chance(0.5) else source + gen.load_stmt()
    if r.chance(0.05):
        source = mutate(r, source)
    if r.chance(0.05):
        source += "\n"   # one trailing newline is dropped (keep_trailing_newline is off)
    if r.chance(0.01):
        source += r.choice(["{#", "{#-", " {% raw %}", "{%- raw -%}", "{{", "{%", " {#"])   # an opener at the end
    case = Case(source, context, trim, lstrip, templates=templates)
    return with_delimiters(r, case) if r.chance(0.1) else case
