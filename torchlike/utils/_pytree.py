"""torchlike.utils._pytree: torch's Python pytree utilities (flatten/unflatten nested containers).

Libraries register their output classes as pytree nodes (transformers' ``ModelOutput``) and walk nested
arguments with ``tree_map``; the registry, the spec objects and their repr/JSON follow torch.utils._pytree.

>>> from torchlike.utils._pytree import tree_flatten, tree_unflatten, tree_map
>>> leaves, spec = tree_flatten({"a": [1, (2, 3)], "b": 4})
>>> leaves
[1, 2, 3, 4]
>>> tree_unflatten([x * 10 for x in leaves], spec)
{'a': [10, (20, 30)], 'b': 40}
>>> tree_map(lambda x: x + 1, (1, [2]))
(2, [3])
"""
from __future__ import annotations

import dataclasses
import json
from collections import OrderedDict, defaultdict, deque, namedtuple
from typing import Any, Callable, NamedTuple, Optional

__all__ = ["PyTree", "Context", "FlattenFunc", "UnflattenFunc", "DumpableContext", "ToDumpableContextFn",
           "FromDumpableContextFn", "TreeSpec", "LeafSpec", "NodeDef", "SUPPORTED_NODES", "KeyEntry", "KeyPath",
           "SequenceKey", "MappingKey", "GetAttrKey", "register_pytree_node", "register_dataclass",
           "register_constant", "tree_flatten", "tree_flatten_with_path", "tree_unflatten", "tree_iter",
           "tree_leaves", "tree_leaves_with_path", "tree_structure", "tree_map", "tree_map_", "tree_map_only",
           "tree_map_only_", "tree_map_with_path", "tree_all", "tree_any", "tree_all_only", "tree_any_only",
           "tree_is_leaf", "treespec_dumps", "treespec_loads", "treespec_pprint", "treespec_leaf",
           "treespec_tuple", "treespec_dict", "keystr", "key_get", "is_namedtuple", "is_namedtuple_class",
           "is_namedtuple_instance", "is_structseq", "is_structseq_class", "is_structseq_instance",
           "arg_tree_leaves", "structseq"]

PyTree = Any
Context = Any
DumpableContext = Any
FlattenFunc = Callable[[PyTree], tuple]
UnflattenFunc = Callable[[Any, Context], PyTree]
ToDumpableContextFn = Callable[[Context], DumpableContext]
FromDumpableContextFn = Callable[[DumpableContext], Context]
KeyEntry = Any
KeyPath = tuple
DEFAULT_TREESPEC_SERIALIZATION_PROTOCOL = 1


class NodeDef(NamedTuple):
    type: type
    flatten_fn: Callable
    unflatten_fn: Callable
    flatten_with_keys_fn: Optional[Callable]


@dataclasses.dataclass(frozen=True)
class _SerializeNodeDef:
    typ: type
    serialized_type_name: str
    to_dumpable_context: Optional[Callable]
    from_dumpable_context: Optional[Callable]


SUPPORTED_NODES: dict = {}
SUPPORTED_SERIALIZED_TYPES: dict = {}
SERIALIZED_TYPE_TO_PYTHON_TYPE: dict = {}
CONSTANT_NODES: set = set()


# --- key paths -----------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class SequenceKey:
    idx: int

    def __str__(self):
        return f"[{self.idx!r}]"

    def get(self, sequence):
        return sequence[self.idx]


@dataclasses.dataclass(frozen=True)
class MappingKey:
    key: Any

    def __str__(self):
        return f"[{self.key!r}]"

    def get(self, mapping):
        return mapping[self.key]


@dataclasses.dataclass(frozen=True)
class GetAttrKey:
    name: str

    def __str__(self):
        return f".{self.name}"

    def get(self, obj):
        return getattr(obj, self.name)


def keystr(kp) -> str:
    """The path ``kp`` as a string: ``['a'][1][0]``."""
    return "".join(str(k) for k in kp)


def key_get(obj, kp):
    """The value at key path ``kp`` inside ``obj``."""
    for k in kp:
        obj = k.get(obj)
    return obj


# --- registration ----------------------------------------------------------------------------------
def register_pytree_node(cls, flatten_fn, unflatten_fn, *, serialized_type_name=None, to_dumpable_context=None,
                         from_dumpable_context=None, flatten_with_keys_fn=None) -> None:
    """Register ``cls`` as a container: ``flatten_fn(obj) -> (children, context)``,
    ``unflatten_fn(children, context) -> obj``."""
    if cls in SUPPORTED_NODES:
        raise ValueError(f"{cls} is already registered as pytree node.")
    _private_register_pytree_node(cls, flatten_fn, unflatten_fn, serialized_type_name=serialized_type_name,
                                  to_dumpable_context=to_dumpable_context,
                                  from_dumpable_context=from_dumpable_context,
                                  flatten_with_keys_fn=flatten_with_keys_fn)


def _private_register_pytree_node(cls, flatten_fn, unflatten_fn, *, serialized_type_name=None,
                                  to_dumpable_context=None, from_dumpable_context=None,
                                  flatten_with_keys_fn=None) -> None:
    SUPPORTED_NODES[cls] = NodeDef(cls, flatten_fn, unflatten_fn, flatten_with_keys_fn)
    if (to_dumpable_context is None) != (from_dumpable_context is None):
        raise ValueError(f"Both to_dumpable_context and from_dumpable_context for {cls} must be None or "
                         "registered.")
    if serialized_type_name is None:
        serialized_type_name = "NO_SERIALIZED_TYPE_NAME_FOUND"
    SUPPORTED_SERIALIZED_TYPES[cls] = _SerializeNodeDef(cls, serialized_type_name, to_dumpable_context,
                                                        from_dumpable_context)
    SERIALIZED_TYPE_TO_PYTHON_TYPE[serialized_type_name] = cls


_register_pytree_node = _private_register_pytree_node


def _deregister_pytree_node(cls) -> None:
    SUPPORTED_NODES.pop(cls, None)
    ser = SUPPORTED_SERIALIZED_TYPES.pop(cls, None)
    if ser is not None:
        SERIALIZED_TYPE_TO_PYTHON_TYPE.pop(ser.serialized_type_name, None)


def register_dataclass(cls, *, field_names=None, drop_field_names=None, serialized_type_name=None):
    """Register a dataclass whose (init) fields are its children."""
    names = list(field_names) if field_names is not None else [
        f.name for f in dataclasses.fields(cls) if f.init and f.name not in (drop_field_names or ())]

    def flatten(obj):
        return [getattr(obj, n) for n in names], names

    def unflatten(values, context):
        return cls(**dict(zip(context, values)))

    def flatten_with_keys(obj):
        return [(GetAttrKey(n), getattr(obj, n)) for n in names], names
    _private_register_pytree_node(cls, flatten, unflatten, serialized_type_name=serialized_type_name,
                                  flatten_with_keys_fn=flatten_with_keys)
    return cls


def register_constant(cls) -> None:
    """Register ``cls`` as a constant: a node without children whose value is its context."""
    CONSTANT_NODES.add(cls)
    _private_register_pytree_node(cls, lambda obj: ([], obj), lambda values, context: context,
                                  flatten_with_keys_fn=lambda obj: ([], obj))


def is_constant_class(cls) -> bool:
    return cls in CONSTANT_NODES


# --- built-in containers -------------------------------------------------------------------------
def _tuple_flatten(d):
    return list(d), None


def _tuple_flatten_with_keys(d):
    return [(SequenceKey(i), v) for i, v in enumerate(d)], None


def _tuple_unflatten(values, context):
    return tuple(values)


def _list_flatten(d):
    return list(d), None


def _list_flatten_with_keys(d):
    return [(SequenceKey(i), v) for i, v in enumerate(d)], None


def _list_unflatten(values, context):
    return list(values)


def _dict_flatten(d):
    return list(d.values()), list(d.keys())


def _dict_flatten_with_keys(d):
    return [(MappingKey(k), v) for k, v in d.items()], list(d.keys())


def _dict_unflatten(values, context):
    return dict(zip(context, values))


def _namedtuple_flatten(d):
    return list(d), type(d)


def _namedtuple_flatten_with_keys(d):
    return [(GetAttrKey(f), v) for f, v in zip(type(d)._fields, d)], type(d)


def _namedtuple_unflatten(values, context):
    return context(*values)


def _ordereddict_flatten(d):
    return list(d.values()), list(d.keys())


def _ordereddict_flatten_with_keys(d):
    return [(MappingKey(k), v) for k, v in d.items()], list(d.keys())


def _ordereddict_unflatten(values, context):
    return OrderedDict((k, v) for k, v in zip(context, values))


_odict_flatten, _odict_unflatten = _ordereddict_flatten, _ordereddict_unflatten


def _defaultdict_flatten(d):
    return list(d.values()), [d.default_factory, list(d.keys())]


def _defaultdict_flatten_with_keys(d):
    return [(MappingKey(k), v) for k, v in d.items()], [d.default_factory, list(d.keys())]


def _defaultdict_unflatten(values, context):
    factory, keys = context
    return defaultdict(factory, zip(keys, values))


def _deque_flatten(d):
    return list(d), d.maxlen


def _deque_flatten_with_keys(d):
    return [(SequenceKey(i), v) for i, v in enumerate(d)], d.maxlen


def _deque_unflatten(values, context):
    return deque(values, maxlen=context)


def _structseq_flatten(d):
    return list(d), type(d)


def _structseq_flatten_with_keys(d):
    return [(SequenceKey(i), v) for i, v in enumerate(d)], type(d)


def _structseq_unflatten(values, context):
    return context(tuple(values))


def structseq(*args, **kwargs):  # noqa: D401 - a marker type, as in torch
    raise TypeError("structseq is a marker type for pytree nodes")


_private_register_pytree_node(tuple, _tuple_flatten, _tuple_unflatten, serialized_type_name="builtins.tuple",
                              flatten_with_keys_fn=_tuple_flatten_with_keys)
_private_register_pytree_node(list, _list_flatten, _list_unflatten, serialized_type_name="builtins.list",
                              flatten_with_keys_fn=_list_flatten_with_keys)
_private_register_pytree_node(dict, _dict_flatten, _dict_unflatten, serialized_type_name="builtins.dict",
                              flatten_with_keys_fn=_dict_flatten_with_keys)
_private_register_pytree_node(namedtuple, _namedtuple_flatten, _namedtuple_unflatten,
                              serialized_type_name="collections.namedtuple",
                              flatten_with_keys_fn=_namedtuple_flatten_with_keys)
_private_register_pytree_node(OrderedDict, _ordereddict_flatten, _ordereddict_unflatten,
                              serialized_type_name="collections.OrderedDict",
                              flatten_with_keys_fn=_ordereddict_flatten_with_keys)
_private_register_pytree_node(defaultdict, _defaultdict_flatten, _defaultdict_unflatten,
                              serialized_type_name="collections.defaultdict",
                              flatten_with_keys_fn=_defaultdict_flatten_with_keys)
_private_register_pytree_node(deque, _deque_flatten, _deque_unflatten, serialized_type_name="collections.deque",
                              flatten_with_keys_fn=_deque_flatten_with_keys)
_private_register_pytree_node(structseq, _structseq_flatten, _structseq_unflatten,
                              serialized_type_name="structseq", flatten_with_keys_fn=_structseq_flatten_with_keys)
STANDARD_DICT_TYPES = frozenset({dict, OrderedDict, defaultdict})
BUILTIN_TYPES = frozenset({tuple, list, dict, namedtuple, OrderedDict, defaultdict, deque, structseq})


def is_namedtuple_class(cls) -> bool:
    return isinstance(cls, type) and issubclass(cls, tuple) and isinstance(getattr(cls, "_fields", None), tuple) \
        and all(isinstance(f, str) for f in cls._fields) and callable(getattr(cls, "_make", None))


def is_namedtuple_instance(obj) -> bool:
    return is_namedtuple_class(type(obj))


def is_namedtuple(obj) -> bool:
    return is_namedtuple_class(obj if isinstance(obj, type) else type(obj))


def is_structseq_class(cls) -> bool:
    """True for torch.return_types-like classes (a tuple subclass with n_fields and named fields)."""
    return isinstance(cls, type) and issubclass(cls, tuple) and not is_namedtuple_class(cls) and \
        isinstance(getattr(cls, "n_fields", None), int) and isinstance(getattr(cls, "n_sequence_fields", None), int)


def is_structseq_instance(obj) -> bool:
    return is_structseq_class(type(obj))


def is_structseq(obj) -> bool:
    return is_structseq_class(obj if isinstance(obj, type) else type(obj))


def _get_node_type(tree):
    t = type(tree)
    if t in SUPPORTED_NODES:
        return t
    if is_namedtuple_class(t):
        return namedtuple
    if is_structseq_class(t):
        return structseq
    return t


def _is_leaf(tree, is_leaf=None) -> bool:
    return (is_leaf is not None and is_leaf(tree)) or _get_node_type(tree) not in SUPPORTED_NODES


tree_is_leaf = _is_leaf


# --- specs -----------------------------------------------------------------------------------------
class TreeSpec:
    """The structure of a flattened pytree: node type, its context and one spec per child."""

    def __init__(self, type, context, children_specs):  # noqa: A002 - torch's field names
        self.type = type
        self.context = context
        self._children = list(children_specs)
        self.num_children = len(self._children)
        self.num_leaves = sum(c.num_leaves for c in self._children)
        self.num_nodes = 1 + sum(c.num_nodes for c in self._children)

    @property
    def children_specs(self):
        return self._children

    def children(self):
        return list(self._children)

    def child(self, index):
        return self._children[index]

    def is_leaf(self) -> bool:
        return self.num_nodes == 1 and self.num_leaves == 1

    def __eq__(self, other):
        if not isinstance(other, TreeSpec):
            return NotImplemented
        return (self.type, self.context, self._children) == (other.type, other.context, other._children) \
            and self.is_leaf() == other.is_leaf()

    def __hash__(self):
        return hash((self.type, repr(self.context), tuple(self._children)))

    def __repr__(self, indent: int = 0):
        name = getattr(self.type, "__name__", repr(self.type))
        head = f"TreeSpec({name}, {self.context}, ["
        body = ""
        if self._children:
            indent += 2
            body = self._children[0].__repr__(indent) + ("," if len(self._children) > 1 else "")
            body += ",".join("\n" + " " * indent + c.__repr__(indent) for c in self._children[1:])
        return head + body + "])"

    def flatten_up_to(self, tree):
        """The subtrees of ``tree`` at this spec's leaves."""
        out = []
        self._flatten_up_to(tree, out)
        return out

    def _flatten_up_to(self, tree, out):
        if self.is_leaf():
            out.append(tree)
            return
        node_type = _get_node_type(tree)
        if node_type != self.type:
            raise ValueError(f"Type mismatch; expected {self.type!r}, but got {node_type!r}.")
        children, context = SUPPORTED_NODES[node_type].flatten_fn(tree)
        if len(children) != self.num_children:
            raise ValueError(f"Node arity mismatch; expected {self.num_children}, but got {len(children)}.")
        if context != self.context:
            raise ValueError("Node context mismatch for custom node type.")
        for c, spec in zip(children, self._children):
            spec._flatten_up_to(c, out)

    def unflatten(self, leaves):
        leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            raise ValueError(f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but the spec refers "
                             f"to a pytree that holds {self.num_leaves} items ({self}).")
        return self._build(iter(leaves))

    def _build(self, it):
        if self.is_leaf():
            return next(it)
        return SUPPORTED_NODES[self.type].unflatten_fn([c._build(it) for c in self._children], self.context)


class LeafSpec(TreeSpec):
    """The spec of a leaf (repr ``*``)."""

    def __init__(self):
        super().__init__(None, None, [])
        self.num_leaves = 1

    def __repr__(self, indent: int = 0):
        return "*"


_LEAF_SPEC = LeafSpec()


def treespec_leaf() -> LeafSpec:
    return LeafSpec()


def treespec_tuple(iterable=()):
    children = list(iterable)
    return TreeSpec(tuple, None, children)


def treespec_dict(mapping=(), **kwargs):
    d = dict(mapping, **kwargs)
    return TreeSpec(dict, list(d.keys()), list(d.values()))


# --- flatten / unflatten -------------------------------------------------------------------------
def _flatten(tree, leaves, is_leaf):
    if _is_leaf(tree, is_leaf):
        leaves.append(tree)
        return _LEAF_SPEC
    node_type = _get_node_type(tree)
    children, context = SUPPORTED_NODES[node_type].flatten_fn(tree)
    return TreeSpec(node_type, context, [_flatten(c, leaves, is_leaf) for c in children])


def tree_flatten(tree, is_leaf=None):
    """``(leaves, treespec)`` of ``tree``."""
    leaves = []
    return leaves, _flatten(tree, leaves, is_leaf)


def tree_unflatten(leaves, treespec):
    """Rebuild a pytree from ``leaves`` and the spec :func:`tree_flatten` returned."""
    if not isinstance(treespec, TreeSpec):
        raise TypeError(f"tree_unflatten(leaves, treespec): Expected `treespec` to be instance of TreeSpec but "
                        f"got item of type {type(treespec)}.")
    return treespec.unflatten(leaves)


def tree_iter(tree, is_leaf=None):
    if _is_leaf(tree, is_leaf):
        yield tree
        return
    children, _ = SUPPORTED_NODES[_get_node_type(tree)].flatten_fn(tree)
    for c in children:
        yield from tree_iter(c, is_leaf)


def tree_leaves(tree, is_leaf=None) -> list:
    return list(tree_iter(tree, is_leaf))


def tree_structure(tree, is_leaf=None) -> TreeSpec:
    return tree_flatten(tree, is_leaf)[1]


def arg_tree_leaves(*args, **kwargs) -> list:
    leaves = tree_leaves(args)
    if kwargs:
        leaves += tree_leaves(kwargs)
    return leaves


def tree_map(func, tree, *rests, is_leaf=None):
    """Apply ``func`` to every leaf (and the matching leaves of ``rests``), keeping the structure."""
    leaves, spec = tree_flatten(tree, is_leaf)
    others = [spec.flatten_up_to(r) for r in rests]
    return spec.unflatten(func(*xs) for xs in zip(leaves, *others))


def tree_map_(func, tree, *rests, is_leaf=None):
    """Like :func:`tree_map` for side effects; returns ``tree``."""
    leaves, spec = tree_flatten(tree, is_leaf)
    others = [spec.flatten_up_to(r) for r in rests]
    for xs in zip(leaves, *others):
        func(*xs)
    return tree


def _type_pred(type_or_types):
    if isinstance(type_or_types, type):
        return lambda x: isinstance(x, type_or_types)
    if isinstance(type_or_types, tuple) and all(isinstance(t, type) for t in type_or_types):
        return lambda x: isinstance(x, type_or_types)
    if callable(type_or_types):
        return type_or_types
    raise TypeError(f"Unknown type {type_or_types}")


def map_only(type_or_types):
    """Decorator: apply the function only to leaves of the given type(s); other leaves pass through."""
    pred = _type_pred(type_or_types)

    def deco(func):
        def wrapped(x):
            return func(x) if pred(x) else x
        return wrapped
    return deco


def tree_map_only(type_or_types, func, tree, is_leaf=None):
    return tree_map(map_only(type_or_types)(func), tree, is_leaf=is_leaf)


def tree_map_only_(type_or_types, func, tree, is_leaf=None):
    return tree_map_(map_only(type_or_types)(func), tree, is_leaf=is_leaf)


def tree_all(pred, tree, is_leaf=None) -> bool:
    return all(map(pred, tree_iter(tree, is_leaf)))


def tree_any(pred, tree, is_leaf=None) -> bool:
    return any(map(pred, tree_iter(tree, is_leaf)))


def tree_all_only(type_or_types, pred, tree, is_leaf=None) -> bool:
    p = _type_pred(type_or_types)
    return all(pred(x) for x in tree_iter(tree, is_leaf) if p(x))


def tree_any_only(type_or_types, pred, tree, is_leaf=None) -> bool:
    p = _type_pred(type_or_types)
    return any(pred(x) for x in tree_iter(tree, is_leaf) if p(x))


def _with_path(tree, path, out, is_leaf):
    if _is_leaf(tree, is_leaf):
        out.append((path, tree))
        return _LEAF_SPEC
    node_type = _get_node_type(tree)
    node = SUPPORTED_NODES[node_type]
    if node.flatten_with_keys_fn is None:
        raise ValueError(f"Did not find a flatten_with_keys_fn for type: {node_type}. Please pass a "
                         "flatten_with_keys_fn argument to register_pytree_node.")
    keyed, context = node.flatten_with_keys_fn(tree)
    return TreeSpec(node_type, context, [_with_path(c, path + (k,), out, is_leaf) for k, c in keyed])


def tree_flatten_with_path(tree, is_leaf=None):
    """``([(key_path, leaf), ...], treespec)``."""
    out = []
    spec = _with_path(tree, (), out, is_leaf)
    return out, spec


def tree_leaves_with_path(tree, is_leaf=None) -> list:
    return tree_flatten_with_path(tree, is_leaf)[0]


def tree_map_with_path(func, tree, *rests, is_leaf=None):
    pairs, spec = tree_flatten_with_path(tree, is_leaf)
    others = [spec.flatten_up_to(r) for r in rests]
    return spec.unflatten(func(kp, x, *xs) for (kp, x), *xs in zip(pairs, *others))


def _broadcast_to_and_flatten(tree, treespec, is_leaf=None):
    """``tree`` broadcast to ``treespec``'s structure and flattened, or None if it cannot be."""
    if _is_leaf(tree, is_leaf):
        return [tree] * treespec.num_leaves
    if treespec.is_leaf():
        return None
    node_type = _get_node_type(tree)
    if node_type != treespec.type:
        return None
    children, context = SUPPORTED_NODES[node_type].flatten_fn(tree)
    if len(children) != treespec.num_children or context != treespec.context:
        return None
    out = []
    for c, s in zip(children, treespec.children_specs):
        sub = _broadcast_to_and_flatten(c, s, is_leaf)
        if sub is None:
            return None
        out += sub
    return out


# --- serialization -----------------------------------------------------------------------------------
def _spec_to_json(spec):
    if spec.is_leaf():
        return {"type": None, "context": None, "children_spec": []}
    ser = SUPPORTED_SERIALIZED_TYPES.get(spec.type)
    if ser is None or ser.serialized_type_name == "NO_SERIALIZED_TYPE_NAME_FOUND":
        raise NotImplementedError(f"Serializing {spec.type} in pytree is not registered.")
    if ser.to_dumpable_context is not None:
        context = ser.to_dumpable_context(spec.context)
    elif spec.type is namedtuple:
        context = f"{spec.context.__module__}.{spec.context.__qualname__}"
    else:
        context = spec.context
    try:
        context = json.dumps(context)
    except TypeError as e:
        raise TypeError("Unable to serialize context. Please make the context json dump-able, or register a "
                        "custom serializer using _register_pytree_node.") from e
    return {"type": ser.serialized_type_name, "context": context,
            "children_spec": [_spec_to_json(c) for c in spec.children_specs]}


def _json_to_spec(data):
    if data["type"] is None and data["context"] is None and not data["children_spec"]:
        return LeafSpec()
    typ = SERIALIZED_TYPE_TO_PYTHON_TYPE.get(data["type"])
    if typ is None:
        raise NotImplementedError(f"Deserializing {data['type']} in pytree is not registered.")
    ser = SUPPORTED_SERIALIZED_TYPES[typ]
    context = json.loads(data["context"])
    if ser.from_dumpable_context is not None:
        context = ser.from_dumpable_context(context)
    elif typ is namedtuple:
        import importlib
        module, _, name = context.rpartition(".")
        context = getattr(importlib.import_module(module), name)
    return TreeSpec(typ, context, [_json_to_spec(c) for c in data["children_spec"]])


def treespec_dumps(treespec, protocol=None) -> str:
    """A JSON string of ``treespec`` (``[protocol, spec]``)."""
    if not isinstance(treespec, TreeSpec):
        raise TypeError(f"treespec_dumps(treespec, protocol): Expected `treespec` to be instance of TreeSpec but "
                        f"got item of type {type(treespec)}.")
    protocol = DEFAULT_TREESPEC_SERIALIZATION_PROTOCOL if protocol is None else protocol
    if protocol != 1:
        raise ValueError(f"Unknown protocol {protocol}. Available protocols: [1]")
    return json.dumps([protocol, _spec_to_json(treespec)])


def treespec_loads(serialized: str) -> TreeSpec:
    protocol, data = json.loads(serialized)
    if protocol != 1:
        raise ValueError(f"Unknown protocol {protocol}. Available protocols: [1]")
    return _json_to_spec(data)


def treespec_pprint(treespec) -> str:
    return repr(tree_unflatten(["*"] * treespec.num_leaves, treespec)).replace("'*'", "*")
