"""The hostile suite's section for the command line and batch (issue 24: 3, 4 for the CLI's own reads, 9, 14,
17): each case runs `python -m minijinja_py ...` as a child process with a 1 GiB address-space cap
(RLIMIT_AS, set in preexec_fn), and must end within 5 s of CPU time (its own and its workers': what the work
costs, whatever else the machine runs) and 30 s of wall time (a CLI that blocks), below 500 MB of peak RSS (its
own or any worker's),
with the exit status the CLI's help states (0 done, 1 a template error, 2 bad usage or unreadable input, 130
interrupted), one `error: ` line per failure on stderr and never a traceback, and every input file unchanged.
SIGINT is sent to the whole process group, as a terminal's Ctrl-C is, while `batch --workers 2` runs."""

import hashlib
import io
import json
import os
import random
import resource
import signal
import subprocess
import sys
import threading
import time

import pytest

import minijinja_py as mj
from minijinja_py.chat import batch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ADDRESS_SPACE = 1 << 30
MAX_SECONDS = 5.0   # of CPU time for one command (its workers' included); the signal tests: of wall time to stop
WALL_FACTOR = 6     # a command is also stopped after MAX_SECONDS × this of wall time (it blocks), as in hostile_runner
MAX_RSS_MB = 500
CONVERSATION = {"messages": [{"role": "user", "content": "Hi!"}], "add_generation_prompt": True}
HELP_STATUSES = {0, 1, 2, 130, 143}

# run in the child: the command, then its peak RSS (the largest of the processes it waited for) and its CPU time
# (user + system, of the command and the workers it waited for) into a file
_MEASURE = ("import json, resource, subprocess, sys; status = subprocess.run(sys.argv[2:]).returncode; "
            "used = resource.getrusage(resource.RUSAGE_CHILDREN); "
            "open(sys.argv[1], 'w').write(json.dumps([status, used.ru_maxrss, used.ru_utime + used.ru_stime])); "
            "sys.exit(status)")


def _cap_address_space():
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def _as_from_a_terminal():
    """The child as a terminal starts it: address space capped, SIGINT and SIGHUP at their defaults. A shell's
    background job (`.ci/run &`) inherits SIGINT ignored, and Python then leaves Ctrl-C ignored in the child, as
    POSIX wants (and a run under nohup, SIGHUP)."""
    _cap_address_space()
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


def _digest(paths):
    found = {}
    for path in paths:
        if os.path.isfile(path):
            with open(path, "rb") as f:
                found[path] = hashlib.sha256(f.read()).hexdigest()
    return found


def cli(tmp_path, *argv, stdin=None, stdout=None, inputs=()):
    """Run the CLI capped and measured; check the rules every case shares; return (status, stdout, stderr). Time is
    checked as CPU time, as the hostile harness does (hostile_runner.py): a loaded machine (CI, benchmarks beside)
    stretches the wall time of the same work; the wall-clock bound, WALL_FACTOR times longer, catches a CLI that
    blocks."""
    measure = str(tmp_path / "measure.json")
    before = _digest(inputs)
    start = time.monotonic()
    result = subprocess.run([sys.executable, "-c", _MEASURE, measure, sys.executable, "-m", "minijinja_py", *argv],
                            stdin=stdin if stdin is not None else subprocess.DEVNULL,
                            stdout=stdout if stdout is not None else subprocess.PIPE, stderr=subprocess.PIPE,
                            cwd=ROOT, preexec_fn=_cap_address_space, timeout=MAX_SECONDS * WALL_FACTOR * 2)
    seconds = time.monotonic() - start
    with open(measure) as f:
        status, peak_kib, cpu_seconds = json.load(f)
    err = result.stderr.decode("utf-8", "replace")
    assert cpu_seconds < MAX_SECONDS, f"{argv}: {cpu_seconds:.1f} s of CPU"
    assert seconds < MAX_SECONDS * WALL_FACTOR, f"{argv}: {seconds:.1f} s (wall)"
    assert peak_kib / 1024 < MAX_RSS_MB, f"{argv}: {peak_kib / 1024:.0f} MB"
    assert status in HELP_STATUSES and "Traceback" not in err and "unexpected" not in err, err
    assert _digest(inputs) == before, "an input was changed"
    if status:
        assert err.startswith("error: "), err
    return status, result.stdout, err


def jsonl(path, lines):
    with open(path, "w", encoding="utf-8") as f:
        for line in lines:
            f.write((line if isinstance(line, str) else json.dumps(line, ensure_ascii=False)) + "\n")
    return str(path)


@pytest.fixture
def files(tmp_path):
    conv = tmp_path / "conv.json"
    conv.write_text(json.dumps(CONVERSATION))
    tools = tmp_path / "tools.json"
    tools.write_text("[]")
    data = jsonl(tmp_path / "in.jsonl", [CONVERSATION] * 5)
    return {"conv": str(conv), "tools": str(tools), "in": data}


def _no_leftovers(folder, expected):
    assert sorted(os.listdir(folder)) == sorted(expected + ["measure.json"])


# ------------------------------------------------------------------------------- 3. the output is an input
@pytest.mark.parametrize("link", ["same", "symlink", "hardlink", "relative"])
def test_batch_refuses_to_write_over_its_input(tmp_path, files, link):
    out = files["in"]
    if link == "symlink":
        out = str(tmp_path / "link.jsonl")
        os.symlink(files["in"], out)
    elif link == "hardlink":
        out = str(tmp_path / "hard.jsonl")
        os.link(files["in"], out)
    elif link == "relative":
        out = os.path.relpath(files["in"], ROOT)
    status, _, err = cli(tmp_path, "batch", "hermes4", files["in"], "-o", out, inputs=[files["in"]])
    assert status == 2 and "the output is the same file as the input" in err and err.count("\n") == 1


@pytest.mark.parametrize("which", ["conv", "tools"])
def test_render_refuses_to_write_over_its_inputs(tmp_path, files, which):
    status, _, err = cli(tmp_path, "render", "hermes4", files["conv"], "--tools", files["tools"], "-o",
                         files[which], inputs=[files["conv"], files["tools"]])
    assert status == 2 and "the output is the same file as the input" in err


def test_batch_refuses_the_template_file_and_the_tools_file_as_output(tmp_path, files):
    template = tmp_path / "t.jinja"
    template.write_text("{{ messages|length }}")
    for out in (str(template), files["tools"]):
        status, _, err = cli(tmp_path, "batch", str(template), files["in"], "--tools", files["tools"], "-o", out,
                             inputs=[str(template), files["tools"], files["in"]])
        assert status == 2 and "the output is the same file as the input" in err


def test_stdout_appending_to_the_input_is_refused(tmp_path, files):
    """`batch T in.jsonl -o - >> in.jsonl` would read its own output for ever."""
    with open(files["in"], "ab") as appended:
        status, _, err = cli(tmp_path, "batch", "hermes4", files["in"], "-o", "-", stdout=appended,
                             inputs=[files["in"]])
    assert status == 2 and "stdout: the output is the same file as the input" in err


def test_stdin_as_the_output_is_refused(tmp_path, files):
    with open(files["in"], "rb") as source:
        status, _, err = cli(tmp_path, "batch", "hermes4", "-", "-o", files["in"], stdin=source,
                             inputs=[files["in"]])
    assert status == 2 and "the same file as the input '-'" in err


def test_a_finished_batch_replaces_the_output_whole_and_keeps_its_mode(tmp_path, files):
    out = tmp_path / "out.jsonl"
    out.write_text("old\n")
    os.chmod(out, 0o640)
    status, _, err = cli(tmp_path, "batch", "hermes4", files["in"], "-o", str(out), "--quiet", inputs=[files["in"]])
    assert status == 0 and len(out.read_text().splitlines()) == 5
    assert oct(os.stat(out).st_mode & 0o777) == oct(0o640)
    _no_leftovers(tmp_path, ["conv.json", "tools.json", "in.jsonl", "out.jsonl"])


def test_a_symlinked_output_is_written_through_the_link(tmp_path, files):
    target = tmp_path / "target.jsonl"
    target.write_text("old\n")
    os.symlink(target, tmp_path / "link.jsonl")
    status, _, _ = cli(tmp_path, "batch", "hermes4", files["in"], "-o", str(tmp_path / "link.jsonl"), "--quiet")
    assert status == 0 and os.path.islink(tmp_path / "link.jsonl") and len(target.read_text().splitlines()) == 5


def test_render_output_is_renamed_into_place(tmp_path, files):
    out = tmp_path / "prompt.txt"
    status, stdout, _ = cli(tmp_path, "render", "hermes4", files["conv"], "-o", str(out))
    assert status == 0 and stdout == b"" and out.read_text().startswith("<|begin_of_text|>")
    _no_leftovers(tmp_path, ["conv.json", "tools.json", "in.jsonl", "prompt.txt"])


# -------------------------------------------------------------------- 4. the CLI's reads: regular files only
def _fifo(tmp_path):
    path = str(tmp_path / "fifo")
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("special", ["fifo", "/dev/zero", "folder"])
@pytest.mark.parametrize("role", ["template", "conversation", "tools", "batch input"])
def test_inputs_that_are_not_regular_files_are_refused(tmp_path, files, special, role):
    path = {"fifo": lambda: _fifo(tmp_path), "/dev/zero": lambda: "/dev/zero",
            "folder": lambda: str(tmp_path)}[special]()
    argv = {"template": ["render", path, files["conv"]],
            "conversation": ["render", "hermes4", path],
            "tools": ["render", "hermes4", files["conv"], "--tools", path],
            "batch input": ["batch", "hermes4", path, "-o", str(tmp_path / "o.jsonl")]}[role]
    status, _, err = cli(tmp_path, *argv)
    assert status == 2 and err.count("\n") == 1
    if special == "folder" and role == "template":  # a folder is a model folder, here one without a template
        assert "no chat template" in err or "no tokenizer_config.json" in err or "chat_template" in err, err
    else:
        assert "not a regular file" in err or "neither a regular file nor a folder" in err, err


def test_a_conversation_file_past_the_cap_is_refused_after_reading_the_cap(tmp_path):
    big = tmp_path / "big.json"
    with open(big, "w") as f:
        f.write('{"messages": [], "x": "' + "a" * batch.MAX_CONVERSATION_BYTES + '"}')
    status, _, err = cli(tmp_path, "render", "hermes4", str(big))
    assert status == 2 and "larger than the 16777216 bytes allowed for the conversation" in err


def test_a_jsonl_line_past_the_cap_is_one_bad_line(tmp_path):
    long_line = '{"messages": [], "x": "' + "a" * (batch.MAX_CONVERSATION_BYTES + 10) + '"}'
    source = jsonl(tmp_path / "in.jsonl", [CONVERSATION, long_line, CONVERSATION])
    for workers in ("1", "2"):
        status, stdout, err = cli(tmp_path, "batch", "hermes4", source, "-o", "-", "--on-error", "skip", "--quiet",
                                  "--workers", workers, inputs=[source])
        assert status == 0 and [json.loads(x)["line"] for x in stdout.splitlines()] == [1, 3]
        assert err == f"error: {source}:2: not a conversation: the line is longer than 16 MiB\n"
    with open(source, "a") as f:
        f.write(long_line)  # the last line, without a newline
    status, stdout, err = cli(tmp_path, "batch", "hermes4", source, "-o", "-", "--on-error", "skip", "--quiet")
    assert status == 0 and err.count("longer than 16 MiB") == 2 and f"{source}:4:" in err


@pytest.mark.parametrize("count, status", [(batch.MAX_CONVERSATION_BYTES // 3 - 20, 2),
                                          (batch.MAX_JSON_VALUES // 2 - 10, 1)])
def test_json_inflation_within_the_byte_cap(tmp_path, count, status):
    """16 MiB of `[[],[],...]` would parse to ~400 MB of lists in seconds: refused by counting its values before
    parsing; under the count, parsed and refused by the render (messages must be dicts)."""
    source = tmp_path / "inflate.json"
    source.write_text('{"messages": [' + ",".join(["[]"] * count) + "]}")
    got, _, err = cli(tmp_path, "render", "hermes4", str(source))
    assert got == status and ("more than 2,000,000 JSON values" in err if status == 2 else "should be dicts" in err)
    line = jsonl(tmp_path / "inflate.jsonl", [source.read_text(), CONVERSATION])
    got, stdout, err = cli(tmp_path, "batch", "hermes4", line, "-o", "-", "--on-error", "skip", "--quiet")
    assert got == 0 and len(stdout.splitlines()) == 1 and f"{line}:1:" in err


# ------------------------------------------------------------------------------ 17. no last-resort errors
@pytest.mark.parametrize("var, message", [
    ("x=" + "[" * 100_000, "nested too deeply"),  # one argument holds at most 128 KiB: 10^5 deep, unclosed
    ("x=" + "[" * 60_000 + "]" * 60_000, "nested too deeply"),
    ("messages=1", "cannot be one"),
    ("self=1", "cannot be one"),
])
def test_vars_that_render_cannot_take_are_usage_errors(tmp_path, files, var, message):
    for command in (["render", "hermes4", files["conv"]], ["batch", "hermes4", files["in"], "-o", "-"]):
        status, _, err = cli(tmp_path, *command, "--var", var)
        assert status == 2 and message in err and err.count("\n") == 1


def test_a_conversation_key_named_self(tmp_path, files):
    conv = tmp_path / "self.json"
    conv.write_text(json.dumps(dict(CONVERSATION, self=1)))
    status, _, err = cli(tmp_path, "render", "hermes4", str(conv))
    assert status == 2 and "variable named 'self'" in err
    source = jsonl(tmp_path / "mixed.jsonl", [CONVERSATION, dict(CONVERSATION, self=1), CONVERSATION])
    status, stdout, err = cli(tmp_path, "batch", "hermes4", source, "-o", "-", "--on-error", "skip", "--quiet")
    assert status == 0 and len(stdout.splitlines()) == 2 and f"{source}:2: not a conversation" in err
    status, stdout, err = cli(tmp_path, "batch", "hermes4", source, "-o", "-", "--quiet")
    assert status == 2 and len(stdout.splitlines()) == 1


@pytest.mark.parametrize("command", ["render", "batch"])
def test_writing_to_a_full_device(tmp_path, files, command):
    argv = ["render", "hermes4", files["conv"]] if command == "render" else ["batch", "hermes4", files["in"]]
    status, _, err = cli(tmp_path, *argv, "-o", "/dev/full", "--quiet" if command == "batch" else "--var=a=1")
    assert status == 2 and err == "error: /dev/full: cannot write (No space left on device)\n"
    with open("/dev/full", "wb") as full:
        status, _, err = cli(tmp_path, *argv, "-o", "-", stdout=full)
    assert status == 2 and "cannot write (No space left on device)" in err and err.count("error:") == 1


# ------------------------------------------------------------------------------------ 14. --workers capped
def test_workers_are_capped_at_the_cpus_and_the_blocks(monkeypatch):
    started = []
    real = batch.ordered_results

    def recording(function, context, items, workers):
        started.append(workers)
        return real(function, context, items, workers)

    monkeypatch.setattr(batch, "ordered_results", recording)
    monkeypatch.setattr(batch, "usable_cpus", lambda: 2)
    ct = mj.ChatTemplate("{{ messages|length }}")
    options = batch.BatchOptions({})
    line = (json.dumps(CONVERSATION) + "\n").encode()
    for lines, expected in ((300, []), (20_000, [2])):
        out = io.BytesIO()
        status, rendered, skipped = batch.run_batch(ct, io.BytesIO(line * lines), out, options, workers=1000)
        assert (status, rendered, skipped) == (0, lines, 0)
        assert out.getvalue().splitlines()[-1] == b'{"line": %d, "prompt": "1"}' % lines
        assert started == expected
        started.clear()


def test_a_full_window_freed_at_once_does_not_end_the_batch(tmp_path):
    """One worker held on the oldest item while the other fills the window (a loaded machine does that): when
    the oldest comes back every result is handed back at once and no worker is busy, and the schedule must go on
    sending, not take that for the end of the input (it did: a batch fed from a pipe ended with status 0 after a
    few thousand lines)."""
    import pool_workers
    from minijinja_py.chat.workers import WINDOW, ordered_results
    items = ((n, n) for n in range(40))
    got = list(ordered_results(pool_workers.slow_first, str(tmp_path / "released"), items, 2))
    assert WINDOW == 3 and got == [(n, n) for n in range(40)]


def test_a_thousand_workers_start_no_more_processes_than_cpus(tmp_path):
    source = jsonl(tmp_path / "many.jsonl", [CONVERSATION] * 3000)
    status, stdout, err = cli(tmp_path, "batch", "hermes4", source, "-o", "-", "--workers", "1000", "--quiet")
    assert status == 0 and len(stdout.splitlines()) == 3000


# --------------------------------------------------------------------------------- 9. Ctrl-C during a batch
@pytest.fixture(scope="module")
def long_input(tmp_path_factory):
    folder = tmp_path_factory.mktemp("sigint")
    # Many short messages: about 3 s of rendering for two workers here, so that the signal (at most 0.5 s after
    # the output is opened) always lands while the batch runs, on a faster machine too.
    lines = [{"messages": [{"role": "user", "content": f"Q{i}"}, {"role": "assistant", "content": "A"}] * 15}
             for i in range(60_000)]
    return jsonl(folder / "in.jsonl", lines)


def _group_alive(pgid):
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.parametrize("attempt", range(4))
@pytest.mark.parametrize("target", ["group", "parent", "sigterm", "hangup"])
def test_ctrl_c_stops_a_pooled_batch_cleanly(tmp_path, long_input, attempt, target):
    """Ctrl-C (SIGINT to the process group, as a terminal sends it, or to the batch alone), SIGTERM to the batch,
    or a closed terminal's SIGHUP (to the process group: the workers ignore it, the batch stops them): it stops
    within 5 s with one line, every worker reaped, no output file left."""
    out = tmp_path / "out.jsonl"
    before = _digest([long_input])
    child = subprocess.Popen([sys.executable, "-m", "minijinja_py", "batch", "hermes4", long_input, "-o", str(out),
                              "--workers", "2", "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
                             preexec_fn=_as_from_a_terminal, start_new_session=True)
    started = time.monotonic()  # once the batch runs (its output opened): Ctrl-C during an import is Python's
    while not os.listdir(tmp_path) and child.poll() is None and time.monotonic() - started < 20:
        time.sleep(0.01)
    time.sleep(random.Random(attempt).uniform(0.0, 0.5))
    if child.poll() is not None:   # what ended it says whether the input was too short or the batch failed
        stdout, stderr = child.communicate()
        pytest.fail(f"the batch ended (status {child.returncode}) before the signal: {stderr[-2000:]!r}")
    sent = time.monotonic()
    if target in ("group", "hangup"):
        os.killpg(child.pid, signal.SIGINT if target == "group" else signal.SIGHUP)
    else:
        child.send_signal(signal.SIGTERM if target == "sigterm" else signal.SIGINT)
    try:
        stdout, stderr = child.communicate(timeout=MAX_SECONDS)
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
    assert time.monotonic() - sent < MAX_SECONDS
    expected = {"sigterm": (143, b"error: terminated\n"), "hangup": (129, b"error: hung up\n")}.get(
        target, (130, b"error: interrupted\n"))
    assert (child.returncode, stderr) == expected
    deadline = time.monotonic() + 2
    while _group_alive(child.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _group_alive(child.pid), "a worker outlived the batch"
    assert _digest([long_input]) == before
    assert os.listdir(tmp_path) == []  # neither a half output under the final name nor a temporary file


@pytest.mark.skipif(not os.path.exists("/proc/self/task"), reason="needs /proc to see the stop begin")
@pytest.mark.parametrize("attempt", range(2))
@pytest.mark.parametrize("again", ["sigterm", "ctrl-c"])
def test_more_signals_while_a_pooled_batch_stops_end_it_as_one(tmp_path, long_input, attempt, again):
    """SIGTERM, then more SIGTERMs or Ctrl-Cs from the moment the stop has begun (a worker reaped) until the batch
    has exited: the same clean end as one SIGTERM (status 143, one line, every worker reaped, no output file),
    never a stop cut short, a traceback, or the process killed as it exits (status -15 or -2)."""
    out = tmp_path / "out.jsonl"
    child = subprocess.Popen([sys.executable, "-m", "minijinja_py", "batch", "hermes4", long_input, "-o", str(out),
                              "--workers", "2", "--quiet"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             cwd=ROOT, preexec_fn=_as_from_a_terminal, start_new_session=True)
    try:
        started = time.monotonic()
        while len(_children(child.pid)) < 2 and child.poll() is None and time.monotonic() - started < 60:
            time.sleep(0.01)
        assert len(_children(child.pid)) == 2, child.poll()
        child.send_signal(signal.SIGTERM)
        sent = time.monotonic()
        while len(_children(child.pid)) == 2 and time.monotonic() - sent < MAX_SECONDS:
            time.sleep(0.0005)  # the first SIGTERM is handled: the workers are being stopped
        while child.poll() is None and time.monotonic() - sent < MAX_SECONDS:
            try:
                if again == "sigterm":
                    child.send_signal(signal.SIGTERM)
                else:
                    os.killpg(child.pid, signal.SIGINT)  # as a terminal sends it
            except ProcessLookupError:
                break
            time.sleep(0.0005)
        stderr = child.communicate(timeout=MAX_SECONDS)[1]
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
    assert (child.returncode, stderr) == (143, b"error: terminated\n")
    deadline = time.monotonic() + 2
    while _group_alive(child.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _group_alive(child.pid), "a worker outlived the batch"
    assert os.listdir(tmp_path) == []


def _children(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


def _feed(stream, line):
    # Conversation lines into the batch's stdin until it stops reading (its end of the pipe closed): an input
    # that cannot run out, so the batch is still running whenever the test acts on it.
    try:
        while True:
            stream.write(line * 100)
    except (OSError, ValueError):  # BrokenPipeError: the batch ended; ValueError: closed here
        pass


@pytest.mark.skipif(not os.path.exists("/proc/self/task"), reason="needs /proc to find the workers")
@pytest.mark.parametrize("when", [0.0, 0.3, 0.8])
def test_a_worker_killed_fails_the_batch_in_one_line(tmp_path, when):
    """A worker that dies (the out-of-memory killer, kill -9) ends the batch with status 1 and one line, the
    other worker reaped, no output left: never a hang on a result that cannot come. (The workers are found as the
    batch's children: multiprocessing forks them on Linux up to Python 3.13.) The input comes from a pipe fed
    without end, so that the batch cannot finish before the kill however slow or fast the machine is."""
    out = tmp_path / "out.jsonl"
    line = (json.dumps({"messages": [{"role": "user", "content": "Q"}, {"role": "assistant", "content": "A"}] * 15})
            + "\n").encode()
    child = subprocess.Popen([sys.executable, "-m", "minijinja_py", "batch", "hermes4", "-", "-o", str(out),
                              "--workers", "2", "--quiet"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, cwd=ROOT, preexec_fn=_as_from_a_terminal, start_new_session=True)
    feeder = threading.Thread(target=_feed, args=(child.stdin, line), daemon=True)
    feeder.start()
    try:
        started = time.monotonic()
        while len(_children(child.pid)) < 2 and child.poll() is None and time.monotonic() - started < 60:
            time.sleep(0.01)
        workers = _children(child.pid)
        assert len(workers) == 2, child.poll()
        time.sleep(when)  # busy or idle: a result that cannot come, or a block that cannot go
        try:
            os.kill(workers[0], signal.SIGKILL)  # only the batch reaps it, and the batch cannot have finished
        except ProcessLookupError:
            child.wait(MAX_SECONDS)
            pytest.fail(f"the batch ended (status {child.returncode}) before the kill: {child.stderr.read()[-2000:]!r}")
        child.wait(MAX_SECONDS)
        stderr = child.stderr.read()
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
        feeder.join()  # the batch's end of the pipe is closed: the feeder's write fails and it returns
        try:
            child.stdin.close()
        except OSError:  # what the feeder left in the buffer cannot go
            pass
        child.stderr.close()
    assert child.returncode == 1
    assert stderr == b"error: a batch worker process died (exit status -9)\n", stderr
    deadline = time.monotonic() + 2
    while _group_alive(child.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _group_alive(child.pid)
    assert os.listdir(tmp_path) == []
