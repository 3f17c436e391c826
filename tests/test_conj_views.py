"""torch's conjugate and negative bits: ``x.conj()`` is a view (``is_conj``), writes through it reach ``x``
conjugated, ``x.conj().imag`` is a negative view, ``resolve_conj``/``resolve_neg`` materialise, ``numpy()`` and
``view_as_real`` refuse a conjugate view, and the bits survive ``torch.save``/``torch.load`` both ways."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import torchlike  # noqa: E402

from conftest import raises_like_torch  # noqa: E402

VALUES = [1 + 2j, 3 - 1j, -0.5 + 0.25j]


def _both(fn):
    """``fn(lib, x)`` for torch and torchlike on the same complex64 ``x``: the results and the ``x``s after."""
    out = {}
    for lib in (torch, torchlike):
        x = lib.tensor(VALUES, dtype=lib.complex64)
        out[lib] = (fn(lib, x), x)
    return out[torch], out[torchlike]


def _same(a, b):
    if isinstance(a, tuple):
        assert len(a) == len(b)
        for p, q in zip(a, b):
            _same(p, q)
    elif isinstance(a, torch.Tensor):
        assert tuple(a.shape) == tuple(b.shape) and str(a.dtype) == str(b.dtype)
        np.testing.assert_array_equal(b.resolve_conj().resolve_neg().detach().numpy(),
                                      a.resolve_conj().resolve_neg().detach().numpy())
    else:
        assert a == b


BITS = {
    "conj": lambda L, x: x.conj().is_conj(),
    "function": lambda L, x: L.is_conj(L.conj(x)),
    "plain": lambda L, x: x.is_conj(),
    "conj of conj": lambda L, x: x.conj().conj().is_conj(),
    "views keep it": lambda L, x: (x.conj()[1:].is_conj(), x.conj().view(3, 1).is_conj(), x.conj().unsqueeze(0).is_conj(),
                                   x.conj().reshape(3).is_conj(), x.conj().detach().is_conj()),
    "copies drop it": lambda L, x: (x.conj().clone().is_conj(), (x.conj() + 1).is_conj(), x.conj().resolve_conj().is_conj(),
                                    x.conj().to(L.complex128).is_conj(), x.conj_physical().is_conj()),
    "is a view of x": lambda L, x: (x.conj()._is_view(), x.conj()._base is x, x.conj().conj()._base is x),
    "real input": lambda L, x: (x.real.conj().is_conj(), x.real.conj() is not None and x.real.conj()._is_view()),
    "negative bit": lambda L, x: (x.conj().imag.is_neg(), x.conj().real.is_neg(), x.imag.is_neg(),
                                  x.conj().imag.resolve_neg().is_neg(), x.real._neg_view().is_neg()),
    "resolve of plain is itself": lambda L, x: (x.resolve_conj() is x, x.resolve_neg() is x),
    "adjoint is a conjugate view": lambda L, x: (x.view(3, 1).mH.is_conj(), x.view(3, 1).adjoint().is_conj()),
}


@pytest.mark.parametrize("case", list(BITS), ids=list(BITS))
def test_bits_match_torch(case):
    (t, _), (o, _) = _both(BITS[case])
    assert o == t


VALUES_AND_WRITES = {
    "read": lambda L, x: x.conj(),
    "imag of conj": lambda L, x: x.conj().imag,
    "setitem": lambda L, x: x.conj().__setitem__(0, 5 + 1j),
    "in-place op": lambda L, x: x.conj().mul_(2),
    "fill_": lambda L, x: x.conj().fill_(1 + 1j),
    "copy_": lambda L, x: x.conj().copy_(L.tensor([2 + 3j, 4 + 5j, 6 + 7j])),
    "add_ imaginary": lambda L, x: x.conj().add_(1j),
    "write into a slice": lambda L, x: x.conj()[1:].zero_(),
    "write into imag of conj": lambda L, x: x.conj().imag.fill_(7),
    "write into a negative view": lambda L, x: x.real._neg_view().fill_(4),
    "conj of conj writes plainly": lambda L, x: x.conj().conj().fill_(2j),
    "resolve does not alias": lambda L, x: x.conj().resolve_conj().fill_(9),
}


@pytest.mark.parametrize("case", list(VALUES_AND_WRITES), ids=list(VALUES_AND_WRITES))
def test_values_and_writes_through_match_torch(case):
    (rt, xt), (ro, xo) = _both(VALUES_AND_WRITES[case])
    _same(xt, xo)
    if rt is not None:
        _same(rt, ro)


REFUSALS = {
    "numpy of conj": lambda L: L.tensor([1j]).conj().numpy(),
    "asarray of conj": lambda L: np.asarray(L.tensor([1j]).conj()),
    "numpy of negative view": lambda L: L.tensor([1j]).conj().imag.numpy(),
    "view_as_real of conj": lambda L: L.view_as_real(L.tensor([1j]).conj()),
}


@pytest.mark.parametrize("case", list(REFUSALS), ids=list(REFUSALS))
def test_refusals_match_torch(case):
    raises_like_torch(REFUSALS[case])


def test_numpy_force_resolves_bits_like_torch():
    for lib in (torch, torchlike):
        x = lib.tensor(VALUES)
        np.testing.assert_array_equal(x.conj().numpy(force=True), np.conj(np.array(VALUES, np.complex64)))
        np.testing.assert_array_equal(x.conj().imag.numpy(force=True), -np.imag(np.array(VALUES, np.complex64)))


def test_gradient_through_a_conjugate_view_matches_torch():
    grads = {}
    for lib in (torch, torchlike):
        a = lib.tensor(VALUES, requires_grad=True)
        c = a.conj()
        assert c.is_conj() and type(c.grad_fn).__name__ == "ConjBackward0"
        (c * lib.tensor([1j, 2, -1 + 1j])).real.sum().backward()
        grads[lib] = a.grad.resolve_conj()  # (torch's gradient is itself a conjugate view)
    np.testing.assert_allclose(grads[torchlike].numpy(), grads[torch].numpy())


@pytest.mark.parametrize("writer,reader", [("torch", "torchlike"), ("torchlike", "torch"), ("torchlike", "torchlike")])
def test_saved_bits_cross_with_torch(tmp_path, writer, reader):
    W, R = (torch if writer == "torch" else torchlike), (torch if reader == "torch" else torchlike)
    x = W.tensor(VALUES)
    W.save({"x": x, "y": x.conj(), "tail": x.conj()[1:], "n": W.tensor([1.0, -2.0])._neg_view()}, tmp_path / "c.pt")
    d = R.load(tmp_path / "c.pt")
    assert (d["y"].is_conj(), d["tail"].is_conj(), d["n"].is_neg(), d["x"].is_conj()) == (True, True, True, False)
    np.testing.assert_array_equal(d["y"].resolve_conj().numpy(), np.conj(np.array(VALUES, np.complex64)))
    np.testing.assert_array_equal(d["tail"].resolve_conj().numpy(), np.conj(np.array(VALUES[1:], np.complex64)))
    np.testing.assert_array_equal(d["n"].resolve_neg().numpy(), [-1.0, 2.0])


def test_pickle_keeps_the_bits_like_torch():
    """Plain pickling (multiprocessing, copy) of a conjugate or negative view gives one back, as torch's."""
    import pickle
    seen = {}
    for lib in (torch, torchlike):
        x = lib.tensor(VALUES)
        rows = []
        for t in (x.conj(), x.conj()[1:], x.conj().imag, x, lib.tensor([1.0, -2.0])._neg_view()):
            p = pickle.loads(pickle.dumps(t))
            rows.append((p.is_conj(), p.is_neg(), p.resolve_conj().resolve_neg().tolist()))
        seen[lib] = rows
    assert seen[torchlike] == seen[torch]
