"""python -m minijinja_py: see cli.py."""

import sys

from .cli import main

sys.exit(main())
