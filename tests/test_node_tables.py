"""The node tables of analysis/ (treescan.py; symbols.py's _HOLDS_BODY) are written out, not computed from the node
classes' FIELDS at import (a cold start pays for every instruction of the import); symbols' _COUNT is computed from
treescan's NODE_FIELDS. These tests compute them the way they were computed before, from syntax/nodes.py, and check
the written-out data is the same: adding a node class or a field without updating the tables fails here."""

from minijinja_py.analysis import symbols, treescan
from minijinja_py.syntax import nodes as n

NODE_CLASSES = [cls for cls in vars(n).values()
                if isinstance(cls, type) and issubclass(cls, n.Node) and cls is not n.Node]


def computed_node_fields():
    # every node class: its fields that can hold nodes (not a leaf field: strings and flags), first to last; a
    # constant's and a text's value hold no nodes
    fields = {cls: tuple(f for f in cls.FIELDS if f not in treescan.LEAF_FIELDS) for cls in NODE_CLASSES}
    fields[n.Const] = fields[n.Text] = ()
    return fields


def test_node_fields_cover_every_node_class_in_order():
    assert list(treescan.NODE_FIELDS) == NODE_CLASSES
    assert treescan.NODE_FIELDS == computed_node_fields()


def test_scan_tables():
    own_order = treescan._OWN_ORDER
    kids = {cls: fields[::-1] for cls, fields in computed_node_fields().items()
            if cls not in own_order and "body" not in cls.FIELDS}
    body_kids = {cls: fields[::-1] for cls, fields in computed_node_fields().items()
                 if cls not in own_order and "body" in cls.FIELDS}
    assert treescan._BODY_KIDS == body_kids
    # (_INFO also gains the node classes made elsewhere that a scan meets: compare the classes of nodes.py only)
    assert {cls: treescan._INFO[cls] for cls in NODE_CLASSES if cls in treescan._INFO} == \
        {cls: treescan._info(cls, fields) for cls, fields in kids.items()}


def test_symbol_tables():
    count = {cls: symbols._count_plan(cls) for cls in computed_node_fields() if not issubclass(cls, symbols._FREE)}
    assert {cls: symbols._COUNT[cls] for cls in NODE_CLASSES if cls in symbols._COUNT} == count
    assert symbols._HOLDS_BODY == {cls for cls in NODE_CLASSES if "body" in cls.FIELDS}
