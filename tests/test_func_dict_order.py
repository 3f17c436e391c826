"""Every torch.func transform keeps a dict's keys in insertion order, as torch's pytree does (JAX's pytrees
sort them): the dicts it returns list their keys as torch's do, and a dict ``in_dims`` pairs each dim with
its own key. A sorted order silently pairs ``zip(params.values(), grads.values())`` wrongly (MAML-style code)
and applied vmap's in_dims to the wrong inputs."""
from collections import OrderedDict

import pytest

import torchlike
from conftest import assert_same, to_tl, torch

KEYS = ("z", "a", "m")  # not sorted: a sorted order shows up as a different key list


def _params(lib):
    return {k: lib.tensor(float(i + 1)) for i, k in enumerate(KEYS)}


def _scalar(p):
    return p["z"] * 2 + p["a"] ** 2 + p["m"] ** 3


def _pair(p):
    return {"y": p["z"] * 3, "b": p["a"] * p["m"]}


TRANSFORMS = {
    "grad": lambda F, p: F.grad(_scalar)(p),
    "grad_and_value": lambda F, p: F.grad_and_value(_scalar)(p)[0],
    "grad_aux": lambda F, p: F.grad(lambda q: (_scalar(q), _pair(q)), has_aux=True)(p)[1],
    "jacrev": lambda F, p: F.jacrev(_scalar)(p),
    "jacfwd": lambda F, p: F.jacfwd(_scalar)(p),
    "hessian": lambda F, p: F.hessian(_scalar)(p),
    "vjp_out": lambda F, p: F.vjp(_pair, p)[0],
    "vjp_grad": lambda F, p: F.vjp(_pair, p)[1]({"y": p["z"] * 0 + 1, "b": p["z"] * 0 + 1})[0],
    "jvp": lambda F, p: F.jvp(_pair, (p,), (p,))[1],
    "linearize": lambda F, p: F.linearize(_pair, p)[1](p),
    "vmap_out": lambda F, p: F.vmap(_pair)({k: v.expand(2) for k, v in p.items()}),
    "vmap_in": lambda F, p: F.vmap(lambda q: q)({k: v.expand(2) for k, v in p.items()}),
}


def _keys_and_values(tree):
    if isinstance(tree, dict):
        return [(k, _keys_and_values(v)) for k, v in tree.items()]
    return tree


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_transform_returns_dicts_in_insertion_order(name):
    expected = TRANSFORMS[name](torch.func, _params(torch))
    ours = TRANSFORMS[name](torchlike.func, _params(torchlike))
    assert type(ours) is type(expected)

    def walk(e, o):
        if isinstance(e, dict):
            assert list(o) == list(e), (name, list(o), list(e))
            for k in e:
                walk(e[k], o[k])
        else:
            assert_same(o, e)
    walk(expected, ours)


def test_nested_dicts_and_ordered_dicts_keep_their_order_and_type():
    def f(p):
        return p["q"]["y"].sum() + p["b"] * p["q"]["c"].sum()
    outs = []
    for lib in (torch, torchlike):
        p = {"q": OrderedDict(y=lib.ones(2), c=lib.ones(1)), "b": lib.tensor(2.0)}
        outs.append(lib.func.grad(f)(p))
    expected, ours = outs
    assert list(ours) == list(expected) and list(ours["q"]) == list(expected["q"])
    assert type(ours["q"]) is type(expected["q"]) is OrderedDict
    for k in expected["q"]:
        assert_same(ours["q"][k], expected["q"][k])


def test_vmap_dict_in_dims_pair_with_their_own_keys():
    outs = []
    for lib in (torch, torchlike):
        x = {"z": lib.arange(3.0), "a": lib.ones(2, 1) * 2}
        outs.append(lib.func.vmap(lambda p: p["z"] * p["a"], in_dims=({"z": 0, "a": None},))(x))
    assert_same(outs[1], outs[0])


def test_per_parameter_zip_of_params_and_grads_pairs_the_same_parameter():
    """MAML's inner step: ``{k: p - lr * g for (k, p), g in zip(params.items(), grads.values())}``."""
    tm = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    lm = torchlike.nn.Sequential(torchlike.nn.Linear(3, 4), torchlike.nn.Tanh(), torchlike.nn.Linear(4, 2))
    lm.load_state_dict({k: to_tl(v) for k, v in tm.state_dict().items()})
    x = torch.randn(5, 3)
    stepped = []
    for lib, m, xi in ((torch, tm, x), (torchlike, lm, to_tl(x))):
        params = {k: v.detach() for k, v in m.named_parameters()}
        grads = lib.func.grad(lambda p: lib.func.functional_call(m, p, (xi,)).pow(2).sum())(params)
        stepped.append({k: p - 0.1 * g for (k, p), g in zip(params.items(), grads.values())})
    assert list(stepped[1]) == list(stepped[0])
    for k in stepped[0]:
        assert_same(stepped[1][k], stepped[0][k])
