"""Batch: a JSONL file of conversations → a JSONL file of prompts, in input order, streamed (memory stays flat
however long the file), on one process or a pool of worker processes that each unpickle the ChatTemplate once."""

# The input is read in blocks of whole lines (about 256 KiB each); a worker splits, parses, renders and encodes a
# whole block and hands back one bytes object, so the reading and writing process does almost nothing per line
# and two workers come near twice the rate of one. A conversation line is what a `render` conversation file holds:
# an object with "messages" (and optionally "tools", "documents", "add_generation_prompt",
# "continue_final_message", "chat_template", other template variables; keys starting with "_" are comments), or
# a bare list of messages.

import json
import os
import sys
import time
from typing import IO, Any, Callable, Iterator, NamedTuple, Optional, Protocol

from ..core.errors import TemplateError
from .workers import WorkerFailed, ordered_results

__all__ = ["InputError", "render_arguments", "check_variable_names", "parse_conversation", "BatchOptions",
           "run_batch", "one_line", "MAX_CONVERSATION_BYTES", "MAX_JSON_VALUES", "usable_cpus", "WorkerFailed"]

_OPTION_KEYS = ("tools", "documents", "add_generation_prompt", "continue_final_message", "chat_template")
_RESERVED = {"self": "it is the name of the render method's own object",
             "messages": "the messages are the conversation itself"}
MAX_CONVERSATION_BYTES = 16 * 1024 * 1024  # one conversation (a JSONL line or a file)
MAX_JSON_VALUES = 2_000_000  # in one conversation: 16 MiB of `[],[],...` would parse to ~400 MB in seconds
_BLOCK_BYTES = 256 * 1024   # input read (and sent to a worker) at a time, in whole lines
_PLAIN_PROGRESS_SECONDS = 10.0
_TTY_PROGRESS_SECONDS = 0.2


class Writer(Protocol):
    # Where run_batch writes: a binary stream, or anything with write(bytes).

    def write(self, data: bytes, /) -> Any: ...


class InputError(Exception):
    """A conversation (file or line) that is not what a render needs: exit status 2, not a template error."""


def one_line(exc: BaseException) -> str:
    # An error as one line: its message, and where in the template it happened.
    if isinstance(exc, TemplateError):
        text = exc.message if isinstance(exc.message, str) else str(exc.message)
        text = " ".join(text.split("\n"))
        if exc.lineno is not None:
            text += f" (at {exc.name or '<template>'}:{exc.lineno}:{exc.colno})"
        return text
    return " ".join(str(exc).split("\n")) or type(exc).__name__


def parse_conversation(data: bytes) -> Any:
    # The JSON value of one conversation's bytes. Raises InputError past MAX_JSON_VALUES (counted before
    # parsing, from the commas and brackets: an upper bound), ValueError for bad UTF-8 or JSON, RecursionError
    # for JSON nested past Python's recursion limit.
    values = data.count(b",") + data.count(b"[") + data.count(b"{")
    if values > MAX_JSON_VALUES:
        raise InputError(f"more than {MAX_JSON_VALUES:,} JSON values in one conversation")
    return json.loads(data.decode("utf-8"))


def check_variable_names(names: Any, where: str = "the conversation") -> None:
    # InputError for a template variable that ChatTemplate.render cannot take by that name ("self"; and
    # "messages" outside the conversation's own "messages").
    for name in names:
        if name in _RESERVED:
            raise InputError(f"{where} sets a variable named {name!r}, which cannot be one: {_RESERVED[name]}")


def render_arguments(data: Any, defaults: "dict[str, Any]") -> "tuple[Any, dict[str, Any]]":
    # (messages, keyword arguments of ChatTemplate.render) for one conversation (an object or a bare list),
    # the command line's defaults applied over it. Raises InputError for a value that is neither, or for a
    # variable render cannot take ("self").
    if isinstance(data, list):
        messages, options, variables = data, {}, {}  # type: ignore[var-annotated]
    elif isinstance(data, dict):
        if "messages" not in data:
            raise InputError("the conversation object has no \"messages\"")
        data = {k: v for k, v in data.items() if not k.startswith("_")}
        messages = data.pop("messages")
        options = {k: data.pop(k) for k in _OPTION_KEYS if k in data}
        variables = data
        check_variable_names(variables)
    else:
        raise InputError(f"a conversation is a JSON object with \"messages\" or a list of messages, not "
                         f"{type(data).__name__}")
    options.update(defaults.get("options", {}))
    arguments = {**options, **variables, **defaults.get("variables", {})}
    return messages, arguments


class BatchOptions:
    # How to render each line: the command line's defaults, the output shape, what to do with a bad line.

    def __init__(self, defaults: "dict[str, Any]", text: bool = False, on_error: str = "fail") -> None:
        self.defaults = defaults
        self.text = text
        self.on_error = on_error


def _encode(value: Any) -> bytes:
    try:
        return (json.dumps(value, ensure_ascii=False) + "\n").encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate in the prompt: keep it, escaped, so the line stays UTF-8
        return (json.dumps(value) + "\n").encode("utf-8")


Result = "tuple[Optional[bytes], Optional[tuple[int, str]]]"


def render_line(template: Any, number: int, raw: bytes, options: BatchOptions) -> Result:
    # (output bytes or None, None or (exit status, one-line error)) for one input line.
    try:
        data = parse_conversation(raw)
        messages, arguments = render_arguments(data, options.defaults)
    except (ValueError, RecursionError, InputError) as exc:
        return None, (2, f"not a conversation: {one_line(exc)}")
    try:
        prompt = template.render(messages, **arguments)
    except TemplateError as exc:
        return None, (1, one_line(exc))
    return _encode(prompt if options.text else {"line": number, "prompt": prompt}), None


class Block(NamedTuple):
    # Whole input lines: the number of the first, their bytes, and the numbers of lines too long to read
    # (each stands in `data` as an empty line).
    first: int
    data: bytes
    too_long: "tuple[int, ...]" = ()


class Rendered(NamedTuple):
    # What a block gave: the output bytes, the count of lines rendered, and the bad lines as (number, exit
    # status, message), in order; with on_error "fail" the block stops at its first bad line.
    output: bytes
    rendered: int
    errors: "list[tuple[int, int, str]]"


def render_block(template: Any, options: BatchOptions, block: Block) -> Rendered:
    # A block's lines parsed, rendered and encoded (blank lines skipped), in one process: what a worker does.
    out: "list[bytes]" = []
    errors: "list[tuple[int, int, str]]" = []
    for number, raw in enumerate(block.data.split(b"\n"), block.first):
        if number in block.too_long or len(raw) > MAX_CONVERSATION_BYTES:
            error: "Optional[tuple[int, str]]" = (2, f"not a conversation: the line is longer than "
                                                     f"{MAX_CONVERSATION_BYTES // (1024 * 1024)} MiB")
        elif not raw.strip():
            continue
        else:
            line, error = render_line(template, number, raw, options)
        if error is None:
            out.append(line)  # type: ignore[arg-type]
            continue
        errors.append((number, error[0], error[1]))
        if options.on_error != "skip":
            break
    return Rendered(b"".join(out), len(out), errors)


def blocks(stream: IO[bytes], block_bytes: int = _BLOCK_BYTES) -> "Iterator[tuple[Block, int]]":
    # The input as blocks of whole lines, each with the bytes read so far. A line longer than
    # MAX_CONVERSATION_BYTES is skipped as it is read (never held past the cap and a block) and named in its
    # block's too_long.
    number, read, pending, skipping = 1, 0, b"", False
    while True:
        piece = stream.read(block_bytes)
        if not piece:
            break
        read += len(piece)
        if skipping:
            end = piece.find(b"\n")
            if end < 0:
                continue
            yield Block(number, b"\n", (number,)), read
            number, skipping, piece = number + 1, False, piece[end + 1:]
        data = pending + piece
        cut = data.rfind(b"\n") + 1
        whole, pending = data[:cut], data[cut:]
        if whole:
            yield Block(number, whole), read
            number += whole.count(b"\n")
        if len(pending) > MAX_CONVERSATION_BYTES:
            pending, skipping = b"", True
    if skipping:
        yield Block(number, b"", (number,)), read
    elif pending:
        yield Block(number, pending), read


def _render_task(context: "tuple[Any, BatchOptions]", block: Block) -> Rendered:
    # A worker's task (workers.py): one block rendered with the template and options it was started with.
    return render_block(context[0], context[1], block)


def usable_cpus() -> int:
    # The CPUs this process may run on.
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


class Progress:
    # Progress on stderr: a redrawn line (count, rate, ETA) on a terminal, a plain line every few seconds
    # otherwise, nothing when quiet.

    def __init__(self, total_bytes: Optional[int], quiet: bool = False, stream: Optional[IO[str]] = None) -> None:
        self.stream = stream or sys.stderr
        self.total = total_bytes
        self.quiet = quiet
        self.tty = self.stream.isatty()
        self.start = self.last = time.monotonic()

    def update(self, lines: int, read: int) -> None:
        now = time.monotonic()
        if self.quiet or now - self.last < (_TTY_PROGRESS_SECONDS if self.tty else _PLAIN_PROGRESS_SECONDS):
            return
        self.last = now
        elapsed = now - self.start
        rate = lines / elapsed if elapsed > 0 else 0.0
        text = f"batch: {lines} lines, {rate:,.0f} lines/s"
        if self.total and read:
            remaining = elapsed * max(0, self.total - read) / read
            text += f", {100 * min(read, self.total) / self.total:.0f}%, ETA {remaining:.0f} s"
        if self.tty:
            self.stream.write("\r" + text.ljust(70))
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def finish(self) -> None:
        if self.tty and not self.quiet and self.last != self.start:
            self.stream.write("\r" + " " * 70 + "\r")


def _chained(first: "list[tuple[Block, int]]", rest: "Iterator[tuple[Block, int]]") -> "Iterator[tuple[Block, int]]":
    yield from first
    yield from rest


def _rendered_blocks(template: Any, options: BatchOptions, stream: IO[bytes],
                     workers: int) -> "Iterator[tuple[Rendered, int]]":
    # The rendered blocks, in input order, each with the input bytes read so far. The pool has at most as many
    # workers as there are usable CPUs and blocks of input (the first blocks are read before it starts).
    source = blocks(stream)
    workers = min(workers, usable_cpus())
    first: "list[tuple[Block, int]]" = []
    for item in source:
        first.append(item)
        if len(first) >= workers:
            break
    workers = min(workers, len(first))
    if workers > 1:
        yield from ordered_results(_render_task, (template, options), _chained(first, source), workers)
        return
    for block, read in _chained(first, source):
        yield render_block(template, options, block), read


def run_batch(template: Any, stream: IO[bytes], out: Writer, options: BatchOptions, workers: int = 1,
              progress: Optional[Progress] = None,
              report: Optional[Callable[[int, str], None]] = None) -> "tuple[int, int, int]":
    # Render every line of a binary input stream to the binary output `out`.
    #
    # Returns (exit status, rendered count, skipped count). A bad line (not JSON, not a conversation: status 2; a
    # template error: status 1) is reported through report(number, message); with on_error "skip" the run goes
    # on and ends with status 0, with "fail" it stops there with that line's status.
    rendered = skipped = 0
    results = _rendered_blocks(template, options, stream, workers)
    try:
        for block, read in results:
            out.write(block.output)
            rendered += block.rendered
            for number, status, message in block.errors:
                if report is not None:
                    report(number, message)
                if options.on_error != "skip":
                    return status, rendered, skipped
                skipped += 1
            if progress is not None:
                progress.update(rendered + skipped, read)
    finally:
        results.close()  # stops the worker pool at once when the run stops early
    return 0, rendered, skipped


def input_size(stream: IO[bytes]) -> Optional[int]:
    # Size of a seekable input in bytes (for the ETA), or None.
    try:
        return os.fstat(stream.fileno()).st_size or None
    except (OSError, ValueError, AttributeError):
        return None
