"""Regressions found by running tensordict (tests/programs/lib_tensordict_basics.py) through the drop-in runner, each
checked against real torch: private torch modules libraries import (``torch._C._functorch``, ``torch.utils.weak``,
``torch.utils._contextlib``, ``torch._utils``, ``torch._functorch.*``, ``torch.nn.utils._named_member_accessor``)
and TensorBase's legacy Python 2 dunders."""
import gc
import importlib
import importlib.util
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")

import torchlike  # noqa: E402


@pytest.mark.parametrize("module, names", [
    ("_C._functorch", ["is_batchedtensor", "is_legacy_batchedtensor", "get_unwrapped"]),
    ("_C._nn", ["_parse_to"]),
    ("utils.weak", ["WeakIdKeyDictionary", "WeakIdRef", "WeakTensorKeyDictionary", "TensorWeakRef"]),
    ("utils._contextlib", ["_DecoratorContextManager"]),
    ("_utils", ["_get_available_device_type", "_get_device_module"]),
    ("nn.utils._named_member_accessor", ["swap_tensor"]),
    ("_functorch.vmap", ["_maybe_remove_batch_dim", "_add_batch_dim", "_get_name", "_broadcast_to_and_flatten",
                         "tree_flatten", "tree_unflatten", "Tensor"]),
    ("_functorch.deprecated", ["grad", "vmap", "jacrev", "make_functional", "make_functional_with_buffers"]),
    ("_functorch.make_functional", ["FunctionalModule", "FunctionalModuleWithBuffers"]),
    ("_functorch.python_key", ["make_fx"]),
])
def test_private_modules_import_as_in_torch(module, names):
    """``from torch.<module> import <name>`` works for each (tensordict's imports)."""
    ours = importlib.import_module("torchlike." + module)
    theirs = importlib.import_module("torch." + module)
    for n in names:
        assert hasattr(theirs, n) and hasattr(ours, n), n


def test_functorch_package_imports_under_the_runner():
    """torch ships the ``functorch`` package; it imports torch._functorch.* and functorch.dim reads
    ``torch.Tensor.__div__``/``__idiv__``/``__long__``."""
    code = "import functorch; from functorch import dim, FunctionalModule; print(functorch.grad is not None)"
    out = subprocess.run([sys.executable, "-m", "torchlike", "run", "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0 and out.stdout.strip() == "True", out.stderr[-2000:]


def test_is_batchedtensor_inside_and_outside_vmap():
    """False for a plain tensor; True for the batched argument inside ``vmap``, as in torch."""
    for lib in (torch, torchlike):
        seen = []
        lib.vmap(lambda x: seen.append(lib._C._functorch.is_batchedtensor(x)) or x)(lib.ones(3, 2))
        assert seen == [True]
        assert lib._C._functorch.is_batchedtensor(lib.ones(2)) is False


def test_get_unwrapped_inside_and_outside_vmap():
    """The batched argument's physical tensor (batch dim where in_dims put it); torch's error for a plain tensor."""
    for lib in (torch, torchlike):
        seen = []
        x = lib.arange(6.0).reshape(2, 3)
        lib.vmap(lambda r: seen.append(lib._C._functorch.get_unwrapped(r).tolist()) or r, in_dims=1)(x)
        assert seen == [[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]]
        with pytest.raises(RuntimeError, match="No wrappers present!"):
            lib._C._functorch.get_unwrapped(lib.ones(2))


def test_weak_id_key_dictionary_keys_by_identity():
    for lib in (torch, torchlike):
        weak = importlib.import_module(lib.__name__ + ".utils.weak")
        t, u = lib.zeros(2), lib.zeros(2)
        d = weak.WeakIdKeyDictionary()
        d[t] = 1
        assert (t in d, u in d, len(d), d.get(u, 5)) == (True, False, 1, 5)
        del t
        gc.collect()
        assert len(d) == 0 and list(d) == []
        ref = weak.TensorWeakRef(u)
        assert ref() is u


def test_legacy_div_dunders_match_torch():
    for lib in (torch, torchlike):
        t = lib.tensor([6.0, 3.0])
        u = t.clone()
        u.__idiv__(2)
        assert t.__div__(2).tolist() == [3.0, 1.5] and u.tolist() == [3.0, 1.5]
        assert lib.tensor(3.7).__long__() == 3


def test_swap_tensor_matches_torch():
    for lib in (torch, torchlike):
        acc = importlib.import_module(lib.__name__ + ".nn.utils._named_member_accessor")
        m = lib.nn.Linear(2, 1)
        new = lib.zeros(1)
        old = acc.swap_tensor(m, "bias", new)
        assert type(old).__name__ == "Parameter" and m.bias is new
        with pytest.raises(KeyError, match="tensor name can"):
            acc.swap_tensor(m, "a.b", new)
        with pytest.raises(AttributeError, match="has no attribute `nope`"):
            acc.swap_tensor(m, "nope", new)


def test_make_functional_matches_torch():
    """functorch's ``make_functional`` (``torch._functorch.deprecated``): ``fmodel(params, x)``."""
    outs = []
    for lib in (torch, torchlike):
        mf = importlib.import_module(lib.__name__ + "._functorch.deprecated")
        lib.manual_seed(0)
        m = lib.nn.Linear(2, 1)
        with pytest.warns(FutureWarning, match="functorch.make_functional` is deprecated"):
            fmodel, params = mf.make_functional(m)
        x = lib.tensor([[1.0, 2.0]])
        outs.append(fmodel(tuple(p * 0 + 1 for p in params), x).tolist())
        assert len(params) == 2
    assert outs[0] == outs[1] == [[4.0]]


def test_device_module_helpers_match_torch():
    for lib in (torch, torchlike):
        u = importlib.import_module(lib.__name__ + "._utils")
        assert u._get_device_module("cpu") is lib.cpu
        with pytest.raises(RuntimeError, match="does not have a corresponding module"):
            u._get_device_module("nodev")
    assert (importlib.import_module("torchlike._utils")._get_available_device_type() is None) == \
        (not torchlike.cuda.is_available())


def test_vmap_runs_replaced_protocol_functions_like_torch(monkeypatch):
    """A library that replaces ``torch._functorch.vmap``'s protocol functions (tensordict does) has them run by
    ``vmap``; the results are torch's, with the in_dims/out_dims moved as torch moves them."""
    got = {}
    for lib in (torch, torchlike):
        src = importlib.import_module(lib.__name__ + "._functorch.vmap")
        calls = []
        for name in ("_process_batched_inputs", "_create_batched_inputs", "_unwrap_batched"):
            def spy(*args, _name=name, _orig=getattr(src, name)):
                calls.append(_name)
                return _orig(*args)
            monkeypatch.setattr(src, name, spy)
        x = lib.arange(6.).reshape(2, 3)
        prod, total = lib.vmap(lambda a, b: (a * b, a.sum()), in_dims=(1, None), out_dims=(1, 0))(x, lib.tensor([2., 3.]))
        got[lib] = prod.tolist(), total.tolist()
        assert set(calls) == {"_process_batched_inputs", "_create_batched_inputs", "_unwrap_batched"}, calls
        monkeypatch.undo()
    assert got[torch] == got[torchlike] == ([[0., 2., 4.], [9., 12., 15.]], [3., 5., 7.])


_TD_VMAP = """
import torch
from tensordict import TensorDict
from tensordict.nn import TensorDictModule
torch.manual_seed(0)
m = TensorDictModule(torch.nn.Linear(3, 1), in_keys=["obs"], out_keys=["v"])
td = TensorDict(obs=torch.randn(2, 4, 3), nest=TensorDict(a=torch.arange(8.).reshape(2, 4), batch_size=[2, 4]),
                batch_size=[2, 4])
with torch.no_grad():
    out = torch.vmap(m, (0,))(td)
print(tuple(out.batch_size), sorted(out.keys()), tuple(out["v"].shape), [round(v, 4) for v in out["v"].flatten().tolist()])
print([round(v, 4) for v in torch.vmap(lambda t: t["obs"].sum(-1) + t["nest", "a"], (1,))(td).flatten().tolist()])
out = torch.vmap(lambda t, x: t.set("y", t["obs"] * x), (0, None), out_dims=1)(td, torch.tensor(2.))
print(tuple(out.batch_size), tuple(out["y"].shape), tuple(out["nest"].batch_size))
obs = td["obs"].requires_grad_()
out = torch.vmap(m, (1,), out_dims=1)(td)
(out["v"] ** 2).sum().backward()
print(tuple(out.batch_size), out["v"].requires_grad, [round(v, 4) for v in m.module.weight.grad.flatten().tolist()],
      [round(v, 4) for v in obs.grad.flatten()[:6].tolist()])
"""


def test_vmap_over_tensordict_like_torch():
    """``torch.vmap`` over TensorDict arguments (in_dim 0 and 1, nested TensorDicts, out_dims=1) batches them as
    torch does through tensordict's protocol functions (torchrl's GAE and value estimators vmap this way), with
    gradients to the parameters and the batched input."""
    if importlib.util.find_spec("tensordict") is None:  # not importorskip: importing tensordict here replaces real
        pytest.skip("tensordict is not installed")  # torch's vmap protocol functions for the rest of the worker
    outs = [subprocess.run([sys.executable] + runner + ["-c", _TD_VMAP], capture_output=True, text=True,
                           timeout=300) for runner in ([], ["-m", "torchlike", "run"])]
    for out in outs:
        assert out.returncode == 0, out.stderr[-2000:]
    theirs, ours = (out.stdout.splitlines() for out in outs)
    assert ours == theirs and len(ours) == 4, (theirs, ours)


def test_distributed_rpc_pyrref_as_in_torch():
    """``torch._C._distributed_rpc.PyRRef`` exists (torchrl tests ``isinstance(self, PyRRef)`` on every collector
    call); nothing is one, and making one without an RPC agent raises torch's RuntimeError."""
    for lib in (torch, torchlike):
        from_c = importlib.import_module(lib.__name__ + "._C._distributed_rpc")
        cls = from_c.PyRRef
        assert (cls.__module__, cls.__qualname__) == ("torch._C._distributed_rpc", "PyRRef")
        assert not isinstance(lib.ones(1), cls)
        with pytest.raises(RuntimeError, match="Current RPC agent is not set! Did you initialize the RPC framework"):
            cls(1)
        assert from_c._is_current_rpc_agent_set() is False
