"""torch.load's ``weights_only=True`` unpickler: a small pickle-opcode interpreter that never imports.

Only the protocol-2 opcodes torch.save emits are understood.  A GLOBAL is looked up by its full name
``module.qualname`` in torch's default allowlist (tensors' rebuild functions, storage types, dtypes,
``torch.Size``/``device``/``Tensor``/``nn.Parameter``, ``OrderedDict``/``Counter``, ``set``, ``complex``,
``bytearray`` and ``_codecs.encode``) or among the globals the user allowed with ``add_safe_globals`` /
the ``safe_globals`` context manager; anything else raises ``UnpicklingError`` with torch's text.
Objects are only built (NEWOBJ/REDUCE/BUILD) from allowed classes and functions, as in torch.

>>> import collections, io, torchlike
>>> buf = io.BytesIO()
>>> torchlike.save({"n": frozenset([1])}, buf)
>>> _ = buf.seek(0)
>>> try:
...     torchlike.load(buf)
... except Exception as e:
...     print(type(e).__name__, "GLOBAL builtins.frozenset" in str(e) or "GLOBAL frozenset" in str(e))
UnpicklingError True
>>> _ = buf.seek(0)
>>> with torchlike.serialization.safe_globals([frozenset]):
...     torchlike.load(buf)
{'n': frozenset({1})}
"""
from __future__ import annotations

import _compat_pickle
import collections
import functools
import pickle
import struct
import warnings
from codecs import encode as _encode

from . import _dtype, _quantized
from ._device import device
from .nn.parameter import Parameter
from .sparse._serialization import rebuild_sparse_tensor
from .tensor import Size, Tensor

__all__ = ["Unpickler", "add_safe_globals", "get_safe_globals", "clear_safe_globals", "remove_safe_globals",
           "safe_globals_context", "user_allowed_globals", "default_allowed_globals", "globals_in_pickle",
           "wo_message"]

_user_globals: set = set()

# modules torch refuses outright, whatever the allowlist says
_BLOCKED_MODULES = ("sys", "os", "posix", "nt")

_UNSAFE_MESSAGE = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` "
    "from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will likely succeed, "
    "but it can result in arbitrary code execution. Do it only if you got the file from a trusted source.")
_DOCS_MESSAGE = ("\n\nCheck the documentation of torch.load to learn more about types accepted by default with "
                 "weights_only https://pytorch.org/docs/stable/generated/torch.load.html.")


# ---- the user's allowlist ------------------------------------------------------------------------
def add_safe_globals(globals_list):
    global _user_globals
    _user_globals = _user_globals | set(globals_list)


def get_safe_globals():
    return list(_user_globals)


def clear_safe_globals():
    global _user_globals
    _user_globals = set()


def remove_safe_globals(globals_list):
    global _user_globals
    _user_globals = _user_globals - set(globals_list)


class safe_globals_context:
    """Adds globals on entry and removes exactly those on exit (torch's set semantics)."""

    def __init__(self, safe_globals):
        self.safe_globals = safe_globals

    def __enter__(self):
        add_safe_globals(self.safe_globals)

    def __exit__(self, *exc):
        remove_safe_globals(self.safe_globals)


def _torch_name(full):
    """``torchlike.x.Y`` -> ``torch.x.Y`` (files name torch's modules)."""
    if full.startswith("torchlike.") or full == "torchlike":
        return "torch" + full[len("torchlike"):]
    return full


def user_allowed_globals():
    """{full name: object} for the user's safe globals; torchlike names also answer to torch's."""
    out = {}
    for g in _user_globals:
        if isinstance(g, tuple):
            if len(g) != 2:
                raise ValueError(f"Expected tuple of length 2 (global, str of callable full path), but got tuple "
                                 f"of length: {len(g)}")
            if type(g[1]) is not str:
                raise TypeError(f"Expected second item in tuple to be str of callable full path, but got: "
                                f"{type(g[1])}")
            obj, name = g
            out[name] = obj
            out.setdefault(_torch_name(name), obj)
        else:
            name = f"{g.__module__}.{g.__qualname__}"
            out[name] = g
            out.setdefault(_torch_name(name), g)
            from .serialization import _torch_module_of  # lazy: serialization imports this module
            public = _torch_module_of(g)  # a function of a private file answers to its public path
            if public is not None:
                out.setdefault(f"{public}.{g.__qualname__}", g)
    return out


# ---- torch's default allowlist -------------------------------------------------------------------
def _unsupported_rebuild(name):
    def rebuild(*args, **kwargs):
        raise RuntimeError(f"torchlike cannot load tensors rebuilt by torch._utils.{name} (nested or "
                           f"wrapper-subclass tensors); see docs/differences.md")
    rebuild.__name__ = name
    return rebuild


@functools.lru_cache(maxsize=1)
def default_allowed_globals():
    from . import serialization as ser  # lazy: serialization imports this module (its unpickler)
    rc = {"collections.OrderedDict": collections.OrderedDict, "collections.Counter": collections.Counter,
          "torch.nn.parameter.Parameter": Parameter, "torch.serialization._get_layout": ser._get_layout,
          "torch.Size": Size, "torch.Tensor": Tensor, "torch.device": device, "_codecs.encode": _encode,
          "builtins.bytearray": bytearray, "builtins.set": set, "builtins.complex": complex}
    for name in dir(_dtype):
        if isinstance(getattr(_dtype, name), _dtype.dtype):
            rc[f"torch.{name}"] = getattr(_dtype, name)
    for storage_name, dt in ser.storage_types().items():
        rc[f"torch.{storage_name}"] = dt
    rc["torch.storage.UntypedStorage"] = _dtype.uint8  # how torch.save names a saved untyped storage
    for tensor_name in ser.TENSOR_TYPE_NAMES:
        rc[f"torch.{tensor_name}"] = Tensor
    rebuilds = {"_rebuild_tensor": ser._rebuild_tensor, "_rebuild_tensor_v2": ser._rebuild_tensor_v2,
                "_rebuild_parameter": ser._rebuild_parameter,
                "_rebuild_parameter_with_state": ser._rebuild_parameter_with_state,
                "_rebuild_device_tensor_from_numpy": ser._rebuild_device_tensor_from_numpy,
                "_rebuild_device_tensor_from_cpu_tensor": ser._rebuild_device_tensor_from_cpu_tensor}
    rebuilds["_rebuild_sparse_tensor"] = rebuild_sparse_tensor
    rebuilds["_rebuild_qtensor"] = ser._rebuild_qtensor
    for scheme in _quantized.QSCHEMES:
        rc[f"torch.{scheme.name}"] = scheme
    for name in ("_rebuild_tensor_v3",
                 "_rebuild_meta_tensor_no_storage", "_rebuild_nested_tensor", "_rebuild_wrapper_subclass"):
        rebuilds[name] = _unsupported_rebuild(name)
    for name, fn in rebuilds.items():
        rc[f"torch._utils.{name}"] = fn
    rc["torch._tensor._rebuild_from_type_v2"] = ser._rebuild_from_type_v2
    return rc


def _read_global(readline):
    module = readline()[:-1].decode("utf-8")
    name = readline()[:-1].decode("utf-8")
    if (module, name) in _compat_pickle.NAME_MAPPING:
        module, name = _compat_pickle.NAME_MAPPING[(module, name)]
    elif module in _compat_pickle.IMPORT_MAPPING:
        module = _compat_pickle.IMPORT_MAPPING[module]
    return module, name


def _unsupported_global_message(full_path):
    if full_path.startswith("builtins"):
        rest = full_path[len("builtins"):]
        full_path = rest[1:] if rest.startswith(".") else "builtins" + rest
    return (f"Unsupported global: GLOBAL {full_path} was not an allowed global by default. Please use "
            f"`torch.serialization.add_safe_globals([{full_path}])` or the "
            f"`torch.serialization.safe_globals([{full_path}])` context manager to allowlist this global if you "
            f"trust this class/function.")


def wo_message(message):
    """The text torch.load wraps around a weights-only unpickling error."""
    if "was not an allowed global by default." in message:
        return ("Weights only load failed. This file can still be loaded, to do so you have two options, "
                "\033[1mdo those steps only if you trust the source of the checkpoint\033[0m. "
                f"\n\t(1) {_UNSAFE_MESSAGE}\n\t(2) Alternatively, to load with `weights_only=True` please check the "
                "recommended steps in the following error message.\n\tWeightsUnpickler error: " + message
                + _DOCS_MESSAGE)
    if " must be imported to load" in message:
        return f"Weights only load failed. {message}\n {_UNSAFE_MESSAGE}\n"
    out = f"Weights only load failed. {_UNSAFE_MESSAGE}\n"
    if "is blocked" not in message:
        out += ("Please file an issue with the following so that we can make `weights_only=True` compatible with "
                "your use case: WeightsUnpickler error: ")
    return out + "\n\n" + message + _DOCS_MESSAGE


# ---- the interpreter -----------------------------------------------------------------------------
_OP = {name: getattr(pickle, name)[0] for name in (
    "GLOBAL", "NEWOBJ", "REDUCE", "BUILD", "APPEND", "APPENDS", "SETITEM", "SETITEMS", "MARK", "TUPLE", "TUPLE1",
    "TUPLE2", "TUPLE3", "NONE", "NEWFALSE", "NEWTRUE", "EMPTY_TUPLE", "EMPTY_LIST", "EMPTY_DICT", "EMPTY_SET",
    "BININT", "BININT1", "BININT2", "BINFLOAT", "BINUNICODE", "SHORT_BINSTRING", "BINPERSID", "BINGET",
    "LONG_BINGET", "BINPUT", "LONG_BINPUT", "LONG1", "PROTO", "STOP")}
_NJT = ("torch.nested._internal.nested_tensor.NestedTensor", "torch.nested._internal.nested_tensor._rebuild_njt",
        "torch._dynamo.decorators._DimRange")
_DTENSOR = ("torch.distributed.device_mesh.DeviceMesh", "torch.distributed.tensor._dtensor_spec.DTensorSpec",
            "torch.distributed.tensor._dtensor_spec.TensorMeta", "torch.distributed.tensor.DTensor",
            "torch.distributed.tensor.placement_types.Partial", "torch.distributed.tensor.placement_types.Replicate",
            "torch.distributed.tensor.placement_types.Shard")


class Unpickler:
    """Weights-only unpickler; ``persistent_load(pid)`` resolves ``('storage', ...)`` ids."""

    def __init__(self, file, *, encoding="bytes", persistent_load=None):
        self.encoding = encoding
        self.read, self.readline = file.read, file.readline
        self.memo = {}
        self.proto = -1
        self._persistent_load = persistent_load

    def _allowed(self, obj, user):
        return obj in default_allowed_globals().values() or obj in user.values()

    def load(self):  # noqa: C901 - one branch per opcode, as pickle's own loop
        user = user_allowed_globals()
        defaults = default_allowed_globals()
        op = _OP
        read = self.read
        stack, metastack, memo = [], [], self.memo
        while True:
            key = read(1)
            if not key:
                raise EOFError
            k = key[0]
            if k == op["GLOBAL"]:
                module, name = _read_global(self.readline)
                full = f"{module}.{name}"
                if module in _BLOCKED_MODULES:
                    raise pickle.UnpicklingError(
                        f"Trying to load unsupported GLOBAL {full} whose module {module} is blocked.")
                if full in defaults:
                    stack.append(defaults[full])
                elif full in user:
                    stack.append(user[full])
                elif full in _NJT:
                    raise pickle.UnpicklingError("``torch.nested`` and ``torch._dynamo`` must be imported to load "
                                                 "nested jagged tensors (NJTs)")
                elif full in _DTENSOR:
                    raise pickle.UnpicklingError("``torch.distributed.tensor`` must be imported to load DTensors")
                else:
                    raise pickle.UnpicklingError(_unsupported_global_message(full))
            elif k == op["NEWOBJ"]:
                args = stack.pop()
                cls = stack.pop()
                if cls is Parameter:
                    stack.append(Parameter(*args))
                elif self._allowed(cls, user):
                    stack.append(cls.__new__(cls, *args))
                else:
                    raise pickle.UnpicklingError("Can only create new object for nn.Parameter or classes allowlisted "
                                                 f"via `add_safe_globals` but got {cls}")
            elif k == op["REDUCE"]:
                args = stack.pop()
                func = stack[-1]
                if not self._allowed(func, user):
                    msg = f"Trying to call reduce for unrecognized function {func}"
                    if hasattr(func, "__self__"):
                        msg += f" which belongs to {func.__self__}"
                    raise pickle.UnpicklingError(msg)
                stack[-1] = func(*args)
            elif k == op["BUILD"]:
                state = stack.pop()
                inst = stack[-1]
                self._build(inst, state, user, Tensor, Parameter)
            elif k == op["APPEND"]:
                item = stack.pop()
                if type(stack[-1]) is not list:
                    raise pickle.UnpicklingError(f"Can only append to lists, but got {type(stack[-1])}")
                stack[-1].append(item)
            elif k == op["APPENDS"]:
                items, stack = stack, metastack.pop()
                if type(stack[-1]) is not list:
                    raise pickle.UnpicklingError(f"Can only extend lists, but got {type(stack[-1])}")
                stack[-1].extend(items)
            elif k == op["SETITEM"]:
                v, kk = stack.pop(), stack.pop()
                self._check_dict(stack[-1], "SETITEM")
                stack[-1][kk] = v
            elif k == op["SETITEMS"]:
                items, stack = stack, metastack.pop()
                self._check_dict(stack[-1], "SETITEMS")
                for i in range(0, len(items), 2):
                    stack[-1][items[i]] = items[i + 1]
            elif k == op["MARK"]:
                metastack.append(stack)
                stack = []
            elif k == op["TUPLE"]:
                items, stack = stack, metastack.pop()
                stack.append(tuple(items))
            elif k == op["TUPLE1"]:
                stack[-1] = (stack[-1],)
            elif k == op["TUPLE2"]:
                stack[-2:] = [(stack[-2], stack[-1])]
            elif k == op["TUPLE3"]:
                stack[-3:] = [(stack[-3], stack[-2], stack[-1])]
            elif k == op["NONE"]:
                stack.append(None)
            elif k == op["NEWFALSE"]:
                stack.append(False)
            elif k == op["NEWTRUE"]:
                stack.append(True)
            elif k == op["EMPTY_TUPLE"]:
                stack.append(())
            elif k == op["EMPTY_LIST"]:
                stack.append([])
            elif k == op["EMPTY_DICT"]:
                stack.append({})
            elif k == op["EMPTY_SET"]:
                stack.append(set())
            elif k == op["BININT"]:
                stack.append(struct.unpack("<i", read(4))[0])
            elif k == op["BININT1"]:
                stack.append(read(1)[0])
            elif k == op["BININT2"]:
                stack.append(struct.unpack("<H", read(2))[0])
            elif k == op["BINFLOAT"]:
                stack.append(struct.unpack(">d", read(8))[0])
            elif k == op["BINUNICODE"]:
                n = struct.unpack("<I", read(4))[0]
                stack.append(str(read(n), "utf-8", "surrogatepass"))
            elif k == op["SHORT_BINSTRING"]:
                data = read(read(1)[0])
                stack.append(data if self.encoding == "bytes" else data.decode(self.encoding, "strict"))
            elif k == op["BINPERSID"]:
                pid = stack.pop()
                if type(pid) is not tuple and type(pid) is not int:
                    raise pickle.UnpicklingError(f"persistent_load id must be tuple or int, but got {type(pid)}")
                if type(pid) is tuple and pid and _ascii(pid[0]) != "storage":
                    raise pickle.UnpicklingError(f"Only persistent_load of storage is allowed, but got {type(pid[0])}")
                if self._persistent_load is None:
                    raise pickle.UnpicklingError("unsupported persistent id encountered")
                stack.append(self._persistent_load(pid))
            elif k in (op["BINGET"], op["LONG_BINGET"]):
                i = read(1)[0] if k == op["BINGET"] else struct.unpack("<I", read(4))[0]
                stack.append(memo[i])
            elif k in (op["BINPUT"], op["LONG_BINPUT"]):
                i = read(1)[0] if k == op["BINPUT"] else struct.unpack("<I", read(4))[0]
                memo[i] = stack[-1]
            elif k == op["LONG1"]:
                stack.append(pickle.decode_long(read(read(1)[0])))
            elif k == op["PROTO"]:
                self.proto = read(1)[0]
                if self.proto != 2:
                    warnings.warn(f"Detected pickle protocol {self.proto} in the checkpoint, which was not the default "
                                  "pickle protocol used by `torch.load` (2). The weights_only Unpickler might not "
                                  "support all instructions implemented by this protocol, please file an issue for "
                                  "adding support if you encounter this.", stacklevel=2)
            elif k == op["STOP"]:
                return stack.pop()
            else:
                raise pickle.UnpicklingError(f"Unsupported operand {k}")

    @staticmethod
    def _check_dict(target, opcode):
        if type(target) not in (dict, collections.OrderedDict, collections.Counter):
            raise pickle.UnpicklingError(f"Can only {opcode} for dict, collections.OrderedDict, collections.Counter, "
                                         f"but got {type(target)}")

    def _build(self, inst, state, user, Tensor, Parameter):
        t = type(inst)
        if t is Tensor:
            if isinstance(state, tuple) and len(state) == 2 and isinstance(state[1], dict):
                state = state[1]
            if isinstance(state, dict):
                inst.__dict__.update(state)
            elif state:
                raise pickle.UnpicklingError("torchlike cannot restore the legacy Tensor.set_ state of this file")
        elif t is Parameter:
            inst.__setstate__(state) if hasattr(inst, "__setstate__") else inst.__dict__.update(state or {})
        elif t is collections.OrderedDict:
            inst.__dict__.update(state)
        elif self._allowed(t, user):
            if hasattr(inst, "__setstate__"):
                inst.__setstate__(state)
            else:
                slotstate = None
                if isinstance(state, tuple) and len(state) == 2:
                    state, slotstate = state
                if state:
                    inst.__dict__.update(state)
                if slotstate:
                    for k, v in slotstate.items():
                        setattr(inst, k, v)
        else:
            raise pickle.UnpicklingError("Can only build Tensor, Parameter, OrderedDict or types allowlisted via "
                                         f"`add_safe_globals`, but got {t}")


def _ascii(x):
    return x.decode("ascii") if isinstance(x, bytes) else x


def globals_in_pickle(data):
    """Every ``module.name`` a protocol-2 pickle's GLOBAL opcodes name (read statically, nothing runs)."""
    import pickletools
    out = set()
    for opcode, arg, _ in pickletools.genops(data):
        if opcode.name == "GLOBAL":
            module, name = arg.split(" ", 1)
            if (module, name) in _compat_pickle.NAME_MAPPING:
                module, name = _compat_pickle.NAME_MAPPING[(module, name)]
            elif module in _compat_pickle.IMPORT_MAPPING:
                module = _compat_pickle.IMPORT_MAPPING[module]
            out.add(f"{module}.{name}")
    return out
