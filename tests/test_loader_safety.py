"""Loaders against hostile file systems and misbehaving loader objects: only regular files inside the search path
are read, never more than max_template_size allows, and every failure is a TemplateError naming the file or the
template (the hostile section in test_surfaces.py runs the same attacks in capped child processes)."""

import os
import sys

import pytest

import minijinja_py as mj
from minijinja_py import loaders
from minijinja_py.core import files


def _env(path, **kw):
    return mj.Environment(loader=mj.FileSystemLoader(str(path), **kw))


def _write(path, text, mode="w"):
    with open(path, mode) as f:
        f.write(text)
    return str(path)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_is_no_template_and_does_not_block(tmp_path):
    os.mkfifo(tmp_path / "t.jinja")
    with pytest.raises(mj.TemplateNotFound):
        _env(tmp_path).get_template("t.jinja")
    assert "t.jinja" not in _env(tmp_path).list_templates()


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_a_link_to_a_device_is_not_read(tmp_path):
    os.symlink("/dev/zero", tmp_path / "zero.jinja")
    with pytest.raises(mj.TemplateNotFound):
        _env(tmp_path).get_template("zero.jinja")


def test_a_folder_under_the_name_is_not_found(tmp_path):
    os.mkdir(tmp_path / "dir.jinja")
    with pytest.raises(mj.TemplateNotFound):
        _env(tmp_path).get_template("dir.jinja")


def test_a_large_file_is_refused_having_read_at_most_the_cap(tmp_path, monkeypatch):
    _write(tmp_path / "big.jinja", "x" * 50_000)
    env = mj.Environment(loader=mj.FileSystemLoader(str(tmp_path)), limits=mj.Limits(max_template_size=1000))
    asked = []
    real_read = os.read
    monkeypatch.setattr(files.os, "read", lambda fd, n: asked.append(n) or real_read(fd, n))
    # the file's size is checked after opening it, on the descriptor: the read is what is bounded here
    monkeypatch.setattr(files.os, "fstat", lambda fd, real=os.fstat: _sized_zero(real(fd)))
    with pytest.raises(mj.LimitExceeded) as info:
        env.get_template("big.jinja")
    assert info.value.limit == "max_template_size" and "big.jinja" in info.value.message
    assert sum(asked) <= 4001


def _sized_zero(status):
    values = list(status)
    values[6] = 0   # st_size, as /proc's files say
    return os.stat_result(values)


def test_text_that_is_not_in_the_encoding_names_the_file(tmp_path):
    path = _write(tmp_path / "bad.jinja", b"ok \xff\xfe", "wb")
    with pytest.raises(mj.TemplateLoadError) as info:
        _env(tmp_path).get_template("bad.jinja")
    assert path in str(info.value) and "not utf-8 text" in str(info.value) and info.value.path == path
    _write(tmp_path / "main.jinja", "a{% include 'bad.jinja' %}b")
    with pytest.raises(mj.TemplateLoadError) as info:
        _env(tmp_path).get_template("main.jinja").render()
    assert path in str(info.value) and info.value.lineno == 1


def test_an_unknown_encoding_is_a_load_error(tmp_path):
    _write(tmp_path / "t.jinja", "x")
    with pytest.raises(mj.TemplateLoadError, match="unknown encoding 'no-such-codec'"):
        _env(tmp_path, encoding="no-such-codec").get_template("t.jinja")


def test_an_unreadable_file_is_a_load_error(tmp_path, monkeypatch):
    path = _write(tmp_path / "t.jinja", "x")
    os.chmod(path, 0)
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        # root reads every file (and the interpreter here is not reachable by another user): the open refused as
        # the kernel refuses it to anyone else
        def refuse(name, *args, **kwargs):
            raise PermissionError(13, "Permission denied", name)
        monkeypatch.setattr(files.os, "open", refuse)
    try:
        with pytest.raises(mj.TemplateLoadError, match="cannot be read"):
            _env(tmp_path).get_template("t.jinja")
    finally:
        os.chmod(path, 0o600)


class _Raising(mj.BaseLoader):
    def __init__(self, exc):
        self.exc = exc

    def get_source(self, environment, template):
        raise self.exc


def _choice_of_itself():
    loader = mj.ChoiceLoader([])
    loader.loaders = [loader]
    return loader


MISBEHAVING = {
    "function returns an int": mj.FunctionLoader(lambda name: 42),
    "function returns a 2-tuple": mj.FunctionLoader(lambda name: ("x", None)),
    "function returns bytes": mj.FunctionLoader(lambda name: (b"x", None, None)),
    "function returns a bad uptodate": mj.FunctionLoader(lambda name: ("x", None, 3)),
    "function raises ValueError": mj.FunctionLoader(lambda name: int("x")),
    "prefix holds a non-loader": mj.PrefixLoader({"a": 42}),
    "choice holds a non-loader": mj.ChoiceLoader([object()]),
    "choice is not iterable": mj.ChoiceLoader(42),
    "choice contains itself": _choice_of_itself(),
    "raises MemoryError": _Raising(MemoryError()),
    "raises RecursionError": _Raising(RecursionError("deep")),
    "raises AttributeError": _Raising(AttributeError("nope")),
}


def test_an_uptodate_that_fails_is_a_load_error():
    def uptodate():
        raise OSError("gone")
    env = mj.Environment(loader=mj.FunctionLoader(lambda name: ("x", None, uptodate)))
    env.get_template("x")
    with pytest.raises(mj.TemplateLoadError, match="x: the loader's uptodate"):
        env.get_template("x")
    with pytest.raises(mj.TemplateLoadError):
        env.from_string("{% include 'x' %}").render()


@pytest.mark.parametrize("label", sorted(MISBEHAVING))
def test_a_misbehaving_loader_is_a_load_error(label):
    name = "a/x" if "prefix" in label else "x"
    env = mj.Environment(loader=MISBEHAVING[label])
    with pytest.raises(mj.TemplateLoadError) as info:
        env.get_template(name)
    assert info.value.path == name and str(info.value).startswith(name + ": the loader ")
    with pytest.raises(mj.TemplateLoadError):   # the same inside a render, located at the tag
        env.from_string("{% include '" + name + "' %}").render()
    with pytest.raises(mj.TemplateLoadError):
        MISBEHAVING[label].load(env, name)


def test_a_loader_that_finds_nothing_still_says_not_found():
    env = mj.Environment(loader=mj.FunctionLoader(lambda name: None))
    with pytest.raises(mj.TemplateNotFound):
        env.get_template("x")
    with pytest.raises(mj.TemplateNotFound):
        mj.Environment(loader=mj.PrefixLoader({"a": mj.DictLoader({})})).get_template("a/x")


def test_list_templates_follows_link_cycles_once(tmp_path):
    _write(tmp_path / "t.jinja", "x")
    os.mkdir(tmp_path / "sub")
    _write(tmp_path / "sub" / "u.jinja", "y")
    os.symlink(".", tmp_path / "again")
    os.symlink("..", tmp_path / "sub" / "up")
    outside = tmp_path.parent / (tmp_path.name + "-outside")
    os.mkdir(outside)
    _write(outside / "secret.jinja", "s")
    os.symlink(str(outside), tmp_path / "out")
    names = _env(tmp_path, followlinks=True).list_templates()
    assert names == ["sub/u.jinja", "t.jinja"]
    assert _env(tmp_path).list_templates() == ["sub/u.jinja", "t.jinja"]


def test_a_link_swapped_after_the_open_is_judged_by_what_was_opened(tmp_path, monkeypatch):
    """The name pointed inside when resolved, but the descriptor is the outside file: refused."""
    root = tmp_path / "root"
    os.mkdir(root)
    secret = _write(tmp_path / "secret.txt", "SECRET")
    _write(root / "inside.jinja", "inside")
    os.symlink(secret, root / "t.jinja")
    monkeypatch.setattr(files.os.path, "realpath",
                        lambda p, real=os.path.realpath: real(str(root / "inside.jinja")) if p.endswith("t.jinja")
                        else real(p))
    with pytest.raises(mj.TemplateNotFound):
        _env(root).get_template("t.jinja")


@pytest.mark.skipif(sys.platform != "linux", reason="the fallback is tested where /proc would be used")
def test_without_descriptor_paths_the_open_file_must_be_the_resolved_one(tmp_path, monkeypatch):
    root = tmp_path / "root"
    os.mkdir(root)
    _write(root / "t.jinja", "inside")
    secret = _write(tmp_path / "secret.txt", "SECRET")
    os.symlink(secret, root / "s.jinja")
    monkeypatch.setattr(files, "descriptor_path", lambda fd: None)
    assert _env(root).get_template("t.jinja").render() == "inside"
    with pytest.raises(mj.TemplateNotFound):
        _env(root).get_template("s.jinja")
