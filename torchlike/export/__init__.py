"""torchlike.export: a module's forward as a serializable StableHLO program (on ``jax.export``).

The program takes the module's state (parameters and buffers, in ``state_dict`` order) and the inputs;
the state travels with the saved file, and loading needs neither the model's Python code nor its class.

>>> import torchlike, torchlike.nn as nn
>>> ep = torchlike.export.export(nn.Linear(3, 2), (torchlike.ones(4, 3),), dynamic_shapes={"input": {0: "batch"}})
>>> ep(torchlike.ones(7, 3)).shape
torch.Size([7, 2])
"""
from __future__ import annotations

import io
import json
import os
import zipfile

import jax
import jax.numpy as jnp
import numpy as np

from .. import _dtype
from ..autograd import grad_mode
from ..serialization import write_atomically
from ..tensor import Tensor
from ._program_module import GraphModule
from .unflatten import unflatten  # noqa: F401 (torch.export.unflatten: the function, also its module's name)

__all__ = ["export", "ExportedProgram", "TorchExportedProgram", "save", "load", "Dim", "unflatten",
           "ExportGraphSignature"]


class ExportGraphSignature:
    """Which program inputs are parameters, buffers and user inputs, under torch's names (placeholders
    ``p_<name>``/``b_<name>`` with dots as underscores). ``user_outputs`` are ``output_<i>`` (torch names
    them after its graph's nodes)."""

    def __init__(self, params, buffers, non_persistent, user_inputs, n_out):
        self.parameters, self.buffers = tuple(params), tuple(buffers)
        self.non_persistent_buffers, self.user_inputs = tuple(non_persistent), tuple(user_inputs)
        self.inputs_to_parameters = {"p_" + n.replace(".", "_"): n for n in params}
        self.inputs_to_buffers = {"b_" + n.replace(".", "_"): n for n in buffers}
        self.user_outputs = tuple(f"output_{i}" for i in range(n_out))
        self.lifted_tensor_constants = ()

    def __repr__(self):
        return (f"ExportGraphSignature(parameters={self.parameters}, buffers={self.buffers}, "
                f"user_inputs={self.user_inputs}, user_outputs={self.user_outputs})")


class _StateDict(dict):
    """A dict that is also callable (returning itself): torch's ``ep.state_dict`` is a dict attribute, and
    torchlike's programs were called ``ep.state_dict()`` before."""

    def __call__(self):
        return self


class _ValueRange:
    """A symbolic dimension's bounds, printed as torch's ``VR[lo, hi]`` (``int_oo`` when unbounded)."""

    def __init__(self, lower, upper):
        self.lower, self.upper = lower, upper

    def __str__(self):
        return f"VR[{self.lower}, {'int_oo' if self.upper is None else self.upper}]"

    __repr__ = __str__


class _DimHint:
    """``Dim.AUTO``, ``Dim.DYNAMIC``, ``Dim.STATIC`` (callable for bounds: ``Dim.AUTO(min=2)``), as torch's hints.
    AUTO exports a dimension symbolic unless its example size is 0 or 1 (torch specializes those) or the
    forward needs it concrete (the export is then retried with it static); DYNAMIC is always symbolic."""

    def __init__(self, kind, min=None, max=None, _factory=True):
        self.type, self.min, self.max, self._factory = kind, min, max, _factory

    def __call__(self, min=None, max=None):
        if not self._factory:
            raise TypeError(f"'{type(self)}' object is not callable")
        return _DimHint(self.type, min, max, _factory=False)

    def __eq__(self, other):
        return isinstance(other, _DimHint) and (self.type, self.min, self.max) == (other.type, other.min, other.max)

    def __hash__(self):
        return hash((self.type, self.min, self.max))

    def __repr__(self):
        parts = [self.type] + [f"{k}={v}" for k, v in (("min", self.min), ("max", self.max)) if v is not None]
        return f"DimHint({', '.join(parts)})"


class Dim:
    """A named symbolic dimension (``Dim("batch")``), as in torch.export; ``Dim.AUTO``/``DYNAMIC``/``STATIC``
    are the hints that leave the name to export."""

    AUTO = _DimHint("AUTO")
    DYNAMIC = _DimHint("DYNAMIC")
    STATIC = _DimHint("STATIC")

    def __init__(self, name, *, min=None, max=None):
        self.name, self.min, self.max = name, min, max
        self.__name__ = name

    def __repr__(self):
        return f"Dim({self.name!r})"


def _state(module):
    """The program's state: the state dict's tensors, then the non-persistent buffers (as torch's export lifts
    them too, as constants), and the names of the latter."""
    sd = module.state_dict(keep_vars=True)
    extra = {n: b for n, b in module.named_buffers() if n not in sd}
    names = list(sd) + list(extra)
    return names, [sd[n] for n in sd] + list(extra.values()), list(extra)


def _pure(module, names, tensors, n_out):
    def fn(state, *args):
        saved = [(t._x, t._vbase, t._chain) for t in tensors]
        try:
            for t, a in zip(tensors, state):
                t._x, t._vbase, t._chain = a, None, None
            with grad_mode.no_grad():
                out = module(*[Tensor._wrap(a) for a in args])
        finally:
            for t, (x, vb, ch) in zip(tensors, saved):
                t._x, t._vbase, t._chain = x, vb, ch
        outs = out if isinstance(out, (tuple, list)) else (out,)
        n_out.append((isinstance(out, (tuple, list)), len(outs)))
        return tuple(o._value for o in outs)
    return fn


def _arg_specs(args, dynamic_shapes, arg_names, auto=True):
    """ShapeDtypeStructs for the inputs, with symbolic dims where ``dynamic_shapes`` asks (``Dim.AUTO`` ones
    only while ``auto``), and whether any ``Dim.AUTO`` dim was made symbolic."""
    specs, any_auto = [], False
    scope = jax.export.SymbolicScope()
    for i, a in enumerate(args):
        dyn = None
        if isinstance(dynamic_shapes, dict):
            dyn = dynamic_shapes.get(arg_names[i] if i < len(arg_names) else str(i), dynamic_shapes.get(i))
        elif isinstance(dynamic_shapes, (list, tuple)):
            dyn = dynamic_shapes[i] if i < len(dynamic_shapes) else None
        dims = [str(s) for s in a.shape]
        if isinstance(dyn, (list, tuple)):  # torch also takes one entry per dimension
            dyn = {d: h for d, h in enumerate(dyn) if h is not None}
        for d, name in (dyn or {}).items():
            if isinstance(name, _DimHint):
                if name.type == "STATIC" or (name.type == "AUTO" and (not auto or a.shape[d] <= 1)):
                    continue
                any_auto |= name.type == "AUTO"
                dims[d] = f"_{name.type.lower()}_{i}_{d}"
            else:
                dims[d] = name.name if isinstance(name, Dim) else str(name)
        shape = jax.export.symbolic_shape(",".join(dims), scope=scope) if dims else ()
        specs.append(jax.ShapeDtypeStruct(shape, a._value.dtype))
    return specs, any_auto


class ExportedProgram:
    """A callable, printable, serializable export of a module's forward."""

    def __init__(self, exported, state_names, state_arrays, multi_out, param_names=(), arg_names=(),
                 non_persistent=()):
        self.exported = exported
        self.state_names = list(state_names)
        self._state = list(state_arrays)
        self._multi = multi_out
        self.param_names = list(param_names)  # which state entries were parameters (module() restores them)
        self.arg_names = list(arg_names)  # forward's parameter names, for the guards' messages
        self.non_persistent = list(non_persistent)  # buffers outside the state dict, as torch's constants
        self._module = None  # the exported module (in the exporting process), for ``unflatten``
        self._ranges = {}  # symbolic dimension name -> _ValueRange

    @property
    def graph_signature(self):
        """An :class:`ExportGraphSignature`: the parameters, buffers and user inputs of the program."""
        n_user = len(self.exported.in_avals) - len(self._state)
        user = self.arg_names[:n_user] if len(self.arg_names) >= n_user else [f"arg{i}" for i in range(n_user)]
        buffers = [n for n in self.state_names if n not in self.param_names]
        return ExportGraphSignature(self.param_names, buffers, self.non_persistent, user, len(self.exported.out_avals))

    @property
    def range_constraints(self):
        """Each symbolic dimension's bounds (keyed by the dimension's name; torch keys by its sympy symbols)."""
        return dict(self._ranges)

    def run_decompositions(self, decomp_table=None, decompose_custom_triton_ops=False):
        """The program with its ops decomposed: a StableHLO program is already made of core ops, so this
        returns an equal program (the same object's data, a new ExportedProgram)."""
        ep = ExportedProgram(self.exported, self.state_names, self._state, self._multi, self.param_names,
                             self.arg_names, self.non_persistent)
        ep._module, ep._ranges = self._module, dict(self._ranges)
        return ep

    @property
    def state_dict(self):
        """The parameters and persistent buffers, a dict as torch's ``ExportedProgram.state_dict`` (calling it,
        ``ep.state_dict()``, gives the same dict)."""
        items = [(n, a) for n, a in zip(self.state_names, self._state) if n not in self.non_persistent]
        params = set(self.param_names)  # torch lists the parameters first, then the buffers
        return _StateDict([(n, Tensor._wrap(a)) for n, a in items if n in params] +
                          [(n, Tensor._wrap(a)) for n, a in items if n not in params])

    def __call__(self, *args, state_dict=None):
        state = self._state if state_dict is None else [state_dict[n]._value if n in state_dict else a
                                                         for n, a in zip(self.state_names, self._state)]
        outs = self.exported.call(state, *[a._value if isinstance(a, Tensor) else jnp.asarray(a) for a in args])
        res = [Tensor._wrap(o) for o in outs]
        return tuple(res) if self._multi else res[0]

    def module(self):
        """A Module running this program (as torch's unlifted ``GraphModule``): the exported module's parameters
        and buffers under their ``state_dict`` names; ``train()``/``eval()`` raise, as torch's do."""
        return GraphModule(self, self.param_names)

    def mlir_text(self) -> str:
        """The program as StableHLO text."""
        return self.exported.mlir_module()

    def __str__(self):
        return self.mlir_text()

    def __repr__(self):
        ins = ", ".join(str(a) for a in self.exported.in_avals[len(self._state):])
        return f"ExportedProgram(inputs=[{ins}], state={len(self._state)} tensors)"

    def serialize(self, vjp_order=0) -> bytes:
        """Program and state as bytes (a zip: StableHLO program + state arrays); ``vjp_order=1`` also stores the
        program's backward, so the loaded program can be differentiated."""
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as zf:
            zf.writestr("program.bin", bytes(self.exported.serialize(vjp_order=vjp_order)))
            meta = {"state_names": self.state_names, "multi": self._multi, "params": self.param_names,
                    "arg_names": self.arg_names, "non_persistent": self.non_persistent,
                    "dtypes": [str(np.dtype(a.dtype)) for a in self._state]}
            zf.writestr("meta.json", json.dumps(meta))
            for i, a in enumerate(self._state):
                arr = np.asarray(a)
                zf.writestr(f"state/{i}", arr.tobytes())
                zf.writestr(f"state/{i}.shape", json.dumps(list(arr.shape)))
        return buf.getvalue()

    @classmethod
    def deserialize(cls, data: bytes):
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            exported = jax.export.deserialize(bytearray(zf.read("program.bin")))
            meta = json.loads(zf.read("meta.json"))
            state = []
            for i, dt in enumerate(meta["dtypes"]):
                shape = json.loads(zf.read(f"state/{i}.shape"))
                np_dt = _dtype._BY_NAME[dt].np if dt in _dtype._BY_NAME else np.dtype(dt)
                state.append(jnp.asarray(np.frombuffer(zf.read(f"state/{i}"), dtype=np_dt).reshape(shape)))
        return cls(exported, meta["state_names"], state, meta["multi"], meta.get("params", ()),
                   meta.get("arg_names", ()), meta.get("non_persistent", ()))


def export(mod, args, kwargs=None, *, dynamic_shapes=None, strict=False):
    """Export ``mod.forward`` for inputs like ``args``; ``dynamic_shapes`` marks symbolic dims, e.g.
    ``{"x": {0: "batch"}}`` (names of forward's parameters, or positions)."""
    import inspect
    if kwargs:
        raise NotImplementedError("torchlike.export: keyword inputs are not supported yet")
    try:
        arg_names = list(inspect.signature(mod.forward).parameters)
    except (TypeError, ValueError):
        arg_names = []
    names, tensors, non_persistent = _state(mod)
    n_out = []
    fn = _pure(mod, names, tensors, n_out)
    specs, any_auto = _arg_specs(args, dynamic_shapes, arg_names)
    state_specs = [jax.ShapeDtypeStruct(t._value.shape, t._value.dtype) for t in tensors]
    try:
        exported = jax.export.export(jax.jit(fn))(state_specs, *specs)
    except Exception:
        if not any_auto:
            raise
        # Dim.AUTO: the forward needs a concrete size (shape-dependent Python); torch specializes it too
        specs, _ = _arg_specs(args, dynamic_shapes, arg_names, auto=False)
        exported = jax.export.export(jax.jit(fn))(state_specs, *specs)
    multi = n_out[-1][0] if n_out else False
    params = {id(p) for p in mod.parameters()}
    ep = ExportedProgram(exported, names, [t.detach()._value for t in tensors], multi,
                         [n for n, t in zip(names, tensors) if id(t) in params], arg_names, non_persistent)
    ep._module = mod
    for spec in (dynamic_shapes.values() if isinstance(dynamic_shapes, dict) else dynamic_shapes or ()):
        entries = spec.values() if isinstance(spec, dict) else spec if isinstance(spec, (list, tuple)) else ()
        for d in entries:
            if isinstance(d, Dim):
                ep._ranges[d.name] = _ValueRange(0 if d.min is None else d.min, d.max)
    return ep


def save(ep, f):
    """Write an ExportedProgram to a path (atomically) or a binary file object."""
    data = ep.serialize(vjp_order=1)  # with the backward: a loaded module().backward() works, as in torch
    if isinstance(f, (str, os.PathLike)):
        write_atomically(os.fspath(f), lambda fh: fh.write(data))
    else:
        f.write(data)


def __getattr__(name):
    if name == "TorchExportedProgram":
        from ._pt2_program import TorchExportedProgram  # lazy: _pt2 reads the facade, which loads after this
        return TorchExportedProgram
    raise AttributeError(f"module 'torchlike.export' has no attribute {name!r}")


def load(f, *, extra_files=None, expected_opset_version=None):
    """Read a program: one written by ``save`` (no model code needed), or a ``.pt2`` archive written by
    PyTorch's ``torch.export.save`` (read without torch; see ``TorchExportedProgram``).  ``extra_files``
    (a dict) receives the ``.pt2`` archive's extra records named by its keys, as in torch."""
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as fh:
            data = fh.read()
    else:
        data = f.read()
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        zf = None
    if zf is not None:
        from . import _pt2  # lazy: it reads the facade and the op table, which load after this package
        if _pt2.is_pt2_archive(zf):
            from ._pt2_program import TorchExportedProgram  # lazy: as _pt2 above
            if extra_files is not None:  # torch fills the given keys with the archive's extra/ records
                root = _pt2._root(zf)
                for k in list(extra_files):
                    name = f"{root}extra/{k}"
                    if name in zf.namelist():
                        extra_files[k] = zf.read(name).decode("utf-8")
            return TorchExportedProgram(**_pt2.read_archive(zf))
    return ExportedProgram.deserialize(data)
