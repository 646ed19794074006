"""The three ways a kernel test renders a snippet (tests/test_kernels.py, tests/test_kernels_dynamic.py): with
kernels (the default), with general_only (kernels/select.py), and by Jinja2 configured as the profile's
reference — a source and a context factory → what differs between the three outcomes (texts, errors, and the
caller's data after the render).

Profiles: "chat" (chat_environment and Jinja2 as transformers configures it: differential_ref.py); "strict",
"chainable", "debug" (that undefined class, immutable sandbox, loopcontrols); "autoescape" (the same, autoescaping,
default undefined); "mutable" (Environment(immutable=False) with `do` and loopcontrols, against Jinja2's
SandboxedEnvironment). Without Jinja2 installed, kernels and general are still compared.
"""

import minijinja_py as mj
from minijinja_py.kernels import select

try:
    import jinja2
    import jinja2.sandbox
    from differential_ref import FIXED_NOW, mj_kind, reference_env, reference_kind
except ImportError:  # the reference is optional
    jinja2 = None
    FIXED_NOW = None


def entry_names():
    """The registry's entries, by the names select.recording() reports."""
    return sorted({entry.name for entry in select.REGISTRY.values()})


def chosen_by(source, environment=None, general=False):
    """The entries compiling source chooses (a fresh environment: nothing cached; chat by default), with kernels
    (whatever MINIJINJA_PY_GENERAL_ONLY says) or general_only."""
    previous = select.configure(general_only=general)
    try:
        with select.recording() as chosen:
            (environment or mj.chat_environment)().from_string(source)
    finally:
        select.configure(*previous)
    return set(chosen)


def our_environment(profile):
    """A fresh environment of the profile (ours)."""
    if profile == "chat":
        return mj.chat_environment(now=lambda: FIXED_NOW) if FIXED_NOW else mj.chat_environment()
    if profile in _UNDEFINED:
        return mj.Environment(undefined=getattr(mj, _UNDEFINED[profile]), extensions=("loopcontrols",))
    if profile == "autoescape":
        return mj.Environment(autoescape=True, extensions=("loopcontrols",))
    return mj.Environment(immutable=False, extensions=("do", "loopcontrols"))


def _reference(profile):
    if jinja2 is None:
        return None
    if profile == "chat":
        return reference_env()
    if profile in _UNDEFINED:
        return jinja2.sandbox.ImmutableSandboxedEnvironment(undefined=getattr(jinja2, _UNDEFINED[profile]),
                                                            extensions=["jinja2.ext.loopcontrols"])
    if profile == "autoescape":
        return jinja2.sandbox.ImmutableSandboxedEnvironment(autoescape=True, extensions=["jinja2.ext.loopcontrols"])
    return jinja2.sandbox.SandboxedEnvironment(extensions=["jinja2.ext.do", "jinja2.ext.loopcontrols"])


PROFILES = ("chat", "strict", "chainable", "debug", "autoescape", "mutable")
_UNDEFINED = {"strict": "StrictUndefined", "chainable": "ChainableUndefined", "debug": "DebugUndefined"}
_compiled = {}


def compiled(profile, source, way):
    """source compiled for profile, way "kernels", "general" (general_only) or "jinja2" (None without Jinja2)."""
    key = (profile, source, way)
    if key not in _compiled:
        if way == "jinja2":
            reference = _reference(profile)
            _compiled[key] = reference.from_string(source) if reference is not None else None
        else:
            previous = select.configure(general_only=way == "general")
            try:
                _compiled[key] = our_environment(profile).from_string(source)
            finally:
                select.configure(*previous)
    return _compiled[key]


def compile_chat(source, general, **options):
    """source compiled by a fresh chat environment (options: chat_environment's), with kernels or general_only."""
    previous = select.configure(general_only=general)
    try:
        return mj.chat_environment(**options).from_string(source)
    finally:
        select.configure(*previous)


def outcome(template, ctx):
    """("ok", text) or ("error", the exception), and the caller's data after it (the repr of what the context
    holds but its callables)."""
    try:
        result = "ok", template.render(ctx)
    except Exception as exc:  # noqa: BLE001 - compared by the caller
        result = "error", exc
    return result + (repr({key: value for key, value in ctx.items() if not callable(value)}),)


def _our_error(exc):
    return type(exc).__name__, getattr(exc, "message", str(exc)), getattr(exc, "lineno", None), \
        getattr(exc, "colno", None)


def _same(first, second, reference=False):
    if first[0] != second[0]:
        return False
    if first[0] == "ok":
        return first[1] == second[1]
    if not reference:
        return _our_error(first[1]) == _our_error(second[1])
    kind = reference_kind(second[1])
    return mj_kind(first[1]) == kind and (kind != "raise" or first[1].message == second[1].message)


def differences(kernels, general, reference):
    """What differs between the three outcomes: [] when kernels and general give the same text or the same error
    (class, message, line and column) and leave the same data, and Jinja2 (reference; None: not compared) the same
    text or the same kind of error and the same data."""
    found = []
    if not _same(kernels, general) or kernels[2] != general[2]:
        found.append(f"kernels {shown(kernels)} vs general {shown(general)}")
    if kernels[0] == "error" and not isinstance(kernels[1], mj.TemplateError):
        found.append(f"not a TemplateError: {shown(kernels)}")
    if reference is not None and (not _same(kernels, reference, True) or kernels[2] != reference[2]):
        found.append(f"kernels {shown(kernels)} vs Jinja2 {shown(reference)}")
    return found


def shown(result):
    text = repr(result[1]) if result[0] == "ok" else \
        f"{type(result[1]).__name__}({getattr(result[1], 'message', str(result[1]))!r})"
    return f"{text} (data {result[2]})"


def three_ways(profile, source, make_context):
    """The differences of rendering source three ways, each with a fresh context from make_context()."""
    kernels = outcome(compiled(profile, source, "kernels"), make_context())
    general = outcome(compiled(profile, source, "general"), make_context())
    reference = compiled(profile, source, "jinja2")
    return differences(kernels, general, outcome(reference, make_context()) if reference is not None else None)
