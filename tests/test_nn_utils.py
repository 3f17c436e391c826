"""torch.nn.utils compared with torch: pruning (l1/ln/random/global, remove, is_pruned), fusion of conv or linear
with batch norm, stateless.functional_call, consume_prefix_in_state_dict_if_present, rnn.apply_permutation."""
import numpy as np
import pytest
import torch

import torchlike
from conftest import raises_like_torch


def _prune_run(lib):
    P = __import__(lib.__name__ + ".nn.utils.prune", fromlist=["x"])
    w = np.arange(24, dtype=np.float32).reshape(4, 6) * np.array([1, -1] * 12, np.float32).reshape(4, 6) / 7
    m, m2 = lib.nn.Linear(6, 4), lib.nn.Conv2d(2, 3, 2)
    with lib.no_grad():
        m.weight.copy_(lib.tensor(w))
        m.bias.copy_(lib.tensor([0.5, -2.0, 0.1, 3.0]))
        m2.weight.copy_(lib.tensor(np.linspace(-1, 1, 24, dtype=np.float32).reshape(3, 2, 2, 2)))
    P.l1_unstructured(m, "weight", amount=0.3)
    P.ln_structured(m, "weight", amount=1, n=2, dim=0)
    P.l1_unstructured(m, "weight", amount=2)
    out = [m.weight_mask.numpy().copy(), m(lib.ones(1, 6)).detach().numpy(), type(m._forward_pre_hooks[
        next(iter(m._forward_pre_hooks))]).__name__]
    P.global_unstructured([(m, "bias"), (m2, "weight")], pruning_method=P.L1Unstructured, amount=5)
    out += [m2.weight_mask.numpy().copy(), m.bias_mask.numpy().copy(), P.is_pruned(m2)]
    P.remove(m, "weight")
    out += [sorted(n for n, _ in m.named_parameters()), sorted(n for n, _ in m.named_buffers()),
            m.weight.detach().numpy().copy(), P.is_pruned(lib.nn.Linear(1, 1))]
    P.random_structured(m2, "weight", amount=1, dim=1)
    out += [int((m2.weight_mask.sum(dim=(0, 2, 3)) == 0).sum())]
    P.random_unstructured(m2, "bias", amount=2)
    out += [int((m2.bias_mask == 0).sum())]
    return out


def test_prune_matches_torch():
    for x, y in zip(_prune_run(torch), _prune_run(torchlike)):
        if isinstance(x, np.ndarray):
            np.testing.assert_allclose(y, x, rtol=1e-6)
        else:
            assert y == x


def test_prune_errors_match_torch():
    for lib in (torch, torchlike):
        P = __import__(lib.__name__ + ".nn.utils.prune", fromlist=["x"])
        with pytest.raises(ValueError, match="should either be a float in the range"):
            P.l1_unstructured(lib.nn.Linear(2, 2), "weight", amount=1.5)
        with pytest.raises(ValueError, match="has to be pruned before pruning can be removed"):
            P.remove(lib.nn.Linear(2, 2), "weight")


def test_fusion_matches_torch():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 5, 5)).astype(np.float32)
    outs = []
    for lib in (torch, torchlike):
        F = __import__(lib.__name__ + ".nn.utils.fusion", fromlist=["x"])
        conv, bn = lib.nn.Conv2d(3, 4, 3), lib.nn.BatchNorm2d(4)
        lin, bn1 = lib.nn.Linear(5, 4), lib.nn.BatchNorm1d(4)
        with lib.no_grad():
            for t, seed in ((conv.weight, 1), (conv.bias, 2), (bn.running_mean, 3), (bn.weight, 4),
                            (lin.weight, 5), (lin.bias, 6), (bn1.running_mean, 7)):
                t.copy_(lib.tensor(np.random.default_rng(seed).standard_normal(tuple(t.shape)).astype(np.float32)))
            bn.running_var.fill_(2.0)
            bn1.running_var.fill_(0.5)
        conv.eval(), bn.eval(), lin.eval(), bn1.eval()
        fc, fl = F.fuse_conv_bn_eval(conv, bn), F.fuse_linear_bn_eval(lin, bn1)
        outs.append((fc(lib.tensor(x)).detach().numpy(), fl(lib.tensor(x[0, 0])).detach().numpy(),
                     type(fc.weight).__name__))
    np.testing.assert_allclose(outs[1][0], outs[0][0], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(outs[1][1], outs[0][1], rtol=1e-4, atol=1e-5)
    assert outs[1][2] == outs[0][2] == "Parameter"


def test_functional_call_matches_torch():
    res = []
    for lib in (torch, torchlike):
        m = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.ReLU(), lib.nn.Linear(2, 1))
        params = {k: lib.ones_like(v) * 0.5 for k, v in m.named_parameters()}
        params["0.weight"].requires_grad_(True)
        out = lib.nn.utils.stateless.functional_call(m, params, lib.tensor([[1.0, -2.0]]))
        out.sum().backward()
        res.append((out.detach().numpy(), params["0.weight"].grad.numpy(), m[0].weight.grad is None))
        with pytest.raises(RuntimeError, match="Missing key"):
            lib.nn.utils.stateless.functional_call(m, {"0.weight": params["0.weight"]}, (lib.ones(1, 2),),
                                                   strict=True)
    for a, b in zip(*res):
        np.testing.assert_allclose(b, a) if isinstance(a, np.ndarray) else None
    assert res[0][2] == res[1][2]


def test_consume_prefix_and_apply_permutation_match_torch():
    from collections import OrderedDict
    outs = []
    for lib in (torch, torchlike):
        sd = OrderedDict([("module.a", 1), ("b", 2), ("module.c.d", 3)])
        sd._metadata = OrderedDict([("", {}), ("module", {}), ("module.c", {})])
        lib.nn.modules.utils.consume_prefix_in_state_dict_if_present(sd, "module.")
        perm = lib.nn.modules.rnn.apply_permutation(lib.arange(6).reshape(2, 3), lib.tensor([2, 0, 1]))
        outs.append((list(sd), list(sd._metadata), perm.tolist()))
    assert outs[0] == outs[1]


def _backend_flags_run(lib):
    b = lib.backends
    out = [b.cudnn.set_flags(None), b.mkldnn.set_flags(None), b.opt_einsum.set_flags(None)]
    with b.cudnn.flags(enabled=False, deterministic=True):  # as transformers' CTC loss does
        out.append((b.cudnn.enabled, b.cudnn.deterministic, b.cudnn.benchmark, b.cudnn.benchmark_limit))
        with b.mkldnn.flags(enabled=False):
            out.append((b.mkldnn.enabled, b.mkldnn.deterministic))
    with b.opt_einsum.flags(strategy="greedy"):
        out.append((b.opt_einsum.enabled, b.opt_einsum.strategy))
    out.append((b.cudnn.enabled, b.cudnn.deterministic, b.mkldnn.enabled, b.opt_einsum.strategy))
    out.append((b.cudnn.is_acceptable(lib.ones(2)), b.mkldnn.VERBOSE_ON_CREATION))
    return out


def test_backend_flags_context_managers_match_torch():
    assert _backend_flags_run(torchlike) == _backend_flags_run(torch)


def test_new_creation_methods_take_size_as_a_keyword_like_torch():
    from conftest import raises_like_torch, same_as_torch
    x = np.ones(3, np.float32)
    same_as_torch(lambda m, t: [t.new_ones(size=(2, 3)), t.new_zeros(size=[4]), t.new_empty(size=(2,)).shape,
                                t.new_full(size=(2,), fill_value=3), t.new_ones(size=())], x, grad=False)
    raises_like_torch(lambda m, t: t.new_ones((2,), size=(3,)), x)
    raises_like_torch(lambda m, t: t.new_zeros(), x)
    raises_like_torch(lambda m, t: t.new_empty(), x)


def test_clip_grad_value_without_any_gradient_raises_like_torch():
    """After ``zero_grad(set_to_none=True)`` (or before the first backward) torch refuses the empty list."""
    raises_like_torch(lambda T: T.nn.utils.clip_grad_value_(T.nn.Linear(2, 2).parameters(), 0.1))
    raises_like_torch(lambda T: T.nn.utils.clip_grad_value_([], 0.1))


def test_clip_grad_norm_reads_max_norm_as_a_float_even_without_gradients():
    """torch's clip_grad_norm_ makes ``float(max_norm)`` before it looks at the gradient list: a str max_norm is
    Python's ValueError before the first backward too (it returned 0 here)."""
    raises_like_torch(lambda T: T.nn.utils.clip_grad_norm_(T.nn.Linear(2, 2).parameters(), max_norm="x"))
    raises_like_torch(lambda T: T.nn.utils.clip_grads_with_norm_([], "x", T.tensor(1.0)))


def _frozen_flags_run(lib):
    b = lib.backends
    out = [b.flags_frozen(), b.fp32_precision, b.set_flags(None)]
    b.disable_global_flags()
    out.append(b.flags_frozen())
    for mod in (b.cudnn, b.mkldnn):
        with pytest.raises(RuntimeError) as e:
            mod.enabled = False
        out.append(str(e.value))
    with b.cudnn.flags(enabled=False):  # the context managers still set them
        out.append(b.cudnn.enabled)
    with b.__allow_nonbracketed_mutation():  # as monai.utils.set_determinism does
        b.cudnn.deterministic = True
        out.append(b.flags_frozen())
    out.append(b.flags_frozen())
    with b.flags(fp32_precision="ieee"):
        out.append(b.fp32_precision)
    out.append(b.fp32_precision)
    with b.__allow_nonbracketed_mutation():
        b.cudnn.deterministic = False
    return out


def test_backend_global_flags_freeze_like_torch():
    """torch.backends.disable_global_flags / flags_frozen / __allow_nonbracketed_mutation / flags(fp32_precision)."""
    outs = []
    for lib, thaw in ((torch, lambda: setattr(torch.backends.m, "__allow_nonbracketed_mutation_flag", True)),
                      (torchlike, lambda: torchlike.backends._flags._state.update(allow_mutation=True))):
        thaw()  # (the flags are process-wide: start thawed whatever an earlier test in this worker left)
        try:
            outs.append(_frozen_flags_run(lib))
        finally:
            thaw()
        assert not lib.backends.flags_frozen()
    assert outs[0] == outs[1], outs
