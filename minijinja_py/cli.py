"""Command line: render a chat template for a conversation and print the prompt.

    python -m minijinja_py render TEMPLATE CONVERSATION.json [--add-generation-prompt] [--var NAME=JSON ...]
    python -m minijinja_py check TEMPLATE          # compile only: report syntax errors with a caret
    python -m minijinja_py check TEMPLATE --json   # ... and print its capabilities (see capabilities.py)
    python -m minijinja_py list                    # the chat templates shipped with the package

TEMPLATE is a shipped template name (see `list`), a .jinja file, a chat_template.json / tokenizer_config.json,
or a model folder. CONVERSATION.json holds "messages" and optionally "tools", "documents",
"add_generation_prompt", and any other template variable (bos_token, enable_thinking, ...); keys starting
with "_" are comments. Exit status: 0 rendered, 1 template error (message on stderr), 2 bad usage or input.
"""

import argparse
import json
import os
import sys

from .capabilities import capabilities_json
from .chat import ChatTemplate, load_chat_template, seed_template, seed_template_names
from .errors import TemplateError

__all__ = ["main"]


def _load_template(spec, name=None):
    if spec in seed_template_names():
        return seed_template(spec), {}, spec
    if os.path.exists(spec):
        source, special = load_chat_template(spec, name)
        return source, special, spec
    raise FileNotFoundError(f"{spec}: not a shipped template ({', '.join(seed_template_names())}) nor a file")


def _parse_var(text):
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise ValueError(f"--var takes NAME=VALUE, got {text!r}")
    try:
        return name, json.loads(value)
    except ValueError:
        return name, value  # a bare string


def main(argv=None):
    parser = argparse.ArgumentParser(prog="minijinja_py", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    render = sub.add_parser("render", help="render a chat template for a conversation")
    render.add_argument("template")
    render.add_argument("conversation", help="JSON file ('-' for stdin)")
    render.add_argument("--add-generation-prompt", action="store_true", default=None)
    render.add_argument("--continue-final-message", action="store_true")
    render.add_argument("--template-name", help="which of several named templates in a tokenizer_config.json")
    render.add_argument("--var", action="append", default=[], metavar="NAME=JSON",
                        help="an extra template variable (repeatable)")
    check = sub.add_parser("check", help="compile a template and report errors")
    check.add_argument("template")
    check.add_argument("--template-name")
    check.add_argument("--json", action="store_true", help="print the template's capabilities as JSON")
    sub.add_parser("list", help="list the shipped chat templates")
    args = parser.parse_args(argv)

    if args.command == "list":
        print("\n".join(seed_template_names()))
        return 0
    try:
        source, special, label = _load_template(args.template, args.template_name)
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        template = ChatTemplate(source, name=label, special_tokens=special)
    except TemplateError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if args.command == "check":
        print(json.dumps(capabilities_json(template), indent=2) if args.json else f"{label}: ok")
        return 0
    try:
        if args.conversation == "-":
            data = json.load(sys.stdin)
        else:
            with open(args.conversation, encoding="utf-8") as f:
                data = json.load(f)
        if not isinstance(data, dict) or "messages" not in data:
            raise ValueError("the conversation file must be a JSON object with a \"messages\" list")
        variables = dict(_parse_var(v) for v in args.var)
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    data = {k: v for k, v in data.items() if not k.startswith("_")}
    messages = data.pop("messages")
    add_generation_prompt = data.pop("add_generation_prompt", False)
    if args.add_generation_prompt is not None:
        add_generation_prompt = True
    try:
        prompt = template.render(messages, tools=data.pop("tools", None), documents=data.pop("documents", None),
                                 add_generation_prompt=add_generation_prompt,
                                 continue_final_message=args.continue_final_message, **{**data, **variables})
    except TemplateError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    sys.stdout.write(prompt)
    if not prompt.endswith("\n"):
        sys.stdout.write("\n")
    return 0
