"""API surface vs torch: ``python -m conformance.api`` runs and no namespace's coverage falls below what was
measured; the Tensor methods and autograd names added for parity behave like torch's."""
import warnings

import pytest

import torchlike
from conftest import torch

# (have, torch) measured on this branch; coverage must not drop
FLOORS = {"torch.Tensor": 572, "torch.distributions": 65, "torch.autograd": 32, "torch.autograd.graph": 11,
          "torch.distributions.transforms": 28, "torch.nn": 168, "torch.nn.functional": 128, "torch.linalg": 42,
          "torch.fft": 22, "torch.special": 56, "torch.optim": 16, "torch.utils.data": 19}


def test_api_report_runs_and_coverage_does_not_fall(tmp_path):
    from conformance import api
    res = api.coverage()
    api.write_report(res, tmp_path / "API_REPORT.md", tmp_path / "api.json")
    assert "| `torch.Tensor` |" in (tmp_path / "API_REPORT.md").read_text()
    for ns, floor in FLOORS.items():
        assert res[ns]["have"] >= floor, (ns, res[ns]["have"], res[ns]["missing"])
    assert res["torch.Tensor"]["missing"] == [] and res["torch.autograd"]["missing"] == []


def test_out_of_scope_classification():
    from conformance.api import out_of_scope
    assert out_of_scope("torch.Tensor", "to_sparse_csr") == "sparse"
    assert out_of_scope("torch.Tensor", "q_scale") == "quantization"
    assert out_of_scope("torch.cuda", "CUDAGraph") == "CUDA graphs"
    assert out_of_scope("torch.Tensor", "add") is None


def _both(fn):
    return fn(torch), fn(torchlike)


def test_tensor_methods_match_torch():
    def f(T):
        x = T.tensor([[1.0, -2.0, 0.25], [3.0, 0.5, -0.1]])
        y = x.clone().apply_(lambda v: v * 2 + 1)
        z = x.clone().map_(T.ones(3), lambda a, b: a - b)
        w = x.clone().map2_(T.ones(3), T.full((2, 3), 2.0), lambda a, b, c: a * c + b)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = x.resize(3, 2)
            vol = x.volatile
        return (y.tolist(), z.tolist(), w.tolist(), x.dim_order(), x.t().dim_order(), x.is_same_size(y),
                x.is_set_to(x), x.is_set_to(x[0]), x.output_nr, x.is_inference(), x.is_distributed(),
                x.adjoint().tolist(), x.hardshrink(0.3).tolist(), tuple(r.shape), vol, x.grad_dtype is x.dtype,
                x.name, x.is_xpu, x.is_mps, x.is_vulkan, x.is_xla, x.is_ipu, x.is_maia, x.is_mtia,
                x.prelu(T.tensor([0.5])).tolist())
    a, b = _both(f)
    assert a == b


@pytest.mark.parametrize("name,args", [("eig", ()), ("symeig", ()), ("lstsq", (1,)), ("solve", (1,)),
                                       ("reinforce", (1,))])
def test_removed_methods_raise_torchs_message(name, args):
    msgs = []
    for T in (torch, torchlike):
        x = T.ones(2, 2)
        with pytest.raises(RuntimeError) as e:
            getattr(x, name)(*[x] * len(args))
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


def test_unavailable_tensor_methods_name_themselves():
    with pytest.raises(NotImplementedError, match=r"Tensor\.to_padded_tensor .*docs/differences.md"):
        torchlike.ones(4).to_padded_tensor(0.0)
    with pytest.raises(AssertionError, match="Torch not compiled with XPU enabled"):
        torchlike.ones(1).xpu()


def test_autograd_names_like_torch():
    for T in (torch, torchlike):
        A = T.autograd
        assert A.is_multithreading_enabled() is True and A.is_view_replay_enabled() is False
        with A.set_multithreading_enabled(False):
            assert A.is_multithreading_enabled() is False
        assert A.is_multithreading_enabled() is True
        assert A.kineto_available() in (True, False)
        x = T.ones(2, requires_grad=True)
        assert A.is_tensor_like(x) and not A.is_tensor_like(3)
        assert not A.has_torch_function((x,))
        e = A.graph.get_gradient_edge(x * 2)
        assert type(e.node).__name__ == "MulBackward0" and e.output_nr == 0
        v = x._version
        A.graph.increment_version(x)
        assert x._version == v + 1
    assert [m for m in torch.autograd.ProfilerActivity.__members__][:2] == \
        [m for m in torchlike.autograd.ProfilerActivity.__members__][:2]


def test_register_multi_grad_hook_matches_torch():
    def f(T):
        a, b = T.ones(2, requires_grad=True), T.ones(2, requires_grad=True)
        seen = []
        h = T.autograd.graph.register_multi_grad_hook((a, b), lambda gs: seen.append([g.tolist() for g in gs]))
        (a * 2 + b * 3).sum().backward()
        h.remove()
        (a * 2 + b * 3).sum().backward()
        return seen
    a, b = _both(f)
    assert a == b


def _helper_names(mod):
    """torch.nn.factory_kwargs, F's grid_sample mode tables, F.assert_int_or_pair and boolean_dispatch, and
    torch._jit_internal's is_scripting: results and errors."""
    import importlib
    F = mod.nn.functional
    ji = importlib.import_module(f"{mod.__name__}._jit_internal")
    out = [mod.nn.factory_kwargs(None), mod.nn.factory_kwargs({"dtype": mod.float64}) == {"dtype": mod.float64},
           sorted(mod.nn.factory_kwargs({"device": "cpu", "factory_kwargs": {"memory_format": None}}).items()),
           F.GRID_SAMPLE_INTERPOLATION_MODES, F.GRID_SAMPLE_PADDING_MODES, ji.is_scripting()]
    for call in (lambda: mod.nn.factory_kwargs({"bias": True}),
                 lambda: mod.nn.factory_kwargs({"device": "cpu", "factory_kwargs": {"device": "cpu"}}),
                 lambda: F.assert_int_or_pair((1, 2, 3), "kernel_size", "{} must be int or pair"),
                 lambda: F.assert_int_or_pair(3, "kernel_size", "{} must be int or pair")):
        try:
            out.append(("ok", call()))
        except Exception as e:  # compared with torch's
            out.append((type(e).__name__, str(e)))

    def if_true(x, flag=False):
        return ("true", x)

    def if_false(x, flag=False):
        """doc of if_false"""
        return ("false", x)
    f = F.boolean_dispatch("flag", 1, False, if_true, if_false, "my.mod", "pick")
    out += [f(1), f(1, True), f(1, flag=True), f.__name__, f.__module__, f.__doc__, if_true.__doc__,
            ji.boolean_dispatched[f]["index"]]
    return out


def test_nn_helper_names_like_torch():
    assert _helper_names(torchlike) == _helper_names(torch)
