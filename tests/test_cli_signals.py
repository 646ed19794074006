"""The command line's edges: a SIGTERM, SIGHUP or Ctrl-C at any line of the CLI's own code (argument parsing, the error
branches, the output's temporary file, the hand-back of the signal handlers), or after main() has returned while
the program exits, or at any line of a batch pool's start and stop; and closed or broken standard streams. Each
ends with one `error: ` line (or none) and a status the help states, never a traceback or a death by signal, no
worker left and no output file but a finished one; main() called in-process gives its caller's signal handling
back as it was.

The signals are sent by the process to itself (os.kill), or the handler's exception raised, at an exact point
chosen by a trace function or an atexit hook, so each case is deterministic; one child process runs many cases."""

import json
import multiprocessing
import operator
import os
import signal
import subprocess
import sys
import time

import pytest

try:
    import tomllib
except ImportError:  # Python < 3.11
    tomllib = None

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
pytestmark = pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="POSIX signals")

# In the child: every command of ARGVS run as `python -m minijinja_py` does (runpy, __main__.py), once as it is and
# then once per line the CLI's own code runs from the start of _run to the end, with the signal sent at that line.
_AT_EVERY_LINE = r"""
import importlib.util, io, json, os, runpy, signal, sys
from minijinja_py import cli

SIG = getattr(signal, sys.argv[1])
ARGVS = json.loads(sys.argv[2])
OUTDIR = sys.argv[3]
FILES = {os.path.realpath(importlib.util.find_spec(f"minijinja_py.{name}").origin)
         for name in ("cli", "cli_files", "__main__")}
SEEN = {}  # a code object's file name -> whether it is one of FILES


class Inject:
    # A trace function: counts the lines run in the CLI's files from the start of _run where SIG can land (it is
    # not blocked), and sends SIG at line `at`.
    def __init__(self, at):
        self.at, self.count, self.started = at, 0, False

    def __call__(self, frame, event, arg):
        name = frame.f_code.co_filename
        if name not in SEEN:
            SEEN[name] = os.path.realpath(name) in FILES
        if not SEEN[name]:
            return None
        self.started = self.started or frame.f_code.co_name == "_run"
        return self.line

    def line(self, frame, event, arg):
        if event == "line" and self.started and SIG not in signal.pthread_sigmask(signal.SIG_BLOCK, []):
            self.count += 1
            if self.count == self.at:
                os.kill(os.getpid(), SIG)
        return self.line


def once(argv, at):
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    sys.argv = ["minijinja-py", *argv]
    sys.stdout, sys.stderr = io.StringIO(), io.StringIO()
    inject = Inject(at)
    status = escaped = None
    sys.settrace(inject)
    try:
        runpy.run_module("minijinja_py", run_name="__main__")
        escaped = "returned"
    except SystemExit as exc:
        status = exc.code
    except BaseException as exc:
        escaped = type(exc).__name__
    finally:
        sys.settrace(None)
        err = sys.stderr.getvalue()
        sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
        sys.modules.pop("minijinja_py.__main__", None)
        # the program may have left the signals blocked (it was about to exit): drop a pending one, unblock
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM, signal.SIGHUP})
    left = sorted(os.listdir(OUTDIR))
    for name in left:
        os.unlink(os.path.join(OUTDIR, name))
    return {"status": status, "escaped": escaped, "err": err, "lines": inject.count, "left": left}


results = []
for argv in ARGVS:
    plain = once(argv, 0)
    for at in range(1, plain["lines"] + 1):
        results.append(dict(once(argv, at), argv=argv, at=at, plain=plain))
print(json.dumps(results))
"""


# SIGHUP takes SIGTERM's way through the CLI (one handler, one exception): it is sent at every line of the commands
# whose stop has the most to clean up or report — an error branch, an output file, a batch — not of all eight,
# which would add as long again to the run.
@pytest.mark.parametrize("name, status, line, commands", [("SIGTERM", 143, "error: terminated\n", None),
                                                          ("SIGINT", 130, "error: interrupted\n", None),
                                                          ("SIGHUP", 129, "error: hung up\n", (3, 5, 6))])
def test_a_signal_at_any_line_of_the_cli_gives_one_line_and_a_documented_status(tmp_path, name, status, line,
                                                                                commands):
    """The first SIGTERM, SIGHUP or Ctrl-C, at each line of cli.py, cli_files.py and __main__.py from the argument
    parsing
    to the end where it can land (the error branches writing their line, the output's temporary file made and
    renamed, the signal handlers handed back): either the command's own outcome (the signal came once it was
    decided) or the signal's, with one line, and no output file but a finished one; never a traceback or an
    exception out of the program (before: _Terminated or KeyboardInterrupt escaped from the error branches and
    main()'s finally)."""
    bad = tmp_path / "bad.jinja"
    bad.write_text("{{ messages | nosuchfilter }}")
    tiny = tmp_path / "tiny.jinja"
    tiny.write_text("{{ messages | length }}")
    conv = tmp_path / "conv.json"
    conv.write_text('{"messages": [{"role": "user", "content": "Hi"}]}')
    lines = tmp_path / "in.jsonl"
    lines.write_text(conv.read_text() + "\nnot json\n" + conv.read_text() + "\n")
    out = tmp_path / "out"
    out.mkdir()
    argvs = [["list"], ["--version"], ["render", "hermes4", str(tmp_path / "missing.json")],
             ["render", str(bad), str(conv)], ["render", str(bad), str(conv), "--limit", "nonsense"],
             ["render", str(tiny), str(conv), "-o", str(out / "prompt.txt")],
             ["batch", str(tiny), str(lines), "-o", str(out / "out.jsonl"), "--quiet", "--on-error", "skip"],
             ["batch", str(tiny), str(lines), "-o", str(out / "out.jsonl"), "--quiet"]]
    plain_outcomes = [(0, []), (0, []), (2, []), (1, []), (2, []), (0, ["prompt.txt"]), (0, ["out.jsonl"]), (2, [])]
    if commands is not None:
        argvs, plain_outcomes = [argvs[i] for i in commands], [plain_outcomes[i] for i in commands]
    child = subprocess.run([sys.executable, "-c", _AT_EVERY_LINE, name, json.dumps(argvs), str(out)],
                           capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert child.returncode == 0, child.stderr[-3000:]
    results = json.loads(child.stdout)
    assert {tuple(r["argv"]) for r in results} == {tuple(a) for a in argvs}
    plain = {tuple(r["argv"]): r["plain"] for r in results}
    assert [(plain[tuple(a)]["status"], plain[tuple(a)]["left"]) for a in argvs] == plain_outcomes
    bad_cases = []
    for r in results:
        before = r["plain"]
        if r["escaped"] is not None:
            bad_cases.append((r["argv"], r["at"], f"{r['escaped']} escaped", r["err"]))
        elif r["status"] == status:  # the lines written before it stopped (a batch's bad line), then its own
            if not (r["err"].endswith(line) and before["err"].startswith(r["err"][:-len(line)])) or r["left"]:
                bad_cases.append((r["argv"], r["at"], r["status"], r["err"], r["left"]))
        elif (r["status"], r["err"], r["left"]) != (before["status"], before["err"], before["left"]):
            bad_cases.append((r["argv"], r["at"], r["status"], r["err"], r["left"]))
    assert not bad_cases, f"{len(bad_cases)} of {len(results)}: {bad_cases[:5]}"
    assert sum(r["status"] == status for r in results) > len(results) // 2  # the signal did land, mostly


# In the child: the program as `python -m minijinja_py` runs it, with SIGTERM, SIGHUP and SIGINT sent to itself by
# an atexit hook, once main() has returned and the interpreter is exiting.
_AT_EXIT = r"""
import atexit, os, runpy, signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)
atexit.register(lambda: (os.kill(os.getpid(), signal.SIGTERM), os.kill(os.getpid(), signal.SIGHUP),
                         os.kill(os.getpid(), signal.SIGINT)))
entry, sys.argv = sys.argv[1], ["minijinja-py", *sys.argv[2:]]
if entry == "-m":
    runpy.run_module("minijinja_py", run_name="__main__")
else:  # what the console script does: sys.exit(<the function pyproject.toml names>())
    module, function = entry.split(":")
    sys.exit(getattr(__import__(module, fromlist=[function]), function)())
"""


def _console_script():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)["project"]["scripts"]["minijinja-py"]


@pytest.mark.parametrize("entry", ["python -m", "console script"])
@pytest.mark.parametrize("argv, status", [(["list"], 0), (["render", "hermes4", "/nonexistent/conv.json"], 2)])
def test_signals_after_main_returned_do_not_kill_the_exiting_program(entry, argv, status):
    """SIGTERM, SIGHUP and Ctrl-C while the program exits, after the command ended without a signal: the command's
    status (before: main() had put the default handlers back, and the process died by SIGTERM, status -15)."""
    if entry == "console script" and tomllib is None:
        pytest.skip("reads pyproject.toml with tomllib (Python 3.11 and later)")
    how = "-m" if entry == "python -m" else _console_script()
    child = subprocess.run([sys.executable, "-c", _AT_EXIT, how, *argv], capture_output=True, text=True, cwd=ROOT,
                           timeout=60)
    assert child.returncode == status, child.stderr[-2000:]
    assert "Traceback" not in child.stderr and child.stderr.count("\n") == (1 if status else 0)


_IN_PROCESS = r"""
import json, os, signal, sys
from minijinja_py import cli

got = []
signal.signal(signal.SIGTERM, lambda signum, frame: got.append(signum))
signal.signal(signal.SIGHUP, signal.SIG_IGN if sys.argv[1] == "nohup" else lambda signum, frame: got.append(signum))
signal.signal(signal.SIGINT, signal.default_int_handler)
real_run = cli._run


def run_and_get_a_signal(*args):
    # the first signal lands while the command runs ("nohup": a SIGHUP the caller ignores)
    os.kill(os.getpid(), signal.SIGHUP if sys.argv[1] == "nohup" else getattr(signal, sys.argv[1]))
    return real_run(*args)


cli._run = run_and_get_a_signal
status = cli.main(["list"])
blocked = sorted(int(s) for s in signal.pthread_sigmask(signal.SIG_BLOCK, []))
handlers = [getattr(signal.getsignal(signal.SIGTERM), "__name__", None),
            signal.getsignal(signal.SIGINT) is signal.default_int_handler,
            getattr(signal.getsignal(signal.SIGHUP), "__name__", str(signal.getsignal(signal.SIGHUP)))]
cli._run = real_run
second = cli.main(["list"])  # a caller that goes on can run it again, and gets its own signals after it
os.kill(os.getpid(), signal.SIGTERM)
os.kill(os.getpid(), signal.SIGHUP)
try:
    os.kill(os.getpid(), signal.SIGINT)
    interrupted = False
except KeyboardInterrupt:
    interrupted = True
sys.stderr.write(json.dumps([status, second, blocked, handlers, got, interrupted]) + "\n")
"""


@pytest.mark.parametrize("name, status, line", [("SIGTERM", 143, "error: terminated"),
                                                ("SIGINT", 130, "error: interrupted"),
                                                ("SIGHUP", 129, "error: hung up"), ("nohup", 0, None)])
def test_main_in_process_gives_the_caller_its_signals_back(name, status, line):
    """cli.main() called in-process (a tool, a test) that got a real SIGTERM, SIGHUP or Ctrl-C: it returns the
    status and leaves the caller's handlers in place and no signal blocked (before: they stayed blocked in the
    thread, and the caller never saw a signal again). A SIGHUP the caller ignores (nohup) stays ignored: the command
    goes on."""
    child = subprocess.run([sys.executable, "-c", _IN_PROCESS, name], capture_output=True, text=True, cwd=ROOT,
                           timeout=60)
    assert child.returncode == 0, child.stderr[-2000:]
    err_lines = child.stderr.splitlines()
    assert err_lines[:-1] == ([line] if line else [])
    status_got, second, blocked, handlers, got, interrupted = json.loads(err_lines[-1])
    assert (status_got, second) == (status, 0)
    hangup = str(signal.SIG_IGN) if name == "nohup" else "<lambda>"
    assert blocked == [] and handlers == ["<lambda>", True, hangup]
    assert got == ([signal.SIGTERM] if name == "nohup" else [signal.SIGTERM, signal.SIGHUP]) and interrupted


# ---------------------------------------------------------------------------------------- standard streams
def _program(argv, close=(), **kwargs):
    """`python -m minijinja_py ARGV` with the standard streams named in `close` closed before it starts (as a
    shell's `>&-` does)."""
    def closing():
        for fd in close:
            os.close(fd)
    return subprocess.Popen([sys.executable, "-m", "minijinja_py", *argv], cwd=ROOT, preexec_fn=closing, **kwargs)


def test_a_closed_stdout_is_an_output_error_only_where_the_command_writes_to_it(tmp_path):
    """Before: `error: unexpected AttributeError` and status 1, also for `render -o FILE`, which does not use
    stdout."""
    for argv in (["list"], ["render", "hermes4", "examples/tool_call.json"], ["check", "hermes4"]):
        child = _program(argv, close=(1,), stderr=subprocess.PIPE)
        err = child.communicate(timeout=60)[1].decode()
        assert (child.returncode, err) == (2, "error: stdout: cannot write (it is closed)\n"), argv
    out = tmp_path / "prompt.txt"
    child = _program(["render", "hermes4", "examples/tool_call.json", "-o", str(out)], close=(1,),
                     stderr=subprocess.PIPE)
    assert (child.communicate(timeout=60)[1], child.returncode) == (b"", 0)
    assert out.read_text().startswith("<|begin_of_text|>")


def test_a_closed_stdin_is_an_input_error(tmp_path):
    for argv in (["render", "hermes4", "-"], ["batch", "hermes4", "-", "-o", str(tmp_path / "o.jsonl")]):
        child = _program(argv, close=(0,), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        out, err = child.communicate(timeout=60)
        assert (child.returncode, out, err.decode()) == (2, b"", "error: stdin: cannot read (it is closed)\n"), argv
    assert os.listdir(tmp_path) == []


def test_a_closed_stderr_keeps_the_status():
    child = _program(["render", "hermes4", "/nonexistent/conv.json"], close=(2,), stdout=subprocess.PIPE)
    assert child.communicate(timeout=60)[0] == b"" and child.returncode == 2


def _stderr_gone(argv, **kwargs):
    # The program with the reader of its stderr gone before it writes (a pipe whose other end is closed).
    read, write = os.pipe()
    os.close(read)
    try:
        child = subprocess.Popen([sys.executable, "-m", "minijinja_py", *argv], cwd=ROOT, stderr=write, **kwargs)
    finally:
        os.close(write)
    child.communicate(timeout=60)
    return child.returncode


def test_stderr_whose_reader_is_gone_keeps_the_status(tmp_path):
    """A line that cannot go to stderr (its reader gone) is dropped, and the status stays: before, the
    BrokenPipeError of an error line ended the program with status 1 and a traceback, and one of a batch's bad-line
    report was taken for stdout's reader going away (status 0, and the finished output thrown away)."""
    assert _stderr_gone(["render", "hermes4", "/nonexistent/conv.json"], stdout=subprocess.DEVNULL) == 2
    source = tmp_path / "in.jsonl"
    source.write_text('{"messages": [{"role": "user", "content": "Hi"}]}\nnot json\n' * 3)
    out = tmp_path / "out.jsonl"
    status = _stderr_gone(["batch", "hermes4", str(source), "-o", str(out), "--on-error", "skip"])
    assert status == 0 and len(out.read_text().splitlines()) == 3
    assert _stderr_gone(["batch", "hermes4", str(source), "-o", str(out)]) == 2


def test_stdout_whose_reader_is_gone_ends_quietly():
    """`minijinja-py render ... | head -c 0`: the reader went away, which is not an error of ours (status 0),
    and nothing on stderr (Python's own report of the failed flush at exit included)."""
    for argv in (["list"], ["render", "hermes4", "examples/tool_call.json"]):
        read, write = os.pipe()
        os.close(read)
        try:
            child = subprocess.Popen([sys.executable, "-m", "minijinja_py", *argv], cwd=ROOT, stdout=write,
                                     stderr=subprocess.PIPE)
        finally:
            os.close(write)
        err = child.communicate(timeout=60)[1]
        assert (child.returncode, err) == (0, b""), argv


# ------------------------------------------------------------------------------------- batch worker processes
def _signal_can_land():
    return signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, [])


def test_an_interrupt_at_any_line_of_starting_or_stopping_a_pool_leaves_no_worker():
    """KeyboardInterrupt, as Ctrl-C's handler raises it, at each line of the pool's start and stop in workers.py
    where Ctrl-C is not held (blocked): every worker started is stopped and reaped (before: a pool made just before
    the `try` that stops it, and a stop cut short before it held the signals, left its workers running)."""
    from minijinja_py.chat import workers
    machinery = {workers.ordered_results.__code__, *(f.__code__ for f in vars(workers._Pool).values()
                                                     if callable(f)),
                 *(f.__code__ for f in vars(workers.StopSignalsHeld).values() if callable(f))}

    def run(at):
        count = 0

        def line(frame, event, arg):
            nonlocal count
            if event == "line" and _signal_can_land():
                count += 1
                if count == at:
                    raise KeyboardInterrupt
            return line

        def calls(frame, event, arg):
            return line if frame.f_code in machinery else None

        sys.settrace(calls)
        try:
            got = list(workers.ordered_results(operator.getitem, list(range(4)), ((n, n) for n in range(4)), 2))
            assert got == [(n, n) for n in range(4)]
        except KeyboardInterrupt:
            pass
        finally:
            sys.settrace(None)
        left = multiprocessing.active_children()
        for process in left:  # so that one failure does not pile up workers
            process.kill()
            process.join()
        return count, len(left)

    total, left = run(0)
    assert left == 0 and total > 10
    leaks = [(at, left) for at, left in ((at, run(at)[1]) for at in range(1, total + 1)) if left]
    assert not leaks, f"workers left behind when interrupted at these lines (of {total}): {leaks}"


@pytest.mark.skipif(not os.path.exists("/proc/self/wchan"), reason="needs /proc to see the open block")
@pytest.mark.parametrize("name, status, line", [("SIGTERM", 143, b"error: terminated\n"),
                                                ("SIGINT", 130, b"error: interrupted\n"),
                                                ("SIGHUP", 129, b"error: hung up\n")])
def test_a_signal_stops_a_command_blocked_opening_a_named_pipe_output(tmp_path, name, status, line):
    """`-o FIFO` with no reader blocks in open(): the signals are held only while a regular file's temporary file
    is made or renamed, so SIGTERM and Ctrl-C still stop it (a guard: holding them around every open would not)."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    child = subprocess.Popen([sys.executable, "-m", "minijinja_py", "render", "hermes4", "examples/tool_call.json",
                              "-o", str(fifo)], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             preexec_fn=lambda: (signal.signal(signal.SIGINT, signal.SIG_DFL),
                                                 signal.signal(signal.SIGHUP, signal.SIG_DFL)))
    blocked = False
    try:
        deadline = time.monotonic() + 60
        while not blocked and child.poll() is None and time.monotonic() < deadline:
            with open(f"/proc/{child.pid}/wchan") as f:
                blocked = f.read() == "wait_for_partner"  # blocked opening the FIFO for writing
            time.sleep(0.01)
        if blocked:
            child.send_signal(getattr(signal, name))
            err = child.communicate(timeout=10)[1]
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        child.stderr.close()
    if not blocked:
        pytest.skip(f"the kernel does not show the blocked open (status {child.returncode})")
    assert (child.returncode, err) == (status, line)
