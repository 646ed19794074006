"""Analysis: facts about a template's AST (its variables and scopes, static scans) and its rewrites."""
