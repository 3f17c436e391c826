"""torch.overrides' helpers against torch's: has_torch_function*, handle_torch_function, is_tensor_like,
resolve_name, wrap_torch_function and the mode classes."""
import torch
import torch.overrides as t_ov

import torchlike
import torchlike.overrides as l_ov


class Duck:
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return ("handled", func.__name__)


def _both():
    return ((torch, t_ov), (torchlike, l_ov))


def test_has_torch_function_and_tensor_like():
    res = []
    for lib, ov in _both():
        x = lib.ones(1)
        res.append((ov.has_torch_function((x,)), ov.has_torch_function((Duck(),)), ov.has_torch_function_unary(x),
                    ov.has_torch_function_unary(Duck()), ov.has_torch_function_variadic(1, x, Duck()),
                    ov.is_tensor_like(x), ov.is_tensor_like(Duck()), ov.is_tensor_like(3)))
    assert res[0] == res[1] == (False, True, False, True, True, True, True, False)


def test_handle_torch_function_dispatches_like_torch():
    res = []
    for lib, ov in _both():
        def area(x):
            if ov.has_torch_function_unary(x):
                return ov.handle_torch_function(area, (x,), x)
            return "plain"
        deco = ov.wrap_torch_function(lambda x: (x,))(lambda x: "wrapped plain")
        res.append((area(Duck()), area(lib.ones(1)), deco(lib.ones(1)), deco(Duck())[0]))
    assert res[0] == res[1]


def test_names_and_function_lists():
    for lib, ov in _both():
        assert ov.resolve_name(lib.add) == "torch.add"
        assert ov.resolve_name(lib.Tensor.add) == "torch.Tensor.add"
        assert ov.resolve_name(lib.nn.functional.relu) == "torch.nn.functional.relu"
        assert ov.is_tensor_method_or_property(lib.Tensor.add) and not ov.is_tensor_method_or_property(lib.add)
        assert lib.tensor in ov.get_ignored_functions()
        assert lib.add in ov.get_overridable_functions()[lib]
    with l_ov.BaseTorchFunctionMode():
        assert (torchlike.ones(2) + 1).tolist() == [2.0, 2.0]


def test_random_module_default_generator_is_torchs():
    import torch.random
    import torchlike.random
    assert torch.random.default_generator is torch.default_generator
    assert torchlike.random.default_generator is torchlike.default_generator


def test_functional_reexports_the_protocol_helpers_undispatched():
    # custom activations copy torch's pattern: `if has_torch_function_unary(x): return handle_torch_function(...)`
    results = []
    for lib in (torch, torchlike):
        F = lib.nn.functional

        class Sub(lib.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                return super().__torch_function__(func, types, args, kwargs or {})

        def my_act(x):
            if F.has_torch_function_unary(x):
                return F.handle_torch_function(my_act, (x,), x)
            return x * 2

        s = lib.ones(2).as_subclass(Sub)
        results.append((F.has_torch_function_unary(s), F.has_torch_function_variadic(1, s),
                        F.has_torch_function((lib.ones(1),)), F.has_torch_function_unary(lib.ones(1)),
                        type(my_act(s)).__name__, my_act(lib.ones(2)).tolist()))
    assert results[0] == results[1] == (True, True, False, False, "Sub", [2.0, 2.0])
