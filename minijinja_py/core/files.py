"""Files: a path → its bytes (or text), read only from a regular file and never past a cap."""

# Every place that reads a file it was named (a template, a model's config, a GGUF file, a refs file, the command
# line's inputs) reads it through here, so that a hostile name cannot make a read block or grow without bound:
#
#   * what the name leads to is looked at before it is opened: a FIFO would block the open, a device (/dev/zero)
#     would be read forever, a folder is no file; anything but a regular file is refused;
#   * the open itself cannot block (O_NONBLOCK: a FIFO swapped in after the look opens at once) and what was
#     opened is looked at again, on the descriptor, before a byte is read;
#   * at most `limit` + 1 bytes are read, whatever the file's size claims (/proc files claim 0), so a file past
#     its cap is refused having read no more than the cap.
#
# Every refusal is a FileRefused, an OSError whose `.strerror` says what is wrong in words a message can show
# ("not a regular file (a FIFO)"), so a caller that already reports OSErrors by their strerror reports these too.
# descriptor_path() tells what an open descriptor really is, for callers that must check where a name led after
# opening it (FileSystemLoader's search path).

import errno
import os
import posixpath
import stat

__all__ = ["FileRefused", "file_too_large", "open_regular_file", "read_open_file", "read_regular_file",
           "decode_text", "descriptor_path", "within", "is_entry_name"]

_OPEN_FLAGS = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
               | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0))
_CHUNK = 1 << 20


class FileRefused(OSError):
    # A file refused before or while it is read; .errno says why: EINVAL, not a regular file (a folder, a FIFO, a
    # device or a socket: nothing is read from it); EFBIG, more than the cap allows (.limit is the cap in bytes);
    # EACCES, it leads (through symbolic links) out of the folder it had to stay in; EILSEQ, not text in the
    # encoding asked for (or the encoding is unknown). One class for all four: each caller knows which of them
    # its call can meet.

    limit = None


def _not_regular_file(path, mode):
    return FileRefused(errno.EINVAL, f"not a regular file ({_kind(mode)})", path)


def file_too_large(path: str, limit: int, what: str = "this file") -> "FileRefused":
    refusal = FileRefused(errno.EFBIG, f"larger than the {limit} bytes allowed for {what}", path)
    refusal.limit = limit
    return refusal


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a file"


def open_regular_file(path: str, root: "str | None" = None) -> "tuple[int, os.stat_result]":
    # (a read-only descriptor, its fstat) of the regular file path leads to (symbolic links followed). Raises
    # FileRefused (EINVAL) for anything else, before opening it when it already is something else; (EACCES) when
    # root is given and what was opened is not inside it (judged on the descriptor, so a link flipped between a
    # check and the open cannot lead out); OSError when it cannot be opened. The caller closes the descriptor.
    try:
        mode = os.stat(path).st_mode
    except ValueError:   # a NUL in the name
        raise OSError(errno.EINVAL, "not a valid file name (it holds a NUL character)", path) from None
    if not stat.S_ISREG(mode):
        raise _not_regular_file(path, mode)
    fd = os.open(path, _OPEN_FLAGS)
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):   # swapped for something else between the look and the open
            raise _not_regular_file(path, status.st_mode)
        if root is not None and not _opened_within(fd, status, path, os.path.realpath(root)):
            raise FileRefused(errno.EACCES, f"leads outside {root}", path)
    except BaseException:
        os.close(fd)
        raise
    return fd, status


def within(real: str, root: str) -> bool:
    # Is the resolved path real inside (or at) the resolved folder root?
    return (posixpath if os.path.sep == "/" else os.path).commonpath([real, root]) == root


def is_entry_name(name: str) -> bool:
    # Is name one plain entry of a folder (no separator, not . or .., nothing a path could climb with)?
    return bool(name) and name not in (".", "..") and "/" not in name and "\\" not in name and "\0" not in name \
        and name.isprintable()


def _opened_within(fd, status, path, root):
    real = descriptor_path(fd)
    if real is not None:
        return within(real, root)
    # No way to ask the system (neither /proc nor F_GETPATH): the name resolved now must be inside and be the
    # very file that is open; a flip back and forth in between would have to put the outside file inside.
    real = os.path.realpath(path)
    try:
        now = os.stat(real)
    except OSError:
        return False
    return within(real, root) and (now.st_dev, now.st_ino) == (status.st_dev, status.st_ino)


def read_open_file(fd: int, limit: int, path: str, what: str = "this file") -> bytes:
    # The bytes of the open regular file fd: at most limit + 1 are read; FileRefused (EFBIG) past limit.
    parts = []
    total = 0
    while total <= limit:
        chunk = os.read(fd, min(_CHUNK, limit + 1 - total))
        if not chunk:
            break
        parts.append(chunk)
        total += len(chunk)
    if total > limit:
        raise file_too_large(path, limit, what)
    return parts[0] if len(parts) == 1 else b"".join(parts)


def read_regular_file(path: str, limit: int, what: str = "this file", root: "str | None" = None) -> bytes:
    # The bytes of the regular file at path, refused (an OSError: a FileRefused, or the system's) when it is
    # anything else, when it holds more than limit bytes, when it leads outside root (if given), or when it cannot
    # be read. `what` names the file in the message of a file too large ("a template file").
    fd, status = open_regular_file(path, root)
    try:
        if status.st_size > limit:   # said before reading anything; a file that lies is caught while reading
            raise file_too_large(path, limit, what)
        return read_open_file(fd, limit, path, what)
    finally:
        os.close(fd)


def decode_text(data: bytes, path: str, encoding: str = "utf-8") -> str:
    # data as text; FileRefused (EILSEQ, naming where the text is not) when it is not in that encoding or the
    # encoding is unknown.
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise FileRefused(errno.EILSEQ, f"not {encoding} text ({exc.reason} at byte {exc.start})", path) from None
    except LookupError:
        raise FileRefused(errno.EILSEQ, f"unknown encoding {encoding!r}", path) from None


def descriptor_path(fd: int) -> "str | None":
    # The real path of the file open at fd, as the system knows it (Linux /proc/self/fd, macOS F_GETPATH), or
    # None where neither is available or the file has been deleted since it was opened.
    try:
        found = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        found = _f_getpath(fd)
    if found is None or found.endswith(" (deleted)") or not os.path.isabs(found):
        return None
    return found


def _f_getpath(fd):
    if os.name != "posix":
        return None
    import fcntl   # macOS's way; only asked where /proc is missing
    code = getattr(fcntl, "F_GETPATH", None)
    if code is None:
        return None
    try:
        return fcntl.fcntl(fd, code, b"\0" * 1024).rstrip(b"\0").decode("utf-8", "surrogateescape")
    except OSError:
        return None
