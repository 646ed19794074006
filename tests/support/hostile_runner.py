"""Runs hostile templates in child processes and measures each one; shared by test_hostile.py and test_bombs.py.

Parent side: `run(requests)` hands each request (a case id of hostile_bounds.ALL_CASES, or an inline template)
to a small pool of worker processes and returns {id: result}. A worker that dies (SIGSEGV, ...) or runs one
phase of a case past CASE_SECONDS is killed if need be, the case is recorded as a crash or a hang, and a fresh
worker takes the next case: one bad case never loses the others. The parent also watches each busy worker's
resident memory and kills it past KILL_MEMORY_MB (the machine's protection; the measured limit is lower).

Child side (hostile_child.py): reads one JSON request a line, runs it and writes JSON lines back. Each timed
phase (compile + render, a follow-up render, the repeats, the cross-render probes) is announced with a "tick"
line, so the parent's clocks and memory baseline follow the phase. Time limits count CPU time (the worker's
user + system time, read from /proc), so that a busy machine does not turn a slow case into a failing one; a
wall-clock guard (WALL_FACTOR times longer) stops a worker that blocks (one that is not runnable: a runnable one
is computing, perhaps waiting for a CPU on a loaded machine, and its CPU limit stops it). Per phase the child measures wall and CPU time and the peak memory growth: writing "5" to
/proc/self/clear_refs resets VmHWM to the current RSS, so VmHWM − RSS-before is what the phase added at its
peak (checked to work on Linux; where it does not, peak_mb is None and the limit cannot be checked).

`problems(case, result)` turns a result into the list of broken promises (empty when the case passes).
`python tools/hostile_report.py [--engine jinja2] [ID-PREFIX ...]` prints the verdicts (hostile_report.py).
"""

import json
import os
import resource
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from collections import deque

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

CASE_SECONDS = 5.0          # CPU time of one phase (compile + render, a follow-up render, ...) of one case
WALL_FACTOR = 6             # a phase is also stopped after CASE_SECONDS × this of wall time (a blocked worker)
COMPILE_SECONDS = 2.0       # CPU time of from_string, for any source up to max_template_size
CASE_MEMORY_MB = 500        # peak memory one phase may add
RETAINED_MB = 64            # memory still held after a case is over (a cache a template can fill)
REPEAT_GROWTH_KB = 1024     # memory growth over a case's repeated renders (tracemalloc)
KILL_MEMORY_MB = 3000       # the parent kills a worker that grows this much (records it as over the limit)
ADDRESS_SPACE_GB = 12       # RLIMIT_AS of a worker: a backstop if one allocation outruns the parent's watch
SETUP_SECONDS = 120         # a request's untimed work (snapshots, comparisons) before its first tick
WORKERS = int(os.environ.get("HOSTILE_WORKERS", "0")) or min(4, os.cpu_count() or 1)


# ============================================================================================== parent side
class _Worker:
    def __init__(self, engine):
        self.engine = engine
        self.proc = None
        self.request = None
        self.buffer = b""

    def start(self):
        self.stderr = tempfile.TemporaryFile()
        argv = [sys.executable, os.path.join(HERE, "hostile_child.py"), ROOT, HERE, self.engine]
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr,
                                     preexec_fn=_limit_address_space)
        os.set_blocking(self.proc.stdout.fileno(), False)
        self.buffer = b""

    def send(self, request, now):
        if self.proc is None:
            self.start()
        self.request = request
        self.phase, self.deadline, self.base_kb, self.base_cpu = "setup", now + SETUP_SECONDS, None, None
        try:
            self.proc.stdin.write((json.dumps(request) + "\n").encode())
            self.proc.stdin.flush()
        except BrokenPipeError:
            pass  # the worker died before reading: its end of output is read next, and the request fails there

    def stderr_tail(self):
        self.stderr.seek(0)
        return self.stderr.read()[-3000:].decode("utf-8", "replace")

    def kill(self):
        if self.proc is not None:
            try:
                self.proc.kill()
            except ProcessLookupError:
                pass
            self.proc.wait()
            self.proc.stdin.close()
            self.proc.stdout.close()
            self.stderr.close()
            self.proc = None

    def rss_kb(self):
        try:
            return _status_kb(f"/proc/{self.proc.pid}/status", "VmRSS:")
        except (OSError, TypeError):
            return None

    def cpu_seconds(self):
        """User + system CPU time of the worker so far (Linux /proc), or None."""
        try:
            with open(f"/proc/{self.proc.pid}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS
        except (OSError, IndexError, ValueError):
            return None

    def runnable(self):
        """Whether the worker is running or waiting for a CPU (Linux /proc state R), not blocked; False if unknown."""
        try:
            with open(f"/proc/{self.proc.pid}/stat") as stat:
                return stat.read().rsplit(")", 1)[1].split()[0] == "R"
        except (OSError, IndexError):
            return False


_CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _limit_address_space():
    cap = ADDRESS_SPACE_GB << 30
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


def _status_kb(path, field):
    with open(path) as status:
        for line in status:
            if line.startswith(field):
                return int(line.split()[1])
    return None


def run(requests, engine="minijinja_py", workers=None, case_seconds=None, kill_memory_mb=None):
    """{request id: result} for every request, each run in a worker process (see the module docstring).
    case_seconds and kill_memory_mb override CASE_SECONDS and KILL_MEMORY_MB (the harness's own tests)."""
    limits = {"seconds": case_seconds or CASE_SECONDS, "kill_kb": (kill_memory_mb or KILL_MEMORY_MB) * 1024}
    pending = deque(requests)
    pool = [_Worker(engine) for _ in range(min(workers or WORKERS, max(1, len(pending))))]
    results = {}
    selector = selectors.DefaultSelector()
    registered = {}
    last_memory_check = 0.0
    try:
        while pending or any(w.request is not None for w in pool):
            now = time.monotonic()
            for worker in pool:
                if worker.request is None and pending:
                    worker.send(pending.popleft(), now)
                    fd = worker.proc.stdout.fileno()
                    if registered.get(worker) != fd:
                        if worker in registered:
                            selector.unregister(registered[worker])
                        selector.register(fd, selectors.EVENT_READ, worker)
                        registered[worker] = fd
            for key, _ in selector.select(timeout=0.05):
                _read(key.data, results, selector, registered, limits["seconds"])
            now = time.monotonic()
            check = now - last_memory_check > 0.05
            if check:
                last_memory_check = now
            for worker in pool:
                if worker.request is not None:
                    _watch(worker, results, selector, registered, limits, now, check)
    finally:
        for worker in pool:
            worker.kill()
        selector.close()
    return results


def _watch(worker, results, selector, registered, limits, now, check):
    # A busy worker's limits, the measured ones first (memory, then CPU), so that a parent that ran late does
    # not report a grown or spinning worker as a blocked one. The wall-clock guard stops a worker that blocks:
    # in a timed phase, one still runnable is computing (on a loaded machine it waits for a CPU), and the CPU
    # limit stops it.
    if check and worker.base_kb is not None:
        rss = worker.rss_kb()
        if rss is not None and rss - worker.base_kb > limits["kill_kb"]:
            _fail(worker, results, selector, registered, "memory",
                  f"grew past {limits['kill_kb'] // 1024} MB in phase {worker.phase} (killed)")
            return
    if check and worker.base_cpu is not None and (worker.cpu_seconds() or 0) - worker.base_cpu > limits["seconds"]:
        _fail(worker, results, selector, registered, "hang",
              f"still running after {limits['seconds']:g} s of CPU in phase {worker.phase}")
    elif now > worker.deadline and (worker.base_cpu is None or not worker.runnable()):
        _fail(worker, results, selector, registered, "hang",
              f"still running after {limits['seconds'] * WALL_FACTOR:g} s (wall) in phase {worker.phase}"
              if worker.phase != "setup" else f"no progress for {SETUP_SECONDS} s before the case ran")


def _read(worker, results, selector, registered, seconds):
    try:
        data = os.read(worker.proc.stdout.fileno(), 1 << 20)
    except BlockingIOError:
        return
    if not data:
        _died(worker, results, selector, registered)
        return
    worker.buffer += data
    *lines, worker.buffer = worker.buffer.split(b"\n")
    for line in lines:
        message = json.loads(line)
        if "tick" in message:
            worker.phase = message["tick"]
            worker.deadline = time.monotonic() + seconds * WALL_FACTOR
            worker.base_kb = message.get("rss_kb")
            worker.base_cpu = worker.cpu_seconds()
        elif "untimed" in message:
            worker.phase = message["untimed"]
            worker.deadline = time.monotonic() + SETUP_SECONDS
            worker.base_kb = worker.base_cpu = None
        else:
            results[message["id"]] = message
            worker.request = None


def _died(worker, results, selector, registered):
    if worker.request is None:  # an idle worker went away: a fresh one takes the next request
        selector.unregister(registered.pop(worker))
        worker.kill()
        return
    code = worker.proc.wait()
    name = signal.Signals(-code).name if code < 0 else f"exit status {code}"
    _fail(worker, results, selector, registered, "crash", f"the process died ({name}) in phase {worker.phase}",
          signal=name)


def _fail(worker, results, selector, registered, kind, detail, **extra):
    request = worker.request
    stderr = worker.stderr_tail()
    selector.unregister(registered.pop(worker))
    worker.kill()
    worker.request = None
    results[request["id"]] = dict(id=request["id"], kind=kind, detail=detail, phase=worker.phase, stderr=stderr,
                                  **extra)


# ============================================================================================== verdicts
def outcome_problems(expect, got):
    """What is wrong with one render's outcome `got` (a child's record) against `expect` (see hostile_cases)."""
    import re
    address = re.compile(r"0x[0-9a-fA-F]{6,}")
    kind = got.get("kind")
    if kind == "leak":
        return [f"a non-TemplateError escaped: {got['classes'][0]}: {got['message'][:300]}"]
    if kind not in ("out", "error"):
        return [f"{kind}: {got.get('detail', '')}"]
    problems = []
    if got.get("memory_error"):
        problems.append("a MemoryError was raised inside (an allocation hit the harness's address-space cap)")
    if kind == "out" and address.search(got["output"]):
        problems.append("a memory address was printed")
    if kind == "error" and address.search(got["text"]):
        problems.append(f"a memory address in the error: {got['text'][:300]}")
    want = expect[0]
    if want in ("out", "stable"):
        if kind != "out":
            problems.append(f"raised {got['classes'][0]}: {got['message'][:300]}")
        elif want == "out" and not _same_output(got, expect[1]):
            problems.append(f"wrong output: {_shown(got['output'])} instead of {_shown(expect[1])}")
        elif want == "stable" and got.get("again") is not None and got["again"] != got.get("sha"):
            problems.append("two renders in one process printed different text")
    elif kind != "error":
        problems.append(f"rendered {_shown(got['output'])} instead of raising")
    elif want == "limit":
        names = expect[1] if isinstance(expect[1], tuple) else (expect[1],)   # a tuple: any of these limits
        wanted = "LimitExceeded(" + " or ".join(names) + ")"
        if "LimitExceeded" not in got["classes"]:
            problems.append(f"raised {got['classes'][0]} instead of {wanted}: {got['message'][:300]}")
        elif got["limit"] not in names:
            problems.append(f"LimitExceeded({got['limit']}) instead of {wanted}: {got['message'][:300]}")
        elif f"{got['limit']}=" not in got["message"]:
            problems.append(f"the message does not name the limit and its value: {got['message'][:300]}")
    elif expect[1] not in got["classes"]:
        problems.append(f"raised {got['classes'][0]} instead of {expect[1]}: {got['message'][:300]}")
    return problems


def _same_output(got, text):
    if not got.get("truncated"):
        return got["output"] == text
    import hashlib
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest() == got["sha"]


def _shown(text):
    return repr(text) if len(text) <= 120 else f"{text[:100]!r}... ({len(text)} characters)"


def measure_problems(result):
    """The resource limits every case and every step of it must stay within."""
    problems = []
    for step in [result] + result.get("then", []) + ([result["repeat"]] if result.get("repeat") else []):
        name = step.get("step", "the render")
        if step.get("cpu_s", 0) > CASE_SECONDS:
            problems.append(f"{name} took {step['cpu_s']:.1f} s of CPU (limit {CASE_SECONDS:g} s)")
        if step.get("compile_s", 0) > COMPILE_SECONDS:
            problems.append(f"{name}: compiling took {step['compile_s']:.1f} s of CPU (limit {COMPILE_SECONDS:g} s)")
        if (step.get("peak_mb") or 0) > CASE_MEMORY_MB:
            problems.append(f"{name} peaked at +{step['peak_mb']:.0f} MB (limit {CASE_MEMORY_MB} MB)")
    if result.get("mutated"):
        problems.append("the caller's data changed")
    if result.get("poisoned"):
        problems.append(f"later renders in the process changed: {result['poisoned']}")
    if (result.get("retained_mb") or 0) > RETAINED_MB:
        problems.append(f"the process kept +{result['retained_mb']:.0f} MB after the case (limit {RETAINED_MB} MB)")
    repeat = result.get("repeat")
    if repeat and repeat.get("growth_kb") is not None and repeat["growth_kb"] > REPEAT_GROWTH_KB:
        problems.append(f"memory grew by {repeat['growth_kb']} kB over {repeat['renders']} more renders "
                        f"(limit {REPEAT_GROWTH_KB} kB)")
    return problems


def problems(case, result, other_process=None):
    """Every promise `case` broke in `result` (empty: the case passes). `other_process`: the case's result from
    another process, for a "stable" expectation."""
    if result is None:
        return ["no result (the harness lost the case)"]
    found = outcome_problems(case.expect, result)
    if result.get("kind") not in ("out", "error", "leak"):
        return found
    for step, got in zip(case.then, result.get("then", [])):
        found += [f"{got['step']}: {p}" for p in outcome_problems(step.expect, got)]
    if len(result.get("then", [])) < len(case.then):
        found.append("follow-up renders missing")
    if case.expect[0] == "stable" and other_process is not None and result.get("kind") == "out":
        if other_process.get("kind") != "out" or other_process["sha"] != result["sha"]:
            shown = _shown(other_process["output"]) if other_process.get("kind") == "out" else other_process.get("kind")
            found.append(f"another process printed {shown} instead of {_shown(result['output'])}")
    return found + measure_problems(result)


FAILURE_CLASSES = (("crash:", "crash"), ("hang:", "hang"), ("compiling took", "compile time"), ("took", "time"),
                   ("peaked", "memory"), ("memory:", "memory"), ("MemoryError", "memory"),
                   ("memory grew", "leak"), ("kept +", "leak"), ("later renders", "poisoned"),
                   ("caller's data", "mutation"), ("non-TemplateError", "exception"), ("address", "address"))


def failure_class(problem):
    for marker, name in FAILURE_CLASSES:
        if marker in problem:
            return name
    return "wrong outcome"


