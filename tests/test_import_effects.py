"""What importing the package does to the program's cyclic garbage collector (__init__.py): paused while the
package loads, then left as the program had it (running or not). Each case runs in a fresh interpreter (the import
happens once per process)."""

import os
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(code):
    """The words code prints, run by a fresh interpreter that finds the package of this checkout first."""
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=env,
                          cwd=os.path.join(ROOT, "tests"), timeout=60)
    assert proc.returncode == 0 and not proc.stderr, proc.stderr
    return proc.stdout.split()


def test_the_collector_is_left_as_the_program_had_it():
    assert run("""
        import gc
        import minijinja_py
        print(gc.isenabled())
    """) == ["True"]
    assert run("""
        import gc
        gc.disable()
        import minijinja_py
        print(gc.isenabled(), minijinja_py.Environment().from_string("{{ 1 + 1 }}").render())
    """) == ["False", "2"]
