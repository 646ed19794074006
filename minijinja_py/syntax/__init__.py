"""Syntax: template source → AST (lexer and LALR driver, grammar callbacks, node classes). Knows no values."""
