"""Resources: the grammar and seed templates shipped inside the package (grammar/ and templates/ are mapped to
minijinja_py.grammar and minijinja_py.templates by pyproject.toml), with a fallback to the checkout layout so
the package also runs straight from a source tree."""

import os

_CHECKOUT_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def checkout_path(folder, name=""):
    return os.path.join(_CHECKOUT_ROOT, folder, name)


def read_text(folder, name):
    """Text of grammar/<name> or templates/<name>, from the installed package or the source checkout."""
    from importlib import resources  # ~20 ms to import: paid at the first compile, not at `import minijinja_py`
    try:
        return resources.files(f"minijinja_py.{folder}").joinpath(name).read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError, NotADirectoryError):
        with open(checkout_path(folder, name), encoding="utf-8", newline="") as f:
            return f.read()


def list_names(folder, suffix):
    """Names of the files in grammar/ or templates/ ending with suffix."""
    from importlib import resources
    try:
        entries = [e.name for e in resources.files(f"minijinja_py.{folder}").iterdir()]
    except (ModuleNotFoundError, FileNotFoundError, NotADirectoryError):
        entries = os.listdir(checkout_path(folder))
    return sorted(e for e in entries if e.endswith(suffix))
