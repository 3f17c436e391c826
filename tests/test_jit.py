"""torch.jit entry points: trace/script keep the module, save/load round-trip, torch's errors."""
import inspect
import io
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch

import torchlike
from conftest import run_program


def _mlp(T):
    T.manual_seed(0)
    return T.nn.Sequential(T.nn.Linear(3, 8), T.nn.ReLU(), T.nn.Linear(8, 2))


def test_traced_module_round_trips_and_accepts_other_batches(tmp_path):
    m = _mlp(torchlike)
    traced = torchlike.jit.trace(m, torchlike.ones(4, 3))
    assert traced is m
    path = tmp_path / "traced.pt"
    torchlike.jit.save(traced, str(path))
    loaded = torchlike.jit.load(str(path))
    # the reference is torch running the same weights
    ref = _mlp(torch)
    for n in (4, 7):
        x = np.random.RandomState(n).randn(n, 3).astype(np.float32)
        np.testing.assert_allclose(loaded(torchlike.tensor(x)).detach().numpy(), ref(torch.tensor(x)).detach().numpy(),
                                   rtol=1e-5, atol=1e-6)
    assert sorted(loaded.state_dict()) == sorted(ref.state_dict())


def test_loading_a_traced_program_needs_no_model_code(tmp_path):
    path = tmp_path / "traced.pt"
    torchlike.jit.save(torchlike.jit.trace(_mlp(torchlike), torchlike.ones(2, 3)), str(path))
    code = ("import sys; sys.modules['torch'] = None\n"
            "import torchlike\n"
            f"m = torchlike.jit.load({str(path)!r})\n"
            "print(tuple(m(torchlike.ones(5, 3)).shape))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip().endswith("(5, 2)")


def test_scripted_module_round_trips(tmp_path):
    m = torchlike.jit.script(_mlp(torchlike))
    path = tmp_path / "scripted.pt"
    torchlike.jit.save(m, str(path), _extra_files={"meta.txt": "v1"})
    extra = {"meta.txt": ""}
    loaded = torchlike.jit.load(str(path), _extra_files=extra)
    assert extra["meta.txt"] == b"v1"
    x = torchlike.ones(2, 3)
    assert torchlike.equal(loaded(x), m(x))


def test_real_torchscript_archive_names_the_alternatives(tmp_path):
    path = tmp_path / "ts.pt"
    torch.jit.save(torch.jit.trace(_mlp(torch), torch.ones(2, 3)), str(path))
    with pytest.raises(NotImplementedError, match="TorchScript archive.*torch.export.save"):
        torchlike.jit.load(str(path))


def test_loaded_traced_module_is_a_module_that_trains_like_torchs(tmp_path):
    # torch's jit.load gives a RecursiveScriptModule: parameters(), state_dict(), train()/eval(), backward
    def run(T):
        m = _mlp(T)
        path = str(tmp_path / f"{T.__name__}.pt")
        T.jit.save(T.jit.trace(m, T.ones(4, 3)), path)
        loaded = T.jit.load(path)
        names = [n for n, _ in loaded.named_parameters()]
        loaded.train()
        opt = T.optim.SGD(loaded.parameters(), lr=0.1)
        x = T.tensor(np.random.RandomState(0).randn(5, 3).astype(np.float32))
        for _ in range(3):
            opt.zero_grad()
            loss = loaded(x).pow(2).mean()
            loss.backward()
            opt.step()
        return names, sorted(loaded.state_dict()), isinstance(loaded, T.nn.Module), loss.item(), loaded(x)
    ours, theirs = run(torchlike), run(torch)
    assert ours[:3] == theirs[:3]
    assert ours[3] == pytest.approx(theirs[3], rel=1e-5)
    np.testing.assert_allclose(ours[4].detach().numpy(), theirs[4].detach().numpy(), rtol=1e-5, atol=1e-6)


def test_torch_load_of_a_torchscript_archive_like_torch(tmp_path):
    path = str(tmp_path / "ts.pt")
    torch.jit.save(torch.jit.trace(_mlp(torch), torch.ones(2, 3)), path)
    with pytest.raises(RuntimeError) as theirs:
        torch.load(path)
    with pytest.raises(RuntimeError) as ours:
        torchlike.load(path)
    assert str(ours.value) == str(theirs.value)
    # weights_only=False: torch hands the archive to torch.jit.load, with a warning; here jit.load's error
    with pytest.warns(UserWarning, match="looks like a TorchScript archive"):
        with pytest.raises(NotImplementedError, match="TorchScript archive.*torch.export.save"):
            torchlike.load(path, weights_only=False)


@pytest.mark.parametrize("make", [
    lambda d: os.path.join(d, "missing.pt"),
    lambda d: d,
    lambda d: open(os.path.join(d, "junk.pt"), "wb").write(b"hello") and os.path.join(d, "junk.pt"),
])
def test_bad_paths_raise_like_torch(tmp_path, make):
    path = make(str(tmp_path))
    with pytest.raises(Exception) as theirs:
        torch.jit.load(path)
    with pytest.raises(type(theirs.value)) as ours:
        torchlike.jit.load(path)
    assert str(ours.value) == str(theirs.value)


def test_deprecation_warnings_match_torch(tmp_path):
    import warnings

    def messages(T):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            m = T.nn.Linear(2, 2)
            T.jit.script(m)
            T.jit.save(T.jit.script(m), str(tmp_path / f"{T.__name__}.pt"))
            T.jit.load(str(tmp_path / f"{T.__name__}.pt"))
        return sorted({(x.category, str(x.message)) for x in w if issubclass(x.category, DeprecationWarning)})
    assert messages(torchlike) == messages(torch)


def test_jit_eager_api_program_prints_what_torch_prints():
    # jit.isinstance on generic types, Attribute, interface, fuser/optimized_execution blocks, set_fusion_strategy,
    # TracingCheckError's text, the module classes' hierarchy: the same lines as under torch
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs", "jit_eager_api.py")
    expected = run_program([script], runner=False, timeout=300)
    ours = run_program([script], runner=True, timeout=300)
    assert ours == expected
    assert expected[1] == "[True, False, True, True, True, False, False, True, True, True]"


def test_trace_graph_is_a_clear_not_implemented_error():
    """torch.jit._get_trace_graph (fvcore's FlopCountAnalysis traces through it) exists with torch's signature and
    says torchlike has no TorchScript tracer; torch._C.Graph/Node/Value exist for annotations and are never built."""
    assert inspect.signature(torchlike.jit._get_trace_graph) == inspect.signature(torch.jit._get_trace_graph)
    with pytest.raises(NotImplementedError, match="no TorchScript tracer"):
        torchlike.jit._get_trace_graph(torchlike.nn.Linear(2, 2), (torchlike.ones(1, 2),))
    for name in ("Graph", "Node", "Value"):
        ours = getattr(torchlike._C, name)
        assert (ours.__module__, ours.__name__) == (getattr(torch._C, name).__module__, name)
        with pytest.raises(NotImplementedError, match=f"torch._C.{name}: torchlike has no TorchScript IR"):
            ours()


def _c_knob_calls(m):
    """What a script's start-up ``torch._C`` knob calls return and read back (each set call restored after)."""
    C = m._C
    out = [C._is_tracing(), m.jit.is_tracing(),
           C._jit_set_profiling_executor(False), C._jit_set_profiling_executor(True),
           C._jit_set_profiling_mode(False), C._jit_set_profiling_mode(True),
           C._get_graph_executor_optimize(), C._set_graph_executor_optimize(False), C._get_graph_executor_optimize()]
    C._set_graph_executor_optimize(True)
    out += [C._jit_can_fuse_on_cpu(), C._jit_override_can_fuse_on_cpu(True), C._jit_can_fuse_on_cpu()]
    C._jit_override_can_fuse_on_cpu(False)
    out += [C._jit_can_fuse_on_gpu(), C._jit_override_can_fuse_on_gpu(False), C._jit_can_fuse_on_gpu()]
    C._jit_override_can_fuse_on_gpu(True)
    out += [C._jit_texpr_fuser_enabled(), C._jit_set_texpr_fuser_enabled(False), C._jit_texpr_fuser_enabled()]
    C._jit_set_texpr_fuser_enabled(True)
    out += [C._get_cudnn_enabled(), C._set_cudnn_enabled(False), m.backends.cudnn.enabled]
    C._set_cudnn_enabled(True)
    out += [C._set_grad_enabled(False), m.is_grad_enabled()]
    C._set_grad_enabled(True)
    out += [m.is_grad_enabled(), C._get_float32_matmul_precision(), C._get_deterministic_algorithms()]
    return out


def test_torch_C_tracing_and_jit_knobs_like_torch():
    """torch._C names scripts and libraries call directly: ``_is_tracing`` (asteroid-filterbanks checks it before
    each convolution), the TorchScript executor/fuser knobs (set-and-return-previous or set-and-read-back), grad
    mode, cudnn, matmul precision and determinism."""
    assert _c_knob_calls(torchlike) == _c_knob_calls(torch)


def test_traced_function_is_a_script_function_that_saves_like_torchs(tmp_path):
    # d3rlpy's save_policy: trace a closure over a module, then the traced function's own save()
    def run(T):
        T.manual_seed(0)
        net = T.nn.Linear(3, 2).requires_grad_(False)  # (torch traces no grad-requiring constant; d3rlpy freezes)

        def greedy(x):
            return net(x).argmax(dim=1)

        f = T.jit.trace(greedy, T.rand(1, 3), check_trace=False)
        g = T.jit.trace(lambda a, b: a @ b + 1, (T.ones(2, 3), T.ones(3, 2)))
        path = str(tmp_path / f"{T.__name__}.pt")
        f.save(path)
        loaded = T.jit.load(path)
        x = T.tensor([[1.0, -1.0, 0.5], [0.0, 2.0, -3.0], [0.3, 0.3, 0.3]])
        buffered = T.jit.load(io.BytesIO(g.save_to_buffer()))
        return (isinstance(f, T.jit.ScriptFunction), f.name, g.name, f(x).tolist(), loaded(x).tolist(),
                g(T.ones(1, 3), T.ones(3, 4)).tolist(), buffered(T.ones(2, 3), T.ones(3, 2)).tolist())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        assert run(torchlike) == run(torch)


def test_trace_of_a_function_warns_like_torch(tmp_path):
    def messages(T):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            f = T.jit.trace(lambda x: x * 2, T.ones(2))
            f.save(str(tmp_path / f"{T.__name__}.pt"))
        return sorted({(x.category.__name__, str(x.message)) for x in w})
    assert messages(torchlike) == messages(torch)


def test_traced_and_scripted_modules_save_themselves_like_torchs(tmp_path):
    # the TorchScript tutorial's deployment step: torch.jit.trace(model, x).save(path) / torch.jit.script(m).save
    def run(T):
        T.manual_seed(0)
        m = T.nn.Sequential(T.nn.Linear(3, 4), T.nn.Tanh(), T.nn.Linear(4, 2))
        x = T.tensor([[1.0, -1.0, 0.5], [0.0, 2.0, -3.0]])
        out = []
        for kind, compiled in (("trace", T.jit.trace(m, T.ones(1, 3))), ("script", T.jit.script(m))):
            path = str(tmp_path / f"{T.__name__}_{kind}.pt")
            compiled.save(path)
            loaded = T.jit.load(path)
            again = T.jit.load(io.BytesIO(compiled.save_to_buffer()))
            out.append((kind, loaded(x).tolist(), again(x).tolist(), sorted(loaded.state_dict())))
        return out, hasattr(T.nn.Linear(2, 2), "save")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        ours, theirs = run(torchlike), run(torch)
    assert ours[1] == theirs[1] is False
    for (kind, a, b, keys), (_, ta, tb, tkeys) in zip(ours[0], theirs[0]):
        np.testing.assert_allclose(a, ta, rtol=1e-5, atol=1e-6, err_msg=kind)
        np.testing.assert_allclose(b, ta, rtol=1e-5, atol=1e-6, err_msg=kind)
        assert keys == tkeys, kind
