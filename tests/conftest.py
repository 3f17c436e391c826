import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torchlike  # noqa: E402

torch.set_num_threads(1)


def to_torch(t):
    """A torch tensor with the same values/dtype as a torchlike tensor (through numpy)."""
    a = np.asarray(t.detach()._value)
    if t.dtype is torchlike.bfloat16:
        return torch.from_numpy(a.astype(np.float32)).to(torch.bfloat16)
    return torch.from_numpy(a.copy())


def to_tl(t, requires_grad=False):
    """The torchlike twin of a torch tensor."""
    if t.dtype == torch.bfloat16:
        out = torchlike.tensor(t.detach().float().numpy()).to(torchlike.bfloat16)
    else:
        out = torchlike.tensor(t.detach().numpy())
    return out.requires_grad_(requires_grad) if requires_grad else out


def assert_same(ours, theirs, rtol=1e-5, atol=1e-6):
    """Values, shape and dtype of a torchlike tensor equal torch's."""
    assert str(ours.dtype) == str(theirs.dtype), (ours.dtype, theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape), (ours.shape, theirs.shape)
    torch.testing.assert_close(to_torch(ours), theirs.detach(), rtol=rtol, atol=atol, equal_nan=True)
