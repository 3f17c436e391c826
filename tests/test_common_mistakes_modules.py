"""Mistakes users make every day with modules, autograd, optimizers, data utilities and layers, fed to torch and
to torchlike: the same exception type and message (found by sweeping ~450 such calls next to torch; most matched
already and a few of those stay here as guards, the rest had JAX's words, another message, or no error)."""
import pytest

from conftest import raises_like_torch


def _sd_mismatch(m):
    a, b = m.nn.Linear(2, 3), m.nn.Linear(4, 3)
    return a.load_state_dict(b.state_dict())


def _sd_missing_unexpected(m):
    a = m.nn.Linear(2, 3)
    sd = a.state_dict()
    del sd["bias"]
    sd["extra"] = m.ones(1)
    return a.load_state_dict(sd)


def _sd_nested(m):
    a = m.nn.Sequential(m.nn.Linear(2, 3), m.nn.Linear(3, 1))
    sd = m.nn.Sequential(m.nn.Linear(2, 4), m.nn.Linear(4, 1)).state_dict()
    sd["x"] = m.ones(1)
    return a.load_state_dict(sd)


def _assign_tensor_over_parameter(m):
    m.nn.Linear(2, 3).weight = m.ones(3, 2)


def _full_hook(m, ret):
    lin = m.nn.Linear(2, 3)
    lin.register_full_backward_hook(lambda mod, gi, go: ret(m, gi))
    x = m.ones(1, 2, requires_grad=True)
    lin(x).sum().backward()


MODULE_API = {
    "Parameter of a list": lambda m: m.nn.Parameter([1.0]),
    "Parameter of an int": lambda m: m.nn.Parameter(3),
    "Parameter of a numpy array": lambda m: m.nn.Parameter(__import__("numpy").ones(2)),
    "Buffer of a list": lambda m: m.nn.Buffer([1.0]),
    "full backward hook changing a gradient's size": lambda m: _full_hook(m, lambda m, gi: (m.ones(5),)),
    "full backward hook changing a gradient's dtype": lambda m: _full_hook(m, lambda m, gi: (gi[0].double(),)),
    "full backward hook changing a gradient's shape": lambda m: _full_hook(m, lambda m, gi: (gi[0].reshape(2),)),
    # guards (matched before): the full multi-line messages of load_state_dict, names, paths
    "load_state_dict size mismatch": _sd_mismatch,
    "load_state_dict missing and unexpected keys": _sd_missing_unexpected,
    "load_state_dict nested mismatch": _sd_nested,
    "load_state_dict of a list": lambda m: m.nn.Linear(2, 3).load_state_dict([1, 2]),
    "register_buffer dotted name": lambda m: m.nn.Linear(2, 3).register_buffer("a.b", m.ones(1)),
    "register_parameter of a plain tensor": lambda m: m.nn.Linear(2, 3).register_parameter("p", m.ones(1)),
    "add_module not a module": lambda m: m.nn.Linear(2, 3).add_module("a", 3),
    "tensor assigned over a parameter": _assign_tensor_over_parameter,
    "Sequential index out of range": lambda m: m.nn.Sequential(m.nn.Linear(1, 1))[3],
    "ModuleDict update with triples": lambda m: m.nn.ModuleDict().update([(1, 2, 3)]),
    "get_submodule bad path": lambda m: m.nn.Sequential(m.nn.Linear(1, 1)).get_submodule("0.weight"),
    "get_parameter a module": lambda m: m.nn.Sequential(m.nn.Linear(1, 1)).get_parameter("0"),
    "Module.to an int dtype": lambda m: m.nn.Linear(2, 3).to(m.int32),
    "named_parameters of an int prefix": lambda m: list(m.nn.Linear(1, 1).named_parameters(prefix=3)),
    "named_modules of an int prefix": lambda m: list(m.nn.Sequential(m.nn.Linear(1, 1)).named_modules(prefix=3)),
}


@pytest.mark.parametrize("case", list(MODULE_API))
def test_module_api_misuse_like_torch(case):
    """A Parameter/Buffer of a non-tensor is torch's AttributeError (it calls data.detach()), not a TypeError; a
    full backward hook that changes a gradient's type or size is torch's function-hook error (was the engine's)."""
    raises_like_torch(MODULE_API[case])


def _function(m, forward, backward):
    class F(m.autograd.Function):
        pass
    F.forward = staticmethod(forward)
    F.backward = staticmethod(backward)
    return F


def _fn_case(ret, n_extra=1, extra_tensor=False):
    def fn(m):
        F = _function(m, lambda ctx, x, y: x * 2, lambda ctx, g: eval(ret, {"g": g, "m": m}))
        x = m.ones(2, requires_grad=True)
        F.apply(x, m.ones(2) if extra_tensor else 2).sum().backward()
    return fn


def _save_non_tensor(m):
    def fwd(ctx, x):
        ctx.save_for_backward(x, None, 3)
        return x * 2
    return _function(m, fwd, lambda ctx, g: g).apply(m.ones(2, requires_grad=True))


def _dirty_not_returned(m):
    def fwd(ctx, x):
        ctx.mark_dirty(x)
        return x * 2
    return _function(m, fwd, lambda ctx, g: g).apply(m.ones(2))


def _legacy_call(m):
    F = _function(m, lambda ctx, x: x * 2, lambda ctx, g: g)
    return F.__new__(F)(m.ones(2))


def _materialize_conflict(m):
    x = m.ones(2, requires_grad=True)
    return m.autograd.grad((x * 2).sum(), [x], allow_unused=False, materialize_grads=True)


def _mk(m):
    return m.ones(4, 4, requires_grad=True) * 1


AUTOGRAD = {
    "grad: materialize_grads with allow_unused=False": _materialize_conflict,
    "Function: too many gradients": _fn_case("(g, None, g)"),
    "Function: too few gradients": _fn_case("(g,)"),
    "Function: a gradient for a non-tensor input": _fn_case("(g, 3)"),
    "Function: a gradient that is not a tensor": _fn_case("(3, None)"),
    "Function: a number for a tensor input": _fn_case("(g, 3)", extra_tensor=True),
    "Function: save_for_backward of a number": _save_non_tensor,
    "Function: mark_dirty of a tensor not returned": _dirty_not_returned,
    "Function: an instance called": _legacy_call,
    "jacobian of a function returning a number": lambda m: m.autograd.functional.jacobian(lambda x: 3, m.ones(2)),
    "jacobian of a list of inputs": lambda m: m.autograd.functional.jacobian(lambda x: x, [m.ones(2)]),
    "vjp of a function returning a list": lambda m: m.autograd.functional.vjp(lambda x: [x], m.ones(2)),
    "jvp of a function returning a number": lambda m: m.autograd.functional.jvp(lambda x: 3, m.ones(2), m.ones(2)),
    "hessian of a list of inputs": lambda m: m.autograd.functional.hessian(lambda x: x.sum(), [m.ones(2)]),
    "hvp of a list of inputs": lambda m: m.autograd.functional.hvp(lambda x: x.sum(), [m.ones(2)], m.ones(2)),
    "vhp of a function returning a number": lambda m: m.autograd.functional.vhp(lambda x: 3, m.ones(2), m.ones(2)),
    "in-place on split's output": lambda m: _mk(m).split(2)[0].mul_(2),
    "in-place on split's output, sizes": lambda m: _mk(m).split([1, 3])[1].mul_(2),
    "in-place on chunk's output": lambda m: _mk(m).chunk(2)[1].mul_(2),
    "in-place on unbind's output": lambda m: _mk(m).unbind()[1].add_(2),
    "in-place on a view of split's output": lambda m: _mk(m).split(2)[0][0].mul_(2),
    "in-place on a reshape of split's output": lambda m: _mk(m).split(2)[0].view(-1).zero_(),
    "in-place on split's output of a leaf": lambda m: m.ones(4, requires_grad=True).split(2)[0].mul_(2),
    "setitem into split's output": lambda m: _mk(m).split(2)[0].__setitem__(0, 1.),
    "setitem into a column of split's output": lambda m: _mk(m).split(2)[0].__setitem__((slice(None), 0), 1.),
    "setitem of a slice of split's output": lambda m: _mk(m).split(2)[0].__setitem__(slice(0, 1), m.zeros(1, 4)),
    "copy_ into unbind's output": lambda m: _mk(m).unbind()[0].copy_(m.zeros(4)),
    "out= into split's output": lambda m: m.add(m.ones(2, 4), 1, out=_mk(m).split(2)[0]),
    "grad with fewer grad_outputs than outputs": lambda m: (lambda x: m.autograd.grad(
        [x.sum(), x.sum()], x, grad_outputs=[m.ones(())]))(m.ones(2, requires_grad=True)),
    "backward with fewer grad_tensors than tensors": lambda m: (lambda x: m.autograd.backward(
        [x.sum(), x.sum()], grad_tensors=[m.ones(())]))(m.ones(2, requires_grad=True)),
    "post-accumulate hook on a tensor not requiring grad": lambda m: m.ones(2).register_post_accumulate_grad_hook(
        lambda t: None),
    # guards (matched before)
    "backward twice": lambda m: (lambda y: (y.backward(), y.backward()))((m.ones(2, requires_grad=True).exp()).sum()),
    "backward of a non-scalar": lambda m: (m.ones(2, requires_grad=True) * 2).backward(),
    "grad of an unused input": lambda m: (lambda x, y: m.autograd.grad((x * 2).sum(), [x, y]))(
        m.ones(2, requires_grad=True), m.ones(2, requires_grad=True)),
    "in-place on a leaf": lambda m: m.ones(2, requires_grad=True).add_(1),
    "saved tensor modified": lambda m: (lambda x: (lambda z: (z.add_(1), z.sum().backward()))((x * 2).exp()))(
        m.ones(2, requires_grad=True)),
    "requires_grad on an int tensor": lambda m: m.tensor([1, 2], requires_grad=True),
    "numpy() of a tensor requiring grad": lambda m: m.ones(2, requires_grad=True).numpy(),
}


@pytest.mark.parametrize("case", list(AUTOGRAD))
def test_autograd_misuse_like_torch(case):
    """A custom Function's backward results are checked as torch's engine checks them (count, type, a gradient
    for a non-tensor input), save_for_backward/mark_dirty/legacy calls raise torch's errors; split/chunk/unbind
    outputs (and views of them) refuse in-place writes with torch's "returns multiple views" message."""
    raises_like_torch(AUTOGRAD[case])


def _p(m):
    return m.nn.Parameter(m.ones(2))


def _onecycle_past_end(m):
    o = m.optim.SGD([_p(m)], lr=0.1)
    s = m.optim.lr_scheduler.OneCycleLR(o, max_lr=1., total_steps=2)
    for _ in range(4):
        o.step()
        s.step()


def _load_other_optimizer(m):
    a = m.optim.SGD([_p(m)], lr=0.1)
    a.load_state_dict(m.optim.Adam([_p(m), _p(m)]).state_dict())


OPTIM = {
    "SGD lr a list": lambda m: m.optim.SGD([_p(m)], lr=[0.1]),
    "SGD lr a str": lambda m: m.optim.SGD([_p(m)], lr="0.1"),
    "Adam lr a str": lambda m: m.optim.Adam([_p(m)], lr="0.1"),
    "RMSprop lr a list": lambda m: m.optim.RMSprop([_p(m)], lr=[0.1]),
    "Adagrad lr None": lambda m: m.optim.Adagrad([_p(m)], lr=None),
    "Adam lr NaN": lambda m: m.optim.Adam([_p(m)], lr=float("nan")),
    # guards (matched before)
    "a parameter in two groups": lambda m: (lambda p: m.optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1))(_p(m)),
    "negative lr": lambda m: m.optim.SGD([_p(m)], lr=-1),
    "negative momentum": lambda m: m.optim.SGD([_p(m)], lr=0.1, momentum=-0.5),
    "beta1 of 1": lambda m: m.optim.Adam([_p(m)], betas=(1.0, 0.9)),
    "params a tensor": lambda m: m.optim.SGD(_p(m), lr=0.1),
    "params of a number": lambda m: m.optim.SGD([3], lr=0.1),
    "empty params": lambda m: m.optim.SGD([], lr=0.1),
    "add_param_group without params": lambda m: m.optim.SGD([_p(m)], lr=0.1).add_param_group({"lr": 0.1}),
    "load_state_dict of another optimizer": _load_other_optimizer,
    "scheduler on a module": lambda m: m.optim.lr_scheduler.StepLR(m.nn.Linear(1, 1), 2),
    "OneCycleLR past total_steps": _onecycle_past_end,
}


@pytest.mark.parametrize("case", list(OPTIM))
def test_optimizer_and_scheduler_misuse_like_torch(case):
    """An lr that is not a number fails torch's own comparison (SGD's ``lr < 0.0``, the others' ``0.0 <= lr``),
    not float()'s TypeError or nothing (a str was taken)."""
    raises_like_torch(OPTIM[case])


def test_sgd_takes_a_nan_lr_like_torch():
    """torch's SGD tests ``lr < 0.0``, which a NaN passes (the other optimizers refuse it)."""
    from conftest import same_as_torch
    same_as_torch(lambda m: str(m.optim.SGD([_p(m)], lr=float("nan")).param_groups[0]["lr"]), grad=False)


DATA = {
    "random_split generator not a Generator": lambda m: m.utils.data.random_split(range(10), [5, 5], generator=3),
    "randperm generator not a Generator": lambda m: m.randperm(5, generator=3),
    "rand generator not a Generator": lambda m: m.rand(2, generator=3),
    "randn generator a str": lambda m: m.randn(2, generator="a"),
    "randint generator not a Generator": lambda m: m.randint(5, (2,), generator=3),
    "normal generator not a Generator": lambda m: m.normal(m.zeros(2), 1., generator=3),
    "bernoulli generator not a Generator": lambda m: m.bernoulli(m.ones(2) / 2, generator=3),
    # guards (matched before)
    "default_collate of other sizes": lambda m: m.utils.data.default_collate([m.ones(2), m.ones(3)]),
    "default_collate of objects": lambda m: m.utils.data.default_collate([object(), object()]),
    "batch_size 0": lambda m: m.utils.data.DataLoader(range(3), batch_size=0),
    "sampler and shuffle": lambda m: m.utils.data.DataLoader(range(3), sampler=range(3), shuffle=True),
    "negative num_workers": lambda m: m.utils.data.DataLoader(range(3), num_workers=-1),
    "random_split lengths": lambda m: m.utils.data.random_split(range(10), [3, 4]),
    "TensorDataset sizes": lambda m: m.utils.data.TensorDataset(m.ones(3), m.ones(4)),
}


@pytest.mark.parametrize("case", list(DATA))
def test_data_utilities_misuse_like_torch(case):
    """A generator that is not a Generator is torch's parser error listing the overloads (random_split reaches
    it through randperm), not "argument 'generator' must be Tensor"; normal/bernoulli list ``out``, as torch."""
    raises_like_torch(DATA[case])


def _F(m):
    return m.nn.functional


def _mha(m, q, k, v, **kw):
    mods = {a: kw.pop(a) for a in ("batch_first", "add_bias_kv", "add_zero_attn", "kdim", "vdim") if a in kw}
    return m.nn.MultiheadAttention(4, 2, **mods)(q, k, v, **kw)


def _o(m, *s):
    return m.ones(*s)


LAYERS = {
    "conv2d of a 3-D weight": lambda m: _F(m).conv2d(_o(m, 1, 3, 5, 5), _o(m, 4, 3, 3)),
    "conv2d of a 5-D weight": lambda m: _F(m).conv2d(_o(m, 1, 3, 5, 5), _o(m, 4, 3, 3, 3, 3), stride=(2, 1)),
    "conv1d of a 4-D weight": lambda m: _F(m).conv1d(_o(m, 1, 3, 5), _o(m, 4, 3, 3, 3)),
    "conv3d of a 4-D weight": lambda m: _F(m).conv3d(_o(m, 1, 3, 5, 5, 5), _o(m, 4, 3, 3, 3)),
    "conv2d bias of another size": lambda m: _F(m).conv2d(_o(m, 1, 3, 5, 5), _o(m, 4, 3, 3, 3), _o(m, 3)),
    "conv2d 2-D bias": lambda m: _F(m).conv2d(_o(m, 1, 3, 5, 5), _o(m, 4, 3, 3, 3), _o(m, 4, 1)),
    "conv2d 0-D bias": lambda m: _F(m).conv2d(_o(m, 1, 3, 5, 5), _o(m, 4, 3, 3, 3), m.ones(())),
    "conv2d bias, input too small": lambda m: _F(m).conv2d(_o(m, 1, 3, 2, 2), _o(m, 4, 3, 3, 3), _o(m, 3)),
    "conv2d unbatched, bias": lambda m: _F(m).conv2d(_o(m, 3, 5, 5), _o(m, 4, 3, 3, 3), _o(m, 3)),
    "conv_transpose2d bias": lambda m: _F(m).conv_transpose2d(_o(m, 1, 3, 5, 5), _o(m, 3, 4, 3, 3), _o(m, 3)),
    "conv_transpose2d bias, groups": lambda m: _F(m).conv_transpose2d(_o(m, 1, 4, 5, 5), _o(m, 4, 2, 3, 3),
                                                                      _o(m, 2), groups=2),
    "conv_transpose2d of a 3-D weight": lambda m: _F(m).conv_transpose2d(_o(m, 1, 3, 5, 5), _o(m, 3, 4, 3)),
    "conv stride 0 and padding -1": lambda m: _F(m).conv2d(_o(m, 1, 3, 5, 5), _o(m, 4, 3, 3, 3), stride=0,
                                                           padding=-1),
    "conv1d dilation 0": lambda m: _F(m).conv1d(_o(m, 1, 3, 5), _o(m, 4, 3, 3), dilation=0),
    "conv2d dilation (0, 1)": lambda m: _F(m).conv2d(_o(m, 1, 3, 5, 5), _o(m, 4, 3, 3, 3), dilation=(0, 1)),
    "conv3d dilation 0": lambda m: _F(m).conv3d(_o(m, 1, 3, 5, 5, 5), _o(m, 4, 3, 3, 3, 3), dilation=0),
    "conv2d dilation 0, wrong channels": lambda m: _F(m).conv2d(_o(m, 1, 2, 5, 5), _o(m, 4, 3, 3, 3), dilation=0),
    "conv_transpose1d dilation 0": lambda m: _F(m).conv_transpose1d(_o(m, 1, 3, 5), _o(m, 3, 4, 3), dilation=0),
    "conv_transpose2d dilation 0": lambda m: _F(m).conv_transpose2d(_o(m, 1, 3, 5, 5), _o(m, 3, 4, 3, 3),
                                                                    dilation=0),
    "conv_transpose3d dilation 0": lambda m: _F(m).conv_transpose3d(_o(m, 1, 3, 5, 5, 5), _o(m, 3, 4, 3, 3, 3),
                                                                    dilation=0),
    "conv_transpose2d dilation -1": lambda m: _F(m).conv_transpose2d(_o(m, 1, 3, 5, 5), _o(m, 3, 4, 3, 3),
                                                                     dilation=-1),
    "Conv2d wrong channels": lambda m: m.nn.Conv2d(3, 4, 3)(_o(m, 1, 4, 5, 5)),
    "mha key and value of other lengths": lambda m: _mha(m, _o(m, 3, 1, 4), _o(m, 3, 1, 4), _o(m, 2, 1, 4)),
    "mha key of another batch": lambda m: _mha(m, _o(m, 3, 1, 4), _o(m, 3, 2, 4), _o(m, 3, 2, 4)),
    "mha key of another batch, bias_kv": lambda m: _mha(m, _o(m, 3, 1, 4), _o(m, 3, 2, 4), _o(m, 3, 2, 4),
                                                        add_bias_kv=True),
    "mha batch_first, key of another batch": lambda m: _mha(m, _o(m, 1, 3, 4), _o(m, 2, 3, 4), _o(m, 2, 3, 4),
                                                            batch_first=True),
    "mha 2-D key for a 3-D query": lambda m: _mha(m, _o(m, 3, 1, 4), _o(m, 3, 4), _o(m, 3, 4)),
    "mha 3-D key for a 2-D query": lambda m: _mha(m, _o(m, 3, 4), _o(m, 3, 1, 4), _o(m, 3, 1, 4)),
    "mha 4-D mask": lambda m: _mha(m, _o(m, 3, 1, 4), _o(m, 3, 1, 4), _o(m, 3, 1, 4),
                                   attn_mask=m.ones(1, 2, 3, 3, dtype=m.bool)),
    "mha padding mask length": lambda m: _mha(m, _o(m, 3, 1, 4), _o(m, 3, 1, 4), _o(m, 3, 1, 4),
                                              key_padding_mask=m.ones(1, 2, dtype=m.bool)),
    "mha padding mask batch": lambda m: _mha(m, _o(m, 3, 1, 4), _o(m, 3, 1, 4), _o(m, 3, 1, 4),
                                             key_padding_mask=m.ones(2, 3, dtype=m.bool)),
    "mha 1-D padding mask, batched": lambda m: _mha(m, _o(m, 3, 1, 4), _o(m, 3, 1, 4), _o(m, 3, 1, 4),
                                                    key_padding_mask=m.ones(3, dtype=m.bool)),
    "mha padding mask, unbatched": lambda m: _mha(m, _o(m, 3, 4), _o(m, 3, 4), _o(m, 3, 4),
                                                  key_padding_mask=m.ones(2, dtype=m.bool)),
    "mha padding mask, zero attn": lambda m: _mha(m, _o(m, 3, 1, 4), _o(m, 3, 1, 4), _o(m, 3, 1, 4),
                                                  key_padding_mask=m.ones(1, 2, dtype=m.bool), add_zero_attn=True),
    "mha int mask": lambda m: _mha(m, _o(m, 3, 1, 4), _o(m, 3, 1, 4), _o(m, 3, 1, 4),
                                   attn_mask=m.ones(3, 3, dtype=m.long)),
    "mha int padding mask": lambda m: _mha(m, _o(m, 3, 1, 4), _o(m, 3, 1, 4), _o(m, 3, 1, 4),
                                           key_padding_mask=m.ones(1, 3, dtype=m.long)),
    "mha unbatched 3-D mask": lambda m: _mha(m, _o(m, 3, 4), _o(m, 3, 4), _o(m, 3, 4),
                                             attn_mask=m.ones(3, 3, 3, dtype=m.bool)),
    "mha kdim weights": lambda m: _mha(m, _o(m, 3, 1, 4), _o(m, 3, 1, 4), _o(m, 3, 1, 6), kdim=5, vdim=6),
    "transformer layer padding mask": lambda m: m.nn.TransformerEncoderLayer(4, 2)(
        _o(m, 3, 1, 4), src_key_padding_mask=m.ones(1, 2, dtype=m.bool)),
    "adaptive_max_pool2d of an empty row": lambda m: _F(m).adaptive_max_pool2d(_o(m, 1, 2, 0, 4), 2),
    "adaptive_max_pool2d of no channels": lambda m: _F(m).adaptive_max_pool2d(_o(m, 1, 0, 4, 4), 2),
    "adaptive_max_pool1d unbatched, empty": lambda m: _F(m).adaptive_max_pool1d(_o(m, 2, 0), 2),
    "adaptive_max_pool3d empty width": lambda m: _F(m).adaptive_max_pool3d(_o(m, 1, 2, 4, 4, 0), 2),
    "adaptive_avg_pool1d empty": lambda m: _F(m).adaptive_avg_pool1d(_o(m, 1, 2, 0), 2),
    "adaptive_avg_pool2d empty": lambda m: _F(m).adaptive_avg_pool2d(_o(m, 2, 4, 0), 2),
    "adaptive_avg_pool3d empty": lambda m: _F(m).adaptive_avg_pool3d(_o(m, 1, 2, 0, 4, 4), 2),
    "LSTMCell hx a tensor, not a tuple": lambda m: m.nn.LSTMCell(2, 3)(_o(m, 1, 2), m.zeros(1, 3)),
    "Bilinear inputs of other batches": lambda m: m.nn.Bilinear(2, 3, 4)(_o(m, 5, 2), _o(m, 4, 3)),
    "multi_margin_loss target out of range": lambda m: _F(m).multi_margin_loss(_o(m, 2, 3), m.tensor([0, 5])),
    "multi_margin_loss negative target": lambda m: _F(m).multi_margin_loss(_o(m, 2, 3), m.tensor([-1, 0])),
    "NLLLoss 2-D weight": lambda m: m.nn.NLLLoss(weight=_o(m, 3, 1))(_o(m, 2, 3), m.zeros(2, dtype=m.long)),
    "cross_entropy 2-D weight": lambda m: _F(m).cross_entropy(_o(m, 2, 3), m.zeros(2, dtype=m.long),
                                                              weight=_o(m, 3, 1)),
    "cross_entropy probabilities, 2-D weight": lambda m: _F(m).cross_entropy(_o(m, 2, 3), _o(m, 2, 3),
                                                                             weight=_o(m, 3, 1)),
    "cross_entropy probabilities, weight of 2": lambda m: _F(m).cross_entropy(_o(m, 2, 3), _o(m, 2, 3),
                                                                              weight=_o(m, 2)),
    "kl_div of other shapes": lambda m: _F(m).kl_div(_o(m, 2, 3), _o(m, 2, 4), reduction="batchmean"),
    "hinge_embedding_loss of other shapes": lambda m: _F(m).hinge_embedding_loss(_o(m, 2), _o(m, 3)),
    "BCEWithLogits pos_weight of another size": lambda m: m.nn.BCEWithLogitsLoss(pos_weight=_o(m, 4))(
        _o(m, 2, 3), _o(m, 2, 3)),
    "BCEWithLogits weight of another size": lambda m: _F(m).binary_cross_entropy_with_logits(
        _o(m, 2, 3), _o(m, 2, 3), weight=_o(m, 4)),
    "embedding_bag offsets not from 0": lambda m: _F(m).embedding_bag(m.tensor([0, 1]), _o(m, 3, 2), m.tensor([1, 0])),
    "embedding_bag int32 offsets not from 0": lambda m: _F(m).embedding_bag(
        m.tensor([0, 1], dtype=m.int32), _o(m, 3, 2), m.tensor([1, 0], dtype=m.int32)),
    "embedding_bag offsets past the input": lambda m: _F(m).embedding_bag(m.tensor([0, 1]), _o(m, 3, 2),
                                                                          m.tensor([0, 3])),
    "reflect pad too big, both dims": lambda m: _F(m).pad(_o(m, 1, 1, 3, 3), (4, 4, 4, 4), mode="reflect"),
    "reflect pad too big, height": lambda m: _F(m).pad(_o(m, 1, 1, 3, 3), (1, 1, 4, 1), mode="reflect"),
    "reflect pad too big, depth": lambda m: _F(m).pad(_o(m, 1, 1, 2, 3, 3), (1, 1, 1, 1, 4, 4), mode="reflect"),
    "ReflectionPad2d too big": lambda m: m.nn.ReflectionPad2d(4)(_o(m, 1, 1, 3, 3)),
    "dropout of a long tensor": lambda m: _F(m).dropout(m.ones(3, dtype=m.long)),
    "dropout2d of a bool tensor": lambda m: _F(m).dropout2d(m.ones(1, 2, 3, 3, dtype=m.bool)),
    "alpha_dropout of a bool tensor": lambda m: _F(m).alpha_dropout(m.ones(3, dtype=m.bool), training=True),
    "Dropout in place of a uint8 tensor": lambda m: m.nn.Dropout(inplace=True)(m.ones(3, dtype=m.uint8)),
    "BatchNorm1d of a long tensor": lambda m: m.nn.BatchNorm1d(3)(m.ones(2, 3, dtype=m.long)),
    "batch_norm eval of an int tensor": lambda m: _F(m).batch_norm(m.ones(2, 3, dtype=m.int32), m.zeros(3),
                                                                   m.ones(3)),
    "group_norm of a long tensor": lambda m: _F(m).group_norm(m.ones(2, 4, dtype=m.long), 2),
    "instance_norm of a bool tensor": lambda m: _F(m).instance_norm(m.ones(2, 3, 4, dtype=m.bool)),
    "LSTM hidden a tensor, not a tuple": lambda m: m.nn.LSTM(2, 3)(_o(m, 5, 1, 2), m.zeros(1, 1, 3)),
    "tensor of a number then a list": lambda m: m.tensor([1, [2]]),
    "tensor of a list then a number": lambda m: m.tensor([[2], 1]),
    "tensor of floats, a list inside": lambda m: m.tensor([1.5, [2]]),
    "tensor of bools, a list inside": lambda m: m.tensor([True, [False]]),
    "tensor with a list at depth 2": lambda m: m.tensor([[1, 2], [3, [4]]]),
    "tensor with a number at depth 2": lambda m: m.tensor([[[1], [2]], [[3], 4]]),
    "tensor with a tuple inside": lambda m: m.tensor([1, (2,)]),
    "tensor ragged at dim 1": lambda m: m.tensor([[1, 2], [3, 4, 5]]),
    "as_tensor of a number then a list": lambda m: m.as_tensor([1, [2]]),
    # guards (matched before)
    "BatchNorm one value per channel": lambda m: m.nn.BatchNorm1d(3)(_o(m, 1, 3)),
    "LSTM input size": lambda m: m.nn.LSTM(2, 3)(_o(m, 5, 1, 4)),
    "Embedding index out of range": lambda m: m.nn.Embedding(3, 2)(m.tensor([3])),
    "cross_entropy float target": lambda m: _F(m).cross_entropy(_o(m, 3, 4), _o(m, 3)),
    "nll_loss target out of range": lambda m: _F(m).nll_loss(_o(m, 3, 4), m.tensor([0, 1, 4])),
    "LayerNorm shape": lambda m: m.nn.LayerNorm(5)(_o(m, 2, 4)),
    "view incompatible": lambda m: _o(m, 2, 3).view(4, 2),
    "item of many": lambda m: _o(m, 2).item(),
    "bool of many": lambda m: bool(_o(m, 2)),
}


@pytest.mark.parametrize("case", list(LAYERS))
def test_layer_input_checks_like_torch(case):
    """Convolutions check their parameters against the weight's rank (torch expands stride first), the bias's
    shape and a zero dilation (the kernel's words) as torch; MultiheadAttention checks ranks, masks, key/value
    shapes and batches as torch's functional (JAX's reshape error leaked, an int mask passed); an LSTM's hx is
    indexed (a Tensor hx: IndexError); torch.tensor of ragged data gives torch's words for where it breaks; an
    adaptive pool of an empty dim is torch's error (JAX's "integer modulo by zero" leaked for max pools)."""
    raises_like_torch(LAYERS[case])


def test_tensor_of_ragged_data_with_an_empty_dimension_is_empty_like_torch():
    """torch stores nothing where a size is 0, so ragged data with an empty first row is an empty tensor."""
    from conftest import same_as_torch
    same_as_torch(lambda m: [m.tensor([[], [1]]), m.tensor([[], 1])], grad=False)


def test_no_grad_exit_without_enter_like_torch():
    """torch's no_grad starts with ``prev = False``: an ``__exit__`` without ``__enter__`` turns grad mode off quietly
    (torchlike raised an AttributeError naming its private attribute)."""
    import torch

    import torchlike

    def run(m):
        m.set_grad_enabled(True)
        try:
            m.no_grad().__exit__(None, None, None)
            return m.is_grad_enabled()
        finally:
            m.set_grad_enabled(True)
    assert run(torchlike) == run(torch)
