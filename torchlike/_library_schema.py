"""``torch.library.infer_schema``: an operator schema from a Python function's type annotations.

The types and their schema spellings are torch's (``Tensor``, ``Tensor?``, ``Tensor[]``, ``SymInt``,
``float[]?``, ``ScalarType``, ``Device`` ...), as are the errors for what a schema cannot express.

>>> import torchlike as torch
>>> from torchlike.library import infer_schema
>>> def f(x: torch.Tensor, n: int, *, scale: float = 1.0) -> torch.Tensor: ...
>>> infer_schema(f, mutates_args=())
'(Tensor x, SymInt n, *, float scale=1.0) -> Tensor'
"""
from __future__ import annotations

import collections.abc
import inspect
import types
import typing

from . import _dtype
from ._device import device as _device_type
from .tensor import Tensor
from .types import Number

__all__ = ["infer_schema"]


def _seq_types(t):
    return (typing.Sequence[t], typing.List[t], types.GenericAlias(collections.abc.Sequence, (t,)),  # noqa: UP006
            types.GenericAlias(list, (t,)))


def _derived(base, name, list_base, optional_base_list, optional_list_base):
    out = [(base, name), (typing.Optional[base], f"{name}?")]
    if list_base:
        out += [(s, f"{name}[]") for s in _seq_types(base)]
    if optional_base_list:
        out += [(s, f"{name}?[]") for s in _seq_types(typing.Optional[base])]
    if optional_list_base:
        out += [(typing.Optional[s], f"{name}[]?") for s in _seq_types(base)]
    return out


def _param_types():
    rows = [(Tensor, "Tensor", True, True, False), (int, "SymInt", True, False, True),
            (float, "float", True, False, True), (bool, "bool", True, False, True), (str, "str", False, False, False),
            (Number, "Scalar", True, False, False), (_dtype.dtype, "ScalarType", False, False, False),
            (_device_type, "Device", False, False, False)]
    return dict(p for row in rows for p in _derived(*row))


SUPPORTED_PARAM_TYPES = _param_types()
SUPPORTED_RETURN_TYPES = {Tensor: "Tensor", typing.List[Tensor]: "Tensor[]", list[Tensor]: "Tensor[]",  # noqa: UP006
                          int: "SymInt", float: "float", bool: "bool", Number: "Scalar"}


def _default_repr(value, error):
    if value is None or isinstance(value, (int, float, bool)):
        return str(value)
    if isinstance(value, (str, _device_type)):
        return f'"{value}"'
    if isinstance(value, _dtype.dtype):
        return str(value)[len("torch."):]
    error(f"Parameter has an unsupported default value type {type(value)}. Please file an issue on GitHub so we "
          "can prioritize this.")


def _parse_return(annotation, error):
    if annotation is None:
        return "()"
    if annotation is inspect.Parameter.empty:
        error("No return type annotation was provided. Please add one.")
    if typing.get_origin(annotation) is not tuple:
        if annotation not in SUPPORTED_RETURN_TYPES:
            error(f"Return has unsupported type {annotation}. The valid types are: {SUPPORTED_RETURN_TYPES}.")
        return SUPPORTED_RETURN_TYPES[annotation]
    args = typing.get_args(annotation)
    for a in args:
        if a not in SUPPORTED_RETURN_TYPES:
            error(f"Return has unsupported type {annotation}. The valid types are: {SUPPORTED_RETURN_TYPES}.")
    out = ", ".join(SUPPORTED_RETURN_TYPES[a] for a in args)
    return "((" + out + "))" if len(args) == 1 else "(" + out + ")"


def _unstringify(ty, namespace, error):
    """An annotation as a type: strings (``from __future__ import annotations``) are evaluated in the
    function's module, as torch does, also inside generics (``list["Tensor"]``)."""
    if isinstance(ty, str):
        try:
            return eval(ty, namespace, None)  # noqa: S307 - torch evaluates annotation strings the same way
        except NameError as e:
            error(f"Unsupported type annotation {ty}. It is not a type. ({e}). If you are using 'from __future__ "
                  "import annotations', note that annotations are evaluated lazily as strings; make sure all types "
                  "referenced in annotations are importable at module scope, not only inside a local function.")
        except Exception as e:
            error(f"Unsupported type annotation {ty}. It is not a type. ({type(e).__name__}: {e})")
    origin = typing.get_origin(ty)
    if origin is not None and origin is not typing.Union:
        args = typing.get_args(ty)
        new = tuple(_unstringify(a, namespace, error) for a in args)
        if new != args:
            return types.GenericAlias(origin, new)
    return ty


def infer_schema(prototype_function, /, *, mutates_args, op_name=None) -> str:
    """The schema of ``prototype_function`` from its annotations; ``mutates_args`` names the Tensor arguments
    it writes to (or is ``"unknown"``)."""
    sig = inspect.signature(prototype_function)

    def error(what):
        raise ValueError(f"infer_schema(func): {what} Got func with signature {sig})")

    params, seen, kw_only = [], set(), False
    for idx, (name, p) in enumerate(sig.parameters.items()):
        if p.kind not in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY):
            error("We do not support positional-only args, varargs, or varkwargs.")
        if p.kind == inspect.Parameter.KEYWORD_ONLY and not kw_only:
            params.append("*")
            kw_only = True
        if p.annotation is inspect.Parameter.empty:
            error(f"Parameter {name} must have a type annotation.")
        ann = _unstringify(p.annotation, prototype_function.__globals__, error)
        if ann not in SUPPORTED_PARAM_TYPES:
            if typing.get_origin(ann) is tuple:
                error(f"Parameter {name} has unsupported type {ann}. We do not support Tuple inputs in schema. As "
                      "a workaround, please try to use List instead. For example, list[int].\n\nThe valid types "
                      f"are: {SUPPORTED_PARAM_TYPES.keys()}.")
            error(f"Parameter {name} has unsupported type {ann}. The valid types are: "
                  f"{SUPPORTED_PARAM_TYPES.keys()}.")
        schema_type = SUPPORTED_PARAM_TYPES[ann]
        if isinstance(mutates_args, str):
            if mutates_args != "unknown":
                raise ValueError("mutates_args must either be a sequence of the names of the arguments that are "
                                 "mutated or the string 'unknown'. ")
            if schema_type.startswith("Tensor"):
                schema_type = f"Tensor(a{idx}!){schema_type[len('Tensor'):]}"
        elif name in mutates_args:
            if not schema_type.startswith("Tensor"):
                error(f"Parameter {name} is in mutable_args but only Tensors or collections of Tensors can be "
                      "mutated")
            schema_type = f"Tensor(a{idx}!){schema_type[len('Tensor'):]}"
        seen.add(name)
        if p.default is inspect.Parameter.empty:
            params.append(f"{schema_type} {name}")
        else:
            params.append(f"{schema_type} {name}={_default_repr(p.default, error)}")
    if not isinstance(mutates_args, str):
        missing = set(mutates_args) - seen
        if missing:
            error(f"{missing} in mutates_args were not found in the custom op's signature. mutates_args should "
                  "contain the names of all args that the custom op mutates, or just the string 'unknown' if you "
                  "don't know.")
    ret = _parse_return(_unstringify(sig.return_annotation, prototype_function.__globals__, error), error)
    return f"{op_name or ''}({', '.join(params)}) -> {ret}"
