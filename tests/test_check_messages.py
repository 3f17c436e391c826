"""Argument checks that torch's OpInfo ``error_inputs`` exercise: the same exception, the same message, and the
checks in torch's order (the first failing check names the problem), compared with torch message for message."""
import pytest

from conftest import raises_like_torch

CASES = {
    "triplet_margin_loss margin": lambda t: t.nn.functional.triplet_margin_loss(
        t.ones(3, 4), t.ones(3, 4), t.ones(3, 4), margin=-1.0),
    "triplet_margin_with_distance_loss margin": lambda t: t.nn.functional.triplet_margin_with_distance_loss(
        t.ones(3, 4), t.ones(3, 4), t.ones(3, 4), margin=-1.0),
    "TripletMarginLoss margin": lambda t: t.nn.TripletMarginLoss(margin=-1.0),
    "softshrink negative float32": lambda t: t.nn.functional.softshrink(t.ones(1), -0.5),
    "softshrink too large for half": lambda t: t.nn.functional.softshrink(t.ones(1, dtype=t.float16), 1e6),
    "Softshrink module float64": lambda t: t.nn.Softshrink(-1.0)(t.ones(1, dtype=t.float64)),
    "reshape 0 elements with -1": lambda t: t.zeros(0, 5).reshape(0, -1),
    "view 0 elements with -1 first": lambda t: t.zeros(0, 5).view(-1, 0),
    "reshape not divisible": lambda t: t.zeros(3).reshape(2, -1),
    "linspace 1-d bounds": lambda t: t.linspace(t.ones(2), t.ones(2), 1),
    "linspace 1-d start": lambda t: t.linspace(t.ones(2), 1, 1),
    "linspace 2-d end": lambda t: t.linspace(1, t.ones(1, 1), 1),
    "logspace 2-d end": lambda t: t.logspace(1, t.ones(1, 1), 1),
    "complex float and int": lambda t: t.complex(t.ones(2), t.ones(2, dtype=t.int32)),
    "complex int and float": lambda t: t.complex(t.ones(2, dtype=t.int32), t.ones(2)),
    "complex float and double": lambda t: t.complex(t.ones(2), t.ones(2, dtype=t.float64)),
    "native_layer_norm empty shape": lambda t: t.native_layer_norm(t.ones(1, 2, 3), (), None, None, 1e-5),
    "native_layer_norm weight shape": lambda t: t.native_layer_norm(t.ones(1, 2, 3), (1, 2, 3), t.ones(1, 2),
                                                                    None, 1e-5),
    "native_layer_norm bias shape": lambda t: t.native_layer_norm(t.ones(1, 2, 3), (1, 2, 3), None, t.ones(1, 2),
                                                                  1e-5),
    "layer_norm weight shape": lambda t: t.nn.functional.layer_norm(t.ones(1, 2, 3), (2, 3), t.ones(3)),
    "layer_norm input shape": lambda t: t.nn.functional.layer_norm(t.ones(1, 2, 3), (4,)),
    "unbind 0-d": lambda t: t.unbind(t.tensor(1.0), 0),
    "unbind_copy 0-d": lambda t: t.unbind_copy(t.tensor(1.0), 0),
    "mean integer dtype argument": lambda t: t.mean(t.ones(3, 4), [], dtype=t.int64),
    "mean integer input": lambda t: t.ones(3, dtype=t.int64).mean(),
    "histogramdd bin counts": lambda t: t.histogramdd(t.ones(5, 6), [1, 1, 1, 1, 1]),
    "histogramdd bin edges": lambda t: t.histogramdd(t.ones(5, 6), [t.tensor([0.0, 1.0])] * 5),
    "_chunk_cat negative dim": lambda t: t._chunk_cat([t.ones(2, 3), t.ones(2)], -1, 3),
    "_chunk_cat dim past ndim": lambda t: t._chunk_cat([t.ones(2, 3), t.ones(2, 3, 4)], 2, 3),
    "scatter src ndim": lambda t: t.scatter(t.ones(3, 5), 0, t.zeros(2, 2, dtype=t.long), t.ones(2, 5, 2)),
    "scatter_add src ndim": lambda t: t.scatter_add(t.ones(3, 5), 0, t.zeros(2, 2, dtype=t.long),
                                                    t.ones(2, 5, 2)),
    "scatter self ndim": lambda t: t.scatter(t.ones(3, 5), 0, t.zeros(2, 2, 2, dtype=t.long), 1.0),
    "dot dtype before size": lambda t: t.dot(t.ones(3), t.ones(2, dtype=t.float16)),
    "vdot dtype before size": lambda t: t.vdot(t.ones(3), t.ones(2, dtype=t.float16)),
    "multi_margin_loss weight size": lambda t: t.nn.functional.multi_margin_loss(t.ones(5, 4), t.ones(5),
                                                                                 weight=t.ones(5)),
    "multi_margin_loss 0-d weight size": lambda t: t.nn.functional.multi_margin_loss(
        t.ones(()), t.tensor(0), weight=t.ones(2)),
    "as_strided_scatter out of bounds": lambda t: t.as_strided_scatter(t.ones(4, 4), t.ones(2, 2), [2, 2],
                                                                       [200, 200]),
    "index_add out= overlapping source": lambda t: (lambda x: t.index_add(x, 0, t.tensor([0, 1]), x[:2], out=x))(
        t.arange(6.0)),
}


@pytest.mark.parametrize("case", list(CASES))
def test_check_raises_torchs_error(case):
    raises_like_torch(CASES[case])


@pytest.mark.parametrize("case", ["empty index skips the ndim checks", "valid scatter"])
def test_scatter_with_empty_index_returns_input(case):
    from conftest import same_as_torch
    if case == "valid scatter":
        same_as_torch(lambda t: t.zeros(3, 5).scatter(0, t.zeros(2, 2, dtype=t.long), 1.0))
    else:
        same_as_torch(lambda t: t.zeros(3, 5).scatter(0, t.zeros(0, dtype=t.long), t.ones(2, 5, 2)))


ALIAS_CALLS = {"absolute": lambda t: t.absolute("a"), "negative": lambda t: t.negative("a"),
               "arccos": lambda t: t.arccos("a"), "arctanh": lambda t: t.arctanh("a"), "fix": lambda t: t.fix("a"),
               "subtract": lambda t: t.subtract(t.ones(2), "a"), "multiply": lambda t: t.multiply(t.ones(2), "a"),
               "divide": lambda t: t.divide(t.ones(2), "a"), "true_divide": lambda t: t.true_divide(t.ones(2), "a"),
               "clip": lambda t: t.clip(t.ones(2), "a"), "less": lambda t: t.less(t.ones(2), "a")}


@pytest.mark.parametrize("alias", sorted(ALIAS_CALLS))
def test_alias_argument_errors_name_the_alias_called_like_torch(alias):
    # torch.absolute's parser error names absolute, not abs: an alias's namespace function is its op's code under
    # the alias's own name (as its Tensor method already was)
    torch = pytest.importorskip("torch", reason="the messages are torch's")
    import torchlike
    msgs = []
    for lib in (torch, torchlike):
        with pytest.raises(TypeError) as info:
            ALIAS_CALLS[alias](lib)
        msgs.append(str(info.value).split("(")[0])
    assert msgs[1] == msgs[0] == alias
