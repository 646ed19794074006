"""The command line's files: a path → its bytes, read only from a regular file and never past a cap; an output
path → a file written through a temporary file in the same folder, renamed over the final name only when the
command succeeded, and never the same file as one of the command's inputs."""

# Inputs are read through core/files.py, as every named file of the package is: a FIFO, a device or a socket
# named as an input is refused before it is opened (reading one could block forever or never end). An output that
# already exists as one of those (`-o /dev/null`, a named pipe) is written to directly, since it cannot be
# replaced.

import os
import stat
import sys
import tempfile
from typing import IO, Iterable, Optional

from .core.files import open_regular_file, read_regular_file

__all__ = ["FileProblem", "open_regular", "read_regular", "read_stream", "same_file_as", "Output"]


class FileProblem(Exception):
    """A file the command cannot use: bad usage or unreadable input (exit status 2). The message names it."""


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def open_regular(path: str, what: str) -> IO[bytes]:
    """The regular file at `path` (symbolic links followed), open for reading in binary, as core/files.py opens
    it: anything else (a folder, FIFO, device, socket) is a FileProblem, and is never opened for what opening it
    might do."""
    try:
        fd, _status = open_regular_file(path)
    except OSError as exc:
        raise FileProblem(f"{path}: cannot read the {what} ({_reason(exc)})") from None
    return os.fdopen(fd, "rb")


def read_regular(path: str, limit: int, what: str) -> bytes:
    """The bytes of the regular file at `path` (core/files.py: regular files only, at most limit + 1 bytes
    read): anything else, or a larger file, is a FileProblem."""
    try:
        return read_regular_file(path, limit, f"the {what}")
    except OSError as exc:
        raise FileProblem(f"{path}: cannot read the {what} ({_reason(exc)})") from None


def read_stream(stream: IO[bytes], limit: int, name: str, what: str) -> bytes:
    """At most `limit` bytes of an open stream (stdin): more is a FileProblem."""
    try:
        data = stream.read(limit + 1)
    except OSError as exc:
        raise FileProblem(f"{name}: cannot read the {what} ({_reason(exc)})") from None
    if len(data) > limit:
        raise FileProblem(f"{name}: cannot read the {what} (larger than the {limit} bytes allowed for the {what})")
    return data


def _identity(path: str) -> "Optional[tuple[int, int]]":
    try:
        found = os.stat(path)
    except (OSError, ValueError):
        return None
    return found.st_dev, found.st_ino


def _stream_identity(stream: IO[str]) -> "Optional[tuple[int, int]]":
    try:
        found = os.fstat(stream.fileno())
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(found.st_mode):
        return None  # a terminal or a pipe: nothing to overwrite
    return found.st_dev, found.st_ino


def same_file_as(output: str, inputs: "Iterable[str]") -> Optional[str]:
    """The input (a path, or '-' for stdin) that is the same file as `output` (a path, or '-' for stdout):
    compared by device and inode, so a symbolic or hard link to the input counts; None if there is none."""
    target = _stream_identity(sys.stdout) if output == "-" else _identity(output)
    if target is None:
        return None
    for name in inputs:
        if (_stream_identity(sys.stdin) if name == "-" else _identity(name)) == target:
            return name
    return None


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


class Output:
    """Where a command writes: stdout for '-', the file itself when it exists and is not a regular file, else a
    temporary file beside the final one (the target of a symbolic link, so the link stays), renamed over it by
    commit() and removed by discard(): the final name holds the old file or the whole new one, never a part."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.stream: Optional[IO[bytes]] = None
        self._temporary: Optional[str] = None
        self._final = path

    def open(self) -> IO[bytes]:
        if self.path == "-":
            self.stream = sys.stdout.buffer
            return self.stream
        try:
            existing = os.stat(self.path)
        except FileNotFoundError:
            existing = None
        except OSError as exc:
            raise FileProblem(f"{self.path}: cannot write ({_reason(exc)})") from None
        try:
            if existing is not None and not stat.S_ISREG(existing.st_mode):
                if stat.S_ISDIR(existing.st_mode):
                    raise FileProblem(f"{self.path}: cannot write (it is a folder)")
                self.stream = open(self.path, "wb")  # a device or a pipe: written as it is
                return self.stream
            self._final = os.path.realpath(self.path)
            folder, name = os.path.split(self._final)
            fd, self._temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=".part", dir=folder or ".")
            mode = stat.S_IMODE(existing.st_mode) if existing is not None else 0o666 & ~_umask()
            os.fchmod(fd, mode)
            self.stream = os.fdopen(fd, "wb")
        except OSError as exc:
            self.discard()
            raise FileProblem(f"{self.path}: cannot write ({_reason(exc)})") from None
        return self.stream

    def write(self, data: bytes) -> None:
        """Write to the open output; a failure (a full disk, `-o /dev/full`) is a FileProblem naming the output.
        A closed pipe stays a BrokenPipeError: the reader went away (`| head`), which is not an error."""
        try:
            self.stream.write(data)  # type: ignore[union-attr]
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise FileProblem(f"{self.path}: cannot write ({_reason(exc)})") from None

    def commit(self) -> None:
        """Flush and close; the temporary file becomes the final one."""
        stream, self.stream = self.stream, None
        try:
            if self.path == "-":  # stdout stays open
                if stream is not None:
                    stream.flush()
                return
            if stream is not None:
                stream.close()
            if self._temporary is not None:
                os.replace(self._temporary, self._final)
                self._temporary = None
        except BrokenPipeError:  # stdout's reader went away: not an error (main() ends quietly)
            raise
        except OSError as exc:
            self.discard()
            raise FileProblem(f"{self.path}: cannot write ({_reason(exc)})") from None

    def discard(self) -> None:
        """Close without keeping anything: the temporary file is removed (stdout and devices keep what was
        written to them). Never raises."""
        stream, self.stream = self.stream, None
        if stream is not None:
            try:
                stream.flush() if self.path == "-" else stream.close()
            except OSError:
                pass
        if self._temporary is not None:
            try:
                os.unlink(self._temporary)
            except OSError:
                pass
            self._temporary = None
