"""The child half of hostile_runner.py: `python hostile_child.py ROOT TESTS ENGINE` reads requests (JSON lines) on
stdin and answers each with JSON lines on stdout: {"tick": phase, "rss_kb": n} as each timed phase starts, then
the result. ENGINE is minijinja_py, or jinja2 (the reference, for hostile_report.py: Jinja2 as transformers
configures it, from differential_ref.py).

A request is {"id": case id} (a case of hostile_bounds.ALL_CASES) or {"id": name, "inline": {"source", "mode",
"context"}} (a generated bomb). A result holds the main render's outcome (kind out/error/leak, output or error
classes, limit and message) and its measures (wall_s, cpu_s, compile_s, peak_mb), whether the caller's data
changed, the follow-up renders (case.then) and repeats (case.repeat), the cross-render probes that changed, and
the memory the process kept after the case.
"""

import copy
import gc
import hashlib
import json
import os
import signal
import sys
import time

MAX_SENT_OUTPUT = 1 << 20
CLEAR_REFS_WORKS = None


# ------------------------------------------------------------------------------------------------ memory
def _status_kb(field):
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field):
                return int(line.split()[1])
    return None


def _reset_peak():
    """Make VmHWM the current RSS (Linux: "5" to /proc/self/clear_refs); False where that is not possible."""
    global CLEAR_REFS_WORKS
    if CLEAR_REFS_WORKS is False:
        return False
    try:
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")
    except OSError:
        CLEAR_REFS_WORKS = False
        return False
    CLEAR_REFS_WORKS = True
    return True


def _emit(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


class Phase:
    """One timed phase: announces itself to the parent, measures time and peak memory growth."""

    def __init__(self, name):
        self.name = name

    def __enter__(self):
        gc.collect()
        self.rss_kb = _status_kb("VmRSS:")
        self.reset = _reset_peak()
        _emit({"tick": self.name, "rss_kb": self.rss_kb})
        self.cpu = time.process_time()
        self.wall = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.wall_s = time.perf_counter() - self.wall
        self.cpu_s = time.process_time() - self.cpu
        peak = _status_kb("VmHWM:") if self.reset else None
        self.peak_mb = None if peak is None else max(0, peak - self.rss_kb) / 1024
        return False

    def measures(self):
        return {"wall_s": round(self.wall_s, 3), "cpu_s": round(self.cpu_s, 3),
                "peak_mb": None if self.peak_mb is None else round(self.peak_mb, 1)}


# ------------------------------------------------------------------------------------------- the caller's data
def same(a, b, seen):
    """a == b for data that may share or contain itself: each pair of containers is compared once."""
    if type(a) is not type(b):
        return False
    if hasattr(a, "__next__"):
        return True  # an iterator is consumed by design (Jinja2 does the same): not a change to compare
    if isinstance(a, (list, tuple, dict)):
        if (id(a), id(b)) in seen:
            return True
        seen.add((id(a), id(b)))
        if len(a) != len(b):
            return False
        if isinstance(a, dict):
            return a.keys() == b.keys() and all(same(a[k], b[k], seen) for k in a)
        return all(same(x, y, seen) for x, y in zip(a, b))
    if type(a).__eq__ is object.__eq__ and hasattr(a, "__dict__"):
        return same(vars(a), vars(b), seen)  # the caller's own objects: compare their attributes
    return a == b


def snapshot(value):
    try:
        return copy.deepcopy(value)
    except (RecursionError, TypeError):
        return None  # too deep (100000-deep data) or not copyable (a memoryview, a generator): not compared


# ----------------------------------------------------------------------------------------------- engines
class MinijinjaEngine:
    def __init__(self):
        import minijinja_py as mj
        self.mj = mj
        self.error = mj.TemplateError

    def compile(self, mode, source):
        mj = self.mj
        if mode == "chat":
            return mj.chat_environment().from_string(source)
        if mode in ("plain", "bytes"):
            return mj.Environment().from_string(source)
        if mode == "plain_autoescape":
            return mj.Environment(autoescape=True).from_string(source)
        if mode == "debug":
            return mj.Environment(undefined=mj.DebugUndefined).from_string(source)
        if mode == "chat_debug":
            env = mj.chat_environment()
            env.undefined = mj.DebugUndefined
            return env.from_string(source)
        if mode == "ct":
            return mj.ChatTemplate(source)
        raise AssertionError(mode)

    def render(self, mode, template, context):
        if mode == "ct":
            args = {k: v for k, v in context.items() if k != "kw"}
            return template.render(**args, **context.get("kw", {}))
        return template.render(**context)

    def limit_of(self, exc):
        return getattr(exc, "limit", None)


class Jinja2Engine(MinijinjaEngine):
    """The reference (hostile_report.py --engine jinja2): what Jinja2 does with each case, where it finishes."""

    def __init__(self):
        import jinja2
        import differential_ref
        self.jinja2 = jinja2
        self.ref = differential_ref
        self.error = Exception     # Jinja2 lets built-in exceptions through: they are its outcome too

    def compile(self, mode, source):
        jinja2 = self.jinja2
        if mode in ("chat", "ct", "chat_debug"):
            env = self.ref._build_reference_env(True, True)
            if mode == "chat_debug":
                env.undefined = jinja2.DebugUndefined
            return env.from_string(source)
        if mode in ("plain", "bytes"):
            return jinja2.Environment().from_string(source)
        if mode == "plain_autoescape":
            return jinja2.Environment(autoescape=True).from_string(source)
        if mode == "debug":
            return jinja2.Environment(undefined=jinja2.DebugUndefined).from_string(source)
        raise AssertionError(mode)

    def render(self, mode, template, context):
        if mode == "ct":
            sys.path.insert(0, "/work/shared/oracle")
            import hf_env
            prepared = hf_env.prepare_inputs(context["messages"], context.get("tools"), context.get("documents"),
                                             **context.get("kw", {}))
            chat, tools, documents, kwargs = prepared
            extra = {k: v for k, v in context.items() if k not in ("messages", "tools", "documents", "kw")}
            return template.render(messages=chat, tools=tools, documents=documents, **extra, **kwargs)
        return template.render(**context)


# -------------------------------------------------------------------------------------------- one render
def _outcome(engine, mode, source, context, extra=None, compiled=None):
    """Compile (unless `compiled` holds a template already) and render once: the outcome record (no measures);
    record["template"] is the compiled template, removed before the record is sent."""
    record = {}
    started = time.process_time()
    try:
        template = compiled
        if template is None:
            try:
                template = record["template"] = engine.compile(mode, source)
            finally:
                record["compile_s"] = round(time.process_time() - started, 3)   # CPU time, as the limit
        else:
            record["template"] = template
        text = engine.render(mode, template, dict(context or {}, **(extra or {})))
        if not isinstance(text, str):
            raise TypeError(f"render returned {type(text).__name__}")
        record.update(kind="out", length=len(text))
        record["sha"] = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        if len(text) > MAX_SENT_OUTPUT:
            record.update(output=text[:MAX_SENT_OUTPUT], truncated=True)
        else:
            record["output"] = text
    except engine.error as exc:
        record.update(kind="error", classes=[c.__name__ for c in type(exc).__mro__], limit=engine.limit_of(exc),
                      message=str(getattr(exc, "message", exc))[:2000], text=_text(exc)[:5000])
        record["memory_error"] = _chain_has(exc, MemoryError)
    except BaseException as exc:  # noqa: BLE001 - anything else is what the suite looks for
        record.update(kind="leak", classes=[type(exc).__name__], message=_text(exc, repr)[:2000])
        record["memory_error"] = _chain_has(exc, MemoryError)
    return record


def _text(exc, show=str):
    try:
        return show(exc)
    except BaseException as failure:  # noqa: BLE001 - a str() that itself fails is reported, not raised
        return f"<str() of the exception failed: {type(failure).__name__}>"


def _chain_has(exc, cls):
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, cls):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


# ------------------------------------------------------------------------------------ cross-render probes
PROBES = (
    ("chat", "{{ [1, {'a': [2]}]|tojson(indent=4) }}|{{ {'b': 1}|tojson(indent=2) }}|{{ [1]|tojson }}"),
    ("chat", "{{ [1]|tojson(separators=(',', ':'), sort_keys=true) }}|{{ 'é'|tojson(ensure_ascii=true) }}"),
    ("chat", "{{ 'é'.encode('latin-1') }}|{{ 'é'.encode('utf-8') }}|{{ 'é'.encode() }}|{{ 'x'.encode('ascii') }}"),
    ("chat", "{{ 'é'.encode('utf-8').decode('utf-8') }}|{{ 'é'.encode('ascii', 'replace') }}"),
    ("chat", "{{ '{:>5}|{!r}|{0}'.format('a', 'b') }}|{{ '%5s|%r|%(x)s' % {'x': 1} }}|{{ '%d-%s'|format(1, 2) }}"),
    ("chat", "{{ {'b': 1, 'a': 2}|pprint }}|{{ [3, 1, 2]|sort }}|{{ [1, 1, 2]|unique|list }}|{{ {'b': 1}|dictsort }}"),
    ("chat", "{{ [{'a': 1}, {'a': 1}]|groupby('a')|list }}|{{ 'ab cd'|title }}|{{ 'x y'|urlencode }}"),
    ("chat", "{{ 'see http://a.b/c x@y.z'|urlize }}|{{ 'a b c'|wordwrap(3) }}|{{ 'abcdef'|truncate(5, leeway=0) }}"),
    ("chat", "{{ 'x' is filter }}|{{ 'upper' is filter }}|{{ 'odd' is test }}|{{ ['a']|map('upper')|list }}"),
    ("chat", "{{ 1234|filesizeformat }}|{{ 2.5|round }}|{{ '0x1f'|int(base=16) }}|{{ 12345|round(-2) }}"),
    ("chat", "{% for x in [1, 1, 2] %}{{ loop.changed(x) }}{{ loop.cycle('a', 'b') }}{% endfor %}"),
    ("chat", "{{ namespace(a=1).a }}|{{ dict(a=1) }}|{{ {'a': 1}.keys() - ['a'] }}|{{ 1 in {'a': 1}.values() }}"),
    ("chat", "{{ {'a': 1}|items|list }}|{{ [{'a': 2}, {'a': 1}]|sort(attribute='a') }}|{{ 'ab'|list }}"),
    ("chat", "{{ x is defined }}|{{ 'abc'.translate({97: 'z'}) }}|{{ 'É'.lower() }}|{{ ('x' * 3).center(7, '.') }}"),
    ("plain", "{{ {'a': 1}|xmlattr }}|{{ {'a': 'x y'}|urlencode }}|{{ [1, 2]|tojson }}|{{ 'x'|e }}"),
    ("ct", "{% for m in messages %}{{ m.role }}: {{ m.content }}\n{% endfor %}{{ add_generation_prompt }}"),
)
PROBE_CONTEXT = {"messages": [{"role": "user", "content": "hi"}], "add_generation_prompt": True}


class Child:
    def __init__(self, engine_name):
        self.engine = Jinja2Engine() if engine_name == "jinja2" else MinijinjaEngine()
        self.cases = None  # the case table, built at the first request for a case id (bombs do not need it)
        # compiled once, like a long-running server's templates; the first one is compiled afresh each time too
        self.probe_templates = [self.engine.compile(mode, source) for mode, source in PROBES]
        self.probe_baseline = self.probes()
        gc.collect()
        gc.freeze()   # the cases' contexts (100 000-deep lists, ...) stay: the collections before each phase skip them

    def probes(self):
        first = _outcome(self.engine, PROBES[0][0], PROBES[0][1], {})
        outcomes = [first.get("output") or first.get("message")]
        for (mode, _), template in zip(PROBES, self.probe_templates):
            context = PROBE_CONTEXT if mode == "ct" else {}
            try:
                outcomes.append(self.engine.render(mode, template, context))
            except Exception as exc:  # noqa: BLE001 - a probe that starts failing is what this looks for
                outcomes.append(f"{type(exc).__name__}: {exc}")
        return outcomes

    def handle(self, request):
        inline = request.get("inline")
        if inline is not None and inline.get("mode") == "selftest":
            return selftest(request["id"], inline["source"])
        if inline is not None:
            case = _Inline(inline["source"], inline.get("mode", "chat"), inline.get("context"))
        else:
            if self.cases is None:
                import hostile_bounds
                self.cases = {case.id: case for case in hostile_bounds.ALL_CASES}
                gc.collect()
                gc.freeze()
            case = self.cases[request["id"]]
        rss_before = _status_kb("VmRSS:")
        before = snapshot(case.context)
        with Phase("render") as phase:
            result = _outcome(self.engine, case.mode, case.source, case.context)
        template = result.pop("template", None)
        result.update(phase.measures(), id=request["id"])
        if getattr(case, "expect", ("",))[0] == "stable" and result["kind"] == "out":
            with Phase("render again"):
                again = _outcome(self.engine, case.mode, case.source, case.context, compiled=template)
            result["again"] = again.get("sha")
        result["then"] = []
        for number, step in enumerate(getattr(case, "then", ()), 1):
            # a step without a source renders the case's own compiled template again (with the step's context)
            reuse = template if step.source is None else None
            if step.source is None and template is None:
                result["then"].append({"kind": "error", "classes": ["HarnessError"], "message": "nothing compiled",
                                       "text": "", "step": f"follow-up render {number}"})
                continue
            with Phase(f"follow-up render {number}") as phase:
                got = _outcome(self.engine, case.mode if reuse else step.mode, step.source, step.context,
                               compiled=reuse)
            got.pop("template", None)
            got.update(phase.measures(), step=f"follow-up render {number}")
            result["then"].append(got)
        if getattr(case, "repeat", 0):
            result["repeat"] = self.repeat(case, template)
        _emit({"untimed": "compare"})
        result["mutated"] = before is not None and not same(before, case.context, set())
        with Phase("probes"):
            now = self.probes()
        sources = [PROBES[0][1] + " (compiled afresh)"] + [source for _, source in PROBES]
        result["poisoned"] = [source for source, old, new in zip(sources, self.probe_baseline, now) if old != new]
        gc.collect()
        after = _status_kb("VmRSS:")
        result["retained_mb"] = round((after - rss_before) / 1024, 1)
        return result

    def repeat(self, case, template):
        """Render case.repeat more times (with i = 1, 2, ... in the context) and measure what the process kept."""
        import tracemalloc
        tracemalloc.start()
        try:
            with Phase("repeat 0"):
                _outcome(self.engine, case.mode, case.source, case.context, {"i": 0}, template)
            gc.collect()
            start = tracemalloc.get_traced_memory()[0]
            slowest = 0.0
            for number in range(1, case.repeat + 1):
                with Phase(f"repeat {number}") as phase:
                    _outcome(self.engine, case.mode, case.source, case.context, {"i": number}, template)
                slowest = max(slowest, phase.cpu_s)
            gc.collect()
            growth = tracemalloc.get_traced_memory()[0] - start
        finally:
            tracemalloc.stop()
        return {"step": "repeated renders", "renders": case.repeat, "growth_kb": growth // 1024,
                "cpu_s": round(slowest, 3)}


def selftest(case_id, action):
    """The harness's own test cases: a worker that crashes, blocks (hang), loops (spin), grows, or answers."""
    with Phase("render") as phase:
        if action == "crash":
            os.kill(os.getpid(), signal.SIGSEGV)
        elif action == "hang":
            time.sleep(600)
        elif action == "spin":
            while True:
                pass
        elif action == "grow":
            chunks = []
            while True:
                chunks.append(bytearray(16 << 20))  # touched as it is zeroed
                time.sleep(0.01)
    return dict(phase.measures(), id=case_id, kind="out", output=action, sha="", then=[], mutated=False,
                poisoned=[], retained_mb=0)


class _Inline:
    def __init__(self, source, mode, context):
        self.source, self.mode, self.context = source, mode, context
        self.expect, self.then, self.repeat = ("any",), (), 0


def main(root, tests, engine):
    sys.path[:0] = [root, tests]
    import faulthandler
    faulthandler.enable()   # a crash leaves the Python stack on stderr, which the parent reports
    child = Child(engine)
    for line in sys.stdin:
        _emit(child.handle(json.loads(line)))


if __name__ == "__main__":
    main(*sys.argv[1:4])
