"""The hostile surfaces section (issue 24): loaders, model files, GGUF, the hub cache, the caches of compiled
templates and capabilities, attacked as hostile_surface_files.py and hostile_surface_formats.py describe, each
case in a child process with a 2 GB address space (hostile_surfaces.py): 0 escapes, 0 exceptions other than the
documented ones, 0 cases over 5 s of CPU or 500 MB of peak memory, 0 inputs changed, 0 hangs. And a symbolic
link flipped between a file inside FileSystemLoader's search path and one outside while get_source runs: 0
outside reads.
"""

import os
import subprocess
import sys
import time

import pytest

import hostile_surfaces
import minijinja_py as mj

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo") or not os.path.exists("/proc/self/status"),
                                reason="the surfaces section needs a POSIX system with /proc (FIFOs, sparse files)")

CASES = hostile_surfaces.CASES


@pytest.fixture(scope="module")
def results():
    return hostile_surfaces.run()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_surface_case(case, results):
    problems = hostile_surfaces.problems(case, results.get(case.id))
    assert not problems, "\n".join(problems)


def test_every_surface_of_the_issue_is_attacked():
    prefixes = {c.id.split("/")[0] for c in CASES}
    assert prefixes == {"loaders", "model", "hub", "gguf", "caches", "capabilities"}
    assert len(CASES) >= 100 and len({c.id for c in CASES}) == len(CASES)


_FLIPPER = """
import os, sys, time
link, inside, outside, seconds = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
end = time.monotonic() + seconds
flips = 0
while time.monotonic() < end:
    for target in (inside, outside):
        os.symlink(target, link + ".new")
        os.replace(link + ".new", link)
        flips += 1
print(flips)
"""


def test_a_link_flipped_while_get_source_runs_never_reads_outside(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    (root / "inside.jinja").write_text("INSIDE")
    secret = tmp_path / "secret.jinja"
    secret.write_text(hostile_surfaces.SECRET)
    os.symlink(str(root / "inside.jinja"), root / "t.jinja")
    loader = mj.FileSystemLoader(str(root))
    env = mj.Environment(loader=loader)
    seconds = 4.0
    flipper = subprocess.Popen([sys.executable, "-c", _FLIPPER, str(root / "t.jinja"), str(root / "inside.jinja"),
                                str(secret), str(seconds)], stdout=subprocess.PIPE, text=True)
    counts = {"inside": 0, "outside": 0, "not found": 0}
    end = time.monotonic() + seconds
    try:
        while time.monotonic() < end:
            try:
                source = loader.get_source(env, "t.jinja")[0]
            except mj.TemplateNotFound:
                counts["not found"] += 1
                continue
            counts["outside" if hostile_surfaces.SECRET in source else "inside"] += 1
    finally:
        flips = int(flipper.communicate(timeout=30)[0])
    assert counts["outside"] == 0, counts
    # the race was run: both answers came back many times while the link flipped
    assert flips > 100 and counts["inside"] > 100 and counts["not found"] > 100, (flips, counts)
