"""The scenes of the hostile surfaces section (hostile_surfaces.py): the case registry and the helpers that build
files, links, FIFOs and sparse files in a case's temporary folder. SECRET sits outside every folder a name must
stay in: reading it anywhere is an escape. The cases: hostile_surface_files.py (loaders, model folders and files,
the hub cache) and hostile_surface_formats.py (GGUF, the caches of compiled templates, capabilities).
"""

import json
import os
from collections import namedtuple

SECRET = "SECRET-OUTSIDE-THE-ROOT"

# expect: "ok" (returns), or the TemplateError class the call must raise (by name, or a tuple of names);
# retained_mb: what the process may still hold once the call's results are dropped (a cache's bound)
SurfaceCase = namedtuple("SurfaceCase", "id build expect retained_mb", defaults=(None,))
CASES = []


def case(case_id, expect, retained_mb=None):
    """Register build(tmp) → the call to measure (a function of no arguments) as a case."""
    def register(build):
        CASES.append(SurfaceCase(case_id, build, expect, retained_mb))
        return build
    return register


# ================================================================================================ scene helpers
def write(path, content):
    os.makedirs(os.path.dirname(str(path)), exist_ok=True)
    with open(path, "wb" if isinstance(content, bytes) else "w") as f:
        f.write(content)
    return str(path)


def sparse(path, size, head=b""):
    """A file that claims `size` bytes (zeros after head) without taking the disk space."""
    os.makedirs(os.path.dirname(str(path)), exist_ok=True)
    with open(path, "wb") as f:
        f.write(head)
        f.truncate(size)
    return str(path)


def fifo(path):
    os.makedirs(os.path.dirname(str(path)), exist_ok=True)
    os.mkfifo(path)
    return str(path)


def link(target, path):
    os.makedirs(os.path.dirname(str(path)), exist_ok=True)
    os.symlink(target, path)
    return str(path)


def outside(tmp):
    """The folder next to every root, holding the secret in every form a loader might be led to read."""
    folder = os.path.join(tmp, "outside")
    write(os.path.join(folder, "secret.jinja"), SECRET)
    write(os.path.join(folder, "tokenizer_config.json"), json.dumps({"chat_template": SECRET, "bos_token": SECRET}))
    write(os.path.join(folder, "chat_template.jinja"), SECRET)
    return folder


def tag_dense(size, salt=""):
    """A template of about `size` characters whose compiled form is large (a print per 7 characters)."""
    return "{{ x }}" * (size // 7) + salt


def env_with_files(tmp, files=None, **options):
    import minijinja_py as mj
    root = os.path.join(tmp, "root")
    os.makedirs(root, exist_ok=True)
    for name, content in (files or {}).items():
        write(os.path.join(root, name), content)
    return mj.Environment(loader=mj.FileSystemLoader(root, **options)), root


MESSAGES = [{"role": "user", "content": "hi"}]
TEMPLATE = "{{ bos_token }}{% for m in messages %}{{ m.content }}{% endfor %}"
