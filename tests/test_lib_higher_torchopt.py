"""higher (MAML on sine regression with differentiable SGD/Adam inner loops, second-order meta-gradients,
``fmodel(x, params=...)``, ``monkeypatch``, ``get_diff_optim``) and torchopt (functional ``adam`` with
``apply_updates``, ``MetaSGD``/``MetaAdam``, ``extract_state_dict``/``recover_state_dict``, ``FuncOptimizer`` over
``functional_call``, a chained Optimizer with a schedule, AdamW, implicit differentiation through a CG solve,
zero-order gradients, its accelerated Adam op's pure-Python fallback) under the drop-in runner, compared line by
line with the same program under real torch."""
from conftest import lib_program_vs_torch


def test_higher_and_torchopt_meta_learning_like_torch():
    _, ours = lib_program_vs_torch("lib_higher_torchopt.py", "torch", "higher", "torchopt", timeout=600, rtol=1e-4)
    assert len(ours) == 35, ours
    assert [line.split(" query")[0] for line in ours[:3]] == [f"higher sgd iter {i}" for i in range(3)]
    assert all(float(line.split()[-1]) > 0 for line in ours[:3])            # second-order meta-gradients flow
    assert ours[3] == "higher fast weights 6 history 3 FunctionalSequential 6"
    assert ours[6].startswith("higher first-order requires_grad True True")
    assert ours[8] == "higher adam copy leaves True"
    assert ours[11].startswith("higher bn/lstm query") and ours[11].endswith("lstm grads True"), ours[11]
    assert ours[16] == "torchopt adam state ScaleByAdamState 4"
    assert "nan" not in ours[17] and "nan" not in ours[18], ours[17:19]    # MetaSGD / MetaAdam meta-gradients
    assert ours[19] == "torchopt extract copy 3 ['bias', 'weight'] True True True"
    assert ours[23] == "torchopt funcoptimizer grad path True"              # autograd.grad of a dict of inputs
    assert ours[30] == "torchopt adamw state_dict tuple 1"
    assert ours[31].startswith("torchopt implicit ridge") and ours[32].startswith("torchopt zero-order")
    assert ours[-1] == "torchopt accelerated available True"                # the extension's pure-Python fallback


def test_distributed_autograd_answers_as_a_torch_without_rpc():
    """torchopt imports ``torch.distributed.autograd`` (``context``, ``is_available``) at import time."""
    import torchlike.distributed.autograd as dist_autograd
    assert dist_autograd.is_available() is False
    assert dist_autograd.__all__ == ["context", "is_available"]  # torch's __all__
    try:
        with dist_autograd.context():
            raise AssertionError("entered")
    except NotImplementedError as e:
        assert "is_available() is False" in str(e)
