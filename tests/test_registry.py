"""The op table (torchlike/_ops/registry.py) is the single source of truth: one declaration per
(namespace, name), every surface generated from it, its fields true to torch, and the seams it used to hide
compared with torch."""
import types
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is the oracle for these comparisons")
import torchlike  # noqa: E402
from torchlike import _torch_function  # noqa: E402
from torchlike._ops import registry  # noqa: E402
from torchlike._ops.registry import BINARY_OPERATORS, TABLE  # noqa: E402

_NS_TL = {"torch": torchlike, "linalg": torchlike.linalg, "special": torchlike.special, "fft": torchlike.fft,
          "nn.functional": torchlike.nn.functional}
_NS_TORCH = {"torch": torch, "linalg": torch.linalg, "special": torch.special, "fft": torch.fft,
             "nn.functional": torch.nn.functional}


def _unwrap(f):
    while hasattr(f, "__wrapped__"):
        f = f.__wrapped__
    return f


# --- duplicates raise ---------------------------------------------------------------------------------------
@pytest.fixture
def scratch_table():
    """Undo whatever a test declares."""
    table, claims, installed = dict(registry.TABLE), dict(registry._CLAIMS), list(registry._INSTALLED)
    yield
    registry._INSTALLED[:] = installed
    registry.TABLE.clear()
    registry.TABLE.update(table)
    registry._CLAIMS.clear()
    registry._CLAIMS.update(claims)


def test_duplicate_declaration_raises(scratch_table):
    with pytest.raises(ValueError, match=r"torch\.trace is declared twice"):
        registry.register("trace")(lambda input: input)
    # a method-only duplicate is caught too (Tensor.X is one surface)
    with pytest.raises(ValueError, match=r"Tensor\.sin is declared twice"):
        registry.register("sin", namespaces=("special",))(lambda input: input)
    # an alias colliding with an existing op
    with pytest.raises(ValueError, match=r"torch\.mul is declared twice"):
        registry.register("zz_registry_probe", aliases=("mul",))(lambda input: input)


def test_entries_are_keyed_by_namespace_and_name(scratch_table):
    # the same name in another namespace is another entry (torch.softmax vs special.softmax, torch.cross vs
    # linalg.cross are both in today's table)
    assert TABLE["torch", "softmax"].fn is not TABLE["special", "softmax"].fn
    assert TABLE["torch", "cross"].fn is not TABLE["linalg", "cross"].fn
    registry.register("zz_registry_probe", namespaces=("special",), method=False)(lambda input: input)
    registry.register("zz_registry_probe", namespaces=("linalg",), method=False)(lambda input: input)
    assert ("special", "zz_registry_probe") in TABLE and ("linalg", "zz_registry_probe") in TABLE
    with pytest.raises(ValueError, match="declared twice"):
        registry.register("zz_registry_probe", namespaces=("linalg",), method=False)(lambda input: input)


def test_install_raises_on_an_attribute_defined_by_hand(scratch_table):
    # install generates the surfaces not generated yet: here a new entry's, whose method is already written by hand
    registry.register("zz_registry_probe")(lambda input: input)

    class FakeTensor:
        zz_registry_probe = None
    spaces = {ns: types.SimpleNamespace() for ns in _NS_TL}
    with pytest.raises(RuntimeError, match=r"Tensor\.zz_registry_probe is already defined"):
        registry.install(spaces, FakeTensor)
    # and in a namespace: a function defined there by hand where an entry declares one
    registry.register("zz_registry_probe2", method=False)(lambda input: input)
    spaces["torch"].zz_registry_probe2 = len
    with pytest.raises(RuntimeError, match=r"torch\.zz_registry_probe2 is already defined"):
        registry.install(spaces, types.SimpleNamespace)


def test_one_implementation_of_each_formerly_duplicated_op():
    assert _unwrap(torchlike.is_nonzero) is _unwrap(torchlike.Tensor.is_nonzero)
    assert _unwrap(torchlike.trace) is _unwrap(torchlike.Tensor.trace)
    assert _unwrap(torchlike.special.logsumexp) is _unwrap(torchlike.logsumexp)
    assert _unwrap(torchlike.softmax) is _unwrap(torchlike.Tensor.softmax)
    assert _unwrap(torchlike.log_softmax) is _unwrap(torchlike.Tensor.log_softmax)
    assert _unwrap(torchlike.Tensor.narrow_copy) is _unwrap(torchlike.narrow_copy)
    for bad, msg in [(torchlike.tensor([]), "no values"), (torchlike.tensor([1, 2]), "more than one value")]:
        with pytest.raises(RuntimeError, match=msg):
            torchlike.is_nonzero(bad)
        with pytest.raises(RuntimeError, match=msg):
            torch.is_nonzero(torch.tensor(bad.tolist()))


# --- every entry reachable, on the surfaces it declares and where torch has it --------------------------------
def _method(name):
    """The table's function behind ``Tensor.name`` (a binary operator is install's NotImplemented wrapper, a
    ``method_varargs`` entry's method its wrapper that packs spread-out ints)."""
    got = torchlike.Tensor.__dict__[name]
    return got.__wrapped__ if name in BINARY_OPERATORS or name in _SPREAD else got


_SPREAD = {name for (_, name), e in TABLE.items() if e.method_varargs}


def _is_or_renames(got, fn):
    """``got`` is ``fn``, or (an alias's method: ``Tensor.absolute``) ``fn``'s copy under its own name
    (``_errors.renamed``): the same code, globals and inner functions."""
    if got is fn:
        return True
    got, fn = _torch_function.original(got), _torch_function.original(fn)  # (the protocol swaps their code)
    g, f = getattr(got, "__code__", None), getattr(fn, "__code__", None)
    return g is not None and f is not None and got.__globals__ is fn.__globals__ and \
        g.replace(co_name=f.co_name, co_qualname=f.co_qualname) == f and \
        _is_or_renames(getattr(got, "__wrapped__", None), getattr(fn, "__wrapped__", None))


def test_every_entry_is_installed_on_its_surfaces():
    checked = 0
    for (ns0, name), e in TABLE.items():
        for ns in e.namespaces:
            if ns not in _NS_TL:
                continue
            got = getattr(_NS_TL[ns], name)
            # (an alias's function, torchlike.subtract: sub's copy under its own name, as its method)
            assert got is e.fn or _unwrap(got) is _unwrap(e.fn) or _is_or_renames(_unwrap(got), _unwrap(e.fn)), \
                f"{ns}.{name} is not the table's"
            checked += 1
        if e.method:
            method = _method(name)
            if registry.method_parses(e.fn, name) and not e.method_varargs and name not in registry.BINARY_OPERATORS:
                method = method.__wrapped__  # (torch's parser errors on the failure path: see method_parses)
            assert _is_or_renames(method, e.fn), f"Tensor.{name} is not the table's"
            checked += 1
        if e.inplace:
            assert callable(torchlike.Tensor.__dict__[name + "_"])
        for d in e.dunders:
            assert _is_or_renames(_method(d), e.fn), f"Tensor.{d} is not the table's {name}"
    assert checked > 500


def test_public_functions_are_the_tables_with_no_side_channel():
    # torchlike.X (and linalg/special/fft.X) is the entry's function itself, or install's wrappers around it,
    # generated from the entry's declaration: out= (out=True) and the sparse fallback (the ``sparse`` field,
    # which torchlike.sparse fills before install); module-level references in the op's own module are that
    # same function, so no caller can reach an unchecked copy. No exception: nothing rewraps a surface later.
    import sys

    out_wrapper = registry._with_out(len, "len").__code__
    typed_wrapper = registry._typed(len, "len").__code__  # (torch's TypeError for a non-Tensor first argument)
    sparse_wrapper = registry._with_sparse(len, "len", None).__code__
    checked = with_sparse = 0
    for (ns0, name), e in TABLE.items():
        for ns in e.namespaces:
            if ns not in _NS_TL:
                continue
            got = getattr(_NS_TL[ns], name)
            if isinstance(got, types.ModuleType):  # torchlike.dist once the package is imported: it calls the op
                got = got.__wrapped__
            got = _torch_function.original(got)  # the protocol (switched on by a subclass) keeps the body
            if e.sparse is not None:
                assert got.__code__ is sparse_wrapper, f"{ns}.{name}: not install's sparse fallback"
                got = _torch_function.original(got.__wrapped__)
                with_sparse += 1
            else:
                assert getattr(got, "__code__", None) is not sparse_wrapper, f"{ns}.{name}: undeclared sparse fallback"
            if e.out:
                assert got.__code__ is out_wrapper, f"{ns}.{name}: not install's out= wrapper"
                got = _torch_function.original(got.__wrapped__)
            elif getattr(got, "__code__", None) is typed_wrapper:
                got = _torch_function.original(got.__wrapped__)
            assert got is _torch_function.original(e.fn) or _is_or_renames(got, e.fn), \
                f"{ns}.{name} is not the table's function"  # (or, an alias's, its copy under its own name)
            checked += 1
        base = _unwrap(e.fn)
        mod = sys.modules[base.__module__]
        for attr, v in vars(mod).items():
            if callable(v) and v is not e.fn and _unwrap(v) is base and not attr.startswith("__"):
                # another name for the same op in its module: must be the declared (checked) function
                # (_rsub: the helper both rsub, with torch.rsub's argument checks, and __rsub__ call)
                assert attr == "_rsub", f"{mod.__name__}.{attr} is an undeclared copy of {name}"
    assert checked > 500 and with_sparse > 40


def test_sparse_fallback_is_a_declaration_field():
    # torchlike.sparse fills OpEntry.sparse before install; install generates the fallback on the namespace
    # function and the in-place method (dense.add_(sparse)) from it, never on the method or a dunder (hot path)
    inplace_sparse = registry._make_inplace(len, "len", sparse=len).__code__
    inplace_dense = registry._make_inplace(len, "len").__code__
    for (ns0, name), e in TABLE.items():
        if e.inplace:
            code = _torch_function.original(torchlike.Tensor.__dict__[name + "_"]).__code__
            assert code is (inplace_sparse if e.sparse is not None else inplace_dense), f"Tensor.{name}_"
    assert TABLE["torch", "add"].sparse is not None and TABLE["torch", "cumsum"].sparse is None
    with pytest.raises(RuntimeError, match="before install"):
        registry.sparse_kernels(["add"], TABLE["torch", "add"].sparse)
    d = torch.tensor([[0., 2.], [3., 0.]])
    for x in (d, torchlike.tensor(d.tolist())):  # the fallback in use: a dense tensor += a sparse one
        y = x.clone()
        y.add_(x.to_sparse(), alpha=2).sub_(x.to_sparse())
        assert y.tolist() == [[0., 4.], [6., 0.]]


# same name, another op in torch: torch.cond is control flow (linalg.cond is the table's); torch.solve, eig,
# matrix_rank and lstsq are torch._linalg_utils stubs that only raise "removed"
_OTHER_OP = {"torch.cond", "torch.solve", "torch.eig", "torch.matrix_rank", "torch.lstsq"}
# known gap (issue 12's closing note): torch.vander (decreasing powers, N positional) has no entry yet
_KNOWN_MISSING = {"torch.vander"}


def test_entries_exist_where_torch_has_them():
    missing = []
    for (ns0, name), e in TABLE.items():
        for ns, mod in _NS_TORCH.items():
            if f"{ns}.{name}" in _OTHER_OP | _KNOWN_MISSING or name.startswith("_"):
                continue
            if hasattr(mod, name) and not hasattr(_NS_TL[ns], name):
                missing.append(f"{ns}.{name}")
        if hasattr(torch.Tensor, name) and not hasattr(torchlike.Tensor, name):
            missing.append(f"Tensor.{name}")
        if e.inplace and hasattr(torch.Tensor, name + "_") and not hasattr(torchlike.Tensor, name + "_"):
            missing.append(f"Tensor.{name}_")
    assert not missing, missing


# --- declaration fields: checks, promote, differentiable -----------------------------------------------------
def test_checks_are_applied_on_every_surface_and_module_reference():
    from torchlike._ops import pointwise

    def err(f):
        try:
            f()
        except Exception as e:  # noqa: BLE001 - the exception itself is compared
            return type(e).__name__, str(e)
        return None

    b, tb = torchlike.tensor([True, False]), torch.tensor([True, False])
    want = err(lambda: torch.floor(tb))
    assert want is not None
    for f in (lambda: torchlike.floor(b), lambda: b.floor(), lambda: b.floor_(),
              lambda: torchlike.floor(b, out=torchlike.empty(2, dtype=torchlike.bool)),
              lambda: TABLE["torch", "floor"].fn(b)):
        assert err(f) == want
    want = err(lambda: torch.floor_divide(tb, tb))
    assert err(lambda: pointwise.floor_divide(b, b)) == want == err(lambda: b // b)
    # the alias has its own name in the message, like torch
    x = torchlike.tensor([1.0])
    assert err(lambda: torchlike.arctan2(x, 1.0)) == err(lambda: torch.arctan2(torch.tensor([1.0]), 1.0))
    assert err(lambda: True & torchlike.tensor([1.5])) == err(lambda: True & torch.tensor([1.5]))


# declared differentiable=False but torch records a node: unique/unique_consecutive's backward only raises
# "not implemented" (under its own node names); torch.normal(mean, std) is differentiable in torch (a known gap,
# random_ops.py)
_KNOWN_DIFFERENTIABLE_IN_TORCH = {"torch.unique", "torch.unique_consecutive"}


def _call_samples():
    yield (torchlike.tensor([0.5, -1.5, 2.0], requires_grad=True),), (torch.tensor([0.5, -1.5, 2.0],
                                                                                  requires_grad=True),)
    yield ((torchlike.tensor([0.5, -1.5, 2.0], requires_grad=True), torchlike.tensor([1.0, 2.0, -3.0])),
           (torch.tensor([0.5, -1.5, 2.0], requires_grad=True), torch.tensor([1.0, 2.0, -3.0])))


def _run(fn, args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(*args)
        except Exception:  # noqa: BLE001 - a signature this sample doesn't fit
            return None


def test_differentiable_false_gives_no_grad_fn_like_torch():
    """``differentiable=False``: no grad_fn where torch has none (or only its NotImplemented node, for the
    known ops); ``differentiable="<aten op>"``: torch's NotImplemented node, whose backward raises."""
    compared, wrong = 0, []
    for (ns, name), e in TABLE.items():
        if e.differentiable is True or ns not in _NS_TORCH or not hasattr(_NS_TORCH[ns], name):
            continue
        for ours_args, torch_args in _call_samples():
            theirs = _run(getattr(_NS_TORCH[ns], name), torch_args)
            if not isinstance(theirs, torch.Tensor):
                continue
            ours = _run(e.fn, ours_args)
            assert isinstance(ours, torchlike.Tensor), f"{ns}.{name}: torch ran, torchlike didn't"
            if any(ours is a for a in ours_args) and any(theirs is a for a in torch_args):
                compared += 1  # both return their input itself (dequantize of a float tensor): nothing recorded
                break
            if e.differentiable:
                assert type(theirs.grad_fn).__name__ == "NotImplemented", f"{ns}.{name}: torch has {theirs.grad_fn}"
                assert type(ours.grad_fn).__name__ == "NotImplemented" and ours.requires_grad, f"{ns}.{name}"
                with pytest.raises(RuntimeError) as t_err:
                    theirs.sum().backward()
                with pytest.raises(RuntimeError) as o_err:
                    ours.sum().backward()
                assert str(o_err.value) == str(t_err.value)
            else:
                assert ours.grad_fn is None and not ours.requires_grad, f"{ns}.{name} recorded a grad_fn"
                if theirs.grad_fn is not None:
                    wrong.append(f"{ns}.{name}")
            compared += 1
            break
    assert compared > 40
    assert set(wrong) <= _KNOWN_DIFFERENTIABLE_IN_TORCH, wrong


def test_promote_field_matches_torch_result_dtypes():
    compared = 0
    for (ns, name), e in TABLE.items():
        if e.promote not in ("float", "bool") or ns not in _NS_TORCH or not hasattr(_NS_TORCH[ns], name):
            continue
        ours = _run(e.fn, (torchlike.tensor([1, 0, 3]),))
        theirs = _run(getattr(_NS_TORCH[ns], name), (torch.tensor([1, 0, 3]),))
        if not isinstance(theirs, torch.Tensor) or not isinstance(ours, torchlike.Tensor):
            continue
        assert str(ours.dtype) == str(theirs.dtype), f"{ns}.{name}"
        expected = "torch.bool" if e.promote == "bool" else "torch.float32"
        assert str(theirs.dtype) == expected, f"{ns}.{name}: promote={e.promote!r} but torch gives {theirs.dtype}"
        compared += 1
    assert compared > 40


# --- the seams -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("make", [
    lambda t: t.arange(6.0).reshape(2, 3),
    lambda t: t.arange(6.0).reshape(2, 3)[1:],
    lambda t: t.arange(12, dtype=t.int8).reshape(3, 4).t(),
    lambda t: t.zeros(0, dtype=t.float64),
    lambda t: t.ones(4, dtype=t.bfloat16)[::2],
])
def test_untyped_storage_nbytes_matches_torch(make):
    ours, theirs = make(torchlike), make(torch)
    assert ours.untyped_storage().nbytes() == theirs.untyped_storage().nbytes()


_OUT_CALLS = [
    lambda t, x: t.mul(x, x, out=t.empty(2)),
    lambda t, x: t.sin(x, out=t.empty(2)),
    lambda t, x: t.true_divide(x, 2, out=t.empty(2)),
    lambda t, x: t.fix(x, out=t.empty(2)),
    lambda t, x: t.clip(x, 0, 1, out=t.empty(2)),
    lambda t, x: t.sum(x, 0, out=t.empty(())),
    lambda t, x: t.cat([x, x], out=t.empty(4)),
    lambda t, x: t.special.expit(x, out=t.empty(2)),
    lambda t, x: t.special.erfcx(x, out=t.empty(2)),
    lambda t, x: t.special.psi(x, out=t.empty(2)),
    lambda t, x: t.linalg.vector_norm(x, out=t.empty(())),
    lambda t, x: t.frexp(x, out=(t.empty(2), t.empty(2, dtype=t.int32))),
    lambda t, x: t.sin(x.detach(), out=t.empty(2, requires_grad=True)),
]


@pytest.mark.parametrize("call", _OUT_CALLS)
def test_out_autograd_error_names_the_op_like_torch(call):
    def msg(lib):
        with pytest.raises(RuntimeError) as info:
            call(lib, lib.ones(2, requires_grad=True))
        return str(info.value)
    assert msg(torchlike) == msg(torch)


# --- the conformance harness enumerates the table ----------------------------------------------------------------
def test_conformance_reports_table_entries_without_samples(scratch_table):
    from conformance import table
    names = table.opinfo_names()
    assert {"add", "linalg.svd", "special.erfcx"} <= names
    registry.register("zz_registry_probe", namespaces=("special",), method=False)(lambda input: input)
    missing = table.uncovered(names)
    assert ("special", "zz_registry_probe") in missing
    # an OpInfo name covers the torch function and a method-only entry; namespaces are told apart
    assert ("torch", "add") not in missing and ("linalg", "svd") not in missing
    assert table.uncovered({"svd"}, keys=[("torch", "svd"), ("linalg", "svd")], own={}) == [("linalg", "svd")]
    assert table.uncovered({"byte"}, keys=[("Tensor", "byte")], own={}) == []
    # own samples count, and they pass against torch
    assert not set(table.OWN_SAMPLES) & set(missing)
    assert set(table.run_own_samples().values()) == {"pass"}
    section = table.markdown_section(missing)
    assert "`zz_registry_probe`" in section and f"{len(missing)} entries" in section


def test_hardshrink_and_prelu_are_entries_on_every_surface():
    # were hand-attached methods calling nn.functional; now table entries (_ops/activations.py) that
    # nn.functional re-exports, as torch's F.hardshrink is torch.hardshrink
    from conftest import raises_like_torch, same_as_torch
    for name in ("hardshrink", "prelu"):  # (the method is the entry's function, or the install's method-form parser
        method = torchlike.Tensor.__dict__[name]  # wrapper of it where the function checks its number arguments)
        assert method is TABLE["torch", name].fn or method.__wrapped__ is TABLE["torch", name].fn
    assert torchlike.nn.functional.prelu is torchlike.prelu
    x = np.array([[-1.5, 0.2, 0.7], [2.0, -0.3, -0.6]], np.float32)
    w = np.array([0.25, -0.5, 2.0], np.float32)
    same_as_torch(lambda m, x: x.hardshrink(0.5), x)
    same_as_torch(lambda m, x: m.hardshrink(x, lambd=0.3), x)
    same_as_torch(lambda m, x, w: x.prelu(w), x.reshape(2, 3, 1), w)
    same_as_torch(lambda m, x, w: m.prelu(x, w), x, w[:1])
    same_as_torch(lambda m, x: (m.hardshrink(x, out=m.empty(2, 3)), m.nn.functional.hardshrink(x, out=m.empty(2, 3))),
                  x, grad=False)
    raises_like_torch(lambda m, x: m.hardshrink(x.long()), x)
    raises_like_torch(lambda m, x, w: m.prelu(x, w), x, w[:2])


# torch.overrides' helpers that torch.nn.functional re-exports (functions of the protocol, not ops)
_PROTOCOL_HELPERS = ("handle_torch_function", "has_torch_function", "has_torch_function_unary",
                     "has_torch_function_variadic",
                     # helpers torch's F holds that are no ops (tests/test_api_surface.py checks them)
                     "assert_int_or_pair", "boolean_dispatch")


def _functional_names():
    """torch.nn.functional's public functions that torchlike has (not its typing re-exports, modules, classes)."""
    F = torch.nn.functional
    return sorted(n for n in dir(F) if not n.startswith("_") and hasattr(torchlike.nn.functional, n)
                  and callable(getattr(F, n)) and not isinstance(getattr(F, n), (types.ModuleType, type))
                  and getattr(getattr(F, n), "__module__", "").split(".")[0] != "typing"
                  and n not in _PROTOCOL_HELPERS)


def test_every_nn_functional_function_is_a_table_entry():
    # one declaration per op in the "nn.functional" namespace too: F.X is what install made from its entry
    # (F.conv2d is torch.conv2d, F.relu_ is torch.relu_ where torch's are one function; F.relu and torch.relu are
    # two in torch, and two entries here), homed at torch's module path, signature and docstring its own
    import inspect
    names = _functional_names()
    assert len(names) >= 128 and {"linear", "relu", "softmax", "cross_entropy", "pad"} <= set(names)
    not_entries = []
    for n in names:
        got = getattr(torchlike.nn.functional, n)
        key = registry._CLAIMS.get(("nn.functional", n))
        if key is None or TABLE[key].public is not got:
            not_entries.append(n)
            continue
        e = TABLE[key]
        assert e.method is (n in ("hardshrink", "prelu")), f"F.{n}: Tensor.{n} where torch has none"
        if key[0] == "nn.functional":
            assert got.__module__ == "torchlike.nn.functional" and got.__qualname__ == n, n
            assert inspect.signature(got) == inspect.signature(e.fn) and got.__doc__ == e.fn.__doc__, n
        # where torch's F.X is torch.X, torchlike's is one entry with both surfaces (and conversely)
        same = getattr(torch, n, None) is getattr(torch.nn.functional, n)
        if same:
            assert getattr(torchlike, n) is got, f"torch.{n} is F.{n} in torch, not here"
    assert not not_entries, f"{len(not_entries)} nn.functional functions outside the op table: {not_entries}"
