"""Kernels: the fast paths, chosen by the IR signature of a compiled node, each with its general closure as fallback."""
