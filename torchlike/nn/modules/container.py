"""Modules that hold other modules or parameters: Sequential, ModuleList, ModuleDict,
ParameterList, ParameterDict (and the deprecated Container).

Children live in the ordinary ``Module._modules`` / ``_parameters`` tables, keyed ``"0"``, ``"1"``...
for the list-like containers, so state_dict keys, reprs and attribute access are those of torch.

>>> import torchlike as torch
>>> torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU())
Sequential(
  (0): Linear(in_features=2, out_features=3, bias=True)
  (1): ReLU()
)
"""
from __future__ import annotations

import operator
import warnings
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from itertools import groupby

from ...tensor import Tensor
from ..parameter import Parameter
from .module import Module, _typename

__all__ = ["Container", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"]


# ---- helpers shared by the containers ----------------------------------------------------------
def _position(idx, length):
    """``idx`` (anything with __index__) as a position in ``[0, length)``; IndexError when outside."""
    pos = operator.index(idx)
    if pos < -length or pos >= length:
        raise IndexError(f"index {pos} is out of range")
    return pos + length if pos < 0 else pos


def _indent_tail(text, width=2):
    """Indent every line of ``text`` but the first (nested reprs)."""
    head, *tail = text.split("\n")
    pad = " " * width
    return head + "".join("\n" + pad + line for line in tail)


def _renumber(owner):
    """Re-key ``owner._modules`` as "0", "1", ... keeping the order (after deletions)."""
    kept = list(owner._modules.values())
    owner._modules.clear()
    owner._modules.update((str(n), m) for n, m in enumerate(kept))


def _shift_up(table, start):
    """Move the entries keyed str(start)..str(len-1) one key higher, highest first, freeing str(start)."""
    for src in range(len(table) - 1, start - 1, -1):
        table[str(src + 1)] = table[str(src)]


def _numeric_free_dir(module):
    # children keyed by position are not attribute names a user would type
    return [name for name in Module.__dir__(module) if not name.isdigit()]


def _as_parameter(value):
    """Plain tensors stored in a parameter container become Parameters; anything else is kept."""
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        return Parameter(value)
    return value


def _entry_line(key, value, dtype_text):
    if not isinstance(value, Tensor):
        return f"  ({key}): Object of type: {type(value).__name__}"
    kind = "Parameter" if isinstance(value, Parameter) else "Tensor"
    shape = "x".join(str(n) for n in value.size())
    where = f" ({value.device})" if value.device.type in ("cuda", "privateuseone") else ""
    return f"  ({key}): {kind} containing: [{dtype_text(value)} of size {shape}{where}]"


def _pair_items(pairs, owner):
    """Yield (key, value) from a sequence of 2-item iterables, checking each as torch does."""
    for n, pair in enumerate(pairs):
        if not isinstance(pair, Iterable):
            raise TypeError(f"{owner} update sequence element #{n} should be Iterable; is"
                            + type(pair).__name__)
        if len(pair) != 2:
            raise ValueError(f"{owner} update sequence element #{n} has length {len(pair)}; 2 is required")
        yield pair[0], pair[1]


def _concat_error(other):
    return ValueError("add operator supports only objects of Sequential class, but "
                      f"{type(other)} is given.")


def _check_factor(seq, factor):
    if not isinstance(factor, int):
        raise TypeError(f"unsupported operand type(s) for *: {type(seq)} and {type(factor)}")
    if factor <= 0:
        raise ValueError(f"Non-positive multiplication factor {factor} for {type(seq)}")


class Container(Module):
    """Deprecated: keyword arguments become submodules. Subclass Module instead."""

    def __init__(self, **kwargs):
        warnings.warn("`nn.Container` is deprecated. All of its functionality is now implemented in "
                      "`nn.Module`. Subclass that instead.", FutureWarning, stacklevel=2)
        super().__init__()
        for name, child in kwargs.items():
            self.add_module(name, child)


class Sequential(Module):
    """Runs its children one after another, each feeding the next.

    Built from positional modules (keys "0", "1", ...) or from one OrderedDict of named modules.

    >>> import torchlike as torch
    >>> net = torch.nn.Sequential(torch.nn.Linear(4, 2), torch.nn.Tanh())
    >>> net(torch.zeros(3, 4)).shape, len(net), type(net[1]).__name__
    (torch.Size([3, 2]), 2, 'Tanh')
    """

    def __init__(self, *args):
        super().__init__()
        named = len(args) == 1 and isinstance(args[0], OrderedDict)
        pairs = args[0].items() if named else ((str(n), m) for n, m in enumerate(args))
        for name, child in pairs:
            self.add_module(name, child)

    def _key_at(self, idx):
        keys = list(self._modules)
        return keys[_position(idx, len(keys))]

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            chosen = list(self._modules.items())[idx]
            return type(self)(OrderedDict(chosen))
        return self._modules[self._key_at(idx)]

    def __setitem__(self, idx, module):
        setattr(self, self._key_at(idx), module)

    def __delitem__(self, idx):
        doomed = list(self._modules)[idx] if isinstance(idx, slice) else [self._key_at(idx)]
        for key in doomed:
            delattr(self, key)
        _renumber(self)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __dir__(self):
        return _numeric_free_dir(self)

    def __add__(self, other):
        if not isinstance(other, Sequential):
            raise _concat_error(other)
        joined = Sequential()
        joined.extend(self)
        return joined.extend(other)

    def __iadd__(self, other):
        if not isinstance(other, Sequential):
            raise _concat_error(other)
        base = len(self)
        for n, child in enumerate(other):
            self.add_module(str(base + n), child)
        return self

    def __mul__(self, other):
        _check_factor(self, other)
        repeated = Sequential()
        for child in list(self) * other:
            repeated.append(child)
        return repeated

    def __rmul__(self, other):
        return self * other

    def __imul__(self, other):
        _check_factor(self, other)
        count = len(self)
        # torch looks the originals up by their positional keys (a KeyError for OrderedDict-named ones)
        originals = [self._modules[str(n)] for n in range(count)] if other > 1 else []
        for rep in range(1, other):
            for n, child in enumerate(originals):
                self.add_module(str(rep * count + n), child)
        return self

    def pop(self, key):
        """Remove and return the module (or Sequential, for a slice) at ``key``."""
        taken = self[key]
        del self[key]
        return taken

    def append(self, module):
        """Add ``module`` at the end; returns self."""
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index, module):
        """Put ``module`` before position ``index`` (negative counts from the end); returns self."""
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        count = len(self._modules)
        if index < -count or index > count:
            raise IndexError(f"Index out of range: {index}")
        if index < 0:
            index += count
        _shift_up(self._modules, index)
        self._modules[str(index)] = module
        return self

    def extend(self, sequential):
        """Append every module of an iterable; returns self."""
        for child in sequential:
            self.append(child)
        return self

    def forward(self, input):
        value = input
        for child in self:
            value = child(value)
        return value


class ModuleList(Module):
    """A list of submodules, registered so parameters, ``.to()`` and state_dict see them.

    >>> import torchlike as torch
    >>> heads = torch.nn.ModuleList([torch.nn.Linear(3, 1) for _ in range(2)])
    >>> len(heads), [k for k in heads.state_dict()]
    (2, ['0.weight', '0.bias', '1.weight', '1.bias'])
    """

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def _key_at(self, idx):
        return str(_position(idx, len(self)))

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(list(self._modules.values())[idx])
        return self._modules[self._key_at(idx)]

    def __setitem__(self, idx, module):
        setattr(self, self._key_at(idx), module)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            doomed = [str(n) for n in range(len(self._modules))[idx]]
        else:
            doomed = [self._key_at(idx)]
        for key in doomed:
            delattr(self, key)
        _renumber(self)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __dir__(self):
        return _numeric_free_dir(self)

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        return ModuleList(list(self) + list(other))

    def __repr__(self):
        # consecutive children with identical reprs are folded into one "(i-j): n x child" line
        shown = [repr(child) for child in self]
        if not shown:
            return self._get_name() + "()"
        body, pos = [], 0
        for text, run in groupby(shown):
            size = len(list(run))
            label = f"({pos})" if size == 1 else f"({pos}-{pos + size - 1}): {size} x"
            body.append(_indent_tail(f"{label}: {text}" if size == 1 else f"{label} {text}"))
            pos += size
        return self._get_name() + "(\n  " + "\n  ".join(body) + "\n)"

    def insert(self, index, module):
        """Put ``module`` before position ``index``."""
        _shift_up(self._modules, index)
        self._modules[str(index)] = module

    def append(self, module):
        """Add ``module`` at the end; returns self."""
        self.add_module(str(len(self)), module)
        return self

    def pop(self, key):
        """Remove and return the module at ``key``."""
        taken = self[key]
        del self[key]
        return taken

    def extend(self, modules):
        """Append every module of an iterable; returns self."""
        if not isinstance(modules, Iterable):
            raise TypeError("ModuleList.extend should be called with an iterable, but got "
                            + type(modules).__name__)
        base = len(self)
        for n, child in enumerate(modules):
            self.add_module(str(base + n), child)
        return self


class ModuleDict(Module):
    """An ordered mapping of names to submodules.

    >>> import torchlike as torch
    >>> acts = torch.nn.ModuleDict({"relu": torch.nn.ReLU(), "tanh": torch.nn.Tanh()})
    >>> list(acts), "relu" in acts
    (['relu', 'tanh'], True)
    """

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def keys(self):
        return self._modules.keys()

    def values(self):
        return self._modules.values()

    def items(self):
        return self._modules.items()

    def clear(self):
        """Drop every entry."""
        self._modules.clear()

    def pop(self, key):
        """Remove ``key`` and return its module."""
        taken = self[key]
        del self[key]
        return taken

    def update(self, modules):
        """Add entries from a mapping (its own order) or from an iterable of (name, module) pairs."""
        if not isinstance(modules, Iterable):
            raise TypeError("ModuleDict.update should be called with an iterable of key/value pairs, but got "
                            + type(modules).__name__)
        if isinstance(modules, (Mapping, ModuleDict)):
            entries = modules.items()
        else:
            entries = _pair_items(modules, "ModuleDict")
        for name, child in entries:
            self[name] = child


class ParameterList(Module):
    """A list of parameters (plain tensors are wrapped as Parameters; other objects kept as they are).

    >>> import torchlike as torch
    >>> ps = torch.nn.ParameterList([torch.ones(2), torch.zeros(3)])
    >>> [type(p).__name__ for p in ps], list(ps.state_dict())
    (['Parameter', 'Parameter'], ['0', '1'])
    """

    def __init__(self, values=None):
        super().__init__()
        self._size = 0
        if values is not None:
            self.extend(values)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            part = type(self)()
            for n in range(len(self))[idx]:
                part.append(self[n])
            return part
        return getattr(self, str(_position(idx, len(self))))

    def __setitem__(self, idx, param):
        setattr(self, str(_position(idx, len(self))), _as_parameter(param))

    def __len__(self):
        return self._size

    def __iter__(self):
        return (self[n] for n in range(len(self)))

    def __iadd__(self, parameters):
        return self.extend(parameters)

    def __dir__(self):
        return _numeric_free_dir(self)

    def append(self, value):
        """Add ``value`` at the end; returns self."""
        slot = self._size
        self._size = slot + 1
        self[slot] = value
        return self

    def extend(self, values):
        """Append every item of an iterable (a single tensor is refused); returns self."""
        if isinstance(values, Tensor) or not isinstance(values, Iterable):
            raise TypeError("ParameterList.extend should be called with an iterable, but got "
                            + type(values).__name__)
        for value in values:
            self.append(value)
        return self

    def extra_repr(self):
        return "\n".join(_entry_line(n, value, lambda t: t.dtype) for n, value in enumerate(self))

    def __call__(self, *args, **kwargs):
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """An ordered mapping of string keys to parameters (plain tensors become Parameters).

    A plain ``dict`` argument is added in sorted key order; OrderedDicts, ParameterDicts and
    sequences of pairs keep their own order.

    >>> import torchlike as torch
    >>> pd = torch.nn.ParameterDict({"b": torch.ones(1), "a": torch.zeros(2)})
    >>> list(pd), type(pd["a"]).__name__
    (['a', 'b'], 'Parameter')
    """

    def __init__(self, parameters=None):
        super().__init__()
        self._keys = {}
        if parameters is not None:
            self.update(parameters)

    @staticmethod
    def _attr_name(key):
        if not isinstance(key, str):
            raise TypeError("Index given to ParameterDict cannot be used as a key as it is not a string "
                            f"(type is '{type(key).__name__}'). Open an issue on github if you need "
                            "non-string keys.")
        return key

    def __getitem__(self, key):
        return getattr(self, self._attr_name(key))

    def __setitem__(self, key, value):
        # torch records the key before validating it; a rejected key still counts in len()
        self._keys[key] = None
        setattr(self, self._attr_name(key), _as_parameter(value))

    def __delitem__(self, key):
        del self._keys[key]
        delattr(self, self._attr_name(key))

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __reversed__(self):
        return reversed(self._keys)

    def __contains__(self, key):
        return key in self._keys

    def keys(self):
        return self._keys.keys()

    def values(self):
        return (self[k] for k in self._keys)

    def items(self):
        return ((k, self[k]) for k in self._keys)

    def get(self, key, default=None):
        return self[key] if key in self else default

    def copy(self):
        """A new ParameterDict holding the same objects."""
        return ParameterDict(OrderedDict(self.items()))

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self):
        """Drop every entry."""
        for key in list(self._keys):
            del self[key]

    def pop(self, key):
        """Remove ``key`` and return its value."""
        taken = self[key]
        del self[key]
        return taken

    def popitem(self):
        """Remove and return the most recently inserted (key, value)."""
        if not self._keys:
            raise KeyError("popitem(): dictionary is empty")
        last = next(reversed(self._keys))
        return last, self.pop(last)

    def fromkeys(self, keys, default=None):
        """A new ParameterDict with ``keys`` all mapped to ``default``."""
        return ParameterDict([(k, default) for k in keys])

    def update(self, parameters):
        """Add entries from a mapping or an iterable of (key, value) pairs."""
        if not isinstance(parameters, Iterable):
            raise TypeError("ParametersDict.update should be called with an iterable of key/value pairs, "
                            "but got " + type(parameters).__name__)
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            entries = parameters.items()
        elif isinstance(parameters, Mapping):
            entries = sorted(parameters.items())
        else:
            entries = _pair_items(parameters, "ParameterDict")
        for key, value in entries:
            self[key] = value

    def extra_repr(self):
        return "\n".join(_entry_line(k, value, _typename) for k, value in self.items())

    def __call__(self, input):
        raise RuntimeError("ParameterDict should not be called.")

    def __or__(self, other):
        merged = self.copy()
        merged.update(other)
        return merged

    def __ror__(self, other):
        merged = other.copy()
        merged.update(self)
        return merged

    def __ior__(self, other):
        self.update(other)
        return self
