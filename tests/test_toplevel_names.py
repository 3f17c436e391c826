"""Every public top-level ``torch.X`` (a function, class, dtype or flag; not a submodule) exists as
``torchlike.X`` unless it belongs to a family torchlike does not mirror (quantization, vendor kernels, the
TorchScript IR's C++ classes) or is listed in ``NOT_YET``; the names libraries and pickles reach for
(``torch.cond``, ``torch.FloatStorage``, ``torch.is_autocast_cpu_enabled``, ...) carry torch's
``__module__``/``__qualname__`` (``torch`` -> ``torchlike``).

``NOT_YET`` must equal what is missing: adding a name makes the test fail until it is removed from the list,
and a newly missing torch name fails it too.
"""
import inspect
import re
import types

import pytest

torch = pytest.importorskip("torch", reason="the oracle whose top-level names are walked")
import torchlike  # noqa: E402

EXCLUDED = {  # pattern on the name -> why torchlike does not mirror it
    r"^(q_|quantize|quantized_|qint|quint|per_channel|per_tensor|fake_quantize|choose_qparams|fused_moving_avg"
    r"|dequantize$|int_repr$|empty_quantized$|qscheme$|Q.*Storage$)": "quantization",
    r"^(cudnn_|miopen_|mkldnn_|fbgemm_)": "vendor kernel entry points (cuDNN, MIOpen, oneDNN, FBGEMM)",
}
# classes torch binds from C++ (pybind11): the TorchScript IR (Graph, Node, ScriptModule's parts), dispatch
# keys and benchmarking utilities; torchlike has no TorchScript
_PYBIND = "pybind11_type"

NOT_YET = set()  # every public top-level name exists (those that cannot work raise NotImplementedError)


def _excluded(name, obj):
    if type(type(obj)).__name__ == _PYBIND or type(obj).__name__ == _PYBIND:
        return True
    return any(re.match(p, name) for p in EXCLUDED)


def test_toplevel_names_exist_or_are_listed():
    missing = set()
    for name in dir(torch):
        if name.startswith("_"):
            continue
        obj = getattr(torch, name)
        if isinstance(obj, types.ModuleType) or _excluded(name, obj):
            continue
        if not hasattr(torchlike, name):
            missing.add(name)
    assert missing - NOT_YET == set(), f"torchlike lacks {sorted(missing - NOT_YET)}"
    assert NOT_YET - missing == set(), f"now present, remove from NOT_YET: {sorted(NOT_YET - missing)}"


NAMED = ["cond", "while_loop", "TypedStorage", "FloatStorage", "LongStorage", "BoolStorage", "Storage",
         "is_autocast_cpu_enabled", "set_autocast_cpu_enabled", "get_autocast_cpu_dtype", "set_autocast_cpu_dtype",
         "get_autocast_gpu_dtype", "set_autocast_gpu_dtype", "is_autocast_xla_enabled", "get_autocast_xla_dtype",
         "is_autocast_ipu_enabled", "get_autocast_ipu_dtype", "autocast_increment_nesting",
         "autocast_decrement_nesting", "GradScaler"]


def _mirror(modname):
    return None if modname is None else modname.replace("torch", "torchlike", 1) if modname.startswith("torch") \
        else modname


@pytest.mark.parametrize("name", NAMED)
def test_named_toplevel_objects_have_torchs_module_and_qualname(name):
    ours, theirs = getattr(torchlike, name), getattr(torch, name)
    assert ours.__qualname__ == theirs.__qualname__
    if inspect.isclass(theirs) or theirs.__module__ != "torch._C._VariableFunctions":
        assert ours.__module__ == _mirror(theirs.__module__), (ours.__module__, theirs.__module__)


def test_storage_module_classes_have_torchs_paths():
    for name in ("TypedStorage", "UntypedStorage", "_LegacyStorage"):
        ours, theirs = getattr(torchlike.storage, name), getattr(torch.storage, name)
        assert (ours.__module__, ours.__qualname__) == (_mirror(theirs.__module__), theirs.__qualname__)


JIT_TYPES = ["Type", "AnyType", "BoolType", "ComplexType", "DeviceObjType", "FloatType", "IntType", "NoneType",
             "NumberType", "PyObjectType", "StreamObjType", "StringType", "SymBoolType", "SymIntType", "TensorType"]


@pytest.mark.parametrize("name", JIT_TYPES[1:])
def test_torchscript_type_objects_print_and_compare_as_torchs(name):
    # pytorch-forecasting annotates with `str | torch.DeviceObjType` at import (NotImplementedError before)
    ours, theirs = getattr(torchlike, name), getattr(torch, name)
    assert issubclass(ours, torchlike.Type) and ours.__name__ == theirs.__name__
    o, t = ours.get(), theirs.get()
    assert (str(o), repr(o), o.kind(), o.annotation_str) == (str(t), repr(t), t.kind(), t.annotation_str)
    assert (o == ours.get(), o == torchlike.AnyType.get()) == (t == theirs.get(), t == torch.AnyType.get())
    assert [o.isSubtypeOf(getattr(torchlike, k).get()) for k in ("AnyType", "NumberType", "IntType")] == \
        [t.isSubtypeOf(getattr(torch, k).get()) for k in ("AnyType", "NumberType", "IntType")]
    assert (str | ours).__args__[1] is ours
    with pytest.raises(TypeError, match=f"torch._C.{name}: No constructor defined!"):
        ours()
    with pytest.raises(TypeError, match="unhashable type"):
        hash(o)
