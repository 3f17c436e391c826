"""Parametrizations (torch.nn.utils.parametrize): make ``module.<name>`` a computed tensor.

How torchlike does it: the module's class is replaced by a one-off subclass named
``Parametrized<Class>`` that carries a property per parametrized tensor. Reading the property runs
the ``ParametrizationList`` stored at ``module.parametrizations[name]`` on the stored originals
(``original``, or ``original0``, ``original1``... when ``right_inverse`` returns several tensors);
assigning to it pushes the value back through each ``right_inverse``. State-dict keys therefore are
``parametrizations.<name>.original*``, as in torch.

>>> import torchlike as torch
>>> from torchlike.nn.utils import parametrize
>>> class Sym(torch.nn.Module):
...     def forward(self, X):
...         return X.triu() + X.triu(1).transpose(-1, -2)
>>> m = parametrize.register_parametrization(torch.nn.Linear(3, 3), "weight", Sym())
>>> list(m.state_dict())
['bias', 'parametrizations.weight.original']
>>> bool((m.weight == m.weight.T).all())
True
"""
from __future__ import annotations

import copy
import copyreg
from collections.abc import Sequence
from contextlib import contextmanager

from ...autograd import grad_mode
from ...tensor import Tensor
from ..modules.container import ModuleDict, ModuleList
from ..parameter import Parameter

__all__ = ["cached", "ParametrizationList", "register_parametrization", "is_parametrized",
           "remove_parametrizations", "type_before_parametrizations", "transfer_parametrizations_and_params"]

# ---- caching -----------------------------------------------------------------------------------
# Inside `cached()` each parametrized tensor is computed once per (module, name); the table is
# emptied when the outermost `cached()` block exits.
_cache_depth = 0
_cached_values: dict = {}


@contextmanager
def cached():
    """Within the block, each parametrized tensor is evaluated once and reused.

    >>> import torchlike as torch
    >>> from torchlike.nn.utils import parametrize
    >>> class Double(torch.nn.Module):
    ...     def forward(self, X):
    ...         return 2 * X
    >>> m = parametrize.register_parametrization(torch.nn.Linear(2, 2), "weight", Double())
    >>> with parametrize.cached():
    ...     same = m.weight is m.weight
    >>> same, m.weight is m.weight
    (True, False)
    """
    global _cache_depth, _cached_values
    _cache_depth += 1
    try:
        yield
    finally:
        _cache_depth -= 1
        if _cache_depth == 0:
            _cached_values = {}


def _evaluate(module, name):
    plist = module.parametrizations[name]
    if not _cache_depth:
        return plist()
    key = (id(module), name)
    value = _cached_values.get(key)
    if value is None:
        value = _cached_values[key] = plist()
    return value


# ---- small helpers -----------------------------------------------------------------------------
def _store(owner, name, tensor):
    """Register ``tensor`` on ``owner`` as a parameter if it is one, else as a buffer."""
    if isinstance(tensor, Parameter):
        owner.register_parameter(name, tensor)
    else:
        owner.register_buffer(name, tensor)


def _overwrite(dest, src):
    # stands in for torch's dest.set_(src): the original keeps its identity (optimizers hold it)
    dest.data = src.detach()


def _not_tensor_or_sequence(got):
    return ValueError("'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                      f"Got {got}")


def _check_registration(value, dtype, shape, what_before, what_after, clause):
    """Errors for a parametrization that changed the tensor it parametrizes (torch's wording)."""
    if not isinstance(value, Tensor):
        raise ValueError(f"A parametrization must return a tensor. Got {type(value).__name__}.")
    for attr, before in (("dtype", dtype), ("shape", shape)):
        after = getattr(value, attr)
        if after != before:
            raise ValueError(f"Registering a parametrization may not change the {attr} of the tensor, unless "
                             f"{clause} flag is enabled.\n{what_before(attr)}: {before}\n"
                             f"{what_after(attr)}: {after}")


class ParametrizationList(ModuleList):
    """The chain of parametrizations for one tensor, plus the stored original(s) it is computed from.

    Calling it with no arguments gives the parametrized tensor: the first module receives the
    originals, each later module the previous result.

    >>> import torchlike as torch
    >>> from torchlike.nn.utils.parametrize import ParametrizationList
    >>> class Double(torch.nn.Module):
    ...     def forward(self, X):
    ...         return 2 * X
    >>> ParametrizationList([Double()], torch.nn.Parameter(torch.ones(2)))().tolist()
    [2.0, 2.0]
    """

    original: Tensor
    unsafe: bool

    def __init__(self, modules, original, unsafe=False):
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        dtype, shape = original.dtype, original.shape
        stored = self._pull_back(original)
        if not isinstance(stored, (Tensor, Sequence)):
            raise _not_tensor_or_sequence(type(stored).__name__)
        self.is_tensor = isinstance(stored, Tensor)
        self.ntensors = 1 if self.is_tensor else len(stored)
        if self.is_tensor:
            self._keep_single(original, stored)
        else:
            self._keep_several(original, stored)
        if not unsafe:
            _check_registration(self(), dtype, shape, lambda a: f"unparametrized {a}",
                                lambda a: f"parametrized {a}", "`unsafe`")

    def _pull_back(self, original):
        """Run ``original`` backwards through the chain; modules without a usable right_inverse pass it on."""
        value = original
        with grad_mode.no_grad():
            for step in reversed(self):
                inverse = getattr(step, "right_inverse", None)
                if inverse is None:
                    continue
                try:
                    value = inverse(value)
                except NotImplementedError:
                    pass
        return value

    def _keep_single(self, original, value):
        for attr in ("dtype", "device"):
            if getattr(original, attr) != getattr(value, attr):
                raise ValueError(f"When `right_inverse` outputs one tensor, it may not change the {attr}.\n"
                                 f"original.{attr}: {getattr(original, attr)}\n"
                                 f"right_inverse(original).{attr}: {getattr(value, attr)}")
        with grad_mode.no_grad():
            _overwrite(original, value)
        _store(self, "original", original)

    def _keep_several(self, original, values):
        for n, piece in enumerate(values):
            if not isinstance(piece, Tensor):
                raise _not_tensor_or_sequence(f"element {n} of the sequence with type {type(piece).__name__}.")
            if isinstance(original, Parameter):
                piece = Parameter(piece, original.requires_grad)
            piece.requires_grad_(original.requires_grad)
            _store(self, f"original{n}", piece)

    def right_inverse(self, value):
        """Store ``value`` as the originals, inverting every parametrization (last to first)."""
        with grad_mode.no_grad():
            for step in reversed(self):
                if not hasattr(step, "right_inverse"):
                    raise RuntimeError(f"parametrization {type(step).__name__} does not implement right_inverse.")
                value = step.right_inverse(value)
            if self.is_tensor:
                self._assign_single(value)
            else:
                self._assign_several(value)

    def _assign_single(self, value):
        if not isinstance(value, Tensor):
            raise ValueError(f"`right_inverse` should return a tensor. Got {type(value).__name__}")
        if value.dtype != self.original.dtype:
            raise ValueError(f"The tensor returned by `right_inverse` has dtype {value.dtype} while `original` "
                             f"has dtype {self.original.dtype}")
        _overwrite(self.original, value)

    def _assign_several(self, values):
        if not isinstance(values, Sequence):
            raise ValueError(f"'right_inverse' must return a sequence of tensors. Got {type(values).__name__}.")
        if len(values) != self.ntensors:
            raise ValueError(f"'right_inverse' must return a sequence of tensors of length {self.ntensors}. "
                             f"Got a sequence of length {len(values)}.")
        for n, piece in enumerate(values):
            target = getattr(self, f"original{n}")
            if not isinstance(piece, Tensor):
                raise ValueError("'right_inverse' must return a sequence of tensors or reference-type opaques. "
                                 f"Got element {n} of type {type(piece).__name__}.")
            if piece.dtype != target.dtype:
                raise ValueError(f"Tensor {n} returned by `right_inverse` has dtype {piece.dtype} while "
                                 f"`original{n}` has dtype {target.dtype}")
            _overwrite(target, piece)

    def _originals(self):
        if self.is_tensor:
            return (self.original,)
        return tuple(getattr(self, f"original{n}") for n in range(self.ntensors))

    def forward(self):
        first, *rest = list(self)
        result = first(*self._originals())
        for step in rest:
            result = step(result)
        return result


# ---- class swapping ----------------------------------------------------------------------------
def _refuse_pickle(self):
    raise RuntimeError("Serialization of parametrized modules is only supported through state_dict(). See:\n"
                       "https://pytorch.org/tutorials/beginner/saving_loading_models.html"
                       "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training")


def _copy_without_pickle(self, memo):
    # deepcopy would otherwise go through __getstate__, which parametrized modules refuse
    if id(self) in memo:
        return memo[id(self)]
    clone = type(self).__new__(type(self))
    memo[id(self)] = clone
    object.__setattr__(clone, "__dict__", copy.deepcopy(self.__dict__, memo))
    for slot in copyreg._slotnames(type(self)):
        if hasattr(self, slot):
            setattr(clone, slot, copy.deepcopy(getattr(self, slot), memo))
    return clone


def _swap_class(module):
    """Give ``module`` a private subclass of its class, so per-tensor properties touch no one else."""
    base = type(module)
    body = {"__getstate__": _refuse_pickle}
    if not hasattr(base, "__deepcopy__"):
        body["__deepcopy__"] = _copy_without_pickle
    module.__class__ = type("Parametrized" + base.__name__, (base,), body)


def _add_property(module, name):
    if hasattr(module, name):
        raise AssertionError(f"Module already has an attribute named '{name}'")

    def read(self):
        return _evaluate(self, name)

    def write(self, value):
        self.parametrizations[name].right_inverse(value)

    setattr(type(module), name, property(read, write))


def _checked_table(module, label="module"):
    table = module.parametrizations
    if not isinstance(table, ModuleDict):
        raise AssertionError(f"Expected {label}.parametrizations to be a ModuleDict, got {type(table).__name__}")
    return table


def _check_extra_step(module, name, step):
    """A parametrization added on top of others must keep module.<name>'s dtype and shape (torch's checks)."""
    current = getattr(module, name)
    produced = step(current)
    _check_registration(produced, current.dtype, current.shape, lambda a: f"module.{name}.{a}",
                        lambda a: f"parametrization(module.{name}).{a}", "the `unsafe`")
    if not hasattr(step, "right_inverse"):
        return
    try:
        back = step.right_inverse(produced)
    except NotImplementedError:
        return
    if not isinstance(back, Tensor):
        raise ValueError(f"parametrization.right_inverse must return a tensor. Got: {type(back).__name__}")
    for attr in ("dtype", "shape"):
        if getattr(back, attr) != getattr(current, attr):
            raise ValueError(f"The tensor returned by parametrization.right_inverse must have the same {attr} as "
                             f"module.{name}, unless the `unsafe` flag is enabled.\nmodule.{name}.{attr}: "
                             f"{getattr(current, attr)}\nreturned {attr}: {getattr(back, attr)}")


# ---- public API --------------------------------------------------------------------------------
def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Make ``module.<tensor_name>`` equal ``parametrization(original)``; returns ``module``.

    Registering again on the same name chains the new parametrization after the existing ones.
    With ``unsafe=True`` the dtype/shape consistency checks are skipped.

    >>> import torchlike as torch
    >>> from torchlike.nn.utils import parametrize
    >>> class Double(torch.nn.Module):
    ...     def forward(self, X):
    ...         return 2 * X
    >>> m = parametrize.register_parametrization(torch.nn.Linear(2, 2), "bias", Double())
    >>> type(m).__name__, parametrize.is_parametrized(m, "bias")
    ('ParametrizedLinear', True)
    """
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            _check_extra_step(module, tensor_name, parametrization)
        chain = _checked_table(module)[tensor_name]
        chain.append(parametrization)
        chain.unsafe |= unsafe
        return module
    if tensor_name not in module._parameters and tensor_name not in module._buffers:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a parametrized element with "
                         f"name '{tensor_name}'")
    chain = ParametrizationList([parametrization], getattr(module, tensor_name), unsafe=unsafe)
    delattr(module, tensor_name)
    if not is_parametrized(module):
        _swap_class(module)
        module.parametrizations = ModuleDict()
    _add_property(module, tensor_name)
    _checked_table(module)[tensor_name] = chain
    return module


def is_parametrized(module, tensor_name=None):
    """Whether ``module`` has any parametrization (or one on ``tensor_name``)."""
    table = getattr(module, "parametrizations", None)
    if not isinstance(table, ModuleDict):
        return False
    return len(table) > 0 if tensor_name is None else tensor_name in table


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Undo the parametrizations on ``tensor_name``.

    ``leave_parametrized=True`` keeps the current computed value; ``False`` restores the stored original
    (only possible when there is a single original tensor). The module gets its own class back once no
    parametrization is left.
    """
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    chain = _checked_table(module)[tensor_name]
    if chain.is_tensor:
        keep = chain.original
        if leave_parametrized:
            with grad_mode.no_grad():
                _overwrite(keep, getattr(module, tensor_name))
    elif leave_parametrized:
        current = getattr(module, tensor_name)
        keep = Parameter(current) if current.requires_grad else current
    else:
        raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is parametrized "
                         "in terms of a sequence of tensors.")
    delattr(type(module), tensor_name)
    del module.parametrizations[tensor_name]
    _store(module, tensor_name, keep)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = type(module).__bases__[0]
    return module


def type_before_parametrizations(module):
    """The class ``module`` had before any parametrization was registered."""
    return type(module).__bases__[0] if is_parametrized(module) else type(module)


def transfer_parametrizations_and_params(from_module, to_module, tensor_name=None):
    """Copy the parametrizations (all, or those on ``tensor_name``) and their originals to ``to_module``."""
    if not is_parametrized(from_module):
        return to_module
    source = _checked_table(from_module, "from_module")
    for name in (list(source) if tensor_name is None else [tensor_name]):
        if not hasattr(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name)))
        for step in source[name]:
            register_parametrization(to_module, name, step)
        target = _checked_table(to_module, "to_module")[name]
        if hasattr(source[name], "original"):
            target.original = source[name].original
            continue
        n = 0
        while hasattr(source[name], f"original{n}"):
            setattr(target, f"original{n}", getattr(source[name], f"original{n}"))
            n += 1
    return to_module
