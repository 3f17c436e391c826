"""torch's deprecated positional-scalar overloads, as old optimizers and the word_language_model example
call them (``p.data.add_(-lr, p.grad.data)``): same values as torch, a UserWarning, and torch's TypeError
for a combination no overload takes."""
import warnings

import numpy as np
import pytest

import torchlike

torch = pytest.importorskip("torch", reason="expected values come from real torch")

CASES = [
    ("add", lambda t, a, b, m, v: t.add(a, 2, b)),
    ("sub", lambda t, a, b, m, v: t.sub(a, 2, b)),
    ("Tensor.add_", lambda t, a, b, m, v: a.clone().add_(-0.5, b)),
    ("Tensor.sub_", lambda t, a, b, m, v: a.clone().sub_(3, b)),
    ("addcmul", lambda t, a, b, m, v: t.addcmul(a, 0.1, b, b)),
    ("Tensor.addcmul_", lambda t, a, b, m, v: a.clone().addcmul_(0.1, b, b)),
    ("Tensor.addcdiv_", lambda t, a, b, m, v: a.clone().addcdiv_(-0.3, b, a + 2)),
    ("addmm beta,input,alpha", lambda t, a, b, m, v: t.addmm(2, m, 3, m, m)),
    ("addmm beta,input", lambda t, a, b, m, v: t.addmm(0.5, m, m, m)),
    ("Tensor.addmm_", lambda t, a, b, m, v: m.clone().addmm_(2, 3, m, m)),
    ("addmv", lambda t, a, b, m, v: t.addmv(1, v, 2, m, v)),
    ("baddbmm", lambda t, a, b, m, v: t.baddbmm(1, m[None], 2, m[None], m[None])),
    ("addbmm", lambda t, a, b, m, v: t.addbmm(3, m, 1, m[None], m[None])),
    ("addr", lambda t, a, b, m, v: t.addr(2, m, 1, v, v)),
]


def _inputs(t):
    a = t.tensor([1.0, -2.0, 0.5])
    b = t.tensor([0.25, 4.0, -1.5])
    m = t.tensor([[1.0, 2.0], [3.0, -1.0]])
    v = t.tensor([0.5, -2.0])
    return a, b, m, v


@pytest.mark.parametrize("name,call", CASES, ids=[c[0] for c in CASES])
def test_deprecated_scalar_overload_matches_torch(name, call):
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        expected = call(torch, *_inputs(torch))
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        got = call(torchlike, *_inputs(torchlike))
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-6)


# each call as a statement (with a, b, m, v bound), for the warning checks run in fresh torch processes
CALLS = ["a.add_(1, b)", "torch.add(a, 2, b)", "a.add(2, b)", "torch.sub(a, 2, b)", "a.sub_(3, b)",
         "a.addcmul_(0.1, b, b)", "torch.addcmul(a, 0.1, b, b)", "a.addcdiv_(0.1, b, b)", "torch.addcdiv(a, 0.1, b, b)",
         "torch.addmm(2, m, 3, m, m)", "torch.addmm(0.5, m, m, m)", "m.addmm_(2, 3, m, m)", "m.addmm(2, m, m)",
         "torch.addmv(1, v, 2, m, v)", "torch.baddbmm(1, m[None], 2, m[None], m[None])",
         "m[None].baddbmm(2, m[None], m[None])", "torch.addbmm(3, m, 1, m[None], m[None])", "torch.addr(2, m, 1, v, v)",
         "m.addr_(2, 1, v, v)"]

# torch warns once per process: each call runs (twice, then once more after another deprecated call) in a
# child forked from a process that has imported torch and warned about nothing yet
_TORCH_WARNINGS = r"""
import json, os, sys, warnings
import torch
for call in json.loads(sys.argv[1]):
    r, w = os.pipe()
    if os.fork() == 0:
        a, b = torch.tensor([1.0, -2.0, 0.5]), torch.tensor([0.25, 4.0, -1.5])
        m, v = torch.tensor([[1.0, 2.0], [3.0, -1.0]]), torch.tensor([0.5, -2.0])
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            exec(call); exec(call); exec("a.add_(2, b)")
        os.write(w, json.dumps([[x.category.__name__, str(x.message)] for x in got]).encode())
        os._exit(0)
    os.close(w)
    out = b"".join(iter(lambda: os.read(r, 65536), b""))
    os.wait()
    print(out.decode())
"""


def test_deprecated_overload_warns_once_per_process_with_torchs_text():
    """The first deprecated call of a process warns with torch's text for the surface called (function,
    method or in-place method, its arguments named in call order, the replacement signatures); later deprecated
    calls, of any op, are silent."""
    import json
    import subprocess
    import sys
    from torchlike._ops import legacy_overloads
    res = subprocess.run([sys.executable, "-c", _TORCH_WARNINGS, json.dumps(CALLS)], capture_output=True, text=True,
                         timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    expected = [json.loads(line) for line in res.stdout.splitlines() if line.strip()]
    assert len(expected) == len(CALLS)
    for call, exp in zip(CALLS, expected):
        a, b = torchlike.tensor([1.0, -2.0, 0.5]), torchlike.tensor([0.25, 4.0, -1.5])
        m, v = torchlike.tensor([[1.0, 2.0], [3.0, -1.0]]), torchlike.tensor([0.5, -2.0])
        legacy_overloads._warned.clear()  # a fresh process, as torch's side
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            for c in (call, call, "a.add_(2, b)"):
                exec(c, {"torch": torchlike, "a": a, "b": b, "m": m, "v": v})
        assert [[x.category.__name__, str(x.message)] for x in got] == exp, call
        assert len(exp) == 1, exp


def test_deprecated_overload_gradient_matches_torch():
    def run(t):
        x = t.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = t.tensor([0.5, -1.0, 2.0], requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            (t.add(x, -0.5, y * y).sum() + t.addcmul(x, 2, x, y).sum()).backward()
        return x.grad.numpy(), y.grad.numpy()
    for e, g in zip(run(torch), run(torchlike)):
        np.testing.assert_allclose(g, e, rtol=1e-6)


def test_sgd_step_in_old_style_matches_torch():
    """The manual SGD update of pytorch/examples' word_language_model: ``p.data.add_(-lr, p.grad.data)``."""
    def run(t):
        t.manual_seed(0)
        lin = t.nn.Linear(4, 3)
        x = t.randn(5, 4)
        for _ in range(3):
            lin.zero_grad()
            lin(x).pow(2).mean().backward()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for p in lin.parameters():
                    p.data.add_(-0.1, p.grad.data)
        return lin.weight.detach().numpy()
    np.testing.assert_allclose(run(torchlike), run(torch), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("call", [lambda t, a: t.add(a, a, a), lambda t, a: a.addcmul(1, 2, a, a),
                                  lambda t, a: t.addmm(1, a, "x", a, a)])
def test_bad_combination_is_type_error_like_torch(call):
    with pytest.raises(TypeError):
        call(torch, torch.ones(2, 2))
    with pytest.raises(TypeError, match="invalid combination of arguments"):
        call(torchlike, torchlike.ones(2, 2))


@pytest.mark.parametrize("call", [lambda t, v: v.add(t.tensor(2.), t.tensor(5.)),
                                  lambda t, v: t.addcmul(v, t.tensor(2.), v, v),
                                  lambda t, v: t.addmm(t.tensor(2.), v[None].T @ v[None], t.tensor(3), v[None].T @ v[None],
                                                       v[None].T @ v[None]),
                                  lambda t, v: v.clone().sub_(t.tensor(3), v)])
def test_zero_d_tensor_stands_for_the_scalar_like_torch(call):
    """A 0-d tensor that requires no grad stands for the deprecated overloads' Number (``x.add(tensor(2.), y)``),
    as torch's parser takes it."""
    def run(t):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return call(t, t.ones(2)).tolist()
    assert run(torchlike) == run(torch)


@pytest.mark.parametrize("call", [lambda t, v: v.add(t.tensor(2., requires_grad=True), t.tensor(5.)),
                                  lambda t, v: v.add(t.tensor([2.]), t.tensor(5.))])
def test_tensor_that_cannot_be_the_scalar_is_type_error(call):
    for t in (torch, torchlike):
        with pytest.raises(TypeError):
            call(t, t.ones(2))


_TRAILING = [lambda t, m, v: t.addmm(m, m, m, 2, 3), lambda t, m, v: t.addmv(v, m, v, 2, 3),
             lambda t, m, v: t.addr(m, v, v, 2, 3), lambda t, m, v: t.baddbmm(m[None], m[None], m[None], 2, 3),
             lambda t, m, v: t.addbmm(m, m[None], m[None], 2, 3), lambda t, m, v: t.addcmul(v, v, v, 2),
             lambda t, m, v: t.addcdiv(v, v, v, 2), lambda t, m, v: m.addmm(m, m, 2, 3),
             lambda t, m, v: v.addmv(m, v, 2, 3), lambda t, m, v: t.addmv(v, m, v, 2)]


@pytest.mark.parametrize("k", range(len(_TRAILING)))
def test_trailing_scalars_are_no_overload_as_in_torch(k):
    """torch 2.x's deprecated forms put beta before input and alpha before the tensors: trailing scalars
    (``addmm(input, mat1, mat2, beta, alpha)``) are its parser's TypeError, whose message lists no deprecated
    overload ("addmv() takes 3 positional arguments but 5 were given")."""
    messages = []
    for t in (torch, torchlike):
        m, v = t.ones(2, 2), t.ones(2)
        with pytest.raises(TypeError) as e, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _TRAILING[k](t, m, v)
        messages.append(str(e.value))
    assert messages[1] == messages[0]
