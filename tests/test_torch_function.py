"""The ``__torch_function__`` protocol and Tensor subclasses, compared with torch.

tests/programs/tensor_subclasses.py (a tv_tensors-style Image, a logging subclass, a subclass without an override,
a Parameter subclass, ``_make_subclass``, ``DisableTorchFunctionSubclass``, a linear_operator-style tensor-like,
``torch.overrides`` helpers and a few training steps) runs under torch and under the runner: every printed line
(result types, handler calls, values, error messages) must match.  It runs in its own process because the
protocol, once a subclass switches it on, stays on for the process.
"""
import os

import pytest
from conftest import run_program, same_printed_lines

PROGRAM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs", "tensor_subclasses.py")


def test_tensor_subclass_program_matches_torch():
    pytest.importorskip("torch", reason="the comparison runs the program with real torch too")
    expected = run_program([PROGRAM], runner=False, timeout=600)
    ours = run_program([PROGRAM], runner=True, timeout=600)
    same_printed_lines(expected, ours, rtol=1e-5)
    assert any(line.startswith("step 2 ") for line in ours), ours


def test_plain_functions_are_not_wrapped_until_a_subclass_needs_them():
    """Zero cost until used: a process that defines no Tensor subclass runs the op table's own functions."""
    import subprocess
    import sys
    code = ("import torchlike, torchlike._torch_function as tf\n"
            "hook = '__torchlike_tf_entry__'\n"
            "assert not tf.enabled() and hook not in torchlike.exp.__code__.co_names\n"
            "x = torchlike.ones(2); y = torchlike.exp(x) + x\n"
            "assert not tf.enabled()\n"
            "class Sub(torchlike.Tensor):\n    pass\n"
            "assert tf.enabled() and hook in torchlike.exp.__code__.co_names\n"
            "print(type(torchlike.exp(x.as_subclass(Sub))).__name__, type(torchlike.exp(x)).__name__)\n")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root, timeout=300,
                         env=dict(os.environ, PYTHONPATH=root))
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == ["Sub", "Tensor"]


def test_linear_operator_tensor_likes_dispatch_like_torch():
    """linear_operator's LinearOperator (not a Tensor) through torch.matmul/add/mul/diagonal/transpose/logdet."""
    from conftest import lib_program_vs_torch
    _, ours = lib_program_vs_torch("lib_linear_operator_torch_function.py", "torch", "linear_operator",
                                   timeout=600, rtol=1e-5)
    assert ours[0].startswith("matmul Tensor") and ours[1].startswith("add AddedDiagLinearOperator"), ours


WARN_LINES = """
import warnings, {mod} as torch
{subclass}
a = torch.ones(3, 2)
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    torch.nn.functional.softmax(a)
    a.add(2, a)
    torch.tensor(a)
    a.new_tensor(a)
    torch.std(a[:1], dim=0)
    a[:1].var(0)
print([(x.filename, x.lineno, x.category.__name__, str(x.message)[:40]) for x in w])
"""


@pytest.mark.parametrize("subclass", [False, True], ids=["plain", "protocol_on"])
def test_warnings_name_the_callers_line_like_torch(subclass):
    """torch's warnings (implicit softmax dim, a deprecated overload, copy construction, degrees of freedom) name
    the user's line; neither the op table's wrappers nor the protocol's dispatching frames may shift it."""
    pytest.importorskip("torch", reason="torch is the oracle")
    import subprocess
    import sys
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sub = "class Sub(torch.Tensor):\n    pass" if subclass else ""
    outs = []
    for mod in ("torch", "torchlike"):
        r = subprocess.run([sys.executable, "-c", WARN_LINES.format(mod=mod, subclass=sub)], capture_output=True,
                           text=True, cwd=root, timeout=300, env=dict(os.environ, PYTHONPATH=root))
        assert r.returncode == 0, r.stderr[-3000:]
        outs.append(r.stdout)
    assert outs[1] == outs[0] and "<string>" in outs[0]


def test_einsum_list_form_reaches_overrides_flat_and_modes_as_called():
    # torch.functional.einsum(eq, [a, b]) recurses as einsum(eq, a, b): a subclass or an fx Proxy sees the flat
    # operands (opt_einsum's torch backend always passes a list; opt_einsum_fx reads node.args[1:] as operands);
    # a TorchFunctionMode sees the call before that rewrite
    torch = pytest.importorskip("torch", reason="the recorded arguments are compared with torch's")
    import numpy as np
    import torchlike
    seen = {}
    for lib in (torch, torchlike):
        log = seen[lib.__name__] = []

        class Logged(lib.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None, log=log):
                if func.__name__ == "einsum":
                    log.append(("subclass", [type(a).__name__ for a in args]))
                return super().__torch_function__(func, types, args, kwargs or {})

        class Mode(lib.overrides.TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None, log=log):
                if func.__name__ == "einsum":
                    log.append(("mode", [type(a).__name__ for a in args]))
                return func(*args, **(kwargs or {}))

        a = lib.tensor(np.eye(2, dtype=np.float32)).as_subclass(Logged)
        b = lib.tensor(np.ones((2, 3), np.float32))
        log.append(lib.einsum("ij,jk->ik", [a, b]).sum().item())
        log.append(lib.einsum("ij,jk->ik", (b.T, a)).sum().item())
        with Mode():
            lib.einsum("ij,jk->ik", [b.T, b])
        gm = lib.fx.symbolic_trace(lambda x, y: lib.einsum("ij,jk->ik", [x, y]))
        log.append([len(n.args) for n in gm.graph.nodes if n.op == "call_function"])
    assert seen["torchlike"] == seen["torch"]
    assert ("subclass", ["str", "Logged", "Tensor"]) in seen["torch"]


# the first surface a tensor-like reaches in a process (before it, the protocol is off): operators, bare Tensor
# methods, namespace functions with and without out=, in-place methods, list arguments, nn.functional
FIRST_CALLS = ["x + w", "x / w", "x @ w", "x < w", "x.add(w)", "x.mul(w)", "torch.sub(x, w, alpha=2)",
               "torch.sum(w, dim=0)", "x.add_(w)", "torch.cat([x[0], w])", "F.linear(x, V(torch.ones(2, 3)))",
               "torch.where(x > 2, x, w)", "x.expand_as(w)"]


# a class made by ``type(...)`` switches the protocol on through another hook than a class statement; once on,
# dispatch is the same, so three surfaces (operator, namespace function with a keyword, nn.functional) cover it
# (each case is a fresh process on each side: the whole product cost ~2.5 min of CI)
FIRST_CALL_CASES = ([("class", e) for e in FIRST_CALLS]
                    + [("type", e) for e in ("x + w", "torch.sub(x, w, alpha=2)", "F.linear(x, V(torch.ones(2, 3)))")])


@pytest.mark.parametrize(("made_by", "expr"), FIRST_CALL_CASES)
def test_tensor_like_dispatches_from_its_first_call_like_torch(made_by, expr):
    """keras's Variable: ``tensor + variable`` was torchlike's TypeError (the protocol switched on only when a check
    rejected a tensor-like); making the class now switches it on, by a class statement or by ``type(...)``
    (``type.__new__`` calls the classmethod's ``__set_name__``, which torchlike watches)."""
    pytest.importorskip("torch", reason="the comparison runs the program with real torch too")
    prog = os.path.join(os.path.dirname(PROGRAM), "tensor_like_first_call.py")
    expected = run_program([prog, made_by, expr], runner=False, timeout=300)
    ours = run_program([prog, made_by, expr], runner=True, timeout=300)
    assert ours == expected



def test_parameter_of_a_user_subclass_keeps_its_class_like_torch():
    """torch's rule for a subclass instance: ``Parameter(x)`` is ``x.detach().requires_grad_()`` of x's own class,
    flagged ``_is_param`` (isinstance Parameter, registered by Module, printed as ``Parameter(MyT([...]))``); run
    as a program (a subclass with ``__torch_function__`` switches the protocol on for its whole process)."""
    pytest.importorskip("torch", reason="the comparison runs the program with real torch too")
    script = os.path.join(os.path.dirname(__file__), "programs", "parameter_of_subclass.py")
    expected = run_program([script], runner=False)
    ours = run_program([script], runner=True)
    same_printed_lines(expected, ours, rtol=0)
    assert len(ours) == 4 and ours[0] == "Plain True True False Plain ['weight', 'bias', 'extra'] Parameter"


CLASS_KEYWORDS = """
class Meta(type):
    def __new__(mcs, cls_name, bases, ns, /, **kw):
        ns["kw"] = dict(kw)
        return super().__new__(mcs, cls_name, bases, ns)

    def __init__(cls, *args, **kw):
        super().__init__(*args)

class Keyed(metaclass=Meta, name="", func=1, bases=2):
    pass
out.append(Keyed.kw)
class Hooked:
    def __init_subclass__(cls, /, **kw):
        cls.kw = kw
class Child(Hooked, name="n", func="f", cls="c"):
    pass
out.append(Child.kw)
for kw in ({"cls": 1}, {"x": 1}):
    try:
        type("T", (lib.Tensor,), {}, **kw)
    except TypeError as e:
        out.append(str(e))
    try:
        exec("class T(lib.Tensor, **kw): pass", {"lib": lib, "kw": kw})
    except TypeError as e:
        out.append(str(e))
"""


def test_class_statement_keywords_reach_the_metaclass_like_torch():
    """tensorly-torch's ``class TensorizedTensor(FactorizedTensor, metaclass=..., name='')``: the watched
    ``__build_class__`` named its own parameters ``func``/``name``, so a class keyword ``name`` raised "got multiple
    values for argument 'name'"; Tensor's ``__init_subclass__`` did the same for ``cls``."""
    torch = pytest.importorskip("torch", reason="the comparison runs the code with real torch too")
    import torchlike
    seen = {}
    for lib in (torch, torchlike):
        out = []
        exec(CLASS_KEYWORDS, {"lib": lib, "out": out})
        seen[lib.__name__] = out
    assert seen["torchlike"] == seen["torch"]
    assert seen["torch"][0] == {"name": "", "func": 1, "bases": 2}
    assert seen["torch"][2] == "T.__init_subclass__() takes no keyword arguments"


OPERATOR_CALLS = ["a == b", "a != b", "a < b", "a + b", "1 + a", "1 - a", "a - 1", "a * 2", "1 / a", "a / b",
                  "a // b", "3 // a", "a % b", "3 % a", "a ** b", "2 ** a", "a @ b", "b.__rmatmul__(a)", "-a", "+a",
                  "abs(a)", "i & i", "1 & i", "i | i", "i ^ i", "i << 1", "1 << i", "i >> 1", "1 >> i", "~i",
                  "i.__iand__(1)", "i.__ior__(1)", "i.__ixor__(1)", "i.__ilshift__(1)", "i.__irshift__(1)",
                  "a.__iadd__(1)", "a.__itruediv__(1)", "a.__rdiv__(2)", "reversed(a)", "reversed(a[0, 0])",
                  "list(a)", "copy.deepcopy(a)", "int(a[0, 0])", "float(a[0, 0])", "bool(a[0, 0])", "len(a)"]


def test_operators_reach_modes_and_subclasses_as_torch_binds_them():
    # torch binds ``__eq__``, the reflected operators, the bitwise and shift operators and ``__invert__`` as
    # functions of their own (the protocol's ``func``); the rest pass on their op's method (``a + b`` is seen as
    # ``Tensor.add``); ``iter`` shows dim and unbind; ``reversed`` is a flip along dim 0
    torch = pytest.importorskip("torch", reason="the functions a mode sees are compared with torch's")
    import copy

    import torchlike
    seen = {}
    for lib in (torch, torchlike):
        log = seen[lib.__name__] = []

        class Mode(lib.overrides.TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None, log=log):
                log.append(func.__name__)
                return func(*args, **(kwargs or {}))

        class Sub(lib.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None, log=log):
                log.append("sub:" + func.__name__)
                return super().__torch_function__(func, types, args, kwargs or {})

        env = {"copy": copy, "a": lib.ones(2, 2) + 1, "b": lib.ones(2, 2), "i": lib.ones(2, 2, dtype=lib.int64)}
        for expr in OPERATOR_CALLS:
            with Mode():
                r = eval(expr, env)
            rows = r if isinstance(r, list) else [r]
            log.append((expr, type(r).__name__, [x.tolist() if isinstance(x, lib.Tensor) else x for x in rows]))
        sub = {"copy": copy, "a": env["a"].as_subclass(Sub), "b": env["b"], "i": env["i"].as_subclass(Sub)}
        for expr in ("a == b", "1 - a", "1 / a", "3 // a", "~i", "i & i", "reversed(a)"):
            log.append((expr, eval(expr, sub).tolist()))
        log.append(lib.Tensor.__rtruediv__ is lib.Tensor.__rdiv__)
    assert seen["torchlike"] == seen["torch"]
    assert "__eq__" in seen["torch"] and "__rsub__" in seen["torch"] and "sub:__invert__" in seen["torch"]


PATCHED_METHODS = """
import sys, {mod} as torch
import {mod}.nn.functional as F
seen = []
real_backward, real_gelu = torch.Tensor.backward, F.gelu
def backward(self, *args, **kwargs):  # a library's replacement (nnsight's), reading its caller's frame
    seen.append(("backward", sys._getframe(1).f_code.co_name))
    return real_backward(self, *args, **kwargs)
def gelu(x, approximate="none"):
    seen.append(("gelu", sys._getframe(1).f_code.co_name))
    return real_gelu(x, approximate=approximate)
def scaled(self, k):
    seen.append(("scaled", sys._getframe(1).f_code.co_name))
    return self * k
codes = (backward.__code__, gelu.__code__, scaled.__code__)
torch.Tensor.backward, F.gelu, torch.Tensor.scaled = backward, gelu, scaled
class Sub(torch.Tensor):  # switches the protocol on
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        seen.append(("sub", func.__name__))
        return super().__torch_function__(func, types, args, kwargs or {{}})
def caller():
    x = torch.ones(3, requires_grad=True)
    s = x.as_subclass(Sub)
    F.gelu(s).sum().backward()
    s.scaled(2)
    (x * 2).sum().backward()
    return x.grad.tolist()
print(caller())
print(seen)
print((backward.__code__, gelu.__code__, scaled.__code__) == codes, torch.Tensor.backward is backward)
"""


def test_functions_a_library_puts_on_tensor_are_called_as_they_are_like_torch():
    # nnsight replaces Tensor.backward with a function that finds its caller's ``with`` block through
    # sys._getframe: the protocol, once on, must neither rewrite such a function's code nor put a dispatching
    # frame before it, nor dispatch it to ``__torch_function__`` (torch only dispatches its own methods)
    pytest.importorskip("torch", reason="torch is the oracle")
    import subprocess
    import sys
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    outs = []
    for mod in ("torch", "torchlike"):
        r = subprocess.run([sys.executable, "-c", PATCHED_METHODS.format(mod=mod)], capture_output=True,
                           text=True, cwd=root, timeout=300, env=dict(os.environ, PYTHONPATH=root))
        assert r.returncode == 0, r.stderr[-3000:]
        outs.append(r.stdout)
    assert outs[1] == outs[0], outs
    assert "('backward', 'caller')" in outs[0] and "('scaled', 'caller')" in outs[0] and "True True" in outs[0]


_AS_SUBCLASS_PATCH = '''
import torch
from torch import Tensor

print("torch.as_subclass exists", hasattr(torch, "as_subclass"))
torch.as_subclass = torch.Tensor.as_subclass  # fastai's torch_core, as torch has none
seen = []


def as_subclass(self, typ):  # fastai's @patch of Tensor.as_subclass: the original, then the metadata
    res = torch.as_subclass(self, typ)
    res.__dict__.update(getattr(self, "__dict__", {}))
    return res


Tensor.as_subclass = as_subclass


class TensorBase(Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        seen.append(func.__name__)
        return super().__torch_function__(func, types, args, kwargs or {})

    def clone(self, *, memory_format=None):
        return self.as_subclass(Tensor).clone(memory_format=memory_format).as_subclass(type(self))


x = torch.ones(3).as_subclass(TensorBase)
x.tag = "meta"
y = (x * 2).clone()
print(type(y).__name__, y.tolist(), getattr(y, "tag", None), type(torch.as_subclass(y, Tensor)).__name__)
print("handled", seen)
'''


def test_tensor_method_put_in_the_namespace_does_not_start_dispatching(tmp_path):
    """A library that puts one of Tensor's never-dispatching methods in the torch namespace (fastai:
    ``torch.as_subclass = torch.Tensor.as_subclass``) gets it as torch's: the namespace's switch to the protocol
    left it dispatching, and fastai's ``as_subclass`` patch (which calls it) recursed forever under the runner."""
    pytest.importorskip("torch", reason="the comparison runs the program with real torch too")
    script = tmp_path / "as_subclass_patch.py"
    script.write_text(_AS_SUBCLASS_PATCH)
    expected = run_program([str(script)], runner=False, timeout=300)
    ours = run_program([str(script)], runner=True, timeout=300)
    assert ours == expected, (ours, expected)
    assert ours[1] == "TensorBase [2.0, 2.0, 2.0] None Tensor", ours
