"""Load a ``.pt2`` archive written by real PyTorch's ``torch.export.save`` and run it on XLA.

The archive is a zip: ``<root>/models/<name>.json`` holds the serialized aten graph (torch's export
schema: nodes with a target such as ``torch.ops.aten.linear.default`` and named arguments), the graph
signature (which placeholders are parameters, buffers, constants and user inputs) and the range
constraints of symbolic sizes; ``<root>/data/weights`` and ``<root>/data/constants`` hold the tensors as
raw little-endian storage bytes described by a JSON config (dtype, sizes, strides, storage offset).
Nothing here imports torch: the graph is interpreted over torchlike tensors (through the op table in
``_aten``) inside ``jax.jit``, so each input shape compiles to one XLA program; a dynamic dimension
(``torch.export.Dim``) is served by one compilation per size seen.
"""
from __future__ import annotations

import io
import json
import re
import zipfile
from dataclasses import dataclass

import numpy as np

from .. import _dtype
from .._creation import from_numpy
from ..autograd import grad_mode
from ..serialization import load as _tl_load
from ..tensor import Tensor
from . import _aten

__all__ = ["is_pt2_archive", "read_archive", "InputSpec", "OutputSpec", "ExportGraphSignature", "input_guards"]

# torch/_export/serde/schema.py: ScalarType and MemoryFormat numbering
_SCALAR_TYPES = {1: "uint8", 2: "int8", 3: "int16", 4: "int32", 5: "int64", 6: "float16", 7: "float32",
                 8: "float64", 9: "complex32", 10: "complex64", 11: "complex128", 12: "bool", 13: "bfloat16",
                 28: "uint16", 29: "float8_e4m3fn", 30: "float8_e5m2", 31: "float8_e4m3fnuz",
                 32: "float8_e5m2fnuz", 34: "uint32", 35: "uint64"}


def _scalar_type(code):
    name = _SCALAR_TYPES.get(code)
    if name is None or name not in _dtype._BY_NAME:
        raise NotImplementedError(f"torchlike.export.load: tensors of torch export dtype code {code} are not "
                                  "supported (see docs/differences.md)")
    return _dtype._BY_NAME[name]


def is_pt2_archive(zf: zipfile.ZipFile) -> bool:
    """True for a zip written by ``torch.export.save`` (it has an ``archive_format`` record saying pt2)."""
    return _root(zf) is not None


def _root(zf):
    for n in zf.namelist():
        if n == "archive_format" or n.endswith("/archive_format"):
            if zf.read(n).strip() == b"pt2":
                return n[: -len("archive_format")]
    return None


# ---------------------------------------------------------------- weights and constants
def _payload_arrays(zf, root, folder, config):
    """``fqn -> numpy array`` for a payload config (raw storages viewed through their sizes/strides)."""
    out, storages = {}, {}
    for fqn, meta in config.items():
        rec = f"{root}{folder}{meta['path_name']}"
        if meta.get("use_pickle"):
            out[fqn] = np.asarray(_tl_load(io.BytesIO(zf.read(rec)), weights_only=False).detach()._value)
            continue
        tm = meta["tensor_meta"]
        dt = _scalar_type(tm["dtype"])
        sizes = [int(_sym_hint(s)) for s in tm["sizes"]]
        if rec not in storages:
            storages[rec] = np.frombuffer(zf.read(rec), dtype=np.dtype(dt.np).newbyteorder("<"))
        flat = storages[rec]
        if flat.size == 0:
            out[fqn] = (np.zeros(sizes, dt.np), dt)
            continue
        strides = [int(_sym_hint(s)) * flat.itemsize for s in tm["strides"]]
        off = int(_sym_hint(tm["storage_offset"]))
        arr = np.lib.stride_tricks.as_strided(flat[off:], shape=sizes, strides=strides, writeable=False)
        out[fqn] = (np.array(arr, dtype=dt.np, order="C"), dt)  # ascontiguousarray would make a 0-d one 1-d
    return out


def _sym_hint(a):
    if "as_int" in a:
        return a["as_int"]
    return a["as_expr"]["hint"]["as_int"]


def _to_tensor(arr_dt):
    if isinstance(arr_dt, np.ndarray):
        return from_numpy(np.array(arr_dt))
    arr, dt = arr_dt
    t = from_numpy(np.array(arr))
    return t if t.dtype is dt else t.view(dt)


# ---------------------------------------------------------------- signature
@dataclass
class InputSpec:
    """One graph input: ``kind`` is PARAMETER, BUFFER, CONSTANT_TENSOR, USER_INPUT, CUSTOM_OBJ, TOKEN or
    CONSTANT_INPUT (torch's InputKind names); ``name`` the placeholder; ``target`` the state_dict key."""
    kind: str
    name: str
    target: str | None = None
    persistent: bool | None = None


@dataclass
class OutputSpec:
    """One graph output: ``kind`` is USER_OUTPUT, BUFFER_MUTATION, PARAMETER_MUTATION, USER_INPUT_MUTATION,
    LOSS_OUTPUT or TOKEN; ``target`` the buffer / input it writes."""
    kind: str
    name: str | None
    target: str | None = None


_IN_KINDS = {"parameter": ("PARAMETER", "parameter_name"), "buffer": ("BUFFER", "buffer_name"),
             "tensor_constant": ("CONSTANT_TENSOR", "tensor_constant_name"),
             "custom_obj": ("CUSTOM_OBJ", "custom_obj_name"), "token": ("TOKEN", None)}
_OUT_KINDS = {"user_output": ("USER_OUTPUT", None), "loss_output": ("LOSS_OUTPUT", None),
              "buffer_mutation": ("BUFFER_MUTATION", "buffer_name"),
              "parameter_mutation": ("PARAMETER_MUTATION", "parameter_name"),
              "user_input_mutation": ("USER_INPUT_MUTATION", "user_input_name"), "token": ("TOKEN", None),
              "gradient_to_parameter": ("GRADIENT_TO_PARAMETER", "parameter_name"),
              "gradient_to_user_input": ("GRADIENT_TO_USER_INPUT", "user_input_name")}


def _arg_name(arg):
    if "name" in arg:
        return arg["name"]
    kind, val = next(iter(arg.items()))
    return (val.get("name") or val.get("as_name")) if isinstance(val, dict) else None


class ExportGraphSignature:
    """The program's inputs and outputs, as in ``torch.export.ExportGraphSignature``."""

    def __init__(self, input_specs, output_specs):
        self.input_specs, self.output_specs = input_specs, output_specs

    def _ins(self, kind):
        return tuple(s.target for s in self.input_specs if s.kind == kind)

    parameters = property(lambda self: self._ins("PARAMETER"))
    buffers = property(lambda self: self._ins("BUFFER"))
    lifted_tensor_constants = property(lambda self: self._ins("CONSTANT_TENSOR"))
    user_inputs = property(lambda self: tuple(s.name for s in self.input_specs if s.kind == "USER_INPUT"))
    user_outputs = property(lambda self: tuple(s.name for s in self.output_specs if s.kind == "USER_OUTPUT"))
    inputs_to_parameters = property(lambda self: {s.name: s.target for s in self.input_specs
                                                  if s.kind == "PARAMETER"})
    inputs_to_buffers = property(lambda self: {s.name: s.target for s in self.input_specs if s.kind == "BUFFER"})
    inputs_to_lifted_tensor_constants = property(lambda self: {s.name: s.target for s in self.input_specs
                                                               if s.kind == "CONSTANT_TENSOR"})
    buffers_to_mutate = property(lambda self: {s.name: s.target for s in self.output_specs
                                               if s.kind == "BUFFER_MUTATION"})
    user_inputs_to_mutate = property(lambda self: {s.name: s.target for s in self.output_specs
                                                   if s.kind == "USER_INPUT_MUTATION"})

    def __repr__(self):
        ins = "\n".join(f"{s.name}: {s.kind}" + (f" target={s.target!r}" if s.target else "")
                        for s in self.input_specs)
        outs = "\n".join(f"{s.name}: {s.kind}" + (f" target={s.target!r}" if s.target else "")
                         for s in self.output_specs)
        return f"\n# inputs\n{ins}\n\n# outputs\n{outs}\n"


def _signature(sig):
    ins = []
    for spec in sig["input_specs"]:
        key, val = next(iter(spec.items()))
        if key == "user_input":
            ins.append(InputSpec("USER_INPUT", _arg_name(val["arg"]) or ""))
        elif key == "constant_input":
            ins.append(InputSpec("CONSTANT_INPUT", val["name"], None))
        else:
            kind, tkey = _IN_KINDS[key]
            ins.append(InputSpec(kind, _arg_name(val["arg"]), val.get(tkey) if tkey else None,
                                 val.get("persistent")))
    outs = []
    for spec in sig["output_specs"]:
        key, val = next(iter(spec.items()))
        kind, tkey = _OUT_KINDS[key]
        outs.append(OutputSpec(kind, _arg_name(val["arg"]), val.get(tkey) if tkey else None))
    return ExportGraphSignature(ins, outs)


# ---------------------------------------------------------------- pytree specs (torch's treespec JSON)
_SEQ = {"builtins.tuple", "builtins.list", "torch.fx.immutable_collections.immutable_list"}
_MAP = {"builtins.dict", "collections.OrderedDict", "torch.fx.immutable_collections.immutable_dict",
        "collections.defaultdict"}


def _flatten(value, spec, out):
    typ = spec["type"]
    if typ is None:
        out.append(value)
    elif typ in _SEQ or typ == "collections.namedtuple":
        children = spec["children_spec"]
        if not isinstance(value, (tuple, list)) or len(value) != len(children):
            raise TypeError(f"expected {len(children)} items, got {len(value) if isinstance(value, (tuple, list)) else type(value).__name__}")
        for v, c in zip(value, children):
            _flatten(v, c, out)
    elif typ in _MAP:
        ctx = json.loads(spec["context"])
        keys = ctx if typ != "collections.defaultdict" else ctx["keys"]
        for k, c in zip(keys, spec["children_spec"]):
            _flatten(value[k], c, out)
    else:
        raise NotImplementedError(f"torchlike.export.load: inputs of pytree type {typ} are not supported")
    return out


def _spec_text(spec):
    """A treespec as torch prints it, e.g. ``TreeSpec(tuple, None, [TreeSpec(tuple, None, [*]), ...])``."""
    if spec["type"] is None:
        return "*"
    typ = spec["type"].rsplit(".", 1)[-1]
    ctx = spec.get("context")
    ctx = "None" if ctx in (None, "null") else str(json.loads(ctx))
    return f"TreeSpec({typ}, {ctx}, [{', '.join(_spec_text(c) for c in spec['children_spec'])}])"


def _unflatten(spec, leaves):
    typ = spec["type"]
    if typ is None:
        return next(leaves)
    items = [_unflatten(c, leaves) for c in spec["children_spec"]]
    if typ in _MAP:
        ctx = json.loads(spec["context"])
        keys = ctx if typ != "collections.defaultdict" else ctx["keys"]
        return dict(zip(keys, items))
    return list(items) if typ in ("builtins.list", "torch.fx.immutable_collections.immutable_list") \
        else tuple(items)


# ---------------------------------------------------------------- the graph interpreter
def _float(v):
    return float(v) if isinstance(v, str) else v  # "Infinity", "-Infinity", "NaN" are written as strings


def _sym(a, env):
    if "as_name" in a:
        return env[a["as_name"]]
    key, val = next(iter(a.items()))
    return _float(val) if key == "as_float" else val


_MEMORY_FORMATS = {0: None, 1: "contiguous_format", 2: "channels_last", 3: "channels_last_3d",
                   4: "preserve_format"}


def _arg(a, env):
    key, val = next(iter(a.items()))
    if key == "as_none":
        return None
    if key == "as_tensor":
        return env[val["name"]]
    if key == "as_tensors":
        return [env[v["name"]] for v in val]
    if key in ("as_optional_tensors",):
        return [None if "as_none" in v else env[v["as_tensor"]["name"]] for v in val]
    if key == "as_optional_tensor":
        return None if "as_none" in val else env[val["as_tensor"]["name"]]
    if key in ("as_int", "as_ints", "as_bool", "as_bools", "as_string", "as_strings", "as_int_lists"):
        return val
    if key == "as_float":
        return _float(val)
    if key in ("as_floats",):
        return [_float(v) for v in val]
    if key in ("as_sym_int", "as_sym_bool", "as_sym_float"):
        return _sym(val, env)
    if key in ("as_sym_ints", "as_sym_bools", "as_sym_floats"):
        return [_sym(v, env) for v in val]
    if key == "as_scalar_type":
        return _scalar_type(val)
    if key in ("as_layout", "as_device", "as_memory_format"):
        return None  # the program runs on the default JAX device, in its own layout
    if key == "as_complex":
        return complex(val["real"], val["imag"])
    raise NotImplementedError(f"torchlike.export.load: graph argument kind {key!r} is not supported")


def _bind(outputs, result, env):
    if not outputs:  # an op run for its check alone (aten._assert_tensor_metadata, _assert_scalar)
        return
    if len(outputs) == 1:
        key, val = next(iter(outputs[0].items()))
        if key == "as_tensors":
            for v, r in zip(val, result):
                env[v["name"]] = r
            return
        results = [result]
    else:
        results = list(result)
    for o, r in zip(outputs, results):
        key, val = next(iter(o.items()))
        if key == "as_tensor":
            env[val["name"]] = r
        elif key in ("as_sym_int", "as_sym_bool", "as_sym_float") and "as_name" in val:
            env[val["as_name"]] = r
        elif key == "as_tensors":
            for v, rr in zip(val, r):
                env[v["name"]] = rr


def _resolve(nodes):
    """``(callable, node)`` for each node, raising NotImplementedError for the first unknown target."""
    return [(_aten.lookup(n["target"]), n) for n in nodes]


def _run(plan, env):
    for fn, node in plan:
        if node["target"] in _aten.SYM_OPS:
            res = fn(*[_arg(i["arg"], env) for i in node["inputs"]])
        else:
            res = fn(**{i["name"]: _arg(i["arg"], env) for i in node["inputs"]})
        _bind(node["outputs"], res, env)
    return env



def read_archive(zf: zipfile.ZipFile, model_name: str = "model") -> dict:
    """The parts of program ``model_name`` in a torch ``.pt2`` archive, as keyword arguments for
    ``TorchExportedProgram``."""
    root = _root(zf)
    names = set(zf.namelist())
    path = f"{root}models/{model_name}.json"
    if path not in names:
        models = sorted(n for n in names if n.startswith(f"{root}models/") and n.endswith(".json"))
        if not models:
            raise RuntimeError("torchlike.export.load: this .pt2 archive holds no exported program "
                               "(AOTInductor packages are not supported; see docs/differences.md)")
        path = models[0]
        model_name = path[len(f"{root}models/"):-len(".json")]
    doc = json.loads(zf.read(path))
    weights, constants = {}, {}
    wcfg = f"{root}data/weights/{model_name}_weights_config.json"
    if wcfg in names:
        weights = _payload_arrays(zf, root, "data/weights/", json.loads(zf.read(wcfg))["config"])
    elif f"{root}data/weights/{model_name}.pt" in names:  # older archives: a torch.save'd state dict
        sd = _tl_load(io.BytesIO(zf.read(f"{root}data/weights/{model_name}.pt")), weights_only=False)
        weights = {k: np.asarray(v.detach()._value) for k, v in sd.items()}
    ccfg = f"{root}data/constants/{model_name}_constants_config.json"
    if ccfg in names:
        cfg = {k: v for k, v in json.loads(zf.read(ccfg))["config"].items()
               if v["path_name"].startswith("tensor_")}
        constants = _payload_arrays(zf, root, "data/constants/", cfg)
    gm = doc["graph_module"]
    rc = {}
    for k, v in doc.get("range_constraints", {}).items():
        rc[k] = (v.get("min_val"), v.get("max_val"))
    return dict(
        graph=gm["graph"], signature=_signature(gm["signature"]),
        call_spec=(gm.get("module_call_graph") or [{}])[0].get("signature"),
        state={k: _to_tensor(v) for k, v in weights.items()},
        constants={k: _to_tensor(v) for k, v in constants.items()},
        range_constraints=rc, torch_version=doc.get("torch_version"))



_SYMBOL = re.compile(r"Symbol\('([^']+)'")


def input_guards(graph, signature):
    """``[(input name, [(dim, static size or symbol name)])]`` for the tensor user inputs."""
    guards = []
    for spec in signature.input_specs:
        if spec.kind != "USER_INPUT":
            continue
        meta = graph["tensor_values"].get(spec.name)
        if meta is None:
            continue
        dims = []
        for i, s in enumerate(meta["sizes"]):
            if "as_int" in s:
                dims.append((i, s["as_int"]))
            else:
                m = _SYMBOL.match(s["as_expr"]["expr_str"])
                dims.append((i, m.group(1) if m else None))
        guards.append((spec.name, dims, len(meta["sizes"]), _scalar_type(meta["dtype"])))
    return guards


def program_fn(plan, state_names, input_names, output_names):
    """The program as one JAX function ``f(*state_and_input_arrays, statics) -> (*outputs, *mutated)``.

    The caller runs it through torchlike's dispatcher, which jits it (one XLA program per input shape)
    and records it for autograd as one node (its backward is the program's VJP).  Inputs that the graph
    mutates in place (the training-IR graph updates BatchNorm's running statistics with ``batch_norm``
    and ``add_``) come back as extra outputs; ``f.mutated`` is set, while tracing, to their positions so
    the caller writes them back; ``f.traces`` counts the traces (compilations)."""
    names = list(state_names) + list(input_names)

    def f(*arrays, statics):
        env = dict(statics)
        with grad_mode.no_grad():
            for n, a in zip(names, arrays):
                env[n] = Tensor._wrap(a)
            _run(plan, env)
        outs = []
        for n in output_names:
            v = env.get(n)
            outs.append(v._value if isinstance(v, Tensor) else v)
        mutated = [i for i, (n, a) in enumerate(zip(names, arrays)) if env[n]._value is not a]
        f.mutated = mutated
        f.traces += 1
        return tuple(outs) + tuple(env[names[i]]._value for i in mutated)
    f.mutated, f.traces = [], 0
    return f


def freeze(v):
    """A hashable form of a static input value (lists become tuples)."""
    if isinstance(v, (list, tuple)):
        return tuple(freeze(x) for x in v)
    if isinstance(v, dict):
        return tuple(sorted((k, freeze(x)) for k, x in v.items()))
    return v
