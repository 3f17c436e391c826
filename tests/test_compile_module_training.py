"""``model = torch.compile(model)`` in a nanoGPT-style training loop, against real torch eager.

The compiled module's forward is one program saving its residuals and its backward one program (one
``CompiledFunctionBackward`` tape node); a steady step compiles nothing new.
"""
import importlib.util
import os

import jax
import numpy as np
import pytest
import torch

import torchlike
from torchlike import _jit_cache
from torchlike.compile import _aot

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("bench_nanogpt", os.path.join(HERE, "..", "bench", "bench_nanogpt.py"))
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)

SMALL = dict(n_layer=2, n_head=2, n_embd=32, block_size=16, vocab_size=29)


def _setup(T, compiled, dropout=0.0, seed=0):
    T.manual_seed(seed)
    model = bench.build(T, dropout=dropout, **SMALL)
    opt = model.configure_optimizers(0.1, 1e-2, (0.9, 0.99))
    run = T.compile(model) if compiled else model
    g = np.random.default_rng(seed)
    batches = [(T.tensor(g.integers(0, SMALL["vocab_size"], (3, 16))),
                T.tensor(g.integers(0, SMALL["vocab_size"], (3, 16)))) for _ in range(3)]
    return model, run, opt, batches


def _step(T, model, run, opt, X, Y):
    _, loss = run(X, Y)
    loss.backward()
    grads = {n: p.grad.detach().numpy().copy() for n, p in model.named_parameters()}
    norm = T.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    opt.zero_grad(set_to_none=True)
    return loss.item(), norm.item(), grads


def _close_after_adam(got, want, name, lr=1e-2, steps=4):
    """Parameters after a few AdamW steps: Adam divides by sqrt(v), so an entry whose gradient is ~0 (the
    attention's key bias has true gradient 0) turns float32 rounding noise into a step of up to ``lr``.
    Nearly all entries must agree tightly; none may differ by more than the steps could move it."""
    diff = np.abs(got - want)
    if name.endswith("c_attn.bias"):  # its key slice is all noise: held to the bound below only
        e = SMALL["n_embd"]
        assert diff[e:2 * e].max() <= lr * steps, name
        got, want, diff = (np.concatenate([v[:e], v[2 * e:]]) for v in (got, want, diff))
    loose = diff > 1e-5 + 1e-4 * np.abs(want)
    assert loose.mean() < 0.02, (name, loose.mean(), diff.max())
    assert diff.max() <= lr * steps, (name, diff.max())


def _executables():  # executables compiled so far (live counts drop when tiered programs settle)
    return _jit_cache.cache_info()["compiled"]


def test_compiled_module_training_matches_torch_eager():
    ref = _setup(torch, False)
    got = _setup(torchlike, True)
    for k in range(4):
        X, Y = ref[3][k % 3]
        lr, nr, gr = _step(torch, *ref[:3], X, Y)
        X, Y = got[3][k % 3]
        lg, ng, gg = _step(torchlike, *got[:3], X, Y)
        np.testing.assert_allclose(lg, lr, rtol=1e-5)
        np.testing.assert_allclose(ng, nr, rtol=1e-4)
        assert gg.keys() == gr.keys()
        for n in gr:
            np.testing.assert_allclose(gg[n], gr[n], rtol=2e-3, atol=2e-6, err_msg=n)
    for (n, a), (n2, b) in zip(ref[0].named_parameters(), got[0].named_parameters()):
        assert n == n2
        _close_after_adam(b.detach().numpy(), a.detach().numpy(), n)
    # the wrapper's state_dict carries torch's `_orig_mod.` prefix; the values are the trained ones
    tsd = torch.compile(ref[0]).state_dict()
    sd = got[1].state_dict()
    assert list(sd) == list(tsd)
    for k in tsd:
        _close_after_adam(sd[k].numpy(), tsd[k].numpy(), k)


def test_compiled_module_backward_is_one_node_and_steady_steps_compile_nothing():
    model, run, opt, batches = _setup(torchlike, True)
    for k in range(2):
        _step(torchlike, model, run, opt, *batches[k])
    count, builds, exe = run._compiled.compile_count, dict(_aot.stats), _executables()
    for k in range(3):
        X, Y = batches[k]
        _, loss = run(X, Y)
        node = loss.grad_fn
        assert type(node).__name__ == "CompiledFunctionBackward"
        # every parameter's gradient comes straight from that one node (no per-op nodes in between)
        leaves = {id(e[0].variable) for e in node.next_functions if e[0] is not None}
        assert {id(p) for p in model.parameters()} <= leaves
        loss.backward()
        torchlike.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
    assert run._compiled.compile_count == count
    assert _aot.stats == builds
    assert _executables() == exe


def test_compiled_module_train_eval_switch_and_dropout():
    ref = _setup(torch, False, dropout=0.3)
    model, run, opt, batches = _setup(torchlike, True, dropout=0.3)
    X, Y = batches[0]
    model.eval()
    ref[0].eval()
    with torchlike.no_grad():
        le = run(X, Y)[1].item()
    with torch.no_grad():
        np.testing.assert_allclose(le, ref[1](*ref[3][0])[1].item(), rtol=1e-5)
    model.train()
    lt = [run(X, Y)[1].item() for _ in range(2)]
    assert lt[0] != lt[1] and le not in lt  # dropout is on in training mode, with fresh masks per call
    count = run._compiled.compile_count
    model.eval()
    with torchlike.no_grad():
        assert run(X, Y)[1].item() == pytest.approx(le, rel=1e-6)
    model.train()
    run(X, Y)[1].backward()
    assert run._compiled.compile_count == count  # both modes' programs were reused
    assert all(p.grad is not None for p in model.parameters())


def test_compiled_module_forward_hook_and_input_grad():
    results = []
    for T in (torch, torchlike):
        T.manual_seed(0)
        m = T.nn.Sequential(T.nn.Linear(5, 7), T.nn.GELU(), T.nn.LayerNorm(7), T.nn.Linear(7, 3))
        m[1].register_forward_hook(lambda mod, args, out: out * 2.0)
        x = T.tensor(np.linspace(-2, 2, 20, dtype=np.float32).reshape(4, 5), requires_grad=True)
        run = T.compile(m, backend="aot_eager") if T is torch else T.compile(m)
        out = run(x)
        (out * out).sum().backward()
        results.append((out.detach().numpy(), x.grad.numpy(), [p.grad.numpy() for p in m.parameters()],
                        type(out.grad_fn).__name__))
    (o1, x1, g1, n1), (o2, x2, g2, n2) = results
    np.testing.assert_allclose(o2, o1, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(x2, x1, rtol=1e-4, atol=1e-6)
    for a, b in zip(g2, g1):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)
    assert n2 == n1


def test_compiled_module_retain_graph_accumulates():
    results = []
    for T in (torch, torchlike):
        T.manual_seed(0)
        m = T.nn.Sequential(T.nn.Linear(3, 4), T.nn.Tanh(), T.nn.Linear(4, 1))
        # (torch's compiled backward donates buffers and refuses retain_graph: eager torch is the reference)
        run = m if T is torch else T.compile(m)
        x = T.tensor([[0.5, -1.0, 2.0], [1.0, 0.0, -0.5]], requires_grad=True)
        y = run(x).sum()
        y.backward(retain_graph=True)
        y.backward()  # accumulates a second time from the same node
        results.append((m[0].weight.grad.numpy().copy(), x.grad.numpy().copy()))
    for a, b in zip(*results):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)


def test_compiled_module_changing_batch_size_gradients_match_torch():
    """After a batch-size change the module runs a dynamic (symbolic dim 0) program; its backward too."""
    results = []
    for T in (torch, torchlike):
        T.manual_seed(0)
        m = T.nn.Sequential(T.nn.Linear(3, 4), T.nn.GELU(), T.nn.Linear(4, 2))
        run = m if T is torch else T.compile(m)
        row = []
        for b in (2, 3, 5, 3):
            x = T.tensor(np.linspace(-1, 1, 3 * b, dtype=np.float32).reshape(b, 3))
            m.zero_grad()
            out = run(x)
            (out * out).sum().backward()
            row.append([p.grad.numpy().copy() for p in m.parameters()] + [out.detach().numpy()])
        results.append(row)
    for ra, rb in zip(*results):
        for a, b in zip(ra, rb):
            np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)


def test_compiled_module_forward_saves_its_inputs_without_copies():
    """The forward program does not return copies of its inputs (each Linear's weight, saved for the
    backward) or transposed weights: the backward reads the parameters' own arrays.  The gradients
    equal torch's; a parameter donated before the backward raises torch's in-place error."""
    results = []
    for T in (torch, torchlike):
        T.manual_seed(0)
        m = T.nn.Sequential(T.nn.Linear(6, 8), T.nn.GELU(), T.nn.Linear(8, 3))
        run = T.compile(m, backend="aot_eager") if T is torch else T.compile(m)
        x = T.tensor(np.linspace(-1, 1, 24, dtype=np.float32).reshape(4, 6), requires_grad=True)
        out = run(x)
        if T is torchlike:
            node = out.grad_fn
            saved = {id(a) for a in node._inputs_saved}
            assert id(m[0].weight._value) in saved and id(m[2].weight._value) in saved
            leaves = {id(a) for a in jax.tree_util.tree_leaves(node._pb)}
            assert id(m[2].weight._value) in leaves
        (out * out).sum().backward()
        results.append([t.detach().numpy().copy() for t in (x.grad, m[0].weight.grad, m[2].weight.grad, m[2].bias.grad)])
    for a, b in zip(*results):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-7)
    out = run(x)
    m[2].weight._value.delete()  # what a later program donating the old array does
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


@pytest.mark.parametrize("share", ["numpy", "share_memory", "activation"])
def test_compiled_module_after_numpy_or_shared_memory_alias(share):
    """llm.c's train_gpt2.py writes its parameters with ``p.detach().cpu().numpy().tobytes()`` between calls
    of the compiled model: a parameter whose storage became a numpy array (or a shared mapping) must still
    get its gradient from the compiled forward (it lost it: the loss had no grad_fn), the optimizer's write
    must still reach the array, and a non-leaf argument aliased by numpy() keeps its grad_fn (it lost it too)."""
    def run(T):
        T.manual_seed(0)
        m = T.nn.Sequential(T.nn.Linear(4, 5), T.nn.Tanh(), T.nn.Linear(5, 3))
        opt = T.optim.SGD(m.parameters(), lr=0.5)
        cm = T.compile(m)
        x = T.randn(6, 4)
        y = T.tensor([0, 1, 2, 0, 1, 2])
        T.nn.functional.cross_entropy(cm(x), y).backward()
        arrays = []
        if share == "share_memory":
            m.share_memory()
        elif share == "numpy":
            arrays = [p.detach().cpu().numpy() for p in m.parameters()]  # shares memory, as in torch
        opt.zero_grad(set_to_none=True)
        scale = T.ones(()).requires_grad_()
        out = []
        for _ in range(2):
            h = x * (scale * 2)  # a non-leaf read by the compiled function, aliased by numpy() first
            if share == "activation":
                h.detach().numpy()
            loss = T.nn.functional.cross_entropy(cm(h), y) / 2
            loss.backward()
            out.append(loss.item())
        out += [p.grad.sum().item() for p in m.parameters()] + [scale.grad.item()]
        opt.step()
        out += [p.detach().sum().item() for p in m.parameters()]
        out += [float(a.sum()) for a in arrays]  # the arrays see the optimizer's write
        return out

    ours, theirs = run(torchlike), run(torch)
    assert len(ours) == len(theirs)
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)
