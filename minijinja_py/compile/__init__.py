"""Compile: AST → Python closures, once per template. No Python source is generated."""
