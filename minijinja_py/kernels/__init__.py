"""Kernels: the fast paths. An IR node is run by the kernel its signature chooses (both in select.py), each kernel
keeping the node's general closure as its fallback; walks.py also says what a kernel may read in line. The
kernels' modules register their entries when the package is imported."""

from . import walks   # noqa: F401 - its entry registers in select.REGISTRY
