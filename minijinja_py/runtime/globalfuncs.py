"""The global functions and classes Jinja2 gives every template: range (bounded by limits.max_range), dict,
cycler, joiner and lipsum, as the sandbox lets a template use them (sandbox.py lists their attributes). Every
class here is address-free when printed (`mj_safe_repr`, see printing.py)."""

import builtins

from ..core.errors import jinja2_named, limit_twin, state_not_counted
from ..core.state import pass_state
from .markup import Markup, escape

__all__ = ["sandboxed_range", "Cycler", "Joiner", "DictFactory", "lipsum"]


@jinja2_named("safe_range")
@pass_state
def sandboxed_range(rs, *args):
    # range() as Jinja2's sandbox has it: at most limits.max_range items (refused with a LimitExceeded that is
    # also the OverflowError Jinja2 raises).
    rng = builtins.range(*args)
    if len(rng) > rs.limits.max_range:
        limit = rs.limits.max_range
        # Jinja2's message (MAX_RANGE is its name for this limit), then ours
        raise limit_twin(OverflowError)(f"Range too big. The sandbox blocks ranges larger than MAX_RANGE ({limit}). "
                                        f"(limit max_range={limit})", limit="max_range", value=limit)
    return rng


sandboxed_range.__name__ = "range"   # printed as <function range>, pickled by its qualified name


class Cycler:
    # cycler('odd', 'even'): .next() returns the items in turn; .current, .reset().

    mj_safe_repr = True
    # No __slots__: as on Jinja2's class, items and pos are the instance's, not the class's (`cycler.items` is
    # undefined, `cycler|dictsort` an AttributeError), where a slot would put a member descriptor on the class.

    def __init__(self, *items):
        if not items:
            raise RuntimeError("at least one item has to be provided")
        self.items = items
        self.pos = 0

    def reset(self):
        self.pos = 0

    @property
    def current(self):
        return self.items[self.pos]

    def next(self):
        rv = self.current
        self.pos = (self.pos + 1) % len(self.items)
        return rv

    __next__ = next

    def __repr__(self):
        return "<Cycler>"


class Joiner:
    # joiner(', '): returns '' the first time it is called, then the separator.

    mj_safe_repr = True
    # No __slots__, as Cycler.

    def __init__(self, sep=", "):
        self.sep = sep
        self.used = False

    def __call__(self):
        if not self.used:
            self.used = True
            return ""
        return self.sep

    def __repr__(self):
        return "<Joiner>"


class DictFactory:
    # The `dict` global: dict(a=1), dict([('a', 1)]), dict.fromkeys(keys, value).

    mj_safe_repr = True

    __slots__ = ()

    def __call__(self, *args, **kwargs):
        return dict(*args, **kwargs)

    @jinja2_named("fromkeys", "method", uncounted=1)
    def fromkeys(self, keys, value=None):
        return dict.fromkeys(keys, value)

    def __repr__(self):
        return "<class 'dict'>"


_LIPSUM_WORDS = (
    "a ac accumsan ad adipiscing aenean aliquam aliquet amet ante aptent arcu at auctor augue bibendum blandit "
    "class commodo condimentum congue consectetuer consequat conubia convallis cras cubilia cum curabitur curae "
    "cursus dapibus diam dictum dictumst dignissim dis dolor donec dui duis egestas eget eleifend elementum elit "
    "enim erat eros est et etiam eu euismod facilisi facilisis fames faucibus felis fermentum feugiat fringilla "
    "fusce gravida habitant habitasse hac hendrerit hymenaeos iaculis id imperdiet in inceptos integer interdum "
    "ipsum justo lacinia lacus laoreet lectus leo libero ligula litora lobortis lorem luctus maecenas magna magnis "
    "malesuada massa mattis mauris metus mi molestie mollis montes morbi mus nam nascetur natoque nec neque netus "
    "nibh nisi nisl non nonummy nostra nulla nullam nunc odio orci ornare parturient pede pellentesque penatibus "
    "per pharetra phasellus placerat platea porta porttitor posuere potenti praesent pretium primis proin pulvinar "
    "purus quam quis quisque rhoncus ridiculus risus rutrum sagittis sapien scelerisque sed sem semper senectus "
    "sit sociis sociosqu sodales sollicitudin suscipit suspendisse taciti tellus tempor tempus tincidunt torquent "
    "tortor tristique turpis ullamcorper ultrices ultricies urna ut varius vehicula vel velit venenatis vestibulum "
    "vitae vivamus viverra volutpat vulputate"
)   # split by each lipsum(): its words are 187 strings no other render needs


@jinja2_named("generate_lorem_ipsum")
@state_not_counted
@pass_state
def lipsum(rs, n=5, html=True, min=20, max=100):
    # lipsum(): n paragraphs of lorem ipsum (HTML <p> elements unless html=false), each of min to max-1 words.
    #
    # Shaped like Jinja2's: sentences start with a capital and end with '.', commas fall every few words, no word
    # repeats the one before, every paragraph ends with '.'. Unlike Jinja2's, the words are seeded by the
    # arguments, so a render is reproducible.
    range(n)   # (a TypeError first for an n that is not an integer, as Jinja2's loop over range(n) fails)
    if n > 1000 or isinstance(max, int) and max > 10_000:
        raise OverflowError("lipsum() is limited to 1000 paragraphs of 10000 words")
    if isinstance(max, int) and isinstance(n, int) and n > 0 and max > 0:
        rs.burn(4 * n * max)  # up to n * max words at ~4 steps' time each, paid before any is made
    import random   # ~1.5 ms of a cold start: imported by the first lipsum()
    rng = random.Random(f"{n}:{html}:{min}:{max}")
    vocabulary = _LIPSUM_WORDS.split()
    paragraphs = [_lorem_paragraph(rng, rng.randrange(min, max), vocabulary) for _ in range(n)]
    if not html:
        return "\n\n".join(paragraphs)
    return Markup("\n".join(f"<p>{escape(p)}</p>" for p in paragraphs))


def _lorem_paragraph(rng, count, vocabulary):
    words = []
    comma_at = stop_at = 0          # word positions of the last comma and the last full stop
    capital = True
    for position in range(count):
        word = rng.choice(vocabulary)
        while words and word == words[-1].rstrip(",.").lower():
            word = rng.choice(vocabulary)
        if capital:
            word, capital = word.capitalize(), False
        if position - rng.randrange(3, 8) > comma_at:
            comma_at, stop_at = position, stop_at + 2
            word += ","
        if position - rng.randrange(10, 20) > stop_at:
            comma_at = stop_at = position
            word += "."
            capital = True
        words.append(word)
    text = " ".join(words)
    if text.endswith(","):
        return text[:-1] + "."
    return text if text.endswith(".") else text + "."
