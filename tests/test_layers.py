"""The package's structure, read from its source (ast; nothing imported): its modules import each other in one
direction only (no circle), always at the top of the file (never inside a function, which is how a circle gets
hidden), and stay small; and the compiler dispatches every AST node class through its explicit tables.

The sizes are reported (pytest -s shows them) and held to the house style's bounds with some slack: ~600 lines
a module, ~60 a function."""

import ast
import inspect
import os

import pytest

from minijinja_py.compile import compiler
from minijinja_py.syntax import nodes
from minijinja_py.analysis import folderrors, transforms

PACKAGE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "minijinja_py")
MAX_MODULE_LINES = 700
MAX_FUNCTION_LINES = 80


def _modules():
    """{dotted module name under the package: its AST}, every folder walked (`compile.loops`, `environment`)."""
    found = {}
    for root, _, files in os.walk(PACKAGE):
        for name in sorted(files):
            if name.endswith(".py"):
                rel = os.path.relpath(os.path.join(root, name), PACKAGE)[:-3].replace(os.sep, ".")
                with open(os.path.join(root, name), encoding="utf-8") as f:
                    found[rel] = ast.parse(f.read())
    return found


def _package_imports(module, node, module_names):
    """The package modules an import statement of `module` names (`from . import x`, `from ..x import y`,
    `import minijinja_py.x.y`, `from minijinja_py.x import y`): a name is a module where one exists, else the
    module it is imported from."""
    if isinstance(node, ast.ImportFrom):
        if node.level:
            package = module.split(".")[:-1]
            if module.endswith("__init__"):
                package = module.split(".")[:-1]
            base = package[:len(package) - (node.level - 1)]
            head = ".".join(base + ([node.module] if node.module else []))
        elif (node.module or "").split(".")[0] == "minijinja_py":
            head = node.module[len("minijinja_py") + 1:]
        else:
            return set()
        found = set()
        for alias in node.names:
            candidate = f"{head}.{alias.name}" if head else alias.name
            found.add(candidate if candidate in module_names else head)
        return found & module_names
    return {alias.name[len("minijinja_py") + 1:] for alias in node.names
            if alias.name.startswith("minijinja_py.")} & module_names


def _graph():
    modules = _modules()
    names = set(modules)
    graph, inner = {}, []
    for name, tree in modules.items():
        graph[name] = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                graph[name] |= _package_imports(name, node, names) - {name}
        for function in (n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
            for node in ast.walk(function):
                if isinstance(node, (ast.Import, ast.ImportFrom)) and _package_imports(name, node, names):
                    inner.append(f"{name}.{function.name}:{node.lineno}")
    return modules, graph, inner


def _cycle(graph):
    """A list of modules forming an import circle, or None."""
    state = {}

    def visit(name, path):
        state[name] = "open"
        for target in sorted(graph[name]):
            if state.get(target) == "open":
                return path[path.index(target):] + [target]
            if target not in state:
                found = visit(target, path + [target])
                if found:
                    return found
        state[name] = "done"
        return None

    for name in sorted(graph):
        if name not in state:
            found = visit(name, [name])
            if found:
                return found
    return None


def test_no_import_circle_and_no_import_inside_a_function():
    _, graph, inner = _graph()
    assert _cycle(graph) is None
    assert inner == []


# The stage folders, bottom up: a module imports modules of its own folder and of the folders below it only. So
# `core` imports nothing of the package, `syntax` knows no values (never imports `runtime`), and `chat` sits above
# the engine; `kernels` (the fast paths) sits below `compile` and never imports it: a kernel receives its general
# closure as data. The API face (environment, loaders, ...) sits above the engine and below the chat layer; the command
# line and the package's __init__ above everything.
LAYERS = ["core", "syntax", "runtime", "builtins", "analysis", "kernels", "compile", "api", "chat", "face"]
FACE = {"__init__", "__main__", "cli"}


def _layer(module):
    if "." in module:
        return module.split(".")[0]
    return "face" if module in FACE else "api"


def test_stage_folders_import_only_downwards():
    _, graph, _ = _graph()
    assert {_layer(name) for name in graph} == set(LAYERS)
    upward = sorted(f"{name} -> {target}" for name, targets in graph.items() for target in targets
                    if LAYERS.index(_layer(target)) > LAYERS.index(_layer(name)))
    assert upward == []


def test_modules_and_functions_stay_small():
    modules, _, _ = _graph()
    long_modules, long_functions = [], []
    for name, tree in modules.items():
        lines = max((getattr(n, "end_lineno", 0) or 0) for n in ast.walk(tree))
        print(f"{name}: {lines} lines")
        if lines > MAX_MODULE_LINES:
            long_modules.append(f"{name} ({lines})")
        for function in (n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
            length = function.end_lineno - function.lineno + 1
            if length > MAX_FUNCTION_LINES:
                long_functions.append(f"{name}.{function.name} ({length})")
    assert (long_modules, long_functions) == ([], [])


@pytest.mark.parametrize("table,kind", [(compiler.STATEMENTS, "statement"), (compiler.EXPRESSIONS, "expression")])
def test_every_node_class_has_its_compiler(table, kind):
    """Every AST class is compiled through an entry of the explicit dispatch tables (no getattr dispatch)."""
    statements = {nodes.Template, nodes.Text, nodes.Output, nodes.If, nodes.For, nodes.Assign, nodes.AssignBlock,
                  nodes.Macro, nodes.CallBlock, nodes.FilterBlock, nodes.With, nodes.ExprStmt, nodes.Break,
                  nodes.Continue, nodes.Generation, nodes.Block, nodes.Autoescape, nodes.Load}
    parts = {nodes.Param, nodes.NameTarget, nodes.NamespaceTarget, nodes.TupleTarget}  # compiled by their owner
    # the parser's nodes and those the AST rewrites add (transforms.py, folderrors.py)
    every = {cls for module in (nodes, transforms, folderrors)
             for _, cls in inspect.getmembers(module, inspect.isclass)
             if issubclass(cls, nodes.Node) and cls is not nodes.Node}
    wanted = (statements - {nodes.Template}) if kind == "statement" else every - statements - parts
    assert set(table) == wanted
