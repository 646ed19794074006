"""python -m minijinja_py: see cli.py."""

import sys

from .cli import program

sys.exit(program())
