"""Command line: render chat templates for conversations, in one go or a JSONL file at a time; check templates."""

#     minijinja-py render TEMPLATE CONVERSATION.json [--tools FILE] [--template-name N] [--add-generation-prompt]
#                         [--continue-final-message] [--var NAME=JSON ...] [-o OUT]
#     minijinja-py batch TEMPLATE INPUT.jsonl -o OUTPUT.jsonl [--workers N] [--on-error skip|fail] [--text] [--quiet]
#     minijinja-py check TEMPLATE [--json]
#     minijinja-py list
#     (every command also takes the limits: --max-steps N, --max-output N, ... or --limit NAME=N)
#
# TEMPLATE is a shipped template name (see `list`), a .jinja file, a chat_template.json / tokenizer_config.json,
# a model folder, a .gguf file, or a model id in the local Hugging Face cache. A conversation is a JSON object
# ("messages" and optionally "tools", "documents", "add_generation_prompt", "continue_final_message",
# "chat_template" and any other template variable; keys starting with "_" are comments) or a bare list of messages.
# Exit status, for every command: 0 done, 1 a template error, 2 bad usage or unreadable input, 129 hung up (SIGHUP:
# its terminal closed), 130 interrupted (Ctrl-C), 143 terminated (SIGTERM); one line on stderr per failure. Inputs
# are read only from regular files (or stdin); the output (-o) is written through a temporary file renamed over it
# when the command succeeds, and is never one of the inputs (cli_files.py).

import argparse
import contextlib
import json
import os
import signal
import stat
import sys
import threading
from typing import IO, Any, ContextManager, NoReturn, Optional, Sequence

from .analysis.variables import template_variables
from .chat.batch import (MAX_CONVERSATION_BYTES, BatchOptions, InputError, Progress, check_variable_names,
                         WorkerFailed, input_size, one_line, parse_conversation, render_arguments, run_batch)
from .chat.capabilities import capabilities_json
from .chat.loading import TemplateLoadError
from .chat.template import (ChatTemplate, TemplateSource, load_chat_template, seed_special_tokens, seed_template,
                            seed_template_names)
from .chat.workers import StopSignalsHeld
from .cli_files import FileProblem, Output, open_regular, read_regular, read_stream, same_file_as
from .core.errors import TemplateError
from .core.state import LIMIT_NAMES, Limits
from .environment import default_globals

__all__ = ["main", "program"]

VERSION = "0.1.0"
_CHAT_GLOBALS = frozenset(default_globals()) | {"raise_exception", "strftime_now"}


class UsageError(Exception):
    """Bad command-line usage or unreadable input: exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, not argparse's usage block
        raise UsageError(f"{message} (see {self.prog} --help)")


# ------------------------------------------------------------------------------------------------- arguments
def _limit_arguments() -> _Parser:
    parent = _Parser(add_help=False)
    group = parent.add_argument_group("limits (see the README's table)")
    for name in LIMIT_NAMES:
        group.add_argument("--" + name.replace("_", "-"), type=int, metavar="N", dest=name, default=None)
    group.add_argument("--limit", action="append", default=[], metavar="NAME=N",
                       help="any limit by its name, e.g. --limit max_steps=20000000 (repeatable)")
    return parent


def _template_arguments() -> _Parser:
    parent = _Parser(add_help=False)
    parent.add_argument("template", help="shipped name, file, folder, .gguf, or cached model id")
    parent.add_argument("--template-name", metavar="N",
                        help="which of several named templates (default: tool_use with tools, else default)")
    return parent


def _render_options() -> _Parser:
    parent = _Parser(add_help=False)
    parent.add_argument("--tools", metavar="FILE", help="a JSON file with the tools (a list, or {\"tools\": [...]})")
    parent.add_argument("--add-generation-prompt", action="store_true", default=None)
    parent.add_argument("--continue-final-message", action="store_true", default=None)
    parent.add_argument("--var", action="append", default=[], metavar="NAME=JSON",
                        help="a template variable (repeatable; a value that is not JSON is a string)")
    return parent


def _parser() -> _Parser:
    parser = _Parser(prog="minijinja-py", description="Render LLM chat templates exactly as transformers' "
                     "apply_chat_template does, without Jinja2.",
                     epilog="Exit status: 0 done, 1 a template error, 2 bad usage or unreadable input, 129 "
                     "hung up, 130 interrupted, 143 terminated.")
    parser.add_argument("--version", action="version", version=f"minijinja-py {VERSION}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    common = [_template_arguments(), _limit_arguments()]
    render = sub.add_parser("render", parents=common + [_render_options()],
                            help="render a chat template for one conversation")
    render.add_argument("conversation", help="JSON file ('-' for stdin)")
    render.add_argument("-o", "--output", metavar="OUT", help="write the prompt here (default: stdout)")
    batch = sub.add_parser("batch", parents=common + [_render_options()],
                           help="render every conversation of a JSONL file")
    batch.add_argument("input", help="JSONL file, one conversation per line ('-' for stdin)")
    batch.add_argument("-o", "--output", metavar="OUT", required=True, help="JSONL file of prompts ('-' for stdout)")
    batch.add_argument("--workers", type=int, default=1, metavar="N",
                       help="worker processes (default 1; at most the CPUs this process may use)")
    batch.add_argument("--on-error", choices=("fail", "skip"), default="fail",
                       help="fail: stop at the first bad line; skip: report it and go on")
    batch.add_argument("--text", action="store_true",
                       help='write each prompt as a JSON string, not {"line": N, "prompt": ...}')
    batch.add_argument("--quiet", action="store_true", help="no progress or summary on stderr")
    check = sub.add_parser("check", parents=common, help="compile a template; list the variables it reads")
    check.add_argument("--json", action="store_true", help="the report as JSON on stdout")
    sub.add_parser("list", help="list the shipped chat templates")
    return parser


def _limits(args: argparse.Namespace) -> Limits:
    values = {name: getattr(args, name) for name in LIMIT_NAMES if getattr(args, name) is not None}
    names = set(LIMIT_NAMES)
    for item in args.limit:
        name, sep, value = item.partition("=")
        if not sep or name not in names:
            raise UsageError(f"--limit takes NAME=N with NAME one of {', '.join(sorted(names))}; got {item!r}")
        try:
            values[name] = int(value)
        except ValueError:
            raise UsageError(f"--limit {name}: {value!r} is not an integer") from None
    try:
        return Limits(**values)
    except (TypeError, ValueError) as exc:
        raise UsageError(f"bad limit: {exc}") from None


def _parse_var(text: str) -> tuple[str, Any]:
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise UsageError(f"--var takes NAME=VALUE, got {text!r}")
    try:
        check_variable_names([name], "--var")
    except InputError as exc:
        raise UsageError(str(exc)) from None
    try:
        return name, json.loads(value)
    except RecursionError:
        raise UsageError(f"--var {name}: the JSON value is nested too deeply") from None
    except ValueError:
        return name, value  # a bare string


def _read_json(path: str, what: str) -> Any:
    """A JSON file of the command line (a conversation, tools; '-' for stdin): a regular file, at most
    MAX_CONVERSATION_BYTES. Unreadable or not JSON: UsageError (exit status 2)."""
    try:
        if path == "-":
            data = read_stream(_standard_stream("stdin").buffer, MAX_CONVERSATION_BYTES, "<stdin>", what)
        else:
            data = read_regular(path, MAX_CONVERSATION_BYTES, what)
    except FileProblem as exc:
        raise UsageError(str(exc)) from None
    try:
        return parse_conversation(data)
    except InputError as exc:
        raise UsageError(f"{path}: the {what} holds {exc}") from None
    except (ValueError, RecursionError) as exc:
        raise UsageError(f"{path}: the {what} is not valid JSON ({one_line(exc)})") from None


def _defaults(args: argparse.Namespace) -> dict[str, Any]:
    """What the command line sets for every conversation: render options and variables."""
    options: dict[str, Any] = {}
    if args.tools is not None:
        tools = _read_json(args.tools, "tools file")
        if isinstance(tools, dict) and "tools" in tools:
            tools = tools["tools"]
        if not isinstance(tools, list):
            raise UsageError(f"{args.tools}: the tools file must hold a list of tools (or {{\"tools\": [...]}})")
        options["tools"] = tools
    if args.add_generation_prompt:
        options["add_generation_prompt"] = True
    if args.continue_final_message:
        options["continue_final_message"] = True
    if args.template_name is not None:
        options["chat_template"] = args.template_name
    return {"options": options, "variables": dict(_parse_var(v) for v in args.var)}


# ------------------------------------------------------------------------------------------------ templates
def _load(spec: str) -> tuple[TemplateSource, dict[str, str], str]:
    """(source, special tokens, label) for TEMPLATE: a path first, then a shipped name, then a cached model id."""
    label = os.path.basename(os.path.normpath(spec)) or spec
    if not os.path.exists(spec) and spec in seed_template_names():
        return seed_template(spec), seed_special_tokens(spec), spec
    try:
        mode = os.stat(spec).st_mode
    except (OSError, ValueError):
        mode = None
    if mode is not None and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):  # a FIFO would block, a device not end
        raise UsageError(f"{spec}: the template is neither a regular file nor a folder")
    try:
        source, special = load_chat_template(spec)
    except TemplateLoadError as exc:
        if mode is None:
            raise UsageError(f"{exc.message} (nor a shipped template: {', '.join(seed_template_names())})") from None
        raise UsageError(exc.message) from None
    return source, special, label


def _chat_template(args: argparse.Namespace) -> ChatTemplate:
    source, special, label = _load(args.template)
    return ChatTemplate(source, limits=_limits(args), name=label, special_tokens=special)


# -------------------------------------------------------------------------------------- standard streams
class _Stderr:
    # sys.stderr as the command writes to it: a line that cannot be written (stderr closed, its reader gone) is
    # dropped, since there is nowhere to say so; the exit status still tells.

    def write(self, text: str) -> None:
        try:
            sys.stderr.write(text)
            sys.stderr.flush()
        except (OSError, ValueError, AttributeError):
            pass

    def flush(self) -> None:
        pass  # every write is flushed

    def isatty(self) -> bool:
        try:
            return sys.stderr.isatty()
        except (OSError, ValueError, AttributeError):
            return False


_STDERR = _Stderr()


def _standard_stream(name: str) -> Any:
    # sys.stdin or sys.stdout; UsageError when the process was started with it closed (`<&-`, `>&-`).
    stream = getattr(sys, name)
    if stream is None:
        raise UsageError(f"{name}: cannot {'read' if name == 'stdin' else 'write'} (it is closed)")
    return stream


def _print(text: str) -> None:
    # Text to stdout, flushed: a closed or failing stdout is the command's UsageError (not Python's report and
    # status 120 at exit); its reader gone stays a BrokenPipeError (the command ends quietly).
    try:
        stdout = _standard_stream("stdout")
        stdout.write(text)
        stdout.flush()
    except BrokenPipeError:
        raise
    except (OSError, ValueError) as exc:
        raise UsageError(f"stdout: cannot write ({getattr(exc, 'strerror', None) or exc})") from None


def _let_standard_streams_close() -> None:
    # Before the process exits: what stdout and stderr still hold, they are sent to /dev/null when it cannot go
    # (the reader gone), so that Python's flush at exit neither prints its report nor sets status 120.
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            try:
                null = os.open(os.devnull, os.O_WRONLY)
                os.dup2(null, stream.fileno())
                os.close(null)
            except (OSError, ValueError):
                pass


# ------------------------------------------------------------------------------------------------- commands
def _refuse_overwriting_an_input(args: argparse.Namespace, inputs: Sequence[Optional[str]]) -> None:
    """UsageError when the output (a path, or '-' for stdout) is one of the inputs, by device and inode: checked
    before anything is opened for writing, so that `-o` naming the input (or a link to it) never empties it. A
    standard stream the command uses and the process was started without is a UsageError here too."""
    if "-" in inputs:
        _standard_stream("stdin")
    if (args.output or "-") == "-":
        _standard_stream("stdout")
    if args.output is None:
        return
    named = [path for path in inputs if path is not None]
    if os.path.exists(args.template):
        named.append(args.template)
    clash = same_file_as(args.output, named)
    if clash is not None:
        shown = "stdout" if args.output == "-" else args.output
        raise UsageError(f"{shown}: the output is the same file as the input {clash!r}; write it elsewhere")


def _held_for(path: str) -> ContextManager[Any]:
    # The stop signals held while the temporary file of an output that is a regular file (or none yet) is made
    # and recorded, or renamed into place: quick, and cut short it would leave the file behind. Not for stdout,
    # a device or a named pipe, which are written directly (no file to leave) and may block until read.
    try:
        regular = path != "-" and stat.S_ISREG(os.stat(path).st_mode)
    except FileNotFoundError:
        regular = True
    except (OSError, ValueError):
        regular = False
    return StopSignalsHeld() if regular else contextlib.nullcontext()


def _open_output(path: str, stop: "_StopSignals") -> Output:
    # The output, recorded before its temporary file is made: the end of the command discards every one not
    # committed, whatever stopped it.
    output = Output(path)
    stop.outputs.append(output)
    try:
        with _held_for(path):
            output.open()
    except FileProblem as exc:
        raise UsageError(str(exc)) from None
    return output


def _finish_output(output: Output, succeeded: bool, stop: "_StopSignals") -> None:
    if not succeeded:
        output.discard()
        return
    try:
        with _held_for(output.path):
            output.commit()
            stop.armed = False  # the output is in place: the command has done its work, a signal changes nothing
    except FileProblem as exc:
        raise UsageError(str(exc)) from None


def _cmd_render(args: argparse.Namespace, stop: "_StopSignals") -> int:
    _refuse_overwriting_an_input(args, [args.conversation, args.tools])
    defaults = _defaults(args)
    data = _read_json(args.conversation, "conversation")
    template = _chat_template(args)
    try:
        messages, arguments = render_arguments(data, defaults)
    except InputError as exc:
        raise UsageError(f"{args.conversation}: {exc}") from None
    prompt = template.render(messages, **arguments)  # output written exactly: no newline added
    output = _open_output(args.output or "-", stop)
    succeeded = False
    try:
        output.write(prompt.encode("utf-8", "surrogatepass"))
        succeeded = True
    except FileProblem as exc:
        raise UsageError(str(exc)) from None
    finally:
        _finish_output(output, succeeded, stop)
    return 0


def _open_input(path: str) -> IO[bytes]:
    if path == "-":
        return _standard_stream("stdin").buffer  # type: ignore[no-any-return]
    try:
        return open_regular(path, "input")
    except FileProblem as exc:
        raise UsageError(str(exc)) from None


def _cmd_batch(args: argparse.Namespace, stop: "_StopSignals") -> int:
    if args.workers < 1:
        raise UsageError("--workers must be at least 1")
    _refuse_overwriting_an_input(args, [args.input, args.tools])
    options = BatchOptions(_defaults(args), text=args.text, on_error=args.on_error)
    template = _chat_template(args)
    source = _open_input(args.input)
    try:
        status, rendered, skipped, seconds = _batch_to(args, template, options, source, stop)
    finally:
        if source is not getattr(sys.stdin, "buffer", None):
            source.close()
    if not args.quiet:
        rate = rendered / seconds if seconds > 0 else 0.0
        _STDERR.write(f"batch: {rendered} rendered, {skipped} skipped, {seconds:.1f} s ({rate:,.0f} lines/s)\n")
    return status


def _batch_to(args: argparse.Namespace, template: ChatTemplate, options: BatchOptions, source: IO[bytes],
              stop: "_StopSignals") -> tuple[int, int, int, float]:
    """Run the batch into its output; the output keeps its final name only when every line was rendered or
    skipped (status 0): a failed or interrupted run leaves the final name as it was."""
    output = _open_output(args.output, stop)
    progress = Progress(input_size(source), quiet=args.quiet, stream=_STDERR)  # type: ignore[arg-type]

    def report(number: int, message: str) -> None:
        _STDERR.write(f"error: {args.input}:{number}: {message}\n")

    status = 2
    try:
        status, rendered, skipped = run_batch(template, source, output, options, args.workers, progress, report)
    except FileProblem as exc:
        raise UsageError(str(exc)) from None
    except BrokenPipeError:  # stdout's reader went away: main() ends quietly
        raise
    except OSError as exc:  # the output's errors are FileProblems: this is the input's
        raise UsageError(f"{args.input}: cannot read ({exc.strerror or exc})") from None
    finally:
        progress.finish()
        _finish_output(output, status == 0, stop)
    return status, rendered, skipped, progress.elapsed()


def template_report(name: str, source: str, limits: Limits) -> dict[str, Any]:
    """What `check` says of one template: compiled or not, the names it reads, and its capabilities (decided by
    rendering probe conversations through it: capabilities.py)."""
    try:
        template = ChatTemplate(source, limits=limits, name=name)
    except TemplateError as exc:
        return {"ok": False, "error": {"message": exc.message, "line": exc.lineno, "column": exc.colno,
                                       "text": str(exc)}}
    names = template_variables(source)
    return {"ok": True, "variables": [v for v in names if v not in _CHAT_GLOBALS],
            "globals": [v for v in names if v in _CHAT_GLOBALS],
            "capabilities": capabilities_json(template)}


def _cmd_check(args: argparse.Namespace) -> int:
    source, _special, label = _load(args.template)
    named = source if not isinstance(source, str) else {"default": source}
    if args.template_name is not None:
        if args.template_name not in named:
            raise UsageError(f"{label}: no chat template named {args.template_name!r}; the names are "
                             f"{', '.join(sorted(named))}")
        named = {args.template_name: named[args.template_name]}
    limits = _limits(args)
    reports = {key: template_report(f"{label}:{key}" if len(named) > 1 else label, text, limits)
               for key, text in named.items()}
    ok = all(report["ok"] for report in reports.values())
    if args.json:
        _print(json.dumps({"template": label, "ok": ok, "templates": reports}, ensure_ascii=False,
                          indent=2) + "\n")
        return 0 if ok else 1
    for key, report in reports.items():
        shown = f"{label}:{key}" if len(named) > 1 else label
        if report["ok"]:
            _print(f"{shown}: ok\n  variables: {', '.join(report['variables']) or '(none)'}\n")
        else:
            _STDERR.write(f"error: {report['error']['text']}\n")
    return 0 if ok else 1


def _run(argv: Optional[Sequence[str]], stop: "_StopSignals") -> int:
    args = _parser().parse_args(argv)
    if args.command == "list":
        _print("".join(name + "\n" for name in seed_template_names()))
        return 0
    if args.command == "check":
        return _cmd_check(args)
    return _cmd_render(args, stop) if args.command == "render" else _cmd_batch(args, stop)


class _Terminated(BaseException):
    """SIGTERM or SIGHUP (`signum`), raised where the program is so that it cleans up (a batch's workers, the
    output's temporary file) as for Ctrl-C."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


# The signals that stop a command as SIGTERM does (where the platform has them): the exit status is 128 + the
# signal's number, and the line says which.
_HANGUP = getattr(signal, "SIGHUP", None)
_STOPPED_BY = {signal.SIGTERM: "terminated", **({_HANGUP: "hung up"} if _HANGUP is not None else {})}


class _StopSignals:
    # The handler of SIGTERM, SIGHUP and Ctrl-C while a command runs: the first raises where the program is (so
    # that it cleans up); later ones, and any once the command's outcome is decided (armed False: its output
    # committed, or its status known), change nothing, since the clean-up or the report they would cut short is
    # under way.
    # It keeps the outputs the command opened, for the end to discard any a signal left uncommitted.

    def __init__(self) -> None:
        self.armed = True
        self.previous: dict[int, Any] = {}
        self.outputs: list[Output] = []

    def __call__(self, signum: int, frame: Any) -> None:
        if self.armed:
            self.armed = False
            raise _Terminated(signum) if signum in _STOPPED_BY else KeyboardInterrupt

    def install(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        handled = [signal.SIGTERM]
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # not ignored (a background job)
            handled.append(signal.SIGINT)
        if _HANGUP is not None and signal.getsignal(_HANGUP) is not signal.SIG_IGN:  # not ignored (nohup)
            handled.append(_HANGUP)
        for signum in handled:
            self.previous[signum] = signal.getsignal(signum)  # recorded first: restore() puts back what it took
            signal.signal(signum, self)

    def restore(self) -> None:
        for signum, handler in self.previous.items():
            if handler is not None:  # None: set outside Python, cannot be put back
                signal.signal(signum, handler)

    def hold_until_exit(self) -> None:
        # The process exits next: its signals stay blocked until it is gone (Python puts the default handlers
        # back as it finishes, and a signal then would kill it: status -15 or -2 instead of the command's).
        if self.previous and hasattr(signal, "pthread_sigmask"):
            signal.pthread_sigmask(signal.SIG_BLOCK, set(self.previous))


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the command line in this process; returns the exit status (0 done, 1 template error, 2 usage or
    input, 129 hung up, 130 interrupted, 143 terminated). Never raises: every failure is one line on stderr. The
    first SIGTERM, SIGHUP or Ctrl-C during the call stops the command (later ones change nothing); the caller's
    signal handling is as it was when main() returns. A program that exits with the status uses program()."""
    return _guarded(argv, exiting=False)


def program() -> int:
    """The `minijinja-py` program and `python -m minijinja_py`: main() over sys.argv, for a process that exits
    with the status it returns. SIGTERM, SIGHUP and Ctrl-C change nothing from the moment the command's outcome is
    decided until the process is gone."""
    return _guarded(None, exiting=True)


def _guarded(argv: Optional[Sequence[str]], exiting: bool) -> int:
    stop = _StopSignals()
    try:
        try:
            stop.install()
            status, line = _outcome(argv, stop)
        finally:
            stop.armed = False  # decided: a signal from here on changes nothing (the handler raises only once)
    except _Terminated as exc:  # the first SIGTERM or SIGHUP: where the command was, or as its outcome was decided
        status, line = 128 + exc.signum, _STOPPED_BY[exc.signum]
    except KeyboardInterrupt:
        status, line = 130, "interrupted"
    for output in stop.outputs:  # one a signal stopped before it was committed or discarded: never kept
        output.discard()
    if line:
        _STDERR.write(f"error: {line}\n")
    if exiting:
        stop.hold_until_exit()
        _let_standard_streams_close()
    else:
        stop.restore()
    return status


def _outcome(argv: Optional[Sequence[str]], stop: "_StopSignals") -> tuple[int, str]:
    # (exit status, the line for stderr or "") of a command.
    try:
        return _run(argv, stop), ""
    except UsageError as exc:
        return 2, str(exc)
    except TemplateError as exc:
        return 1, one_line(exc)
    except WorkerFailed as exc:  # a batch worker died (killed, out of memory): the run failed, not the usage
        return 1, str(exc)
    except BrokenPipeError:  # stdout's reader went away (`| head`): not an error of ours
        return 0, ""
    except SystemExit as exc:  # --help, --version
        return (exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 2), ""
    except Exception as exc:  # never a traceback: the last resort names what happened
        return 1, f"unexpected {type(exc).__name__}: {one_line(exc)}"
