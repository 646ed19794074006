"""Property test: bombs built inside a template, within the step budget — deep, shared, long, wide — fed through
every filter, test, global and allowed method (each argument position), and through the operators. Whatever the
bomb and the consumer, a render ends in output or a TemplateError: never a crash, a hang, a non-TemplateError,
more than 5 s or 500 MB, or an effect on later renders (hostile_runner.py runs and measures each in a worker).

The consumers are enumerated from the package's registries (the chat profile's filters, tests and globals, the
sandbox's method allowlists), so a new filter or method is covered without editing this file. The bombs come
from hypothesis, derandomized: HOSTILE_BOMB_EXAMPLES (default 1) bombs per consumer signature; set
HOSTILE_BOMB_SEED to draw another deterministic set, and HOSTILE_BOMB_FULL=1 for bombs deep enough to crash
Python's hash (slower to build). `python tests/test_bombs.py [results.json]` prints every failing example.
"""

import inspect
import os
import re

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import minijinja_py as mj  # noqa: E402
from minijinja_py.runtime import sandbox  # noqa: E402

import hostile_runner  # noqa: E402

EXAMPLES_PER_SIGNATURE = int(os.environ.get("HOSTILE_BOMB_EXAMPLES", "1"))
SEED = os.environ.get("HOSTILE_BOMB_SEED")

# ------------------------------------------------------------------------------------------------ the bombs
# 200 000 deep: hash() of a tuple this deep overflows the C stack. Building one takes a second or two, so the
# default run leaves them to the hostile suite (hash/*, which aims them at every hashing site) and
# HOSTILE_BOMB_FULL=1 adds them here.
FULL = os.environ.get("HOSTILE_BOMB_FULL") == "1"
DEEP_DEPTHS = (300, 5000, 60000) + ((200000,) if FULL else ())
SHARED_LEVELS = (24, 40, 62)                  # (t, t) doubled: 2**levels nodes as a tree
LONG_UNITS = ("x", "\ufb03", "\U0001f600", "<\"&'", "\x00", "%s", "{0}", "\t", "a ", "www.a.com ", "\u0130", "9",
              "ff", "a.b@c.de ", "\n")
LONG_SIZES = (1000, 1000000, 9000000)
WIDE_SHAPES = ("ints", "strings", "dict", "lists", "pairs")
LEAVES = ("1", "'x'", "none", "1.5", "'x' * 1000")
FILLERS = ("1", "'x'", "[1]", "none", "2", "'a b'", "{'a': 1}", "-1", "true", "'a'", "(1, 2)", "10**6")


def _literal(text):
    return "'" + text.encode("unicode_escape").decode("ascii").replace("'", "\\'") + "'"


def _loop(times, body):
    """`body` repeated `times` times, in loops of at most max_range iterations."""
    outer, inner = divmod(times, 100000)
    code = ""
    if outer:
        code += "{% for j in range(" + str(outer) + ") %}{% for i in range(100000) %}" + body + \
                "{% endfor %}{% endfor %}"
    if inner:
        code += "{% for i in range(" + str(inner) + ") %}" + body + "{% endfor %}"
    return code


def build(bomb):
    """Template code that leaves the bomb in ns.b."""
    kind = bomb["kind"]
    if kind == "deep":
        wrap = {"tuple": "(ns.b,)", "list": "[ns.b]", "dict": "{'k': ns.b}"}[bomb["container"]]
        return "{% set ns = namespace(b=" + bomb["leaf"] + ") %}" + _loop(bomb["depth"], "{% set ns.b = " + wrap + " %}")
    if kind == "shared":
        wrap = {"tuple": "(ns.b, ns.b)", "list": "[ns.b, ns.b]", "dict": "{'a': ns.b, 'b': ns.b}"}[bomb["container"]]
        return "{% set ns = namespace(b=" + bomb["leaf"] + ") %}" + _loop(bomb["levels"], "{% set ns.b = " + wrap + " %}")
    if kind == "long":
        count = max(1, bomb["size"] // len(bomb["unit"]))
        return "{% set ns = namespace(b=" + _literal(bomb["unit"]) + " * " + str(count) + ") %}"
    if kind == "wide":
        count = bomb["count"]
        # 100 000 distinct strings without 100 000 filter calls: the digits of a list's JSON, split
        distinct = "(range(100000)|list|tojson)[1:-1].split(', ')"
        value = {"ints": f"range(100000)|list * {count // 100000}",
                 "strings": f"{distinct} * {count // 100000}",
                 "dict": f"dict.fromkeys({distinct}, 'v')",
                 "lists": f"[[1, 2]] * {count}",
                 "pairs": f"[('k', 'v')] * {count}"}[bomb["shape"]]
        return "{% set ns = namespace(b=" + value + ") %}"
    return "{% set ns = namespace(b=" + bomb["value"] + ") %}"


@st.composite
def bombs(draw):
    kind = draw(st.sampled_from(("deep", "shared", "long", "wide", "number")))
    if kind == "deep":
        return {"kind": kind, "container": draw(st.sampled_from(("tuple", "list", "dict"))),
                "depth": draw(st.sampled_from(DEEP_DEPTHS)), "leaf": draw(st.sampled_from(LEAVES))}
    if kind == "shared":
        return {"kind": kind, "container": draw(st.sampled_from(("tuple", "list", "dict"))),
                "levels": draw(st.sampled_from(SHARED_LEVELS)), "leaf": draw(st.sampled_from(LEAVES))}
    if kind == "long":
        return {"kind": kind, "unit": draw(st.sampled_from(LONG_UNITS)), "size": draw(st.sampled_from(LONG_SIZES))}
    if kind == "wide":
        return {"kind": kind, "shape": draw(st.sampled_from(WIDE_SHAPES)),
                "count": draw(st.sampled_from((100000, 900000)))}
    return {"kind": kind, "value": draw(st.sampled_from(("2 ** 99999", "-(2 ** 99999)", "1e308", "(1e308 * 10)",
                                                         "10 ** 30000 + 1")))}


def coerce(bomb, wanted):
    """The bomb reshaped into a value of type `wanted` (a method's receiver), keeping its size and nesting."""
    if wanted == "str":
        if bomb["kind"] == "long":
            return bomb
        return {"kind": "long", "unit": LONG_UNITS[len(str(bomb)) % len(LONG_UNITS)], "size": 9000000}
    if wanted in ("list", "tuple", "dict"):
        if bomb["kind"] in ("deep", "shared"):
            return dict(bomb, container=wanted)
        if wanted == "dict":
            return {"kind": "wide", "shape": "dict", "count": 100000}
        return {"kind": "shared", "container": wanted, "levels": 62, "leaf": "1"}
    if wanted in ("int", "float"):
        return {"kind": "number", "value": "2 ** 99999" if wanted == "int" else "1e308"}
    return bomb


@st.composite
def examples(draw):
    return {"bomb": draw(bombs()), "fillers": draw(st.lists(st.sampled_from(FILLERS), min_size=4, max_size=4))}


def draw_examples(count):
    """`count` examples drawn by hypothesis, deterministically (derandomized, or seeded by HOSTILE_BOMB_SEED)."""
    drawn = []

    @settings(max_examples=count, derandomize=SEED is None, database=None, phases=[Phase.generate], deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(examples())
    def collect(example):
        drawn.append(example)

    if SEED is not None:
        collect = hypothesis.seed(int(SEED))(collect)
    collect()
    return drawn


# ------------------------------------------------------------------------------------------- the consumers
def _parameters(func):
    """(positional slots, keyword names) of a filter or test as a template calls it (value and state excluded)."""
    try:
        params = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):
        return 2, []
    if getattr(func, "mj_pass_state", False):
        params = params[1:]
    params = params[1:]  # the value
    slots, names = 0, []
    for param in params:
        if param.kind == param.VAR_POSITIONAL:
            slots += 3
        elif param.kind in (param.POSITIONAL_ONLY, param.POSITIONAL_OR_KEYWORD):
            slots += 1
            names.append(param.name)
        elif param.kind == param.KEYWORD_ONLY:
            names.append(param.name)
    return slots, names


def _method_arity(cls, name):
    try:
        params = list(inspect.signature(getattr(cls, name)).parameters.values())[1:]
    except (TypeError, ValueError):
        return 2
    return sum(3 if p.kind == p.VAR_POSITIONAL else 1 for p in params if p.kind != p.VAR_KEYWORD)


def _allowlists():
    """{receiver type name: method names} from the sandbox's allowlists (the receivers a template can build)."""
    table = getattr(sandbox, "_ALLOWED_BY_TYPE", None)
    assert table is not None, "the sandbox's method allowlists moved: update _allowlists() in test_bombs.py"
    wanted = {str: "str", dict: "dict", list: "list", tuple: "tuple", int: "int", float: "float"}
    lists = {wanted[cls]: sorted(names) for cls, names in table.items() if cls in wanted}
    for cls, name in ((bytes, "bytes"), (type({}.keys()), "keys"), (type({}.items()), "items")):
        if cls in table:
            lists[name] = sorted(table[cls])
    return lists


RECEIVERS = {"bytes": ("str", ".encode('utf-8', 'surrogatepass')"), "keys": ("dict", ".keys()"),
             "items": ("dict", ".items()")}
SMALL_RECEIVERS = {"str": "'abc'", "dict": "{'a': 1}", "list": "[1, 2]", "tuple": "(1, 2)", "int": "(5)",
                   "float": "(1.5)", "bytes": "'abc'.encode()", "keys": "{'a': 1}.keys()", "items": "{'a': 1}.items()"}
RECEIVER_TYPES = {"str": str, "dict": dict, "list": list, "tuple": tuple, "int": int, "float": float,
                  "bytes": bytes, "keys": type({}.keys()), "items": type({}.items())}
OPERATORS = ("B in F", "F in B", "B == B", "B == F", "B < F", "B ~ F", "B + B", "B * 2", "'%s' % (B,)",
             "B is sameas B", "B % 7", "-B", "B // 3", "B ** 2", "not B", "B[0]", "B[1:]", "B|string",
             "(B, B)|unique|list", "[B, B]|sort", "{B: 1}", "B if B", "[B] * 3")


def signatures():
    """Every way to hand a bomb to the engine: (id, template body with B for the bomb and F0.. for fillers,
    receiver type or None)."""
    env = mj.chat_environment()
    found = []
    for name, func in sorted(env.filters.items()):
        slots, names = _parameters(func)
        found.append((f"filter/{name}/value", "{{ B|" + name + " }}", None))
        for slot in range(slots):
            args = ", ".join("B" if i == slot else f"F{i}" for i in range(slot + 1))
            found.append((f"filter/{name}/arg{slot}", "{{ F3|" + name + "(" + args + ") }}", None))
        for kw in names:
            found.append((f"filter/{name}/{kw}=", "{{ F3|" + name + "(" + kw + "=B) }}", None))
    for name, func in sorted(env.tests.items()):
        if not re.fullmatch(r"\w+", name):
            continue  # ==, <, ... are the same functions as eq, lt, ...
        slots, _ = _parameters(func)
        found.append((f"test/{name}/value", "{{ B is " + name + " }}", None))
        if slots:
            found.append((f"test/{name}/arg", "{{ F3 is " + name + "(B) }}", None))
    for name in sorted(env.globals):
        found.append((f"global/{name}/arg0", "{{ " + name + "(B) }}", None))
        found.append((f"global/{name}/arg1", "{{ " + name + "(F0, B) }}", None))
        found.append((f"global/{name}/star", "{{ " + name + "(*B) }}", None))
        found.append((f"global/{name}/kwarg", "{{ " + name + "(k=B) }}", None))
    for receiver, names in sorted(_allowlists().items()):
        cls = RECEIVER_TYPES[receiver]
        for name in names:
            if not callable(getattr(cls, name, None)):
                found.append((f"method/{receiver}.{name}/receiver", "{{ R." + name + " }}", receiver))
                continue
            arity = _method_arity(cls, name)
            call = "(F0)" if arity else "()"
            found.append((f"method/{receiver}.{name}/receiver", "{{ R." + name + call + " }}", receiver))
            for slot in range(min(arity, 3)):
                args = ", ".join("B" if i == slot else f"F{i}" for i in range(slot + 1))
                found.append((f"method/{receiver}.{name}/arg{slot}",
                              "{{ " + SMALL_RECEIVERS[receiver] + "." + name + "(" + args + ") }}", None))
    for number, expression in enumerate(OPERATORS):
        found.append((f"operator/{number}:{expression}", "{{ " + expression + " }}", None))
    found.append(("loop/iterate", "{% for x in B %}{{ loop.index if loop.last }}{% endfor %}", None))
    found.append(("loop/changed", "{% for x in [B, F0, B] %}{{ loop.changed(x) }}{% endfor %}", None))
    found.append(("loop/cycle", "{% for x in [1, 2] %}{{ loop.cycle(B, F0) }}{% endfor %}", None))
    found.append(("loop/filtered_length", "{% for x in B if x %}{{ loop.length if loop.first }}{% endfor %}", None))
    found.append(("macro/args", "{% macro m(a) %}{{ a|length }}{% endmacro %}{{ m(B) }}{{ m(*[B]) }}", None))
    return found


SIGNATURES = signatures()


def render_source(signature, example):
    """The template of one example: build the bomb (reshaped when it is a method's receiver), then consume it."""
    _, body, receiver = signature
    bomb = example["bomb"]
    if receiver is not None:
        base, suffix = RECEIVERS.get(receiver, (receiver, ""))
        bomb = coerce(bomb, base)
        body = body.replace("R.", "(ns.b" + suffix + ").")
    body = body.replace("B", "ns.b")
    for i, filler in enumerate(example["fillers"]):
        body = body.replace(f"F{i}", "(" + filler + ")")
    return build(bomb) + body


def _requests():
    drawn = draw_examples(len(SIGNATURES) * EXAMPLES_PER_SIGNATURE)
    requests = []
    for number in range(len(SIGNATURES) * EXAMPLES_PER_SIGNATURE):
        signature = SIGNATURES[number % len(SIGNATURES)]
        example = drawn[number % len(drawn)]
        source = render_source(signature, example)
        requests.append({"id": f"{signature[0]}#{number // len(SIGNATURES)}",
                         "inline": {"source": source, "mode": "chat"}, "signature": signature[0]})
    return requests


@pytest.fixture(scope="module")
def bomb_results():
    requests = _requests()
    results = hostile_runner.run(requests)
    return requests, results


def _problems(result):
    if result is None:
        return ["no result (the harness lost the case)"]
    kind = result.get("kind")
    if kind == "leak":
        return [f"a non-TemplateError escaped: {result['classes'][0]}: {result['message'][:300]}"]
    if kind not in ("out", "error"):
        return [f"{kind}: {result.get('detail', '')}"]
    found = []
    if result.get("memory_error"):
        found.append("a MemoryError was raised inside (an allocation hit the harness's address-space cap)")
    return found + hostile_runner.measure_problems(result)


@pytest.mark.parametrize("signature", [s[0] for s in SIGNATURES])
def test_bomb(signature, bomb_results):
    requests, results = bomb_results
    failures = []
    for request in requests:
        if request["signature"] != signature:
            continue
        found = _problems(results.get(request["id"]))
        if found:
            failures.append(f"{request['inline']['source'][-300:]!r}\n    " + "\n    ".join(found))
    assert not failures, "\n".join(failures)


def test_every_registry_is_covered():
    ids = {s[0].split("/")[0] + "/" + s[0].split("/")[1] for s in SIGNATURES}
    env = mj.chat_environment()
    assert {f"filter/{name}" for name in env.filters} <= ids
    assert {f"global/{name}" for name in env.globals} <= ids
    assert any(i.startswith("method/str.") for i in ids) and any(i.startswith("method/dict.") for i in ids)


if __name__ == "__main__":
    # python tests/test_bombs.py: every failing example, with its failure classes (a status report)
    import collections
    import json
    import sys
    requests = _requests()
    results = hostile_runner.run(requests)
    tally = collections.Counter()
    for request in requests:
        found = _problems(results.get(request["id"]))
        if found:
            classes = sorted({hostile_runner.failure_class(p) for p in found})
            tally.update(classes)
            print(f"- {request['id']} [{', '.join(classes)}]: {'; '.join(found)[:200]}\n    "
                  f"{request['inline']['source'][-160:]!r}")
    print(f"\n{len(requests)} examples; failure classes: {dict(tally)}")
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w") as out:
            json.dump({"requests": requests, "results": results}, out)
