"""The lattice of every kernel entry (tests/test_kernels.py) where the data moves under the kernel: the read
variable rebound ({% set %}) between reads, the data changed between reads by a caller's function (chat
profile) or by `do` (Environment(immutable=False) against Jinja2's SandboxedEnvironment), a namespace's
attribute set between reads, and loops whose list grows or shrinks. Each case is rendered with kernels, with
general_only and by Jinja2 (tests/support/kernel_lattice.py): the same output (or the same error) and the same
data afterwards. Each also says whether the entry is chosen — where the kernel may still read once, or where
it must decline (the rule of issue 22: read once only where nothing in between can change it).
"""

import pytest

from kernel_lattice import chosen_by, entry_names, our_environment, three_ways


def roles(*values):
    """ms: messages with these roles; hook(m, role): a caller's function setting a message's role; flip(): one
    setting d.k; grow(v)/shrink(): appending to, popping from xs (also given)."""
    def make():
        ms = [{"role": value, "content": f"c{index}"} for index, value in enumerate(values)]
        d = {"k": "a", "c": {"k": "a"}}
        xs = list(values)

        def hook(m, role="b"):
            m["role"] = role
            return ""

        def flip(key="k"):
            (d if key == "k" else d["c"])["k"] = "b"
            return ""

        def grow(value="z"):
            xs.append(value)
            ms.append({"role": value, "content": "grown"})
            return ""

        def shrink():
            xs.pop()
            ms.pop()
            return ""
        return {"ms": ms, "d": d, "xs": xs, "hook": hook, "flip": flip, "grow": grow, "shrink": shrink,
                "m": {"role": "a"}}
    return make


AB = roles("a", "b")
ABA = roles("a", "b", "a")


class Side:
    """A caller's object whose reads run code that changes the data: reading its property `bump`, printing it, its
    truth — each appends 9 to xs (up to 4 items) and sets ms[0]'s role to 'b'."""

    def __init__(self, xs, ms):
        self.xs, self.ms = xs, ms

    def _act(self):
        if len(self.xs) < 4:
            self.xs.append(9)
        self.ms[0]["role"] = "b"

    @property
    def bump(self):
        self._act()
        return ""

    def __str__(self):
        self._act()
        return "s"

    def __bool__(self):
        self._act()
        return True

    def __repr__(self):
        return "Side"


def letters():
    return {"xs": ["a", "b", "c", "d"], "ms": [{"role": "a"}, {"role": "b"}, {"role": "a"}], "t": ("a", "b"), "n": 3}


def sides():
    xs, ms = [1, 2], [{"role": "a"}, {"role": "b"}]
    return {"xs": xs, "ms": ms, "o": Side(xs, ms)}


class Busy(Side):
    """Side, and its comparing, length, iterating, item and membership reads run the same code: a caller's object
    (not plain data) a template reads in any of the ways Jinja2 hands to it."""

    def __eq__(self, other):
        self._act()
        return False

    __hash__ = object.__hash__

    def __len__(self):
        self._act()
        return 1

    def __iter__(self):
        self._act()
        return iter(("i",))

    def __getitem__(self, key):
        self._act()
        return "g"

    def __contains__(self, item):
        self._act()
        return False


def busy():
    xs, ms = [1, 2], [{"role": "a"}, {"role": "b"}]
    return {"xs": xs, "ms": ms, "o": Busy(xs, ms)}


# (entry, profile, source, context factory, chosen: does the compile choose the entry[, a known difference]);
# general/text, general/if, general/switch: the cases of the kernels and the rule that went by issue 22's rule 5
# (text_reads, if_tests, branches' switch, the peephole rule switch), run now by the general closures (and the
# walks): kept, three ways, unchosen
CASES = [
    # text: rebinding, a caller's function, `do`, a namespace between two reads
    ("general/text", "chat", "{{ m.role }}{% set m = {'role': 'b'} %}{{ m.role }}{% set m = 1 %}{{ m.role }}",
     AB, True),
    ("general/text", "chat", "{{ d.k }}|{% set _ = flip() %}{{ d.k }}|{{ d.c.k }}", AB, True),
    ("general/text", "mutable", "{{ m.role }}{% do m.update({'role': 'z'}) %}{{ m.role }}"
     "{% do m.update({'role': 3}) %}{{ m.role }}{% do m.pop('role') %}[{{ m.role }}]", AB, True),
    ("general/text", "chat", "{% set ns = namespace(r='a') %}{{ ns.r }}{% set ns.r = 'b' %}{{ ns.r }}"
     "{% set ns.r = none %}{{ ns.r }}{% set ns.r = ns.r ~ 'c' %}{{ ns.r }}", AB, True),
    ("general/text", "chat", "{% for x in xs %}{% if loop.first %}{{ grow() }}{% endif %}<{{ x }}>{% endfor %}",
     AB, True),
    ("general/text", "mutable", "{% for m in ms %}{% do ms.append({'role': 'z'}) if loop.first %}"
     "<{{ m.role }}>{% endfor %}", AB, True),
    ("general/text", "chat", "{% for m in ms %}[{{ m.role }}]{% set _ = hook(m, 'x') %}[{{ m.role }}]{% endfor %}",
     AB, True),
    # if: the subject changed by the branch it ran, before the next if reads it
    ("general/if", "chat", "{% if m.role == 'a' %}{% set m = {'role': 'b'} %}A{% endif %}"
     "{% if m.role == 'b' %}B{% endif %}{% if m.role %}T{% endif %}", AB, True),
    ("general/if", "chat", "{% set ns = namespace(k='a') %}{% if ns.k == 'a' %}{% set ns.k = 'b' %}A{% endif %}"
     "{% if ns.k == 'b' %}B{% endif %}{% if ns.k is defined %}D{% endif %}", AB, True),
    ("general/if", "chat", "{% if d.k == 'a' %}{{ flip() }}A{% endif %}{% if d.k == 'b' %}B{% endif %}"
     "{% if d.k %}T{% endif %}", AB, True),
    ("general/if", "chat", "{% if d.k == 'a' and flip() %}A{% elif d.k == 'b' %}B{% else %}E{% endif %}", AB,
     True),
    ("general/if", "chat", "{% if d.k == 'x' or flip() %}X{% elif d.k == 'b' %}B{% else %}E{% endif %}", AB,
     True),
    ("general/if", "mutable", "{% if 'k' in d and d.k %}{% do d.pop('k') %}A{% endif %}"
     "{% if d.k is defined and d.k %}B{% else %}N{% endif %}{% if 'k' in d and d['k'] %}C{% endif %}", AB, True),
    ("general/if", "mutable", "{% if d.k is defined and d.k is not none %}{% do d.update(k=none) %}A{% endif %}"
     "{% if 'k' in d and d.k is not none %}B{% else %}N{% endif %}", AB, True),
    ("general/if", "mutable", "{% if d.k is string %}{{ d.k }}{% endif %}{% do d.update(k=['b']) %}"
     "{% if d.k is string %}{{ d.k }}{% else %}L{% endif %}{{ flip() }}{% if d.k is string %}{{ d.k }}{% endif %}",
     AB, True),
    ("general/if", "mutable", "{% if d.k %}{{ d.k }}{% endif %}{% do d.update(k='') %}{% if d.k %}{{ d.k }}"
     "{% else %}E{% endif %}{% do d.update(k=[1]) %}{% if d.k %}{{ d.k }}{% endif %}", AB, True),
    ("general/if", "chat", "{% if not (d.k == 'b' or d.k is none) %}{{ flip() }}A{% endif %}"
     "{% if not (d.k == 'a' or not d.k) %}B{% endif %}", AB, True),   # De Morgan: each read after the flip
    ("general/if", "mutable", "{% if xs %}{% do xs.pop() %}{% do xs.pop() %}{% endif %}{% if xs %}Y"
     "{% else %}N{% endif %}{% if 'a' in d.c %}I{% endif %}{% do d.c.update({'a': 1}) %}{% if 'a' in d.c %}J"
     "{% endif %}", AB, True),
    ("general/if", "chat", "{% for x in xs %}{% if loop.last %}L{% endif %}{% if loop.first %}{{ grow() }}"
     "{% endif %}{{ x }}{% if loop.last %}l{% endif %}{% endfor %}", AB, True),
    ("general/if", "mutable", "{% for x in xs %}{% if loop.last %}L{% endif %}{% do xs.pop() if loop.first %}"
     "{{ x }}{% if loop.last %}l{% endif %},{% endfor %}", ABA, True),
    # a variable compared, and joined with a key: rebound between reads, the data under it changed
    ("general/if", "chat", "{% for m in ms %}{% set r = m.role %}{% if r == 'a' %}{% set r = 'b' %}A{% endif %}"
     "{% if r == 'b' %}{{ hook(m, 'c') }}B{% endif %}{{ r + m.role }}{% if r != 'b' %}{{ '<' + r + m.content }}"
     "{% endif %}{% endfor %}", ABA, True),
    ("general/text", "mutable", "{% for m in ms %}{% set r = m.role %}{{ r + '|' + m.role }}"
     "{% do m.update(role=1) %}{{ r ~ '|' ~ m.role }}{% set r = none %}{{ r ~ m.content }}{% endfor %}", AB, True),
    # switch: a branch changes the subject the next chain (or the next test) reads
    ("general/switch", "chat", "{% set ns = namespace(k='a') %}{% if ns.k == 'a' %}{% set ns.k = 'b' %}A"
     "{% elif ns.k == 'b' %}B{% endif %}{% if ns.k == 'a' %}a{% elif ns.k == 'b' %}b{% endif %}", AB, True),
    ("general/switch", "chat", "{% if d.k == 'a' %}{{ flip() }}A{% elif d.k == 'b' %}B{% endif %}"
     "{% if d.k == 'a' %}a{% elif d.k == 'b' %}b{% endif %}", AB, True),
    ("general/switch", "chat", "{% if m.role == 'a' %}{% set m = {'role': 'b'} %}A{% elif m.role == 'b' %}B"
     "{% endif %}{% if m.role == 'a' %}a{% elif m.role == 'b' %}b{% endif %}", AB, True),
    ("general/switch", "mutable", "{% if m.role == 'a' %}{% do m.update({'role': 'b'}) %}A{% elif m.role == 'b' %}B"
     "{% endif %}{% if m.role == 'a' %}a{% elif m.role == 'b' %}b{% else %}e{% endif %}", AB, True),
    ("general/switch", "chat", "{% if d.c.k == 'a' and flip('c') %}A{% elif d.c.k == 'b' %}B{% else %}E{% endif %}",
     AB, False),   # the extra changes the subject: an if whose tests run in turn
    ("general/switch", "chat", "{% if true %}{% if m.role == 'a' %}{{ hook(m) }}A{% endif %}{% if m.role == 'b' %}B"
     "{% elif m.role == 'a' %}a{% endif %}{% endif %}", AB, True),
    # two chains in a row on one subject: the second reads it again after the first changed it (issue 22's item plan)
    ("general/if", "chat", "{% for m in ms %}{% if m.role == 'a' %}{% set m = {'role': 'b'} %}A"
     "{% endif %}{% if m.role == 'b' %}B{% endif %}{% endfor %}", AB, True),
    ("general/switch", "chat", "{% for m in ms %}{% if m.role == 'a' %}{{ hook(m, 'c') }}"
     "{% elif m.role == 'x' %}X{% endif %}{% if m.role == 'c' %}C{% elif m.role == 'b' %}B{% endif %}{% endfor %}",
     AB, True),
    ("general/if", "mutable", "{% for m in ms %}{% if m.role == 'a' %}{% do m.update(role='b') %}A"
     "{% endif %}{% if m.role == 'b' %}B{% endif %}{% endfor %}", AB, True),
    ("general/if", "chat", "{% set ns = namespace(k='a') %}{% for m in ms %}{% if ns.k == 'a' %}"
     "{% set ns.k = 'b' %}A{% endif %}{% if ns.k == 'b' %}B{% endif %}{% endfor %}", AB, True),
    ("general/if", "chat", "{% for m in ms %}{% if m.role == 'a' %}{% set r = 'x' %}A{% endif %}"
     "{% if m.role == 'b' %}B{{ r }}{% elif m.role == 'a' %}{{ r }}{% endif %}{% endfor %}", ABA, True),
    ("general/switch", "chat", "{% for m in ms %}{% if m.role == 'a' %}{% set m = {'role': 'b'} %}A"
     "{% elif m.role == 'b' %}B{% endif %}{{ m.role }}{% endfor %}", AB, True),
    ("general/switch", "chat", "{% set ns = namespace(k='a') %}{% for i in [1, 2, 3] %}{% if ns.k == 'a' %}"
     "{% set ns.k = 'b' %}A{% elif ns.k == 'b' %}{% set ns.k = 1 %}B{% elif ns.k == 'c' %}C{% endif %}{{ ns.k }}"
     "{% endfor %}", AB, True),
    ("general/switch", "mutable", "{% for m in ms %}{% if m.role == 'a' %}{% do m.update(role='b') %}A"
     "{% elif m.role == 'b' %}{% do ms.append({'role': 'a'}) if ms|length < 4 %}B{% endif %}{% endfor %}{{ ms }}",
     AB, True),
    ("general/switch", "mutable", "{% for m in ms %}{% if m.role == 'a' and m.update(role='b') is none %}A"
     "{% elif m.role == 'b' %}B{% else %}E{% endif %}{% endfor %}", AB, False),
    # walks: the list a walk reads grows or shrinks between walks; a body that changes it is not walked
    ("walks/walk", "chat", "{% for a in xs %}{% for b in xs %}{{ b }}{{ loop.length }}{% endfor %};"
     "{{ grow() if loop.first }}{% endfor %}", AB, True),
    ("walks/walk", "mutable", "{% for a in xs %}{% for b in xs %}{{ b }}{{ loop.last }}{% endfor %};"
     "{% do xs.pop() if loop.first %}{% endfor %}", ABA, True),
    ("walks/walk", "chat", "{% for x in xs %}{{ grow() if loop.first }}{{ x }}{{ loop.last }}{{ loop.length }},"
     "{% endfor %}", AB, False),
    ("walks/walk", "mutable", "{% for x in xs %}{% do xs.append('z') if loop.index < 3 %}{{ x }}{{ loop.revindex }},"
     "{% endfor %}", AB, False),
    ("walks/walk", "chat", "{% for m in ms %}{% set m = {'role': 'z'} %}{{ m.role }}{% endfor %}{{ m.role }}", AB,
     True),
    ("walks/walk", "chat", "{% for x in xs %}{% set xs = ['q'] %}{{ x }}{{ xs }}{% endfor %}{{ xs }}", AB, True),
    ("walks/walk", "chat", "{% set ns = namespace(n='') %}{% for x in xs %}{% set ns.n = ns.n ~ x %}{{ ns.n }},"
     "{% endfor %}{{ ns.n }}", ABA, True),
    ("walks/walk", "chat", "{% for x in xs %}{% if x == 'b' %}{% set r = 'R' %}{% endif %}{{ r }}{{ x }},{% endfor %}"
     "{{ r }}", ABA, True),
    # variables set in branches: started afresh per item only where a read can come before a set on some path
    ("walks/walk", "chat", "{% set c = 'out' %}{% for m in ms %}{% if m.role == 'a' %}{% set c = m.content %}{{ c }}"
     "{% endif %}{{ c }}{% endfor %}{{ c }}", ABA, True),
    ("walks/walk", "chat", "{% set c = 'out' %}{% for m in ms %}{% if m.role == 'a' %}{% set c = m.content %}"
     "{% if 'c' in c %}{% set c = c ~ '!' %}{% endif %}{{ c }}{% elif m.role == 'b' %}{% set c = 'B' %}{% else %}"
     "{{ c }}{% endif %}{% endfor %}", roles("a", "b", "z", "a"), True),
    ("walks/walk", "chat", "{% set c = 'out' %}{% for m in ms %}{% if m.role == 'a' %}{% set c = m.content %}"
     "{% else %}{% set c = m.role %}{% endif %}{{ c }}{% if c == 'b' %}{% set d = c %}{% endif %}{{ d }}{% endfor %}",
     ABA, True),
    ("walks/walk", "chat", "{% set c = 'out' %}{% for m in ms %}{% if m.role == 'a' %}{% set c = c ~ '+' %}{% endif %}"
     "{{ c }}{% if m.role == 'b' %}{% set e = 1 %}{% elif e is defined %}{{ e }}{% endif %}{% endfor %}", ABA, True),
    # a body that is one {% if item.key == c %}: each item's key read when its iteration starts, as Jinja2 reads it
    ("walks/walk", "chat", "{% for m in ms %}{% if m.role == 'a' %}{{ hook(ms[1], 'a') }}A{{ loop }}{% endif %}"
     "{% endfor %}|{% for m in ms %}{% if m.role != 'c' %}{{ hook(ms[2], 'c') }}{{ m.role }}{% endif %}{% endfor %}",
     roles("a", "b", "b", "a"), False),   # (a body that calls the caller's function is not walked)
    ("walks/walk", "chat", "{% for x in xs %}{% for m in ms %}{% if m.role == 'a' %}A{{ m.content }}{% endif %}"
     "{% endfor %}{{ hook(ms[1], 'a') }}{{ hook(ms[0], 'z') }};{% endfor %}", ABA, True),
    ("walks/walk", "mutable", "{% for m in ms %}{% if m.role == 'a' %}{% do ms[-1].update(role='a') %}"
     "{% do ms.append({'role': 'b'}) if ms|length < 5 %}{{ m.content }}{% endif %}{% endfor %}{{ ms|length }}", ABA,
     False),
    ("walks/walk", "chat", "{% for m in ms %}{% if m.role == 'a' %}{% set m = {'role': 'b'} %}{{ m.role }}"
     "{% endif %}{% endfor %}{% for x in xs %}{% if x.role == 'b' %}{% break %}{% endif %}{% endfor %}", ABA, True),
    # a switch per item: the item rebound or changed by its own branch; data changed between walks
    ("general/switch", "chat", "{% for m in ms %}{% if m.role == 'a' %}{% set m = {'role': 'b'} %}A{{ m.role }}"
     "{% elif m.role == 'b' %}B{% endif %}{% endfor %}", ABA, True),
    ("walks/walk", "chat", "{% for m in ms %}{% if m.role == 'a' %}{{ hook(m) }}A{% elif m.role == 'b' %}B"
     "{% endif %}{% endfor %}", ABA, False),
    ("general/switch", "chat", "{% set ns = namespace(seen='') %}{% for m in ms %}{% if m.role == 'a' %}"
     "{% set ns.seen = ns.seen ~ 'a' %}{% elif m.role == 'b' %}{{ ns.seen }}B{% endif %}{% endfor %}{{ ns.seen }}",
     ABA, True),
    ("general/switch", "chat", "{% for x in xs %}{% for m in ms %}{% if m.role == 'a' %}A{% elif m.role == 'b' %}"
     "B{% else %}E{% endif %}{% endfor %}{{ hook(ms[0]) }}{{ grow() if loop.first }};{% endfor %}", AB, True),
    ("general/switch", "mutable", "{% for x in xs %}{% for m in ms %}{% if m.role == 'a' %}A{{ loop.length }}"
     "{% elif m.role == 'b' %}B{{ loop.last }}{% endif %}{% endfor %}{% do ms.append({'role': 'a'}) %}"
     "{% do ms[0].update(role='z') %};{% endfor %}", AB, True),
    # a switch with extras as the body's first statement, its plans found by the walk: an extra that runs a
    # caller's code changing the item (the rest of the chain tested as Jinja2 tests it), then the item read again
    ("walks/walk", "chat", "{% for m in ms %}{% if m.role == 'a' and o %}A{% elif m.role == 'b' %}B{% else %}E"
     "{% endif %}{{ m.role }}{% endfor %}", sides, True),
    ("walks/walk", "chat", "{% for m in ms %}{% if m.role == 'x' or o.bump %}O{% elif m.role == 'b' %}B"
     "{% elif m.role == 'a' and xs %}A{% endif %}{{ xs|length }}{% endfor %}", sides, True),
    # a switch as the first of two statements per item: the second reads the item again after the first ran (a
    # caller's function or `do` in the first: not walked); a key of a key that is no dict (a str role's `x`: undefined, equal to no constant)
    ("walks/walk", "chat", "{% for m in ms %}{% if m.role == 'a' %}{{ hook(m) }}A{% endif %}{% if m.role == 'b' %}B"
     "{% endif %}{% endfor %}", ABA, False),
    ("walks/walk", "chat", "{% for m in ms %}{% if m.role == 'a' %}{% set m = {'role': 'b'} %}A{% elif m.role == 'b'"
     " %}B{% endif %}<{{ m.role }}>{% endfor %}", ABA, True),
    ("walks/walk", "mutable", "{% for m in ms %}{% if m.role != 'b' %}{% do ms[1].update(role='a') %}{% do m.pop("
     "'role') %}{% continue %}{% endif %}<{{ m.role }}>{% endfor %}", ABA, False),
    ("walks/walk", "chat", "{% for m in ms %}{% if m.role == 'b' %}{% set m = {'role': 'a'} %}{% elif m.role == 'q' %}"
     "{% break %}{% endif %}{% if m.role == 'a' %}A{% endif %}{{ m.role }}{% if m.role == 'b' %}{% continue %}{% endif %}"
     "{{ m.content }};{% endfor %}", ABA, True),
    ("walks/walk", "chat", "{% for m in ms %}{% if m.role == 'a' %}{% continue %}{% endif %}{% if m.role == 'b' %}B"
     "{% endif %}{{ m.role }}{{ m.content }}{% if true %}<{{ m.role }}>{% endif %}{{ m.content }}{% endfor %}", ABA,
     True),
    ("walks/walk", "chat", "{% for m in ms %}{% if m.role.x == 'a' %}A{% else %}E{% endif %}{% endfor %}{% for m in ms"
     " %}{% if m.role.x == 'a' %}A{% elif m.role.x == 'b' %}B{% else %}E{% endif %}{{ m.role }}{% endfor %}", ABA,
     True),
    ("walks/walk", "chat", "{% for m in [{'role': {'x': 'a'}}, {'role': {'x': 3}}, {'role': 'a'}, {}] %}{% if m.role"
     ".x == 'a' %}A{% else %}E{% endif %}{% if m.k == none %}N{% endif %}{% endfor %}", AB, True),
    # a switch whose branches print a key of the item, made in the walk: data changed between walks
    ("walks/walk", "mutable", "{% for a in xs %}{% for m in ms %}{% if m.role == 'a' %}<{{ m.content }}>{% elif "
     "m.role == 'b' %}{{ '[' + m.role }}{% endif %}{% endfor %}{% do ms[0].update(role='b', content=none) %}"
     "{% do ms.append({'role': 'a', 'content': 'Q'}) if loop.first %};{% endfor %}", AB, True),
    ("walks/walk", "chat", "{% for a in xs %}{% for m in ms %}{% if m.role == 'a' %}<{{ m.content }}>{% else %}"
     "{{ m.role }}{% endif %}{% endfor %}{{ hook(ms[0], 'q') }};{% endfor %}", ABA, True),
    # loops printing keys of the item, statements between texts: data changed between walks, or by the statement
    ("walks/walk", "chat", "{% for a in xs %}{% for m in ms %}<{{ m.role }}>{% endfor %}{{ grow() if loop.first }}"
     "{{ hook(ms[0], 'q') }};{% endfor %}", AB, True),
    ("walks/walk", "mutable", "{% for a in xs %}{% for m in ms %}<{{ m.role }}|{{ m.content }}>{% endfor %}"
     "{% do ms[0].update(role=none) %}{% do ms.append({'role': 'q', 'content': 'Q'}) if loop.first %};{% endfor %}",
     AB, True),
    ("walks/walk", "chat", "{% for m in ms %}<{{ m.role }}>{% endfor %}{% set ms = ms + [{'role': 'r'}] %}"
     "{% for m in ms %}<{{ m.role }}>{% endfor %}", AB, True),
    ("general/if", "chat", "{% for m in ms %}{% if true %}<{% if m.role == 'a' %}{% set _ = hook(ms[1], 'c') %}A"
     "{% endif %}>{% endif %}{% if m.role == 'c' %}C{% endif %}{% endfor %}", AB, True),
    ("walks/walk", "chat", "{% set ns = namespace(n='') %}{% for x in xs %}[{% set ns.n = ns.n ~ x %}]{% endfor %}"
     "{{ ns.n }}", ABA, True),
    ("general/text", "mutable", "{% for x in xs %}{% if true %}<{% do xs.append('z') if loop.index < 3 %}>"
     "{% endif %}{{ x }}{{ loop.length }}{% endfor %}", AB, True),
    # a namespace's attribute read in line by a test: set between tests, by a branch, in a walk
    ("general/if", "chat", "{% set ns = namespace(found=false, s='') %}{% for x in xs %}{% if not ns.found %}"
     "{% if x == 'b' %}{% set ns.found = true %}{% endif %}{{ x }}{% endif %}{% if ns.found and x %}F{% endif %}"
     "{% if 'b' in ns.s %}S{% endif %}{% set ns.s = ns.s ~ x %}{% if ns.s is string %}{{ ns.s }}{% endif %}"
     "{% if ns.s == 'ab' %}={% endif %}{% endfor %}", ABA, True),
    ("general/if", "chat", "{% set ns = namespace(v=xs) %}{% for x in xs %}{% if 'a' in ns.v %}{% set ns.v = x %}"
     "A{% endif %}{% if ns.v and ns.w is not defined %}V{% endif %}{% endfor %}{% set ns.v = none %}{% if not ns.v %}"
     "N{% endif %}", ABA, True),
    # a walked loop's list read in line (a variable or a key of one): rebound, changed by `do` or a caller's
    # function between walks; a key of a key printed in line, the data under it changed between reads
    ("walks/walk", "chat", "{% for m in ms %}{% set m = {'role': ['z', m.content]} %}{% for r in m.role %}{{ r }}"
     "{% endfor %}{% for c in m.content %}[{{ c }}]{% endfor %};{% endfor %}", AB, True),
    ("walks/walk", "mutable", "{% for m in ms %}{% for c in m.role %}<{{ c }}>{% endfor %}{% for x in xs %}{{ x }}"
     "{% endfor %}{% do ms[-1].update(role=['q', 'r']) %}{% do xs.append(['y']) if loop.first %}{% endfor %}",
     roles(["a"], "b"), True),
    ("walks/walk", "chat", "{% for m in ms %}{% for c in m.role %}<{{ c }}>{% endfor %}{{ hook(ms[-1], ('t', 'u')) }}"
     "{% for c in m['role'] %}{{ c }}{% endfor %}{{ hook(m, none) }};{% endfor %}", roles(["a", "b"], ["c"]), True),
    ("general/text", "mutable", "{% for m in ms %}{% set m = {'a': {'b': m.role}} %}<{{ m.a.b }}|{{ m.a.b + '!' }}>"
     "{% do m.a.update(b=3) %}<{{ m.a.b }}>{% do m.update(a='s') %}<{{ m.a.b }}|{{ m.a.b ~ m.a.b }}>{% endfor %}"
     "{{ d.c.k }}{% set _ = flip('c') %}{{ d.c.k + d.k }}", AB, True),
    ("general/text", "chat", "{% for x in xs %}{{ d.c.k }}{% set _ = flip('c') %}{{ '[' + d.c.k + ']' }}"
     "{% endfor %}", AB, True),
    # the loop context consumed or listed by the body; iterables that are no list; keys of a str
    ("walks/walk", "chat", "{% for x in xs %}{{ x }}{% if x == 'b' %}{% for y in loop %}({{ y }}{{ loop.index }})"
     "{% endfor %}{% endif %}{{ loop.index }}{% endfor %}", letters, True),
    ("walks/walk", "chat", "{% for x in xs %}{{ x }}{{ loop|list }}{{ loop|length }}{{ loop.index }}{% endfor %}",
     letters, True),
    ("walks/walk", "chat", "{% set x = 'out' %}{% for x in xs %}{% set x = x ~ '!' %}{{ x }}{% endfor %}{{ x }}"
     "{% for i in range(-2, n, 2) %}{{ i }}{{ loop.last }}{% endfor %}{% for x in t %}{{ loop.nextitem }}{% endfor %}",
     letters, True),
    ("general/switch", "chat", "{% for m in ms %}{% if m.role == 'a' %}{% for y in loop %}{{ y.role }}"
     "{% endfor %}{% elif m.role == 'b' %}B{% endif %}{% endfor %}", letters, True),
    ("general/switch", "chat", "{% for c in 'abc' %}{% if c == 'a' %}A{% elif c == 'b' %}B{% endif %}{% endfor %}"
     "{% for k in {'a': 1, 'b': 2} %}{% if k == 'a' %}A{% elif k == 'b' %}B{% endif %}{% endfor %}", letters, True),
    ("general/switch", "strict", "{% for x in xs %}{% if x.title == 'a' %}A{% elif x.title == 'b' %}B{% else %}E"
     "{% endif %}{% endfor %}", letters, True),
    ("general/switch", "chat", "{% for m in ms %}{% if m.role.x == 'a' %}A{% elif m.role.x == 'b' %}B{% else %}E"
     "{% endif %}{% if m.role.title == 'a' %}T{% elif m.role.title == 'b' %}t{% endif %}{% endfor %}", letters,
     True),
    ("general/text", "chat", "{% set ns = namespace(a='x') %}{% for m in ms %}{{ ns.a }}[{{ ns.b }}]"
     "{% set ns.a = m.role %}{% endfor %}{% for m in ms %}[{{ m.role.nope }}]{% endfor %}", letters, True),
    ("general/if", "strict", "{% for m in ms %}{% if m.role.upper %}U{% endif %}{% if m.role.nope is defined %}D"
     "{% endif %}{% if m.role._x is defined %}_{% endif %}{% endfor %}", letters, True),
    # a caller's object whose property, printing or truth changes the data: code a read runs
    ("walks/walk", "chat", "{% for x in xs %}{{ o.bump }}{{ x }}{{ loop.last }}{{ loop.length }},{% endfor %}", sides,
     True),
    ("walks/walk", "chat", "{% for x in xs %}{{ o }}{% if loop.last %}L{% endif %}{{ x }}{% endfor %}", sides, True),
    # ... the loop's length measured when first asked, last and nextitem looking at the list when asked (Jinja2's
    # look-ahead: at the end it spends the walk, a list grown later is not walked further)
    ("walks/walk", "chat", "{% for x in xs %}{{ loop.length }}{{ o }}{{ x }}{{ loop.revindex }}{{ loop.revindex0 }},"
     "{% endfor %}", sides, True),
    ("walks/walk", "chat", "{% for x in xs %}{{ x }}{% if loop.last %}L{{ o }}{% endif %}{% endfor %}{{ xs }}", sides,
     True),
    ("walks/walk", "chat", "{% for x in xs %}{{ o.bump }}{{ x }}<{{ loop.nextitem }}>{% endfor %}", sides, True),
    ("walks/walk", "chat", "{% for x in xs %}{{ x }}<{{ loop.nextitem }}>{{ o }}{% endfor %}{{ xs }}", sides, True),
    ("walks/walk", "chat", "{% for x in xs %}{{ o }}{{ x }}{% if not loop.last %},{% endif %}{% endfor %}", sides,
     True),
    ("walks/walk", "chat", "{% for x in xs %}{% if o == 1 %}={% endif %}{{ x }}{{ loop.revindex }}{{ loop.last }},"
     "{% endfor %}", busy, True),
    ("walks/walk", "chat", "{% for x in xs %}{{ o|length }}{{ x }}{{ loop.length }}{{ loop.last }},{% endfor %}",
     busy, True),
    ("walks/walk", "chat", "{% for x in xs %}{% for y in o %}{{ y }}{% endfor %}{{ x }}{% if loop.last %}L{% endif %}"
     "{% endfor %}", busy, True),
    ("walks/walk", "chat", "{% for x in xs %}{{ o['k'] }}{{ x }}{{ loop.last }}{% endfor %}{{ xs }}", busy, True),
    ("walks/walk", "chat", "{% for x in xs %}{% if 1 in o %}I{% endif %}{{ x }}{{ loop.length }}{% endfor %}", busy,
     True),
    ("walks/walk", "chat", "{% for x in xs %}{{ x }}{{ loop|length }}{{ o }}{{ loop.length }}{% endfor %}", busy,
     True),
    # (the general loop: an else, variables started per item)
    ("walks/walk", "chat", "{% for x in xs %}{{ o }}{{ x }}{{ loop.last }}{{ loop.length }}{% else %}E{% endfor %}",
     sides, False),
    ("walks/walk", "chat", "{% for x in xs %}{% if x == 1 %}{% set y = 'one' %}{% endif %}{{ y }}{{ o }}{{ x }}"
     "{{ loop.last }}{% if loop.last %}L{{ o }}{% endif %}{% else %}E{% endfor %}{{ xs }}", busy, False),
    ("walks/walk", "chat", "{% for x in xs %}{{ o }}{{ x }}{{ loop.revindex }}{% if loop.first %}{% for y in loop %}"
     "{{ y }}{% endfor %}{% endif %}{% endfor %}", sides, True),
    ("general/if", "chat", "{% for m in ms %}{% if m.role == 'a' %}A{{ o }}{% endif %}"
     "{% if m.role == 'b' %}B{% endif %}{% endfor %}", sides, True),
    ("general/if", "chat", "{% if true %}{% set m = ms[0] %}{% if m.role == 'a' %}A{% if o %}{% endif %}"
     "{% endif %}{% if m.role == 'b' %}B{% endif %}{% endif %}", sides, True),
    ("general/switch", "chat", "{% set m = ms[0] %}{% if m.role == 'x' or o.bump %}X{% elif m.role == 'b' %}B"
     "{% else %}E{% endif %}", sides, True),
    ("general/switch", "chat", "{% for m in ms %}{% if m.role == 'x' or o.bump %}X{% elif m.role == 'b' %}B"
     "{% else %}E{% endif %}{% endfor %}", sides, True),
    # ... an extra or alternative that reads a caller's object (compares it, measures it, iterates it, indexes it,
    # asks what it holds) or calls a macro setting a namespace's attribute: the subject read again after it
    ("general/switch", "chat", "{% set m = ms[0] %}{% if m.role == 'x' or o == xs %}X{% elif m.role == 'b' %}B"
     "{% else %}E{% endif %}", busy, True),
    ("general/switch", "chat", "{% set m = ms[0] %}{% if m.role == 'a' and o|length > 5 %}A{% elif m.role == 'b' %}B"
     "{% else %}E{% endif %}", busy, True),
    ("general/switch", "chat", "{% set m = ms[0] %}{% if m.role == 'x' or o is not iterable %}X"
     "{% elif m.role == 'b' %}B{% else %}E{% endif %}", busy, True),
    ("general/switch", "chat", "{% set m = ms[0] %}{% if m.role == 'x' or o['k'] is none %}X{% elif m.role == 'b' %}B"
     "{% else %}E{% endif %}", busy, True),
    ("general/switch", "chat", "{% set m = ms[0] %}{% if m.role == 'x' or 'k' in o %}X{% elif m.role == 'a' %}A"
     "{% elif m.role == 'b' %}B{% else %}E{% endif %}", busy, True),
    ("general/switch", "chat", "{% set m = ms[0] %}{% if m.role in ['x', 'y'] or o.bump %}X{% elif m.role in ['b'] %}"
     "B{% else %}E{% endif %}", sides, True),
    ("general/switch", "chat", "{% set m = ms[0] %}{% if m.role == 'a' and o.bump %}A{% elif m.role == 'c' %}C"
     "{% elif m.role == 'b' and m.x is not defined %}B{% else %}E{% endif %}{% if m.role == 'b' and o.bump %}b"
     "{% elif m.role == 'b' %}2{% endif %}", sides, True),
    ("general/switch", "chat", "{% set m = ms[0] %}{% if m.role == 'a' and (o.bump or m.nope) %}A"
     "{% elif m.role == 'b' %}B{% else %}E{% endif %}", sides, True),
    ("general/switch", "chat", "{% set m = ms[1] %}{% if m.role == 'a' and o.bump %}A{% elif m.role == 'b' and o.bump %}"
     "B{% elif m.role == 'b' %}b{% else %}E{% endif %}{{ ms }}", sides, True),
    ("general/switch", "chat", "{% for m in ms %}{% if m.role == 'a' and o|length > 5 %}A{% elif m.role == 'b' %}B"
     "{% else %}E{% endif %}{{ loop.length }}{% endfor %}{{ xs }}", busy, True),
    ("general/switch", "chat", "{% for m in ms %}{% if m.role == 'x' or o['k'] is none %}X{% elif m.role == 'a' %}A"
     "{% elif m.role == 'b' %}B{% endif %}{% endfor %}", busy, True),
    ("general/switch", "chat", "{% set ns = namespace(k='a') %}{% macro setk() %}{% set ns.k = 'b' %}{% endmacro %}"
     "{% if ns.k == 'a' and setk() %}A{% elif ns.k == 'b' %}B{% else %}E{% endif %}", AB, True),
    ("general/switch", "chat", "{% set ns = namespace(m={'role': 'a'}) %}{% macro setm() %}"
     "{% set ns.m = {'role': 'b'} %}{% endmacro %}{% for x in xs %}{% if ns.m.role == 'a' and setm() %}A"
     "{% elif ns.m.role == 'b' %}B{% else %}E{% endif %}{% endfor %}", AB, True),
    ("general/switch", "chat", "{% for m in ms %}{% if m.role == 'a' %}{{ o }}{{ loop.length }}"
     "{% elif m.role == 'b' %}B{{ loop.last }}{% endif %}{% endfor %}", sides, True),
    ("walks/walk", "mutable", "{% for m in ms %}{% if m.role == 'a' %}{% do ms.append({'role': 'b'}) %}A"
     "{% elif m.role == 'b' %}B{% endif %}{% endfor %}", AB, False),
    # a first statement setting a variable to a key of the item (set in the walk): the item rebound, a namespace
    # written between statements, a caller's object changing the next item; changed by a caller's function, a
    # macro or `do` (no walk: the body can change the data)
    ("walks/walk", "chat", "{% for m in ms %}{% set r = m.role|upper %}{% set m = {'role': 'z'} %}{{ r }}{{ m.role }}"
     "{% set r = m.role %}{{ r }},{% endfor %}{{ r }}", AB, True),
    ("walks/walk", "chat", "{% for m in ms %}{% set r = m.role|lower %}{{ hook(ms[-1], 'Q') }}{{ r }},{% endfor %}",
     ABA, False),
    ("walks/walk", "chat", "{% macro h(m) %}{{ hook(m, 'M') }}{% endmacro %}{% for m in ms %}{% set r = m.role %}"
     "{{ h(ms[-1]) }}{{ r }}{{ m.role }},{% endfor %}", ABA, False),
    ("walks/walk", "mutable", "{% for m in ms %}{% set r = m['role']|upper %}{% do ms[-1].update({'role': 3}) %}"
     "{% do ms[1].pop('role', none) if loop is undefined %}{{ r }},{% endfor %}", ABA, False),
    ("walks/walk", "chat", "{% set ns = namespace(r='') %}{% for m in ms %}{% set r = m.role %}"
     "{% set ns.r = ns.r ~ r %}{{ ns.r }}{% set m = ns %}{{ m.r }},{% endfor %}", AB, True),
    ("walks/walk", "chat", "{% for x in [o, o] %}{% set r = x.bump %}{{ r }}{{ xs }}{% set r = x.k %}{{ r }}"
     "{% endfor %}{% for m in [ms[0], ms[0], ms[1]] %}{% set r = m.role|upper %}{{ r }}{{ o }}{{ r }}{% endfor %}",
     busy, True),
    # a walked body that is one if (with an else) on a key of the item's key: read in the walk, where the item is a
    # plain dict; a caller's object changing the next item, or being an item
    ("walks/walk", "chat", "{% for m in [ms[0], ms[0], o, ms[1]] %}{% if m.role == 'a' %}{{ o }}A{% else %}E"
     "{% endif %}{% endfor %}{% for m in [{'f': ms[0]}, {'f': ms[0]}, {'f': o}] %}{% if m.f.role == 'a' %}{{ o }}A"
     "{% else %}E{{ m.f.role }}{% endif %}{% endfor %}", busy, True),
    ("walks/walk", "chat", "{% for m in ms %}{% if m.role == 'a' %}{% set m = {'role': 'b'} %}A{{ m.role }}{% else %}"
     "E{% endif %}{{ m.role }}{% endfor %}{% for t in [{'f': {'n': 'a'}}, {'f': 'x'}, {}] %}"
     "{% if t.f.n != 'a' %}N{% else %}A{% endif %}{% endfor %}", AB, True),
    # an if body whose first statement sets a variable to a key of one (set by the statement list's run)
    ("general/if", "chat", "{% if m %}{% set r = m.role %}{% set m = {'role': 'z'} %}{{ r }}{{ m.role }}"
     "{% endif %}{% if m %}{% set r = m.role|upper %}{{ r }}{% endif %}", AB, True),
    ("general/if", "chat", "{% set ns = namespace(role='q') %}{% if m %}{% set r = m.role %}{% set m = ns %}"
     "{{ r }}{% endif %}{% if m %}{% set r = m.role|upper %}{{ r }}{% set ns.role = 'w' %}{% endif %}"
     "{% if m %}{% set r = m.role %}{{ r }}{% endif %}", AB, True),
    ("general/if", "chat", "{% for m in [ms[0], ms[0], o] %}{% if m %}{% set r = m.role|upper %}{{ o }}{{ r }}"
     "{% endif %}{% endfor %}", busy, True),
]

def _params():
    for index, (name, profile, source, make, chosen, *known) in enumerate(CASES):
        marks = (pytest.mark.xfail(reason=known[0], strict=True),) if known else ()
        yield pytest.param(profile, source, make, id=f"{name}-{index}-{profile}", marks=marks)


def test_every_entry_has_dynamic_cases_where_it_is_chosen():
    """Each entry: at least two cases where the data moves under it while it runs."""
    assert sorted({name for name, *_ in CASES} - {"general/text", "general/if", "general/switch"}) == entry_names()
    for name in entry_names():
        assert sum(1 for case in CASES if case[0] == name and case[4]) >= 2, name


@pytest.mark.parametrize("index", [i for i, c in enumerate(CASES) if not c[0].startswith("general/")],
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES) if not c[0].startswith("general/")])
def test_the_entry_is_chosen_only_where_it_may_read_once(index):
    name, profile, source, _, chosen, *_ = CASES[index]
    assert (name in chosen_by(source, lambda: our_environment(profile))) is chosen


@pytest.mark.parametrize("profile,source,make", list(_params()))
def test_kernels_general_and_jinja2_agree_as_the_data_moves(profile, source, make):
    found = three_ways(profile, source, make)
    assert not found, "\n".join(found)


def test_general_only_is_what_the_general_way_compiled():
    """The "general" way really ran without kernels: its compile chooses nothing."""
    assert all(not chosen_by(source, general=True) for _, profile, source, *_ in CASES if profile == "chat")


@pytest.mark.parametrize("body,names", [
    ("{% set c = m.x %}{{ c }}", {"c"}),
    ("{{ c }}{% set c = m.x %}", set()),
    ("{% set c = c ~ 'x' %}", set()),
    ("{% if m.r %}{% set c = m.x %}{{ c }}{% endif %}", {"c"}),
    ("{% if m.r %}{% set c = m.x %}{% endif %}{{ c }}", set()),
    ("{% if m.r %}{% set c = m.x %}{% else %}{% set c = 1 %}{% endif %}{{ c }}", {"c"}),
    ("{% if m.r %}{% set c = m.x %}{% elif m.s %}{% set c = 2 %}{% endif %}{{ c }}", set()),
    ("{% if m.r %}{% set c = m.x %}{% elif c %}{% set c = 2 %}{% endif %}", set()),
    ("{% if m.r %}{% set c = m.x %}{% else %}{{ c }}{% endif %}", set()),
    ("{% if m.r %}{% set c = m.x %}{% if 'a' in c %}{% set c = c ~ '!' %}{% endif %}{{ c }}{% endif %}", {"c"}),
    ("{% if m.r %}{% set c = 1 %}{% endif %}{% include 'x' %}", set()),
    ("{% set d = 1 %}{% if m.r %}{% set c = 1 %}{% include 'x' %}{% endif %}{% set e = 1 %}", {"c", "d"}),
    ("{% if m.r %}{% set c = 1 %}{% endif %}{% for x in c %}{% endfor %}", set()),
])
def test_a_loop_body_variable_is_started_afresh_where_a_read_can_come_before_a_set(body, names):
    """Summaries.assigned_first: the names no path through the body can read before it assigns them (their value
    from an earlier iteration can never be seen)."""
    from minijinja_py.analysis.symbols import Summaries
    from minijinja_py.syntax.parse import parse
    assert Summaries().assigned_first(parse(body).body) == names
