"""One case of the chat-data campaign (chat_gen.py) rendered three ways and compared: a ChatCase → its outcome.

The three renders: Jinja2 configured as transformers configures it (differential_ref.reference_env), minijinja_py's
chat environment as shipped (its kernels chosen), and minijinja_py with the kernels off (general_only, as
MINIJINJA_PY_GENERAL_ONLY=1 compiles), each template compiled once per process (transformers keeps it compiled
too). The comparison with Jinja2 is differential_ref's: the same text or the same kind of error, its known
differences (KNOWN) recognised; the two ways of minijinja_py must give the same text or the same error (type and
message), so a fast path that parts from the general one shows even where Jinja2 agrees with one of them. A render
that changes the caller's data is a difference too.

With an oracle (hf_env.py: transformers' apply_chat_template with Jinja2, load_oracle), a case the three ways
agree on also goes through mj.apply_chat_template and the oracle with the caller's inputs before transformers'
processing (compare_api): the same prompt or the same kind of error.

Outcome: ("same", kind), ("excluded", reason), ("known", key, detail) or ("differ", category, detail).
"""

import dataclasses
import os
import sys
from collections.abc import Mapping

import differential_ref as ref
import minijinja_py as mj
from chat_gen import generate_chat_case, template_variables
from differential_gen import Case
from minijinja_py.kernels import select

__all__ = ["HOLDOUT", "CHAT_KNOWN", "load_templates", "case_for", "compare_chat", "compare_api", "render_three",
           "load_oracle"]

HOLDOUT = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                       "benchmarks", "holdout")


def load_templates(corpus=None):
    """[(name, source, variables)]: the holdout templates, then those of the corpus folder if given, by name."""
    found = []
    for folder in filter(None, (HOLDOUT, corpus)):
        for file in sorted(os.listdir(folder)):
            if file.endswith(".jinja"):
                with open(os.path.join(folder, file), encoding="utf-8") as f:
                    source = f.read()
                found.append((file, source, template_variables(source)))
    return found


def load_oracle(folder):
    """The reference renderer of transformers' apply_chat_template (hf_env.py in folder), its clock fixed."""
    sys.path.insert(0, folder)
    import hf_env
    hf_env.set_fixed_now(ref.FIXED_NOW)
    return hf_env


def case_for(seed, templates):
    """The case of this seed: the template seed % len(templates), a conversation drawn from the seed."""
    name, source, variables = templates[seed % len(templates)]
    return generate_chat_case(seed, name, source, variables)


_compiled = {}


def _compile(way, source):
    # (template, None) or (None, the error), cached per way and source
    key = (way, source)
    if key not in _compiled:
        try:
            if way == "jinja2":
                _compiled[key] = (ref.reference_env().from_string(source), None)
            else:
                previous = select.configure(general_only=way == "general")
                try:
                    env = mj.chat_environment(now=lambda: ref.FIXED_NOW)   # a fresh one: it caches what it compiled
                    _compiled[key] = (env.from_string(source), None)
                finally:
                    select.configure(*previous)
        except Exception as exc:  # noqa: BLE001 - compared below
            _compiled[key] = (None, exc)
    return _compiled[key]


def _render(way, source, context):
    template, error = _compile(way, source)
    if template is None:
        return ("error", error, "compile") if way == "jinja2" else ("error", error)
    try:
        return ("ok", template.render(**context))
    except Exception as exc:  # noqa: BLE001 - compared below
        return ("error", exc, "render") if way == "jinja2" else ("error", exc)


def render_three(case):
    """(Jinja2's result, minijinja_py's, minijinja_py's with general_only, did a render change the data)."""
    before = repr(case.context)
    results = tuple(_render(way, case.source, case.context) for way in ("jinja2", "kernels", "general"))
    return results + (repr(case.context) != before,)


def _same_result(a, b):
    if a[0] != b[0]:
        return False
    if a[0] == "ok":
        return a[1] == b[1]
    if "recursion_limit" in (getattr(a[1], "limit", None), getattr(b[1], "limit", None)):
        # both stopped by a limit, one by Python's recursion limit: the two ways spend Python frames differently
        return isinstance(a[1], mj.LimitExceeded) and isinstance(b[1], mj.LimitExceeded)
    return type(a[1]) is type(b[1]) and getattr(a[1], "message", str(a[1])) == getattr(b[1], "message", str(b[1]))


def _shown(result):
    return repr(result[1])[:400] if result[0] == "ok" else ref._short(result[1])


def _recursion_before_call_depth(case, reference, mine):
    # Python's recursion limit reached before max_call_depth (a recursive macro over deeply nested data: a level
    # costs minijinja_py 3 to 10 Python frames, Jinja2 about 5; README, Known differences). Checked: with more
    # Python stack, minijinja_py stops at its design limit (max_call_depth, max_data_depth) or renders as Jinja2 does.
    if mine[0] != "error" or getattr(mine[1], "limit", None) != "recursion_limit":
        return False
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(previous * 4)
    try:
        again = _render("kernels", case.source, case.context)
    finally:
        sys.setrecursionlimit(previous)
    if again[0] == "error" and getattr(again[1], "limit", None) in ("max_call_depth", "max_data_depth"):
        return True
    return ref._classify(reference, again)[0] == "same"


CHAT_KNOWN = [
    ref.Known("recursion-before-call-depth", "a recursive macro over deeply nested data (a tool call's arguments "
              "nested ~100 deep), called from deep in the template or recursing through statements that cost "
              "minijinja_py more Python frames per level than Jinja2's ~5, can reach Python's recursion limit before "
              "max_call_depth: LimitExceeded (recursion_limit) where Jinja2 renders; checked: with more stack "
              "minijinja_py stops at its design limit or renders as Jinja2", _recursion_before_call_depth),
]


# differential_ref's nfkc-names recognises any difference in a template whose text (not only its names) has
# characters NFKC changes: real chat templates have such text (DeepSeek's full-width `<｜User｜>`) and ASCII names,
# so it would hide every difference there
_NOT_HERE = {"nfkc-names"}


def _known(case, reference, mine):
    shaped = Case(case.source, case.context)
    for known in ref.KNOWN:
        if known.key not in _NOT_HERE and known.matches(shaped, reference, mine):
            return known
    return next((k for k in CHAT_KNOWN if k.matches(case, reference, mine)), None)


_chat_templates = {}


def _chat_template(source):
    # a ChatTemplate of the source, kept per process (apply_chat_template's own cache holds fewer templates than a
    # campaign goes round), or the source where it does not compile
    if source not in _chat_templates:
        try:
            _chat_templates[source] = mj.ChatTemplate(source, now=ref.FIXED_NOW)
        except mj.TemplateError:
            _chat_templates[source] = source
    return _chat_templates[source]


def _through_api(case, oracle):
    # (the oracle's result, minijinja_py's, did either change the caller's data): the case's api inputs through
    # transformers' input processing and render (oracle: the shared hf_env module) and through apply_chat_template
    api, before = case.api, repr(case.api)
    arguments = (api["messages"], api["tools"], api["documents"], api["add_generation_prompt"],
                 api["continue_final_message"])
    try:
        reference = ("ok", oracle.render_chat(case.source, *arguments, **api["kwargs"]))
    except Exception as exc:  # noqa: BLE001 - compared below
        reference = ("error", exc, "render")
    template = _chat_template(case.source)   # (the source itself where it does not compile: the error in its place)
    try:
        mine = ("ok", mj.apply_chat_template(template, *arguments[:3], add_generation_prompt=arguments[3],
                                             continue_final_message=arguments[4], **api["kwargs"]))
    except Exception as exc:  # noqa: BLE001 - compared below
        mine = ("error", exc)
    return reference, mine, repr(case.api) != before


_API_KNOWN = {"design-limits", "limit-instead-of-overflow", "recursion-before-call-depth"}


def compare_api(case, oracle):
    """The case through apply_chat_template and through the oracle (transformers' processing + Jinja2)."""
    reference, mine, mutated = _through_api(case, oracle)
    detail = f"reference    {_shown(reference)}\nminijinja_py {_shown(mine)}"
    if mutated:
        return ("differ", "api: caller's data changed", detail)
    outcome = ref._classify(reference, mine)
    if outcome[0] == "differ":
        # (of the known differences, only the limits apply here: the others re-render the template alone)
        known = None if outcome[1].startswith("leak") else _known(case, reference, mine)
        if known is not None and known.key in _API_KNOWN:
            return ("known", known.key, detail)
        return ("differ", "api: " + outcome[1], detail)
    return outcome


def compare_chat(case, oracle=None):
    """The case rendered three ways (and through the API, when an oracle is given) → its outcome."""
    outcome = _compare_three(case)
    if oracle is not None and outcome[0] in ("same", "excluded") and case.api is not None and _modelled(case.api):
        return compare_api(case, oracle)
    return outcome


def _modelled(api):
    # Does the oracle model these messages? It takes dicts only (and refuses what is not a mapping, as
    # transformers does); messages that are other mappings, dataclasses or pydantic models transformers makes
    # dicts, as minijinja_py does (README), and the oracle does not
    messages = api["messages"]
    return not isinstance(messages, (list, tuple)) or not any(
        not isinstance(m, dict) and (isinstance(m, Mapping) or dataclasses.is_dataclass(m)) for m in messages)


def _compare_three(case):
    reference, mine, general, mutated = render_three(case)
    detail = (f"reference    {_shown(reference)}\nminijinja_py {_shown(mine)}\n"
              f"general_only {_shown(general)}")
    if mutated:
        return ("differ", "caller's data changed", detail)
    outcome = ref._classify(reference, mine)
    if outcome[0] == "differ":
        if not outcome[1].startswith("leak"):
            known = _known(case, reference, mine)
            if known is not None:
                return ("known", known.key, detail)
        agrees = "general_only agrees with Jinja2" if ref._classify(reference, general)[0] == "same" \
            else "general_only too"
        return ("differ", f"{outcome[1]} ({agrees})", detail)
    if not _same_result(mine, general):
        return ("differ", "kernels and general_only differ", detail)
    return outcome
