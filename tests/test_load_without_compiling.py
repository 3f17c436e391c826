"""Loading a checkpoint compiles no XLA program: ``torch.load`` arranges each storage's bytes on the host and
moves them once, and ``load_state_dict``'s same-shape, same-dtype copies take the saved array itself.  Before,
every distinct parameter shape cost one or two compilations (a 60-shape model: ~5 s of ``load_state_dict`` and
~3 s of ``torch.load`` under load, against torch's ~2 ms and ~40 ms).  Values, aliasing and autograd are
checked against real torch."""
import io

import numpy as np
import pytest

import torchlike

torch = pytest.importorskip("torch", reason="torch is the oracle")


def _models(lib, n=12):
    lib.manual_seed(0)
    return lib.nn.Sequential(*[lib.nn.Linear(5 + i, 6 + i) for i in range(n)])


def test_torch_load_and_load_state_dict_compile_nothing_and_match_torch():
    theirs = _models(torch)
    buf = io.BytesIO()
    torch.save({k: v * 2 + 1 for k, v in theirs.state_dict().items()}, buf)
    ours = _models(torchlike)
    before = torchlike.cache_info()["compiled"]
    sd = torchlike.load(io.BytesIO(buf.getvalue()))
    result = ours.load_state_dict(sd)
    assert torchlike.cache_info()["compiled"] == before
    assert not result.missing_keys and not result.unexpected_keys
    theirs.load_state_dict(torch.load(io.BytesIO(buf.getvalue())))
    for (k, a), (k2, b) in zip(ours.state_dict().items(), theirs.state_dict().items()):
        assert k == k2
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_copy_fast_path_keeps_torch_semantics():
    """The value-taking copy is only for same shape and dtype without autograd: the source stays independent,
    views of the destination see the copy, version counters move, and a copy that must record still does."""
    for lib in (torch, torchlike):
        dst = lib.zeros(2, 3)
        view = dst[1]
        src = lib.arange(6.0).reshape(2, 3)
        v0 = dst._version
        dst.copy_(src)
        src.add_(100)                      # the source moves on alone
        assert dst.tolist() == [[0, 1, 2], [3, 4, 5]] and view.tolist() == [3, 4, 5]
        assert dst._version == v0 + 1
        p = lib.nn.Parameter(lib.ones(2))
        with lib.no_grad():
            p.copy_(lib.tensor([5.0, 6.0]))
        assert p.tolist() == [5, 6] and p.requires_grad and p.grad_fn is None
        leaf = lib.tensor([1.0, 2.0], requires_grad=True)
        out = lib.zeros(2)
        out.copy_(leaf * 3)                # records: the copy's gradient reaches the leaf
        out.sum().backward()
        assert leaf.grad.tolist() == [3.0, 3.0] and type(out.grad_fn).__name__ == "CopyBackwards"
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
            lib.ones(2, requires_grad=True).copy_(lib.zeros(2))
