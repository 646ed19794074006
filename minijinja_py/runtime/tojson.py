"""tojson: a template value → JSON text, json.dumps byte for byte, its size (and the work) bounded before any of
it is built: a walk over the value bounds the text (shared parts measured once, cycles and depth refused) —
without encoding anything when that bound is far below the limit, the usual case — and the step budget is charged
for it. With an indent, a small tree of plain data is written by a writer of our own that bounds the text as it
goes, without that walk. The encoder json.dumps would build for the options is made once per plain option set.
The text of a small plain tree passed again unchanged (the same tools in every render) is found again in
textcache.py, charged as when it was made."""

import json
import math

from ..core.errors import LimitExceeded
from ..core.state import CHAR_SHIFT, DEFAULT_LIMITS, check_str_size, current_state, limit_exceeded
from .textcache import recall, remember

__all__ = ["safe_json_dumps", "plain_json"]


def _state(rs):
    return rs if rs is not None else current_state()


def _string_size(value, ensure_ascii, exact):
    # len(json.dumps(value)) for a string: a bound (6 characters per character at most, 12 when ensure_ascii
    # writes astral ones as surrogate pairs), or exactly, by encoding it.
    length = str.__len__(value)   # json.dumps reads a str subclass's text, not its own __len__
    if not exact or length < 64:
        return (12 if ensure_ascii else 6) * length + 2
    encode = json.encoder.encode_basestring_ascii if ensure_ascii else json.encoder.encode_basestring
    return len(encode(value))


def _json_leaf_size(value, ensure_ascii, exact=False):
    cls = type(value)
    if cls is str or isinstance(value, str):
        return _string_size(value, ensure_ascii, exact)
    if cls is bool or value is None:
        return 5
    if isinstance(value, int):
        return value.bit_length() * 10 // 33 + 3
    if isinstance(value, float):
        return 24 if math.isfinite(value) else 9
    return 0  # json.dumps refuses it


def _json_key_size(key, ensure_ascii, exact):
    if isinstance(key, str):
        return _json_leaf_size(key, ensure_ascii, exact)
    if isinstance(key, (int, float)) or key is None:
        return _json_leaf_size(key, ensure_ascii, exact) + 2
    return 0  # json.dumps refuses it (keys must be str, int, float, bool or None)


_QUICK_JSON_VALUES = 512


def _quick_json_size(value, indent_width, item_sep, key_sep, ensure_ascii, max_depth):
    # (an upper bound of len(json.dumps(value, ...)), the number of values, the nesting) by walking value as a
    # plain tree, when that tree holds at most 512 values — the usual case (a tool schema, a tool call's
    # arguments); None for anything bigger, shared many times, cyclic, too deep or not plain (str keys; str, int,
    # float, bool, None leaves), which _json_size measures (or refuses). Kept lean: it runs for every tojson of a
    # render.
    if type(value) not in (dict, list, tuple):
        return None
    chars = values = containers = height = extra = 0   # chars: of strings and keys (per_char each, at the end)
    level = [value]   # the containers at one depth, walked level by level
    while level:
        height += 1
        if height > max_depth:
            return None
        containers += len(level)
        inner = []
        push = inner.append
        for item in level:
            values += len(item)
            if values > _QUICK_JSON_VALUES:
                return None
            if type(item) is dict:
                try:
                    chars += len("".join(item))   # the keys' characters in one call (a key not a str: None)
                except TypeError:
                    return None
                children = item.values()
            else:
                children = item
            for child in children:
                cls = type(child)
                if cls is str:
                    chars += len(child)
                elif cls is dict or cls is list or cls is tuple:
                    push(child)
                elif cls is int:
                    if not -0xFFFFFFFFFFFFFFFF <= child <= 0xFFFFFFFFFFFFFFFF:
                        extra += child.bit_length() * 10 // 33 + 2
                elif cls is not float and cls is not bool and child is not None:
                    return None
        level = inner
    # a string: at most per_char characters per character (see _string_size); every value: at most 24
    # characters of its own (a float, quotes...) and its separators
    size = (12 if ensure_ascii else 6) * chars + extra + 2 * containers + values * (24 + len(item_sep) + len(key_sep))
    if indent_width is not None:
        size += (values + containers) * (1 + indent_width * height)
    return size, values + containers, height


# _json_size looks at each item in Python (a shared part once per place it is met): about as long as 12 steps
_WALK_STEPS = 12


def _json_size(rs, value, limits, indent_width, item_sep, key_sep, ensure_ascii, exact=False):
    # (an upper bound of len(json.dumps(value, ...)), the number of values), found without walking a shared
    # part twice; strings measured exactly (encoded, each paid for first) when `exact`. Raises
    # ValueError('Circular reference detected') as json.dumps would, LimitExceeded for data too deep or too big.
    if not isinstance(value, (list, tuple, dict)):
        return _json_leaf_size(value, ensure_ascii, exact), 1
    cap = limits.max_string
    fuel = rs.fuel if rs is not None else None
    walked = 0               # the steps this walk costs: _WALK_STEPS for each item looked at (charged at the end)
    known = {}               # id → (size without indentation, values, height) of a container measured already
    on_path = {id(value)}

    def frame(container):
        # [container, children, size, direct children, values inside, height of the deepest child]
        children = iter(container.items()) if isinstance(container, dict) else iter(container)
        return [container, children, 2, 0, 1, 0]

    stack = [frame(value)]
    while True:
        top = stack[-1]
        is_dict = isinstance(top[0], dict)
        for child in top[1]:
            walked += _WALK_STEPS
            if top[3]:
                top[2] += len(item_sep)
            top[3] += 1
            if is_dict:
                key, child = child
                if exact and rs is not None and type(key) is str and len(key) >= 64:
                    rs.burn(len(key) >> CHAR_SHIFT)
                top[2] += _json_key_size(key, ensure_ascii, exact) + len(key_sep)
            if isinstance(child, (list, tuple, dict)):
                seen = known.get(id(child))
                if seen is None:
                    if id(child) in on_path:
                        raise ValueError("Circular reference detected")
                    if len(stack) >= limits.max_data_depth:
                        raise limit_exceeded(limits, "max_data_depth", "serialised data nested this deep")
                    on_path.add(id(child))
                    stack.append(frame(child))
                    break
                top[2] += seen[0]
                top[4] += seen[1]
                top[5] = max(top[5], seen[2])
            else:
                if exact and rs is not None and type(child) is str and len(child) >= 64:
                    rs.burn(len(child) >> CHAR_SHIFT)   # it is encoded to be measured
                top[2] += _json_leaf_size(child, ensure_ascii, exact)
                top[4] += 1
            if top[2] > cap:
                check_str_size(limits, top[2], "JSON text")
            if fuel is not None and top[4] + walked > fuel:
                raise limit_exceeded(limits, "max_steps", "the work of this render")
        else:
            stack.pop()
            on_path.discard(id(top[0]))
            result = (top[2], top[4], top[5] + 1)
            known[id(top[0])] = result
            if not stack:
                size, count, height = result
                if indent_width is not None:
                    size += count * (1 + indent_width * height)
                if rs is not None:
                    rs.burn(walked)
                return size, count
            parent = stack[-1]
            parent[2] += result[0]
            parent[4] += result[1]
            parent[5] = max(parent[5], result[2])


def plain_json(rs, value, ensure_ascii):
    # json.dumps(value, ensure_ascii=ensure_ascii) (a bool; the default layout, keys in their order) for a render
    # under way (rs): a string or a small plain tree made at once, anything else by safe_json_dumps.
    cls = type(value)
    if cls is str:
        bound = (12 if ensure_ascii else 6) * len(value) + 2
        if bound <= rs.limits.max_string:
            rs.burn(1 + (bound >> CHAR_SHIFT))
            return (_QUOTE_ASCII if ensure_ascii else _QUOTE)(value)
    elif (cls is dict or cls is list or cls is tuple) and _HAS_C_ENCODER:
        text = _plain_tree_json(rs, rs.limits, value, ensure_ascii, False)
        if text is not None:
            return text
    return safe_json_dumps(rs, value, ensure_ascii=ensure_ascii)


def safe_json_dumps(rs, value, *, indent=None, separators=None, ensure_ascii=True, sort_keys=False, **kwargs):
    # json.dumps(value, ...) with its size (and the work) bounded before anything is built.
    rs = _state(rs)
    limits = rs.limits if rs is not None else DEFAULT_LIMITS
    if type(value) is str and separators is None and not kwargs:
        # a string (a tool call's arguments, often JSON already): json.dumps quotes it whatever the indent and
        # the key order, and its JSONEncoder only checks the separators (it unpacks them); over the limit, the
        # measuring path below finds its exact size before it is made
        bound = (12 if ensure_ascii else 6) * len(value) + 2
        if bound <= limits.max_string:
            if rs is not None:
                rs.burn(1 + (bound >> CHAR_SHIFT))
            return (_QUOTE_ASCII if ensure_ascii else _QUOTE)(value)
    if indent is None and separators is None and not kwargs and type(value) in (dict, list, tuple) and \
            type(ensure_ascii) is bool and type(sort_keys) is bool and _HAS_C_ENCODER:
        text = _plain_tree_json(rs, limits, value, ensure_ascii, sort_keys)
        if text is not None:
            return text
    if indent is not None and not isinstance(indent, (int, str)) or isinstance(indent, bool):
        indent_width = None if indent is None else 0
    else:
        indent_width = None if indent is None else (len(indent) if isinstance(indent, str) else max(indent, 0))
    if separators is None:
        item_sep, key_sep = (", ", ": ") if indent is None else (",", ": ")
    else:
        # unpacked once, first, as json's JSONEncoder does (the same errors; an iterator is then used up)
        item_sep, key_sep = separators
        separators = item_sep, key_sep
        if not (isinstance(item_sep, str) and isinstance(key_sep, str)):
            return _odd_separators(rs, value, indent, separators, ensure_ascii, sort_keys, kwargs)
    if indent_width is not None:
        check_str_size(limits, indent_width, "a JSON indent")
    if (type(indent) is int or type(indent) is str) and not kwargs and type(value) in (dict, list, tuple) and \
            type(ensure_ascii) is bool and type(sort_keys) is bool:
        text = _small_indented_json(rs, limits, value, indent, item_sep, key_sep, ensure_ascii, sort_keys)
        if text is not None:
            return text
    # a bound without encoding anything first (the usual case: it is far below the limit); measured exactly,
    # each string encoded and paid for, only when that bound is over the limit
    measured = _quick_json_size(value, indent_width, item_sep, key_sep, ensure_ascii, limits.max_data_depth)
    if measured is None or measured[0] > limits.max_string:
        try:
            measured = _json_size(rs, value, limits, indent_width, item_sep, key_sep, ensure_ascii)
        except LimitExceeded as exc:
            if exc.limit != "max_string":
                raise
            measured = None
        if measured is None or measured[0] > limits.max_string:
            measured = _json_size(rs, value, limits, indent_width, item_sep, key_sep, ensure_ascii, exact=True)
    size, items = measured[:2]
    check_str_size(limits, size, "JSON text")
    if rs is not None:
        rs.burn(items * (2 if indent is not None else 1) + (size >> CHAR_SHIFT))
    if kwargs:
        text = json.dumps(value, indent=indent, separators=separators, ensure_ascii=ensure_ascii,
                          sort_keys=sort_keys, **kwargs)
    else:
        text = _json_encoder(indent, separators, ensure_ascii, sort_keys).encode(value)
    check_str_size(limits, len(text), "JSON text")
    return text


def _odd_separators(rs, value, indent, separators, ensure_ascii, sort_keys, kwargs):
    # json.dumps with separators that are not both strings: json uses them only where it joins items, so it fails
    # only there, with its own TypeError. A string is quoted without them. Without an indent, json's C encoder
    # refuses them as it is made, before anything is encoded; with one (or in json's Python encoder), a non-empty
    # list or dict at the top fails as it starts when the item separator is not a string, and otherwise the text
    # fails when its pieces are joined, after everything is encoded, if a separator was used (a non-empty list or
    # dict inside). json.dumps is called on a stand-in that fails the same way, or on the value once its text is
    # bounded with string stand-ins for the odd ones (when it does not fail, they were not used).
    options = dict(indent=indent, separators=separators, ensure_ascii=ensure_ascii, sort_keys=sort_keys, **kwargs)
    if isinstance(value, str):
        return safe_json_dumps(rs, value, indent=indent, ensure_ascii=ensure_ascii, sort_keys=sort_keys, **kwargs)
    if indent is None and _HAS_C_ENCODER or indent is not None and not isinstance(separators[0], str) and \
            isinstance(value, (list, tuple, dict)) and value:
        json.dumps([None], **options)   # (raises, as the value would before any of it is encoded)
    stand_ins = tuple(x if isinstance(x, str) else y for x, y in zip(separators, (",", ": ")))
    safe_json_dumps(rs, value, indent=indent, separators=stand_ins, ensure_ascii=ensure_ascii, sort_keys=sort_keys,
                    **kwargs)
    return json.dumps(value, **options)   # (its work bounded by the text just made: that text, or it fails)


def _writer_takes(known, rs, limits):
    # Whether _indented_json would write the value whose text it wrote before (textcache), under these limits
    # and the fuel left: what it checked then, checked again.
    _, _, bound, deepest, items = known
    return bound <= limits.max_string and deepest < min(limits.max_data_depth, _LEVELS) and \
        items <= (_QUICK_JSON_VALUES if rs is None else min(_QUICK_JSON_VALUES, rs.fuel // 2))


def _plain_tree_json(rs, limits, value, ensure_ascii, sort_keys):
    # json.dumps(value) with its default layout for the commonest (`tools|tojson`): a small plain tree, bounded by
    # the quick walk, encoded in C; the text of the same unchanged object found again (textcache) when the walk
    # would take this path. None for anything else.
    kind = ("json", ensure_ascii, sort_keys)
    known = recall(value, kind)
    if known is not None and known[2] <= limits.max_string and known[3] <= limits.max_data_depth:
        if rs is not None:
            rs.burn(known[1])
        return known[0]
    measured = _quick_json_size(value, None, ", ", ": ", ensure_ascii, limits.max_data_depth)
    if measured is None or measured[0] > limits.max_string:
        return None
    steps = measured[1] + (measured[0] >> CHAR_SHIFT)
    if rs is not None:
        rs.burn(steps)
    text = "".join(_c_encoder(ensure_ascii, sort_keys)(value, 0))
    remember(value, kind, (text, steps, measured[0], measured[2]), measured[1], len(text))
    return text


def _small_indented_json(rs, limits, value, indent, item_sep, key_sep, ensure_ascii, sort_keys):
    # json.dumps(value, indent=...) of a small plain tree by _indented_json, or its text made before for the same
    # unchanged object (textcache) when _indented_json would write it; None for anything else.
    kind = ("indent", indent, item_sep, key_sep, ensure_ascii, sort_keys)
    known = recall(value, kind)
    if known is not None and _writer_takes(known, rs, limits):
        if rs is not None:
            rs.burn(known[1])
        return known[0]
    written = _indented_json(rs, limits, value, indent, item_sep, key_sep, ensure_ascii, sort_keys)
    if written is None:
        return None
    text, items, bound, deepest = written
    steps = items * 2 + (len(text) >> CHAR_SHIFT)
    if rs is not None:
        rs.burn(steps)
    remember(value, kind, (text, steps, bound, deepest, items), items, len(text))
    return text


# _indented_json gives up (not a small tree of plain data within the limits: the measuring path takes it) by the
# TypeError that a key that is not a str raises too: a class of its own would cost the import more than it tells
_NotSmall = TypeError


def _indented_json(rs, limits, value, indent, item_sep, key_sep, ensure_ascii, sort_keys):
    # (json.dumps(value, indent=...), the values and containers in it, the bound it was checked by, the deepest
    # level in it) for a small tree of plain data: str keys;
    # str, int, float, bool and None leaves; at most 512 values (fewer when the fuel left is short), nested within
    # max_data_depth and 32 levels; an indent of up to 16 characters. The same text as json's own indenting
    # encoder (pure Python: a generator per container, a yield per piece), written with one list of pieces and
    # bounded as it goes (_json_writer), so that no separate walk measures it first. None for anything else,
    # which safe_json_dumps measures before encoding.
    if not isinstance(indent, str):
        indent = " " * indent
    newlines = _NEWLINES.get(indent)   # newlines[level]: a newline and the indentation of that level
    if newlines is None:
        if len(indent) > 16:
            return None
        newlines = tuple("\n" + indent * level for level in range(_LEVELS + 1))
        if len(_NEWLINES) < 64:
            _NEWLINES[indent] = newlines
    quote = json.encoder.encode_basestring_ascii if ensure_ascii else json.encoder.encode_basestring
    max_items = _QUICK_JSON_VALUES if rs is None else min(_QUICK_JSON_VALUES, rs.fuel // 2)
    parts = []
    write = _json_writer(parts, newlines, quote, 12 if ensure_ascii else 6, item_sep, key_sep, sort_keys,
                         limits.max_string, min(limits.max_data_depth, _LEVELS), max_items)
    try:
        items, bound, deepest = write(value)
    except TypeError:   # _NotSmall, or a key that is not a str (json converts some, refuses others)
        return None
    return "".join(parts), items, bound, deepest


def _json_writer(parts, newlines, quote, per_char, item_sep, key_sep, sort_keys, cap, max_level, max_items):
    # _indented_json's writer: write(value) appends its pieces to parts and returns the number of values and
    # containers written, the text's bound and the deepest level written, or raises _NotSmall. Each container
    # adds its children's bound (separators, keys, numbers, strings of up to 64 characters; per_char: see
    # _string_size) before they are written, a longer string its own before it is quoted; over cap (max_string),
    # it gives up.
    short = 2 * (per_char * _SHORT + 2) + len(item_sep) + len(key_sep) + 24   # a child's bound, short strings
    size = items = deepest = 0

    def write(container, level):
        nonlocal size, items, deepest
        items += len(container) + 1
        if items > max_items or level >= max_level:
            raise _NotSmall
        if level > deepest:
            deepest = level
        if not container:
            parts.append("{}" if type(container) is dict else "[]")
            return
        inner, is_dict = newlines[level + 1], type(container) is dict
        size += (short + len(inner)) * len(container) + len(inner)
        if size > cap:
            raise _NotSmall
        parts.append("{" + inner if is_dict else "[" + inner)
        separator = item_sep + inner
        if is_dict:
            pairs = sorted(container.items()) if sort_keys else container.items()
        else:
            pairs = ((None, item) for item in container)
        first = True
        for key, item in pairs:
            if first:
                first = False
            else:
                parts.append(separator)
            if is_dict:
                if len(key) > _SHORT:
                    size += per_char * len(key)
                    if size > cap:
                        raise _NotSmall
                parts.append(quote(key) + key_sep)   # a key that is not a str: TypeError, below
            cls = type(item)
            if cls is str:
                if len(item) > _SHORT:
                    size += per_char * len(item)
                    if size > cap:
                        raise _NotSmall
                parts.append(quote(item))
            elif cls is int:
                if not -0xFFFFFFFFFFFFFFFF <= item <= 0xFFFFFFFFFFFFFFFF:
                    raise _NotSmall
                parts.append(int.__repr__(item))
            elif cls is bool:
                parts.append("true" if item else "false")
            elif item is None:
                parts.append("null")
            elif cls is float:
                parts.append(_float_json(item))
            elif cls is dict or cls is list or cls is tuple:
                write(item, level + 1)
            else:
                raise _NotSmall
        parts.append(newlines[level] + ("}" if is_dict else "]"))

    def write_all(value):
        write(value, 0)
        return items, size, deepest
    return write_all


_SHORT = 64        # _indented_json's strings up to this long are bounded by their container
_LEVELS = 32       # the nesting _indented_json writes (deeper: the measuring path)
_NEWLINES = {}     # indent (up to 16 characters) → _indented_json's newlines, for a few indents in use


def _float_json(value):
    # A float as json writes it (allow_nan: NaN, Infinity, -Infinity).
    if value != value:
        return "NaN"
    if value in (math.inf, -math.inf):
        return "Infinity" if value > 0 else "-Infinity"
    return float.__repr__(value)


def _refuse(value):
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


_c_encoders = {}


def _c_encoder(ensure_ascii, sort_keys):
    # json's C encoder for json.dumps's default separators, made once per option pair. It checks no cycles:
    # it only encodes what _quick_json_size walked (a tree of plain data, nested within max_data_depth).
    encoder = _c_encoders.get((ensure_ascii, sort_keys))
    if encoder is None:
        quote = json.encoder.encode_basestring_ascii if ensure_ascii else json.encoder.encode_basestring
        encoder = _c_encoders[ensure_ascii, sort_keys] = json.encoder.c_make_encoder(
            None, _refuse, quote, None, ": ", ", ", sort_keys, False, True)
    return encoder


# else (PyPy, or no C accelerator): json.dumps's own path
_HAS_C_ENCODER = getattr(json.encoder, "c_make_encoder", None) is not None
_QUOTE, _QUOTE_ASCII = json.encoder.encode_basestring, json.encoder.encode_basestring_ascii


_json_encoders = {}


def _json_encoder(indent, separators, ensure_ascii, sort_keys):
    # The json.JSONEncoder json.dumps would build for these options, made once (json.dumps only reuses one for
    # its all-default options, and transformers' tojson passes ensure_ascii=False).
    # Cached only for plain option values, keyed by their exact types too: indent=4.0 must not find (and must not
    # leave behind) the encoder of indent=4, which a later render in the same process would then get.
    cacheable = (indent is None or type(indent) is int or type(indent) is str and len(indent) < 16) and \
        type(ensure_ascii) is bool and type(sort_keys) is bool and \
        (separators is None or type(separators) in (tuple, list) and len(separators) == 2 and
         all(type(x) is str and len(x) < 16 for x in separators))
    key = (type(indent), indent, None if separators is None else tuple(separators), ensure_ascii, sort_keys)
    if cacheable:
        encoder = _json_encoders.get(key)
        if encoder is not None:
            return encoder
    encoder = json.JSONEncoder(indent=indent, separators=separators, ensure_ascii=ensure_ascii,
                               sort_keys=sort_keys)
    if cacheable and len(_json_encoders) < 64:
        _json_encoders[key] = encoder
    return encoder
