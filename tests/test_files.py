"""core/files.py: a path → bytes or text, from regular files only, never past the cap, never blocking."""

import errno
import os
import stat
import threading

import pytest

from minijinja_py.core import files
from minijinja_py.core.files import FileRefused

posix_only = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")


def _write(path, data):
    with open(path, "wb") as f:
        f.write(data)
    return str(path)


def test_reads_a_regular_file_through_a_link(tmp_path):
    target = _write(tmp_path / "t.txt", b"hello")
    os.symlink(target, tmp_path / "link")
    assert files.read_regular_file(str(tmp_path / "link"), 5) == b"hello"
    assert files.decode_text(files.read_regular_file(target, 100), target, "utf-8") == "hello"


def test_refuses_past_the_cap_by_size_and_by_reading(tmp_path):
    path = _write(tmp_path / "big", b"x" * 11)
    with pytest.raises(FileRefused) as info:
        files.read_regular_file(path, 10, "a test file")
    assert info.value.errno == errno.EFBIG and info.value.limit == 10
    assert "10 bytes allowed for a test file" in info.value.strerror
    assert isinstance(info.value, OSError) and info.value.filename == path
    # a regular file whose size says 0 (/proc) is read up to the cap plus one byte, then refused
    if os.path.exists("/proc/self/maps"):
        with pytest.raises(FileRefused, match="bytes allowed"):
            files.read_regular_file("/proc/self/maps", 10)


def test_reads_at_most_the_cap_plus_one_byte(tmp_path, monkeypatch):
    path = _write(tmp_path / "big", b"x" * 100_000)
    asked = []
    real_read = os.read
    monkeypatch.setattr(files.os, "read", lambda fd, n: asked.append(n) or real_read(fd, n))
    fd, _ = files.open_regular_file(path)
    try:
        with pytest.raises(FileRefused, match="bytes allowed"):
            files.read_open_file(fd, 1000, path)
    finally:
        os.close(fd)
    assert sum(asked) == 1001


@pytest.mark.parametrize("kind", ["folder", "fifo", "device", "socket"])
def test_refuses_what_is_not_a_regular_file_without_blocking(tmp_path, kind):
    path = str(tmp_path / "thing")
    if kind == "folder":
        os.mkdir(path)
    elif kind == "fifo":
        if not hasattr(os, "mkfifo"):
            pytest.skip("no FIFOs")
        os.mkfifo(path)
    elif kind == "device":
        if not os.path.exists("/dev/zero"):
            pytest.skip("no /dev/zero")
        path = "/dev/zero"
    else:
        import socket
        if not hasattr(socket, "AF_UNIX"):
            pytest.skip("no Unix sockets")
        path = str(tmp_path / "s")
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(path)
        sock.close()
    with pytest.raises(FileRefused) as info:
        files.read_regular_file(path, 1 << 20)
    assert info.value.errno == errno.EINVAL and info.value.strerror.startswith("not a regular file (")


@posix_only
def test_a_fifo_swapped_in_after_the_look_does_not_block(tmp_path, monkeypatch):
    """The look says "regular file", then the name leads to a FIFO: the open returns at once, the descriptor is
    looked at again and refused."""
    fifo = str(tmp_path / "fifo")
    os.mkfifo(fifo)
    regular = os.stat(_write(tmp_path / "r", b"x"))
    real_stat = os.stat
    monkeypatch.setattr(files.os, "stat", lambda p, *a, **k: regular if p == fifo else real_stat(p, *a, **k))
    outcome = []

    def attempt():
        try:
            files.read_regular_file(fifo, 100)
        except FileRefused as exc:
            outcome.append(exc)
    worker = threading.Thread(target=attempt, daemon=True)
    worker.start()
    worker.join(5)
    if worker.is_alive():   # unblock the open so the thread ends, then fail
        with open(fifo, "wb"):
            pass
        pytest.fail("opening a FIFO blocked")
    assert outcome and "FIFO" in outcome[0].strerror


def test_decoding_names_the_file_and_the_byte(tmp_path):
    path = _write(tmp_path / "bad", b"ok\xff")
    with pytest.raises(FileRefused) as info:
        files.decode_text(files.read_regular_file(path, 100), path, "utf-8")
    assert info.value.errno == errno.EILSEQ and info.value.filename == path
    assert "not utf-8 text" in info.value.strerror and "byte 2" in info.value.strerror
    with pytest.raises(FileRefused) as info:
        files.decode_text(files.read_regular_file(path, 100), path, "no-such-codec")
    assert "unknown encoding 'no-such-codec'" in info.value.strerror


def test_descriptor_path_is_where_the_descriptor_leads(tmp_path):
    target = _write(tmp_path / "real.txt", b"x")
    os.symlink(target, tmp_path / "link")
    fd, status = files.open_regular_file(str(tmp_path / "link"))
    try:
        assert stat.S_ISREG(status.st_mode)
        found = files.descriptor_path(fd)
        assert found is None or found == os.path.realpath(target)
        if os.path.isdir("/proc/self/fd"):
            assert found == os.path.realpath(target)
    finally:
        os.close(fd)


def test_missing_file_is_the_system_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        files.read_regular_file(str(tmp_path / "nope"), 10)


def test_root_is_checked_on_what_was_opened(tmp_path):
    root = tmp_path / "root"
    os.mkdir(root)
    inside = _write(root / "in.txt", b"in")
    secret = _write(tmp_path / "secret.txt", b"SECRET")
    os.symlink(secret, root / "out.txt")
    os.symlink(inside, root / "alias.txt")
    assert files.read_regular_file(str(root / "alias.txt"), 10, root=str(root)) == b"in"
    with pytest.raises(FileRefused) as info:
        files.read_regular_file(str(root / "out.txt"), 10, root=str(root))
    assert info.value.errno == errno.EACCES and "leads outside" in info.value.strerror


def test_a_nul_in_the_name_is_an_os_error(tmp_path):
    with pytest.raises(OSError, match="NUL"):
        files.read_regular_file(str(tmp_path / "a\0b"), 10)
