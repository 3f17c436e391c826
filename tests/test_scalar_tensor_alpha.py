"""``alpha=`` of add/sub (and their in-place forms) given as a 0-dim tensor is a Scalar to torch — optimizers
(torch-optimizer's Lamb, LARS-style trust ratios) pass ``alpha=-lr * trust_ratio`` with ``trust_ratio`` a
tensor. Values, dtype and the errors for a 1-element 1-d tensor, a tensor requiring grad, and a float
tensor alpha with integer inputs are torch's."""
import pytest

torch = pytest.importorskip("torch", reason="the expected behaviour comes from torch")
import torchlike  # noqa: E402


def _run(t):
    out = []
    x, y = t.ones(3), t.arange(3.0)
    a = t.tensor(0.5)
    out += [t.add(x, y, alpha=a), t.sub(x, y, alpha=a), x.clone().add_(y, alpha=a),
            x.clone().sub_(y, alpha=t.tensor(2.0)), t.add(t.ones(2, dtype=t.int64), 1, alpha=t.tensor(3)),
            t.add(x.double(), y, alpha=t.tensor(0.25, dtype=t.float16))]
    w = t.ones(3, requires_grad=True)
    r = t.add(w, y * 2, alpha=t.tensor(2.0))
    r.sum().backward()
    out += [w.grad, r.requires_grad]
    for bad in (lambda: t.add(x, y, alpha=t.ones(1)), lambda: t.add(x, y, alpha=t.tensor(1.0, requires_grad=True)),
                lambda: t.add(t.ones(2, dtype=t.int64), 1, alpha=t.tensor(0.5))):
        try:
            bad()
            out.append("no error")
        except (TypeError, RuntimeError) as e:
            out.append(f"{type(e).__name__}: {e}")
    return out


def test_tensor_alpha_is_a_scalar_like_torch():
    want, got = _run(torch), _run(torchlike)
    for w, g in zip(want, got):
        if isinstance(w, torch.Tensor):
            assert str(g.dtype) == str(w.dtype) and g.tolist() == pytest.approx(w.tolist())
        else:
            assert g == w
