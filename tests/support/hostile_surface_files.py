"""Hostile surface cases for what reads files by name: loaders, model folders and files, the local Hugging Face
cache (hostile_surfaces.py runs them; hostile_surface_scenes.py builds their scenes)."""

import json
import os

from hostile_surface_scenes import (
    MESSAGES, TEMPLATE, case, env_with_files, fifo, link, outside, sparse, tag_dense, write,
)


# ===================================================================================================== loaders
def _get(env, name):
    return lambda: env.get_template(name).render()


@case("loaders/fifo", "TemplateNotFound")
def _(tmp):
    env, root = env_with_files(tmp)
    fifo(os.path.join(root, "t.jinja"))
    return _get(env, "t.jinja")


@case("loaders/fifo_included_in_a_render", "TemplateNotFound")
def _(tmp):
    env, root = env_with_files(tmp, {"main.jinja": "a{% include 't.jinja' %}b"})
    fifo(os.path.join(root, "t.jinja"))
    return _get(env, "main.jinja")


@case("loaders/link_to_a_fifo_inside", "TemplateNotFound")
def _(tmp):
    env, root = env_with_files(tmp)
    link(fifo(os.path.join(root, "sub", "f")), os.path.join(root, "t.jinja"))
    return _get(env, "t.jinja")


@case("loaders/link_to_dev_zero", "TemplateNotFound")
def _(tmp):
    env, root = env_with_files(tmp)
    link("/dev/zero", os.path.join(root, "t.jinja"))
    return _get(env, "t.jinja")


@case("loaders/folder_named_like_a_template", "TemplateNotFound")
def _(tmp):
    env, root = env_with_files(tmp)
    os.makedirs(os.path.join(root, "t.jinja"))
    return _get(env, "t.jinja")


@case("loaders/link_out", "TemplateNotFound")
def _(tmp):
    env, root = env_with_files(tmp)
    link(os.path.join(outside(tmp), "secret.jinja"), os.path.join(root, "t.jinja"))
    return _get(env, "t.jinja")


@case("loaders/folder_link_out", "TemplateNotFound")
def _(tmp):
    env, root = env_with_files(tmp)
    link(outside(tmp), os.path.join(root, "sub"))
    return _get(env, "sub/secret.jinja")


@case("loaders/relative_link_out_included", "TemplateNotFound")
def _(tmp):
    env, root = env_with_files(tmp, {"main.jinja": "{% include 'up/outside/secret.jinja' %}"})
    outside(tmp)
    link("..", os.path.join(root, "up"))
    return _get(env, "main.jinja")


@case("loaders/traversal_spellings", "ok")
def _(tmp):
    import minijinja_py as mj
    env, root = env_with_files(tmp)
    outside(tmp)
    names = ["../outside/secret.jinja", "/" + os.path.join(tmp, "outside", "secret.jinja").lstrip("/"),
             "..\\outside\\secret.jinja", "sub/../../outside/secret.jinja", "./../outside/secret.jinja",
             "C:/outside/secret.jinja", "\0../outside/secret.jinja", "%2e%2e/outside/secret.jinja"]

    def call():
        found = []
        for name in names:
            try:
                found.append(env.get_template(name).render())
            except mj.TemplateNotFound:
                pass
        return found
    return call


@case("loaders/list_templates_link_cycles", "ok")
def _(tmp):
    env, root = env_with_files(tmp, {"t.jinja": "x", "sub/u.jinja": "y"}, followlinks=True)
    link(".", os.path.join(root, "a"))
    link(".", os.path.join(root, "b"))
    link("..", os.path.join(root, "sub", "up"))
    return env.list_templates


@case("loaders/list_templates_link_to_the_file_system_root", "ok")
def _(tmp):
    env, root = env_with_files(tmp, {"t.jinja": "x"}, followlinks=True)
    link("/", os.path.join(root, "everything"))
    link(outside(tmp), os.path.join(root, "out"))
    return env.list_templates


@case("loaders/file_of_255_MB", "LimitExceeded")
def _(tmp):
    env, root = env_with_files(tmp)
    sparse(os.path.join(root, "t.jinja"), 255 << 20, b"{{ x }}")
    return _get(env, "t.jinja")


@case("loaders/file_at_the_size_limit", ("ok", "LimitExceeded"))
def _(tmp):
    env, root = env_with_files(tmp, {"t.jinja": "é" * 262_144})
    return _get(env, "t.jinja")


@case("loaders/not_utf8", "TemplateLoadError")
def _(tmp):
    env, _ = env_with_files(tmp, {"t.jinja": b"ok \xff\xfe"})
    return _get(env, "t.jinja")


@case("loaders/not_utf8_included_in_a_render", "TemplateLoadError")
def _(tmp):
    env, _ = env_with_files(tmp, {"t.jinja": b"ok \xff\xfe", "main.jinja": "{% include 't.jinja' %}"})
    return _get(env, "main.jinja")


@case("loaders/unknown_encoding", "TemplateLoadError")
def _(tmp):
    env, _ = env_with_files(tmp, {"t.jinja": "x"}, encoding="no-such-codec")
    return _get(env, "t.jinja")


def _misbehaving(make_loader, name="x", in_render=False):
    """Load the template twice (a loader's uptodate() is asked the second time), or render twice."""
    def build(tmp):
        import minijinja_py as mj
        env = mj.Environment(loader=make_loader(mj))
        if in_render:
            main = env.from_string("{% include '" + name + "' %}")
            return lambda: [main.render(), main.render()]
        return lambda: [env.get_template(name).render(), env.get_template(name).render()]
    return build


def _failing_uptodate():
    raise OSError("the loader's source went away")


def _choice_of_itself(mj):
    loader = mj.ChoiceLoader([])
    loader.loaders = [loader]
    return loader


for _label, _make, _name in (
        ("function_returns_42", lambda mj: mj.FunctionLoader(lambda name: 42), "x"),
        ("function_returns_a_2_tuple", lambda mj: mj.FunctionLoader(lambda name: ("x", None)), "x"),
        ("function_returns_bytes", lambda mj: mj.FunctionLoader(lambda name: b"x"), "x"),
        ("function_raises_value_error", lambda mj: mj.FunctionLoader(lambda name: int(name)), "x"),
        ("prefix_holds_a_non_loader", lambda mj: mj.PrefixLoader({"a": 42}), "a/x"),
        ("choice_holds_a_non_loader", lambda mj: mj.ChoiceLoader([object()]), "x"),
        ("choice_contains_itself", _choice_of_itself, "x"),
        ("uptodate_raises", lambda mj: mj.FunctionLoader(lambda name: ("x", None, _failing_uptodate)), "x")):
    case(f"loaders/{_label}", "TemplateLoadError")(_misbehaving(_make, _name))
    case(f"loaders/{_label}_in_a_render", "TemplateLoadError")(_misbehaving(_make, _name, in_render=True))


@case("loaders/a_million_distinct_names", "LimitExceeded")
def _(tmp):
    import minijinja_py as mj
    env = mj.Environment(loader=mj.FunctionLoader(lambda name: "{{ 1 }}" + name))
    loop = "{% for i in range(1000) %}{% for j in range(1000) %}{% include 'n' ~ i ~ '-' ~ j %}{% endfor %}{% endfor %}"
    return lambda: env.from_string(loop).render()


@case("loaders/a_million_missing_names", "LimitExceeded")
def _(tmp):
    import minijinja_py as mj
    env = mj.Environment(loader=mj.FunctionLoader(lambda name: None))
    loop = "{% for i in range(1000) %}{% for j in range(1000) %}{% include 'n' ~ i ~ '-' ~ j ignore missing %}" \
           "{% endfor %}{% endfor %}"
    return lambda: env.from_string(loop).render()


@case("loaders/25_distinct_large_templates_in_a_render", "LimitExceeded")
def _(tmp):
    import minijinja_py as mj
    env = mj.Environment(loader=mj.FunctionLoader(lambda name: tag_dense(210_000, name)))
    return lambda: env.from_string("{% for i in range(25) %}{% include 'n' ~ i %}{% endfor %}").render()


_SPELLINGS = ["x.jinja", "./x.jinja", ".//x.jinja", "././x.jinja", "x.jinja/", ".///x.jinja", "./././x.jinja",
              "x.jinja//", "./x.jinja/", "//x.jinja"[1:], "sub/../x.jinja", "././/x.jinja", ".//./x.jinja",
              "./x.jinja//", "././/x.jinja", "x.jinja///", ".////x.jinja", "./././/x.jinja", "././//x.jinja",
              "././././x.jinja", ".//.//x.jinja", "x.jinja////", "./x.jinja///", "././x.jinja/", ".//x.jinja/"]


@case("loaders/one_file_under_25_spellings", "ok", retained_mb=100)
def _(tmp):
    import minijinja_py as mj
    env, _ = env_with_files(tmp, {"x.jinja": tag_dense(210_000)})

    def call():
        found = []
        for name in _SPELLINGS:
            try:
                found.append(env.get_template(name))
            except mj.TemplateNotFound:
                pass
        return len({id(t) for t in found})
    return call


@case("loaders/one_file_under_25_spellings_in_a_render", ("ok", "LimitExceeded"))
def _(tmp):
    env, _ = env_with_files(tmp, {"x.jinja": tag_dense(210_000)})
    main = env.from_string("{% for n in names %}{% include n ignore missing %}{% endfor %}")
    return lambda: main.render(names=_SPELLINGS, x=1)[:50]


# ================================================================================================= model files
def load_call(path):
    def call():
        import minijinja_py as mj
        return mj.load_chat_template(path)
    return call


def _pretrained(path, **render):
    def call():
        import minijinja_py as mj
        return mj.ChatTemplate.from_pretrained(path).render(MESSAGES, **render)
    return call


def _model(tmp, files=None):
    folder = os.path.join(tmp, "model")
    os.makedirs(os.path.join(folder, "additional_chat_templates"), exist_ok=True)
    for name, content in (files or {}).items():
        write(os.path.join(folder, name), content)
    return folder


@case("model/fifo_as_the_model_path", "TemplateLoadError")
def _(tmp):
    return load_call(fifo(os.path.join(tmp, "m.gguf")))


@case("model/dev_zero_as_the_model_path", "TemplateLoadError")
def _(tmp):
    return load_call("/dev/zero")


@case("model/link_to_dev_zero_as_the_model_path", "TemplateLoadError")
def _(tmp):
    return load_call(link("/dev/zero", os.path.join(tmp, "tokenizer_config.json")))


def _beside(name):
    """The other files of a model folder whose `name` is hostile: a template, unless name is read only when
    there is none (chat_template.json)."""
    return {"chat_template.jinja": TEMPLATE} if name not in ("chat_template.jinja", "chat_template.json") else {}


for _name in ("chat_template.jinja", "additional_chat_templates/x.jinja", "tokenizer_config.json",
              "special_tokens_map.json", "chat_template.json"):
    def _fifo_in_folder(tmp, _name=_name):
        folder = _model(tmp, _beside(_name))
        fifo(os.path.join(folder, _name))
        return load_call(folder)

    def _zero_in_folder(tmp, _name=_name):
        folder = _model(tmp, _beside(_name))
        link("/dev/zero", os.path.join(folder, _name))
        return load_call(folder)

    def _secret_in_folder(tmp, _name=_name):
        folder = _model(tmp, _beside(_name))
        secrets = outside(tmp)
        target = "tokenizer_config.json" if _name.endswith(".json") else "secret.jinja"
        link(os.path.join(secrets, target), os.path.join(folder, _name))
        return _pretrained(folder)
    case(f"model/fifo_as_{_name}", "TemplateLoadError")(_fifo_in_folder)
    case(f"model/dev_zero_as_{_name}", "TemplateLoadError")(_zero_in_folder)
    case(f"model/link_out_as_{_name}", "TemplateLoadError")(_secret_in_folder)


@case("model/additional_templates_folder_linked_out", "TemplateLoadError")
def _(tmp):
    folder = os.path.join(tmp, "model")
    write(os.path.join(folder, "chat_template.jinja"), TEMPLATE)
    link(outside(tmp), os.path.join(folder, "additional_chat_templates"))
    return _pretrained(folder)


@case("model/template_file_of_255_MB", "TemplateLoadError")
def _(tmp):
    return load_call(sparse(os.path.join(tmp, "t.jinja"), 255 << 20, b"{{ x }}"))


@case("model/json_file_of_255_MB", "TemplateLoadError")
def _(tmp):
    return load_call(sparse(os.path.join(tmp, "m", "tokenizer_config.json"), 255 << 20, b'{"chat_template": "'))


@case("model/untyped_file_of_255_MB", "TemplateLoadError")
def _(tmp):
    return load_call(sparse(os.path.join(tmp, "model-file"), 255 << 20, b"{"))


@case("model/json_of_empty_lists_20_MB", "TemplateLoadError")
def _(tmp):
    return load_call(write(os.path.join(tmp, "tokenizer_config.json"), b"[" + b"[]," * 7_000_000 + b"[]]"))


@case("model/json_of_short_strings_20_MB", "TemplateLoadError")
def _(tmp):
    return load_call(write(os.path.join(tmp, "tokenizer_config.json"),
                       b'{"chat_template": "x", "a": [' + b'"ab",' * 4_000_000 + b'"ab"]}'))


@case("model/json_of_empty_objects_in_a_folder", "TemplateLoadError")
def _(tmp):
    folder = _model(tmp, {"chat_template.jinja": TEMPLATE,
                          "special_tokens_map.json": b'{"a": [' + b"{}," * 5_000_000 + b"{}]}"})
    return load_call(folder)


@case("model/json_nested_100000_deep", "TemplateLoadError")
def _(tmp):
    return load_call(write(os.path.join(tmp, "tokenizer_config.json"), "[" * 100_000 + "]" * 100_000))


@case("model/150000_named_templates", "TemplateLoadError")
def _(tmp):
    named = [{"name": f"t{i}", "template": "x"} for i in range(150_000)]
    return _pretrained(write(os.path.join(tmp, "tokenizer_config.json"), json.dumps({"chat_template": named})))


@case("model/256_named_templates", "ok")
def _(tmp):
    named = [{"name": "default", "template": TEMPLATE}] + [{"name": f"t{i}", "template": f"{{{{ {i} }}}}"}
                                                             for i in range(255)]
    return _pretrained(write(os.path.join(tmp, "tokenizer_config.json"), json.dumps({"chat_template": named})))


@case("model/30_named_templates_of_210_KB", "ok", retained_mb=150)
def _(tmp):
    named = [{"name": "default", "template": TEMPLATE}] + [{"name": f"t{i}", "template": tag_dense(210_000, str(i))}
                                                             for i in range(30)]
    path = write(os.path.join(tmp, "tokenizer_config.json"), json.dumps({"chat_template": named}))

    def call():
        import minijinja_py as mj
        ct = mj.ChatTemplate.from_pretrained(path)
        return [ct.render(MESSAGES), ct.render(MESSAGES, chat_template="t3", x=1)[:20]]
    return call


@case("model/257_additional_templates", "TemplateLoadError")
def _(tmp):
    folder = _model(tmp, {"chat_template.jinja": TEMPLATE})
    for i in range(257):
        write(os.path.join(folder, "additional_chat_templates", f"t{i}.jinja"), "x")
    return load_call(folder)


@case("model/30_additional_templates_of_210_KB", "ok", retained_mb=150)
def _(tmp):
    folder = _model(tmp, {"chat_template.jinja": TEMPLATE})
    for i in range(30):
        write(os.path.join(folder, "additional_chat_templates", f"t{i}.jinja"), tag_dense(210_000, str(i)))
    return _pretrained(folder)


@case("model/not_utf8_template", "TemplateLoadError")
def _(tmp):
    return _pretrained(write(os.path.join(tmp, "t.jinja"), b"{{ x }}\xff"))


@case("model/nul_in_the_path", "TemplateLoadError")
def _(tmp):
    return load_call(os.path.join(tmp, "a\0b"))


# =============================================================================================== the hub cache
def _hub(tmp, ref=b"c0ffee", blob_link=True):
    """A local cache holding acme/chat; HF_HUB_CACHE points at it (the child's own environment)."""
    cache = os.path.join(tmp, "hub")
    repo = os.path.join(cache, "models--acme--chat")
    write(os.path.join(repo, "blobs", "abc"), json.dumps({"chat_template": TEMPLATE, "bos_token": "<s>"}))
    snapshot = os.path.join(repo, "snapshots", "c0ffee")
    os.makedirs(snapshot)
    if blob_link:
        link("../../blobs/abc", os.path.join(snapshot, "tokenizer_config.json"))
    if ref is not None:
        write(os.path.join(repo, "refs", "main"), ref)
    os.environ["HF_HUB_CACHE"] = cache
    return repo


@case("hub/a_proper_cache_loads", "ok")
def _(tmp):
    _hub(tmp)
    return _pretrained("acme/chat")


for _label, _ref in (("parent_path", "../../../outside"), ("absolute_path", "ABSOLUTE"), ("dot_dot", ".."),
                     ("through_a_snapshot", "c0ffee/../../../outside"), ("empty", ""), ("nul", "c0\0ffee"),
                     ("newlines", "c0ffee\n../../x"), ("not_a_snapshot", "feed")):
    def _ref_case(tmp, _ref=_ref):
        secrets = outside(tmp)
        _hub(tmp, _ref.replace("ABSOLUTE", secrets).encode())
        return _pretrained("acme/chat")
    case(f"hub/refs_main_{_label}", "TemplateLoadError")(_ref_case)


@case("hub/refs_main_not_utf8", "TemplateLoadError")
def _(tmp):
    _hub(tmp, b"\xff\xfe\xfd")
    return load_call("acme/chat")


@case("hub/refs_main_fifo", "TemplateLoadError")
def _(tmp):
    repo = _hub(tmp, None)
    fifo(os.path.join(repo, "refs", "main"))
    return load_call("acme/chat")


@case("hub/refs_main_dev_zero", "TemplateLoadError")
def _(tmp):
    repo = _hub(tmp, None)
    link("/dev/zero", os.path.join(repo, "refs", "main"))
    return load_call("acme/chat")


@case("hub/refs_main_of_1_GB", "TemplateLoadError")
def _(tmp):
    repo = _hub(tmp, None)
    sparse(os.path.join(repo, "refs", "main"), 1 << 30, b"c0ffee")
    return load_call("acme/chat")


@case("hub/refs_main_linked_out", "TemplateLoadError")
def _(tmp):
    repo = _hub(tmp, None)
    link(write(os.path.join(outside(tmp), "ref"), "c0ffee"), os.path.join(repo, "refs", "main"))
    return load_call("acme/chat")


@case("hub/snapshot_linked_out", "TemplateLoadError")
def _(tmp):
    repo = _hub(tmp, b"evil")
    link(outside(tmp), os.path.join(repo, "snapshots", "evil"))
    return _pretrained("acme/chat")


@case("hub/snapshots_folder_linked_out", "TemplateLoadError")
def _(tmp):
    secrets = outside(tmp)
    os.makedirs(os.path.join(tmp, "elsewhere"))
    link(secrets, os.path.join(tmp, "elsewhere", "c0ffee"))
    repo = _hub(tmp, b"c0ffee")
    os.rename(os.path.join(repo, "snapshots"), os.path.join(repo, "old"))
    link(os.path.join(tmp, "elsewhere"), os.path.join(repo, "snapshots"))
    return _pretrained("acme/chat")


@case("hub/snapshot_file_linked_out", "TemplateLoadError")
def _(tmp):
    repo = _hub(tmp, blob_link=False)
    link(os.path.join(outside(tmp), "tokenizer_config.json"),
         os.path.join(repo, "snapshots", "c0ffee", "tokenizer_config.json"))
    return _pretrained("acme/chat")


@case("hub/snapshot_file_fifo", "TemplateLoadError")
def _(tmp):
    repo = _hub(tmp, blob_link=False)
    fifo(os.path.join(repo, "snapshots", "c0ffee", "chat_template.jinja"))
    return load_call("acme/chat")


@case("hub/snapshot_additional_template_linked_out", "TemplateLoadError")
def _(tmp):
    repo = _hub(tmp)
    link(os.path.join(outside(tmp), "secret.jinja"),
         os.path.join(repo, "snapshots", "c0ffee", "additional_chat_templates", "x.jinja"))
    return _pretrained("acme/chat")


@case("hub/model_id_traversal", "TemplateLoadError")
def _(tmp):
    _hub(tmp)
    outside(tmp)
    return load_call("../outside")
