"""Batch: a JSONL file of conversations → a JSONL file of prompts, in input order, streamed (memory stays flat
however long the file), on one process or a pool of worker processes that each unpickle the ChatTemplate once.

A conversation line is what a `render` conversation file holds: an object with "messages" (and optionally
"tools", "documents", "add_generation_prompt", "continue_final_message", "chat_template", other template
variables; keys starting with "_" are comments), or a bare list of messages.
"""

import collections
import json
import multiprocessing
import os
import sys
import time
from typing import IO, Any, Callable, Iterator, Optional

from ..core.errors import TemplateError

__all__ = ["InputError", "render_arguments", "BatchOptions", "run_batch", "one_line"]

_OPTION_KEYS = ("tools", "documents", "add_generation_prompt", "continue_final_message", "chat_template")
_CHUNK_LINES = 64        # lines sent to a worker at a time
_PENDING_PER_WORKER = 4  # chunks in flight per worker: bounds memory, keeps workers busy
_PLAIN_PROGRESS_SECONDS = 10.0
_TTY_PROGRESS_SECONDS = 0.2


class InputError(Exception):
    """A conversation (file or line) that is not what a render needs: exit status 2, not a template error."""


def one_line(exc: BaseException) -> str:
    """An error as one line: its message, and where in the template it happened."""
    if isinstance(exc, TemplateError):
        text = exc.message if isinstance(exc.message, str) else str(exc.message)
        text = " ".join(text.split("\n"))
        if exc.lineno is not None:
            text += f" (at {exc.name or '<template>'}:{exc.lineno}:{exc.colno})"
        return text
    return " ".join(str(exc).split("\n")) or type(exc).__name__


def render_arguments(data: Any, defaults: "dict[str, Any]") -> "tuple[Any, dict[str, Any]]":
    """(messages, keyword arguments of ChatTemplate.render) for one conversation (an object or a bare list),
    the command line's defaults applied over it. Raises InputError for a value that is neither."""
    if isinstance(data, list):
        messages, options, variables = data, {}, {}  # type: ignore[var-annotated]
    elif isinstance(data, dict):
        if "messages" not in data:
            raise InputError("the conversation object has no \"messages\"")
        data = {k: v for k, v in data.items() if not k.startswith("_")}
        messages = data.pop("messages")
        options = {k: data.pop(k) for k in _OPTION_KEYS if k in data}
        variables = data
    else:
        raise InputError(f"a conversation is a JSON object with \"messages\" or a list of messages, not "
                         f"{type(data).__name__}")
    options.update(defaults.get("options", {}))
    arguments = {**options, **variables, **defaults.get("variables", {})}
    return messages, arguments


class BatchOptions:
    """How to render each line: the command line's defaults, the output shape, what to do with a bad line."""

    def __init__(self, defaults: "dict[str, Any]", text: bool = False, on_error: str = "fail") -> None:
        self.defaults = defaults
        self.text = text
        self.on_error = on_error


def _encode(value: Any) -> bytes:
    try:
        return (json.dumps(value, ensure_ascii=False) + "\n").encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate in the prompt: keep it, escaped, so the line stays UTF-8
        return (json.dumps(value) + "\n").encode("utf-8")


Result = "tuple[int, Optional[bytes], Optional[tuple[int, str]]]"


def render_line(template: Any, number: int, raw: bytes, options: BatchOptions) -> Result:
    """(number, output bytes or None, None or (exit status, one-line error)) for one input line."""
    try:
        data = json.loads(raw.decode("utf-8").strip())
        messages, arguments = render_arguments(data, options.defaults)
    except (ValueError, RecursionError, InputError) as exc:
        return number, None, (2, f"not a conversation: {one_line(exc)}")
    try:
        prompt = template.render(messages, **arguments)
    except TemplateError as exc:
        return number, None, (1, one_line(exc))
    return number, _encode(prompt if options.text else {"line": number, "prompt": prompt}), None


Chunk = "list[tuple[int, bytes]]"


def _render_chunk_with(template: Any, options: BatchOptions, chunk: Chunk) -> "list[Result]":
    return [render_line(template, number, raw, options) for number, raw in chunk]


_worker: "dict[str, Any]" = {}


def _start_worker(template: Any, options: BatchOptions) -> None:
    _worker["template"], _worker["options"] = template, options


def _render_chunk(chunk: Chunk) -> "list[Result]":
    return _render_chunk_with(_worker["template"], _worker["options"], chunk)


def _chunks(stream: IO[bytes]) -> "Iterator[tuple[Chunk, int]]":
    """(line number, bytes) chunks of the non-blank lines of a binary stream, and the bytes read so far."""
    chunk: Chunk = []
    read = 0
    for number, raw in enumerate(stream, 1):
        read += len(raw)
        if raw.strip():
            chunk.append((number, raw))
        if len(chunk) >= _CHUNK_LINES:
            yield chunk, read
            chunk = []
    if chunk:
        yield chunk, read


class Progress:
    """Progress on stderr: a redrawn line (count, rate, ETA) on a terminal, a plain line every few seconds
    otherwise, nothing when quiet."""

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
            remaining = elapsed * (self.total - read) / read
            text += f", {100 * read / self.total:.0f}%, ETA {remaining:.0f} s"
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


def _results(template: Any, options: BatchOptions, stream: IO[bytes], workers: int) -> "Iterator[tuple[list[Result], int]]":
    """The rendered chunks, in input order, each with the input bytes read so far."""
    if workers <= 1:
        for chunk, read in _chunks(stream):
            yield _render_chunk_with(template, options, chunk), read
        return
    with multiprocessing.get_context().Pool(workers, _start_worker, (template, options)) as pool:
        pending: "collections.deque[Any]" = collections.deque()
        for chunk, read in _chunks(stream):
            pending.append((pool.apply_async(_render_chunk, (chunk,)), read))
            while len(pending) >= workers * _PENDING_PER_WORKER:
                result, done = pending.popleft()
                yield result.get(), done
        while pending:
            result, done = pending.popleft()
            yield result.get(), done


def run_batch(template: Any, stream: IO[bytes], out: IO[bytes], options: BatchOptions, workers: int = 1,
              progress: Optional[Progress] = None,
              report: Optional[Callable[[int, str], None]] = None) -> "tuple[int, int, int]":
    """Render every line of a binary input stream to the binary output `out`.

    Returns (exit status, rendered count, skipped count). A bad line (not JSON, not a conversation: status 2; a
    template error: status 1) is reported through report(number, message); with on_error "skip" the run goes
    on and ends with status 0, with "fail" it stops there with that line's status.
    """
    rendered = skipped = 0
    chunks = _results(template, options, stream, workers)
    try:
        for results, read in chunks:
            for number, line, error in results:
                if error is None:
                    out.write(line)
                    rendered += 1
                    continue
                if report is not None:
                    report(number, error[1])
                if options.on_error != "skip":
                    return error[0], rendered, skipped
                skipped += 1
            if progress is not None:
                progress.update(rendered + skipped, read)
    finally:
        chunks.close()  # stops the worker pool at once when the run stops early
    return 0, rendered, skipped


def input_size(stream: IO[bytes]) -> Optional[int]:
    """Size of a seekable input in bytes (for the ETA), or None."""
    try:
        return os.fstat(stream.fileno()).st_size or None
    except (OSError, ValueError, AttributeError):
        return None
