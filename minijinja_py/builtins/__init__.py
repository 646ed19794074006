"""Builtins: Jinja2's filter and test library."""
