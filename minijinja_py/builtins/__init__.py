"""Builtins: Jinja2's filter and test library, and the decorators that mark what a callable wants."""
