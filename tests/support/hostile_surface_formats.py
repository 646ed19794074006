"""Hostile surface cases for GGUF files, the caches of compiled templates and capabilities (hostile_surfaces.py
runs them; hostile_surface_scenes.py builds their scenes)."""

import os
import struct

from hostile_surface_files import load_call
from hostile_surface_scenes import MESSAGES, TEMPLATE, case, env_with_files, fifo, sparse, tag_dense, write


# ======================================================================================================== GGUF
def _gguf_header(kv_count, version=3):
    return b"GGUF" + struct.pack("<IQQ", version, 0, kv_count)


def _gguf_string(text):
    data = text.encode() if isinstance(text, str) else text
    return struct.pack("<Q", len(data)) + data


def _gguf_kv(key, kind, payload):
    return _gguf_string(key) + struct.pack("<I", kind) + payload


_TEMPLATE_KV = _gguf_kv("tokenizer.chat_template", 8, _gguf_string(TEMPLATE))


@case("gguf/2_to_the_63_key_values_in_a_sparse_file", "TemplateLoadError")
def _(tmp):
    return load_call(sparse(os.path.join(tmp, "m.gguf"), 4 << 30, _gguf_header(1 << 63)))


@case("gguf/a_million_empty_key_values", "TemplateLoadError")
def _(tmp):
    empty = _gguf_kv("", 0, b"\0")
    return load_call(write(os.path.join(tmp, "m.gguf"), _gguf_header(1_000_001) + _TEMPLATE_KV + empty * 1_000_000))


@case("gguf/65536_empty_key_values", "ok")
def _(tmp):
    empty = _gguf_kv("", 0, b"\0")
    return load_call(write(os.path.join(tmp, "m.gguf"), _gguf_header(65_536) + _TEMPLATE_KV + empty * 65_535))


def _sparse_array(tmp, key, item_type, count, item_size, before=b"", kv_more=0):
    body = _gguf_header(1 + kv_more) + before + _gguf_kv(key, 9, struct.pack("<IQ", item_type, count))
    return sparse(os.path.join(tmp, "m.gguf"), len(body) + count * item_size + 4096, body)


@case("gguf/token_array_of_2_to_the_28_empty_strings", "TemplateLoadError")
def _(tmp):
    bos = _gguf_kv("tokenizer.ggml.bos_token_id", 4, struct.pack("<I", (1 << 28) - 1))
    return load_call(_sparse_array(tmp, "tokenizer.ggml.tokens", 8, 1 << 28, 8, _TEMPLATE_KV + bos, kv_more=2))


@case("gguf/merges_of_2_to_the_28_empty_strings", "TemplateLoadError")
def _(tmp):
    return load_call(_sparse_array(tmp, "tokenizer.ggml.merges", 8, 1 << 28, 8, _TEMPLATE_KV, kv_more=1))


@case("gguf/2_to_the_27_empty_arrays", "TemplateLoadError")
def _(tmp):
    return load_call(_sparse_array(tmp, "x", 9, 1 << 27, 12, _TEMPLATE_KV, kv_more=1))


@case("gguf/scalar_array_of_2_to_the_32_items", "ok")
def _(tmp):
    return load_call(_sparse_array(tmp, "tokenizer.ggml.scores", 6, 1 << 32, 4, _TEMPLATE_KV, kv_more=1))


@case("gguf/many_small_arrays_of_strings", "TemplateLoadError")
def _(tmp):
    one = _gguf_kv("k", 9, struct.pack("<IQ", 8, 1 << 16) + b"\0" * (8 << 16))
    return load_call(write(os.path.join(tmp, "m.gguf"), _gguf_header(101) + _TEMPLATE_KV + one * 100))


@case("gguf/300_named_templates", "TemplateLoadError")
def _(tmp):
    named = b"".join(_gguf_kv(f"tokenizer.chat_template.t{i}", 8, _gguf_string("x")) for i in range(300))
    return load_call(write(os.path.join(tmp, "m.gguf"), _gguf_header(300) + named))


@case("gguf/three_templates_of_15_MB", "TemplateLoadError")
def _(tmp):
    big = _gguf_string("x" * (15 << 20))
    named = b"".join(_gguf_kv(f"tokenizer.chat_template.t{i}", 8, big) for i in range(3))
    return load_call(write(os.path.join(tmp, "m.gguf"), _gguf_header(3) + named))


@case("gguf/template_claiming_1_GB", "TemplateLoadError")
def _(tmp):
    body = _gguf_header(1) + _gguf_string("tokenizer.chat_template") + struct.pack("<IQ", 8, 1 << 30)
    return load_call(sparse(os.path.join(tmp, "m.gguf"), len(body) + (1 << 30), body))


@case("gguf/key_of_1_GB", "TemplateLoadError")
def _(tmp):
    body = _gguf_header(1) + struct.pack("<Q", 1 << 30)
    return load_call(sparse(os.path.join(tmp, "m.gguf"), len(body) + (1 << 30) + 64, body))


@case("gguf/arrays_nested_past_the_limit", "TemplateLoadError")
def _(tmp):
    nested = struct.pack("<IQ", 9, 1) * 20 + struct.pack("<IQ", 4, 0)
    return load_call(write(os.path.join(tmp, "m.gguf"), _gguf_header(2) + _TEMPLATE_KV + _gguf_kv("x", 9, nested)))


@case("gguf/a_real_sized_vocabulary", "ok")
def _(tmp):
    tokens = b"".join(_gguf_string(f"tok{i}") for i in range(150_000))
    merges = b"".join(_gguf_string(f"a{i} b{i}") for i in range(300_000))
    body = (_gguf_header(4) + _TEMPLATE_KV + _gguf_kv("tokenizer.ggml.merges", 9, struct.pack("<IQ", 8, 300_000))
            + merges + _gguf_kv("tokenizer.ggml.tokens", 9, struct.pack("<IQ", 8, 150_000)) + tokens
            + _gguf_kv("tokenizer.ggml.eos_token_id", 4, struct.pack("<I", 149_999)))
    return load_call(write(os.path.join(tmp, "m.gguf"), body))


@case("gguf/fifo_named_gguf", "TemplateLoadError")
def _(tmp):
    return load_call(fifo(os.path.join(tmp, "model.gguf")))


# ================================================================================================= the caches
# The caches' owners stay alive after the call (what a long-running server does): what they still hold once the
# templates are dropped is what retained_mb bounds.
KEPT = []
_SOURCES = 6        # three times what the caches' budget holds of these: all kept would be ~150 MB


@case("caches/from_string_of_6_distinct_240_KB_sources", "ok", retained_mb=100)
def _(tmp):
    import minijinja_py as mj
    env = mj.Environment()
    KEPT.append(env)
    return lambda: [len(env.from_string(tag_dense(240_000, str(i))).source) for i in range(_SOURCES)]


@case("caches/get_template_of_6_distinct_240_KB_files", "ok", retained_mb=100)
def _(tmp):
    env, _ = env_with_files(tmp, {f"t{i}.jinja": tag_dense(240_000, str(i)) for i in range(_SOURCES)})
    KEPT.append(env)
    return lambda: [env.get_template(f"t{i}.jinja").name for i in range(_SOURCES)]


@case("caches/include_of_6_distinct_240_KB_files_one_per_render", "ok", retained_mb=100)
def _(tmp):
    env, _ = env_with_files(tmp, {f"t{i}.jinja": tag_dense(240_000, str(i)) for i in range(_SOURCES)})
    KEPT.append(env)
    main = env.from_string("{% include name %}")
    return lambda: [main.render(name=f"t{i}.jinja", x=1)[:5] for i in range(_SOURCES)]


@case("caches/apply_chat_template_of_6_distinct_240_KB_sources", "ok", retained_mb=100)
def _(tmp):
    import minijinja_py as mj
    return lambda: [mj.apply_chat_template(tag_dense(240_000, str(i)), MESSAGES, x=1)[:5] for i in range(_SOURCES)]


@case("caches/template_class_of_6_distinct_240_KB_sources", "ok", retained_mb=100)
def _(tmp):
    import minijinja_py as mj
    return lambda: [mj.Template(tag_dense(240_000, str(i))).render(x=1)[:5] for i in range(_SOURCES)]


@case("caches/unpickled_6_distinct_240_KB_templates", "ok", retained_mb=100)
def _(tmp):
    import pickle
    import minijinja_py as mj
    from minijinja_py import template as compiled_template
    env = mj.Environment()

    class Pickled:   # what pickling a Template writes (Template.__reduce__), without compiling it here first
        def __init__(self, source):
            self.recipe = pickle.dumps((mj.Template, env, source, None, None, None))

        def __reduce__(self):
            return (compiled_template._unpickle_template, (self.recipe,))
    pickles = [pickle.dumps(Pickled(tag_dense(240_000, str(i)))) for i in range(_SOURCES)]
    return lambda: [pickle.loads(data).render(x=1)[:5] for data in pickles]


@case("caches/named_templates_of_a_chat_template_each_used", "ok", retained_mb=100)
def _(tmp):
    import minijinja_py as mj
    template = mj.ChatTemplate({f"t{i}": tag_dense(240_000, str(i)) for i in range(_SOURCES)})
    KEPT.append(template)
    return lambda: [template.render(MESSAGES, chat_template=f"t{i}", x=1)[:5] for i in range(_SOURCES)]


# ============================================================================================== capabilities
@case("capabilities/45_MB_printed_per_probe", "ok")
def _(tmp):
    import minijinja_py as mj
    template = mj.ChatTemplate("{% for i in range(5) %}{{ 'x' * 9000000 }}{% endfor %}"
                               "{% for m in messages %}{{ m.content }}{% endfor %}")
    return lambda: template.capabilities.as_dict()
