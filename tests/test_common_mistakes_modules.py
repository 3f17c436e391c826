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


MODULE_API = {
    "Parameter of a list": lambda m: m.nn.Parameter([1.0]),
    "Parameter of an int": lambda m: m.nn.Parameter(3),
    "Parameter of a numpy array": lambda m: m.nn.Parameter(__import__("numpy").ones(2)),
    "Buffer of a list": lambda m: m.nn.Buffer([1.0]),
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
}


@pytest.mark.parametrize("case", list(MODULE_API))
def test_module_api_misuse_like_torch(case):
    """A Parameter/Buffer of a non-tensor is torch's AttributeError (it calls data.detach()), not a TypeError."""
    raises_like_torch(MODULE_API[case])
