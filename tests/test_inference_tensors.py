"""Inference tensors (``torch.inference_mode``) against torch: which tensors are inference tensors, the grad-mode
flags, in-place writes, ``requires_grad``, autograd's saved tensors, modules and serialization."""
import copy
import io
import pickle
import threading

import numpy as np
import pytest

from conftest import raises_like_torch, same_as_torch


def _made_in_mode(m, f):
    with m.inference_mode():
        return f()


def test_tensors_made_in_inference_mode_are_inference_tensors():
    def fn(m):
        n = m.ones(3)
        with m.inference_mode():
            i = m.ones(3)
            flags = [i.is_inference(), (n + 1).is_inference(), n[:2].is_inference(), n.view(3).is_inference(),
                     i[:2].is_inference(), m.arange(3).is_inference(), m.tensor([1.0]).is_inference(),
                     m.randn(2).is_inference(), i.requires_grad, m.is_inference(i)]
        flags += [i.is_inference(), i[1:].is_inference(), (i + 1).is_inference(), i.clone().is_inference(),
                  i.detach().is_inference(), i.data.is_inference(), n.copy_(i).is_inference(),
                  m.is_inference(n), (i * 2).sum().is_inference()]
        return flags
    same_as_torch(fn, grad=False)


def test_grad_mode_flags_nesting_and_decorators():
    def fn(m):
        out = [m.is_inference_mode_enabled(), m.is_grad_enabled()]
        with m.inference_mode():
            out += [m.is_inference_mode_enabled(), m.is_grad_enabled()]
            with m.inference_mode(False):
                k = m.ones(2)
                out += [m.is_inference_mode_enabled(), m.is_grad_enabled(), k.is_inference()]
            out += [m.is_inference_mode_enabled(), m.is_grad_enabled()]
        with m.no_grad():
            z = m.ones(2)
            with m.inference_mode(False):  # (torch's InferenceMode(False) turns grad mode on)
                out += [m.is_grad_enabled(), m.is_inference_mode_enabled()]
        out.append(z.is_inference())

        @m.inference_mode()
        def f():
            return m.ones(1)

        @m.inference_mode
        def g():
            return m.ones(1)

        @m.inference_mode(False)
        def h():
            return m.ones(1)

        def gen():
            yield m.ones(1)
        out += [f().is_inference(), g().is_inference(), h().is_inference(),
                next(m.inference_mode()(gen)()).is_inference(), m.is_inference_mode_enabled()]
        return out
    same_as_torch(fn, grad=False)


def test_inplace_on_normal_tensors_inside_inference_mode():
    def fn(m):
        n = m.ones(3)
        v = n[:2]
        with m.inference_mode():
            n.add_(1)
            ver = n._version
            v.mul_(3)
            i = m.zeros(3)
            i.add_(1)
            i[0] = 5.0
            i[1:].mul_(2)
        return n, v, ver, n._version, v._version, i
    same_as_torch(fn, grad=False)


@pytest.mark.parametrize("where", ["in_mode", "outside", "view", "view_in_mode"])
def test_version_counter_raises(where):
    def fn(m):
        with m.inference_mode():
            i = m.ones(3)
            if where == "in_mode":
                return i._version
            if where == "view_in_mode":
                return i[1:]._version
        return i._version if where == "outside" else i[:2]._version
    raises_like_torch(fn)


def test_version_counter_of_normal_tensors_and_aliases():
    def fn(m):
        with m.inference_mode():
            i = m.ones(3)
            n_view = None
        n = m.ones(3)
        with m.inference_mode():
            n_view = n[1:]
        d = i.detach()
        fresh = d._version
        d.add_(1)
        i.data.add_(1)
        return n_view._version, n_view.is_inference(), fresh, d._version, d.is_inference(), i
    same_as_torch(fn, grad=False)


_INPLACE_CASES = {
    "add_": lambda m, i: i.add_(1),
    "mul_ of view": lambda m, i: i[:2].mul_(2),
    "exp_": lambda m, i: i.exp_(),
    "zero_": lambda m, i: i.zero_(),
    "copy_": lambda m, i: i.copy_(m.ones(3)),
    "setitem number": lambda m, i: i.__setitem__(0, 1.0),
    "setitem slice": lambda m, i: i.__setitem__(slice(0, 2), m.zeros(2)),
    "setitem mask": lambda m, i: i.__setitem__(i > 0, 2.0),
    "uniform_": lambda m, i: i.uniform_(),
    "out=": lambda m, i: m.add(m.ones(3), m.ones(3), out=i),
    "view of detach": lambda m, i: i.detach()[:2].add_(1),
    "view of data": lambda m, i: i.data[:2].add_(1),
    "under no_grad": lambda m, i: _under_no_grad(m, lambda: i.add_(1)),
    "inference_mode(False)": lambda m, i: _in_mode(m, False, lambda: i.add_(1)),
}


def _under_no_grad(m, f):
    with m.no_grad():
        return f()


def _in_mode(m, mode, f):
    with m.inference_mode(mode):
        return f()


@pytest.mark.parametrize("case", list(_INPLACE_CASES))
def test_inplace_update_outside_inference_mode_raises(case):
    def fn(m):
        i = _made_in_mode(m, lambda: m.ones(3))
        return _INPLACE_CASES[case](m, i)
    raises_like_torch(fn)


def test_leaf_check_comes_before_the_inference_check():
    def fn(m):
        w = _made_in_mode(m, lambda: m.ones(3, requires_grad=True))
        return w.add_(1)
    raises_like_torch(fn)


@pytest.mark.parametrize("how", ["method", "attribute", "parameter"])
def test_requires_grad_on_inference_tensor_outside_raises(how):
    def fn(m):
        i = _made_in_mode(m, lambda: m.ones(3))
        if how == "method":
            return i.requires_grad_()
        if how == "parameter":
            return m.nn.Parameter(i)
        i.requires_grad = True
    raises_like_torch(fn)


def test_requires_grad_allowed_in_mode_and_false_outside():
    def fn(m):
        with m.inference_mode():
            w = m.ones(3, requires_grad=True)
            i = m.ones(3)
            i.requires_grad_()
            j = m.ones(2)
            p = m.nn.Parameter(m.zeros(2))
        j.requires_grad_(False)
        j.requires_grad = False
        return [w.requires_grad, w.is_leaf, w.is_inference(), i.requires_grad, (w * 2).requires_grad,
                j.requires_grad, p.requires_grad, p.is_inference(), type(p).__name__, i.clone().requires_grad]
    same_as_torch(fn, grad=False)


_SAVED_CASES = {
    "i * r": lambda m, i, r: i * r,
    "r * i": lambda m, i, r: r * i,
    "r.exp() * i": lambda m, i, r: r.exp() * i,
    "mm": lambda m, i, r: m.mm(i.view(3, 1), r.view(1, 3)),
    "r @ W": lambda m, i, r: r @ _made_in_mode(m, lambda: m.ones(3, requires_grad=True)),
    "linear input": lambda m, i, r: m.nn.functional.linear(i.view(1, 3), m.ones(2, 3, requires_grad=True)),
    "r / i": lambda m, i, r: r / i,
}


@pytest.mark.parametrize("case", list(_SAVED_CASES))
def test_inference_tensor_saved_for_backward_raises(case):
    def fn(m):
        i = _made_in_mode(m, lambda: m.ones(3))
        return _SAVED_CASES[case](m, i, m.ones(3, requires_grad=True))
    raises_like_torch(fn)


def test_ops_that_save_no_inference_tensor_record_and_backward():
    def fn(m):
        i = _made_in_mode(m, lambda: m.full((3,), 2.0))
        b = _made_in_mode(m, lambda: m.ones(2))
        r = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        x = m.ones(1, 3, requires_grad=True)
        w = m.ones(2, 3, requires_grad=True)
        outs = [i + r, r - i, m.cat([r, i]), m.where(i > 0, r, i), r.exp() + i,
                m.nn.functional.linear(x, w, b)]
        loss = sum(o.sum() for o in outs)
        loss.backward()
        return [o.requires_grad for o in outs] + [o.is_inference() for o in outs] + [r.grad, x.grad, w.grad]
    same_as_torch(fn, grad=False)


def test_ops_on_inference_tensors_alone_are_not_recorded():
    def fn(m):
        w = _made_in_mode(m, lambda: m.ones(3, requires_grad=True))
        i = _made_in_mode(m, lambda: m.ones(3))
        outs = [w.sin(), w.exp(), w.sum(), w ** 2, w.clamp(0), w * i, m.cat([w, i]), w * 2, w + 1, 1 - w, w / 2,
                w.add(1), w.clone()]
        return [o.requires_grad for o in outs] + [o.is_inference() for o in outs]
    same_as_torch(fn, grad=False)


def test_enable_grad_inside_inference_mode_records_nothing():
    def fn(m):
        with m.inference_mode():
            with m.enable_grad():
                r = m.ones(2, requires_grad=True)
                y = r * 2
                return [m.is_grad_enabled(), r.requires_grad, y.requires_grad, y.grad_fn is None, y.is_inference()]
    same_as_torch(fn, grad=False)


def test_module_built_in_inference_mode():
    def fn(m):
        m.manual_seed(0)
        with m.inference_mode():
            lin = m.nn.Linear(2, 2)
        y = lin(m.ones(1, 2))
        return [type(lin.weight).__name__, lin.weight.is_inference(), lin.weight.requires_grad,
                lin.bias.is_inference(), y.is_inference(), y.requires_grad, y.detach()]
    same_as_torch(fn, grad=False)


@pytest.mark.parametrize("case", ["batchnorm train", "optimizer step"])
def test_module_built_in_inference_mode_refuses_training_writes(case):
    def fn(m):
        with m.inference_mode():
            bn = m.nn.BatchNorm1d(3)
            bias = m.nn.Parameter(m.zeros(3))
        x = m.arange(12.0).view(4, 3)
        if case == "batchnorm train":
            return bn(x)
        (x + bias).sum().backward()
        m.optim.SGD([bias], lr=0.1).step()
    raises_like_torch(fn)


def test_module_eval_in_inference_mode():
    def fn(m):
        m.manual_seed(0)
        net = m.nn.Sequential(m.nn.Linear(3, 4), m.nn.BatchNorm1d(4), m.nn.ReLU()).eval()
        with m.inference_mode():
            y = net(m.arange(6.0).view(2, 3))
        return y, y.is_inference(), y.requires_grad, net[0].weight.is_inference()
    same_as_torch(fn, grad=False)


def test_save_and_load_of_inference_tensors():
    def fn(m):
        with m.inference_mode():
            i = m.arange(4.0)
        buf = io.BytesIO()
        m.save(i, buf)
        buf.seek(0)
        loaded = m.load(buf)
        buf.seek(0)
        with m.inference_mode():
            loaded_in_mode = m.load(buf)
        return loaded, loaded.is_inference(), loaded_in_mode.is_inference(), loaded.add_(1)
    same_as_torch(fn, grad=False)


def test_clone_outside_gives_a_normal_tensor_for_autograd():
    def fn(m, x):
        i = _made_in_mode(m, lambda: x * 2)
        c = i.clone().requires_grad_()
        (c * c).sum().backward()
        return c.is_inference(), c.grad
    same_as_torch(fn, np.array([1.0, 2.0, 3.0], np.float32), grad=False)


def test_data_assignment_keeps_refusing_inplace():
    def fn(m):
        i = _made_in_mode(m, lambda: m.ones(3))
        i.data = m.zeros(3)
        return i.add_(1)
    raises_like_torch(fn)


def test_is_inference_of_a_non_tensor_raises():
    raises_like_torch(lambda m: m.is_inference(1))


def test_inference_mode_is_thread_local():
    def fn(m):
        seen = []
        with m.inference_mode():
            th = threading.Thread(target=lambda: seen.append((m.ones(1).is_inference(), m.is_inference_mode_enabled(),
                                                              m.is_grad_enabled())))
            th.start()
            th.join()
            seen.append(m.ones(1).is_inference())
        return seen
    same_as_torch(fn, grad=False)


def test_custom_function_saving_an_inference_tensor_raises():
    def fn(m):
        class Scale(m.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                ctx.save_for_backward(y)
                return x * y

            @staticmethod
            def backward(ctx, g):
                return g * ctx.saved_tensors[0], None
        i = _made_in_mode(m, lambda: m.ones(3))
        return Scale.apply(m.ones(3, requires_grad=True), i)
    raises_like_torch(fn)


def test_copies_of_inference_tensors_made_outside_are_normal():
    def fn(m):
        with m.inference_mode():
            i = m.ones(3)
            p = m.nn.Parameter(m.ones(2))
            lin = m.nn.Linear(2, 2)
        return [copy.deepcopy(i).is_inference(), pickle.loads(pickle.dumps(i)).is_inference(),
                copy.deepcopy(p).is_inference(), copy.deepcopy(p).requires_grad,
                copy.deepcopy(lin).weight.is_inference(), i.double().is_inference(), i.to(m.float32) is i,
                i.cpu().is_inference(), i.contiguous().is_inference(), i.sum().is_inference(), i[0].item(),
                str(m.nn.Linear(2, 2).load_state_dict(lin.state_dict()))]
    same_as_torch(fn, grad=False)


def test_load_state_dict_into_a_module_built_in_inference_mode_raises():
    def fn(m):
        with m.inference_mode():
            lin = m.nn.Linear(2, 2)
        return lin.load_state_dict(m.nn.Linear(2, 2).state_dict())
    raises_like_torch(fn)
