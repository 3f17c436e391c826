"""torch.distributed.nn (autograd-aware collectives) on a one-rank gloo group, next to torch's on the same group
shape: the values, the gradients that flow back through each collective, the grad_fn names and the FutureWarnings
of the deprecated ones. (vector-quantize-pytorch imports ``from torch.distributed import nn``.)"""
import warnings

import numpy as np
import pytest

from conftest import free_port


def _run(mod, dist, dnn):
    """Every collective of ``dnn`` on a one-rank group: (name, value, grad, grad_fn name, FutureWarning?)."""
    out = []
    x0 = np.arange(6, dtype=np.float32).reshape(2, 3) / 4 - 0.3

    def case(name, fn):
        x = mod.tensor(x0, requires_grad=True)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            y = fn(x * 2)
        ys = y if isinstance(y, tuple) else (y,)
        (sum((t ** 2).sum() for t in ys)).backward()
        out.append((name, [t.detach().numpy().copy() for t in ys], x.grad.numpy().copy(),
                    type(ys[0].grad_fn).__name__, [type(m.message).__name__ for m in w]))

    case("all_reduce", lambda t: dnn.all_reduce(t))
    case("all_reduce max", lambda t: dnn.all_reduce(t, op=dist.ReduceOp.MAX))
    case("broadcast", lambda t: dnn.broadcast(t, 0))
    case("reduce", lambda t: dnn.reduce(t, 0))
    case("all_gather", lambda t: dnn.all_gather(t))
    case("gather", lambda t: dnn.gather(t, 0))
    case("scatter", lambda t: dnn.scatter([t], 0))
    case("all_to_all", lambda t: dnn.all_to_all([mod.empty_like(t)], [t]))
    case("all_to_all_single", lambda t: dnn.all_to_all_single(mod.empty_like(t), t))
    case("reduce_scatter", lambda t: dnn.reduce_scatter(mod.empty_like(t), [t]))
    return out


def _on_one_rank_group(run, module):
    """``run(mod, dist, extra)`` on a one-rank gloo group of torch, then of torchlike (``extra``: each one's
    ``module``, a torch.distributed submodule name, or None): (torch's result, torchlike's)."""
    import importlib
    torch = pytest.importorskip("torch", reason="torch is the oracle")
    import torchlike
    results = []
    for mod, url in ((torch, f"tcp://127.0.0.1:{free_port()}"), (torchlike, "tcp://127.0.0.1:0")):
        d = importlib.import_module(f"{mod.__name__}.distributed")
        extra = importlib.import_module(f"{mod.__name__}.distributed.{module}") if module else None
        d.init_process_group("gloo", rank=0, world_size=1, init_method=url)
        try:
            results.append(run(mod, d, extra))
        finally:
            d.destroy_process_group()
    return results


def test_distributed_nn_collectives_and_gradients_like_torch():
    theirs, ours = _on_one_rank_group(_run, "nn")
    assert len(ours) == len(theirs) == 10
    for (name, v, g, fn, w), (n2, v2, g2, fn2, w2) in zip(theirs, ours):
        assert name == n2
        assert len(v) == len(v2), name
        for a, b in zip(v, v2):
            np.testing.assert_allclose(b, a, rtol=1e-6, err_msg=name)
        np.testing.assert_allclose(g2, g, rtol=1e-6, err_msg=name)
        assert (fn2, w2) == (fn, w), name


def test_distributed_nn_module_surface():
    import torchlike.distributed.nn as lnn
    from torchlike.distributed.nn import functional
    assert lnn.all_reduce is functional.all_reduce
    assert functional.all_reduce.__module__ == "torchlike.distributed.nn.functional"
    with pytest.raises(NotImplementedError, match="torch.distributed.nn.RemoteModule is not implemented"):
        lnn.RemoteModule


def _funcol_errors(mod, dist, funcol):
    """What each functional collective says about a bad reduce op, group or split list on a one-rank group."""
    x = mod.arange(6.0).reshape(2, 3)
    g = dist.group.WORLD
    calls = {
        "bad op": lambda: funcol.all_reduce(x, "mean", g),
        "bad group": lambda: funcol.all_reduce(x, "sum", 3),
        "bad tuple": lambda: funcol.all_reduce(x, "sum", (g, 0)),
        "one split list": lambda: funcol.all_to_all_single(x, [2], None, g),
        "float splits": lambda: funcol.all_to_all_single(x, [2.0], [2], g),
        "max backward": lambda: funcol.all_reduce(x.clone().requires_grad_(), "max", g).sum().backward(),
        "avg rs backward": lambda: funcol.reduce_scatter_single(x.clone().requires_grad_(), "avg", 0, g).sum().backward(),
        "coalesced dims": lambda: funcol.reduce_scatter_single_coalesced([x], "sum", [0, 1], g),
    }
    out = {}
    for name, call in calls.items():
        try:
            call()
            out[name] = None
        except Exception as e:  # compared with torch's below
            out[name] = (type(e).__name__, str(e).replace(f"<class '{type(g).__module__}.", "<class '"))
    y = funcol.wait_tensor(funcol.all_gather_single(x, 1, g))
    out["gather dim 1"] = (tuple(y.shape), y.tolist())
    out["name"] = funcol.all_reduce(x, "sum", g.group_name).tolist()
    return out


def test_functional_collectives_errors_like_torch():
    theirs, ours = _on_one_rank_group(_funcol_errors, "_functional_collectives")
    assert ours == theirs


def _single_names(mod, dist):
    """torch 2.13's all_gather_single / reduce_scatter_single and the deprecated names that forward to them, with
    the FutureWarnings they give, on a one-rank group."""
    out = []
    x = mod.arange(4.0)
    for name, call in (("all_gather_single", lambda o: dist.all_gather_single(o, x)),
                       ("all_gather_into_tensor", lambda o: dist.all_gather_into_tensor(o, x)),
                       ("_all_gather_base", lambda o: dist._all_gather_base(o, x)),
                       ("reduce_scatter_single", lambda o: dist.reduce_scatter_single(o, x * 2)),
                       ("reduce_scatter_tensor", lambda o: dist.reduce_scatter_tensor(o, x * 2)),
                       ("_reduce_scatter_base", lambda o: dist._reduce_scatter_base(o, x * 3))):
        o = mod.zeros(4)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r = call(o)
        out.append((name, r, o.tolist(), [(m.category.__name__, str(m.message)) for m in w]))
    return out


def test_single_collective_names_and_deprecations_like_torch():
    theirs, ours = _on_one_rank_group(lambda mod, d, _: _single_names(mod, d), None)
    assert ours == theirs
    assert sum(1 for *_, w in theirs if w) == 4
