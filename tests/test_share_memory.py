"""share_memory_ / Module.share_memory: tensors in shared memory are written by the processes they are passed
to (Hogwild training), checked against torch running the same program; torchlike.multiprocessing.Process
never forks a process whose JAX backend runs (the child would hang)."""
import pickle

import pytest
import torch

import torchlike
from conftest import lib_program_vs_torch


def test_hogwild_program_matches_torch():
    # torch's forked children hang when its OpenMP pool ran in the parent: one thread, as the example advises
    theirs, ours = lib_program_vs_torch("hogwild_shared_memory.py", env={"OMP_NUM_THREADS": "1"}, timeout=420,
                                        rtol=1e-5)
    assert any(ln.startswith("after spawn") for ln in ours)
    start = next(ln for ln in ours if ln.startswith("start"))
    assert start != next(ln for ln in ours if ln.startswith("after spawn"))  # the parent saw the training


@pytest.mark.parametrize("lib", [torch, torchlike], ids=["torch", "torchlike"])
def test_share_memory_in_process(lib):
    t = lib.arange(6.0).reshape(2, 3)
    assert not t.is_shared()
    assert t.share_memory_() is t and t.is_shared()
    d = t.data
    assert d.is_shared()
    d.add_(1)
    t.mul_(2)
    assert t.tolist() == [[2.0, 4.0, 6.0], [8.0, 10.0, 12.0]] and d.tolist() == t.tolist()
    assert t[0].tolist() == [2.0, 4.0, 6.0]
    c = pickle.loads(pickle.dumps(t))  # a plain pickle is a copy
    c.add_(1)
    assert t.tolist() == [[2.0, 4.0, 6.0], [8.0, 10.0, 12.0]]
    m = lib.nn.Linear(2, 2)
    assert m.share_memory() is m and m.weight.is_shared() and m.weight.requires_grad
    with lib.no_grad():
        m.weight.zero_()
    assert m.weight.sum().item() == 0 and type(m.weight) is lib.nn.Parameter
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        m.weight.add_(1)


def test_shared_tensor_autograd_reads_current_value():
    w = torchlike.nn.Parameter(torchlike.ones(3)).share_memory_()
    with torchlike.no_grad():
        w.mul_(3)
    (w * w).sum().backward()
    assert w.grad.tolist() == torch.full((3,), 6.0).tolist()


def test_compiled_step_on_shared_parameters_matches_torch():
    def run(lib):
        lib.manual_seed(0)
        m = lib.nn.Linear(3, 2)
        m.share_memory()
        opt = lib.optim.SGD(m.parameters(), lr=0.1)

        @lib.compile
        def step(x):
            opt.zero_grad()
            loss = m(x).sum()
            loss.backward()
            opt.step()
            return loss

        losses = [round(float(step(lib.ones(4, 3))), 4) for _ in range(3)]
        return losses, round(float(m.weight.sum()), 4), m.weight.is_shared()

    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert run(torchlike) == run(torch)
