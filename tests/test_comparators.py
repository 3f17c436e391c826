"""The shared comparators in conftest: a success-path comparison fails when either side raises or when it
compared nothing; an error-path comparison fails when torch does not raise; and every test in the suite checks
something."""
import ast
from pathlib import Path

import numpy as np
import pytest

from conftest import not_a_test_bug, raises_like_torch, same_as_torch

X = np.arange(6, dtype=np.float32).reshape(2, 3)


def test_same_as_torch_compares_values_and_grads():
    r = same_as_torch(lambda m, x: (x * 2).sum(0), X)
    assert tuple(r.shape) == (3,)
    same_as_torch(lambda m, x: m.max(x, 1), X)  # structseq: type name, fields and items
    same_as_torch(lambda m, x: x.sum().item(), X, grad=False)  # python scalar


def test_same_as_torch_fails_when_both_raise():
    with pytest.raises(AssertionError, match="torch raised"):
        same_as_torch(lambda m, x: m.no_such_op(x), X)


def test_same_as_torch_fails_when_nothing_compared():
    with pytest.raises(AssertionError, match="compared nothing"):
        same_as_torch(lambda m, x: None, X)


def test_same_as_torch_fails_on_dtype_difference():
    with pytest.raises(AssertionError):
        same_as_torch(lambda m, x: x.double() if m.__name__ == "torch" else x, X, grad=False)


def test_raises_like_torch_requires_torch_to_raise():
    with pytest.raises(AssertionError, match="torch did not raise"):
        raises_like_torch(lambda m, x: x + 1, X)


def test_raises_like_torch_matches_type_and_message():
    e = raises_like_torch(lambda m, x: x.reshape(4, 4), X)
    assert isinstance(e, RuntimeError)
    raises_like_torch(lambda m, x: m.cat([x, x.sum()]), X, match="zero-dimensional")


@pytest.mark.parametrize("bug", [lambda m, x: m.no_such_function(x), lambda m, x: undefined_name + x,  # noqa: F821
                                 lambda m, x: __import__("no_such_module")])
def test_an_error_test_whose_own_code_fails_on_both_sides_is_not_a_pass(bug):
    # a typo raises the same NameError/AttributeError on both sides: "same exception, same message" would pass
    with pytest.raises(AssertionError, match="the test's own code failed"):
        raises_like_torch(bug, X)
    for e in (NameError("x"), ModuleNotFoundError("y"), AttributeError("z", name="z", obj=np)):
        with pytest.raises(AssertionError, match="nothing was compared"):
            not_a_test_bug(e)
    assert isinstance(not_a_test_bug(TypeError("t")), TypeError)


# --- every test checks something ------------------------------------------------------------------------------
# A test function that neither asserts, nor expects an exception or warning, nor calls a checking helper (one of
# conftest's comparators, an ``assert*`` function, or a helper of its own that does one of these, found through the
# file's functions and the helpers it imports from other test files) compared nothing: it passes whatever torchlike
# does.  Read statically (``ast``), so the whole suite is checked without running it.
_CHECKS = {"raises", "warns", "deprecated_call", "fail", "approx", "same_as_torch", "raises_like_torch",
           "lib_program_vs_torch", "same_printed_lines", "run_program"}


def _checking_functions(tree, imported=frozenset()):
    """Names of the functions defined in ``tree`` that check (directly, or by calling one that does)."""
    calls, good = {}, set()
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        called = calls.setdefault(fn.name, set())
        for n in ast.walk(fn):
            if isinstance(n, (ast.Assert, ast.Raise)):
                good.add(fn.name)
            elif isinstance(n, ast.Call):
                f = n.func
                name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
                if name in _CHECKS or (name or "").startswith("assert"):
                    good.add(fn.name)
                elif name:
                    called.add(name)
    grew = True
    while grew:
        grew = False
        for name, called in calls.items():
            if name not in good and called & (good | imported):
                good.add(name)
                grew = True
    return good


def _unchecked_tests(root=Path(__file__).resolve().parent):
    trees = {p.stem: ast.parse(p.read_text()) for p in sorted(root.glob("*.py"))}
    helpers = {name: _checking_functions(tree) for name, tree in trees.items()}
    bad = []
    for name, tree in trees.items():
        if not name.startswith("test_"):
            continue
        imported = set()
        for n in tree.body:
            if isinstance(n, ast.ImportFrom) and n.module in helpers:
                imported |= {a.asname or a.name for a in n.names if a.name in helpers[n.module]}
        good = _checking_functions(tree, frozenset(imported))
        bad += [f"{name}.py::{fn.name}" for fn in ast.walk(tree)
                if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.name.startswith("test")
                and fn.name not in good]
    return bad


def test_every_test_checks_something():
    bad = _unchecked_tests()
    assert not bad, f"tests that assert nothing and call no checking helper (they pass whatever happens): {bad}"


def test_the_check_sees_a_test_that_compares_nothing(tmp_path):
    (tmp_path / "_helpers.py").write_text("def check(x):\n    assert x\n\ndef show(x):\n    print(x)\n")
    (tmp_path / "test_x.py").write_text(
        "from _helpers import check, show\n\n"
        "def test_ok():\n    check(1)\n\n"
        "def _wrapped(x):\n    check(x)\n\n"
        "def test_ok_through_a_wrapper():\n    _wrapped(1)\n\n"
        "def test_prints_only():\n    show(1)\n")
    assert _unchecked_tests(tmp_path) == ["test_x.py::test_prints_only"]
