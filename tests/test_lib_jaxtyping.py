"""jaxtyping + beartype (``@jaxtyped(typechecker=beartype)``) on torch tensors under the drop-in runner: dtype kinds
(Float/Int/Bool/Shaped/Num/Inexact/Integer), symbolic dims shared across arguments and the return, variadic,
broadcastable, fixed and expression dims, scalars, a checked ``Module.forward`` and dataclass, PyTree,
``print_bindings``, ``jaxtyped("context")`` and a module checked through ``install_import_hook``. Every call's result,
or the checker's exception type and whole message (it shows tensors as ``f32[5,3](torch)``), is compared line by
line with the same program under real torch."""
from conftest import lib_program_vs_torch


def test_jaxtyping_runtime_checks_like_torch():
    _, ours = lib_program_vs_torch("lib_jaxtyping.py", "torch", "jaxtyping", "beartype", timeout=300, rtol=1e-4)
    raised = [line for line in ours if " raised " in line]
    assert len(raised) == 23, raised
    assert all(line.endswith("raised jaxtyping.TypeCheckError") for line in raised[:-1]), raised
    assert raised[-1] == "context mismatch raised builtins.AssertionError"
    assert "  | Actual value: f32[4,2](torch)" in ours
    assert "  | Actual value: u8[4](torch)" in ours
    assert "  | Called with parameters: {'labels': i64[4](torch), 'mask': bool[3](torch)}" in ours
    assert "  | batch=torch.Size([2, 3])" in ours
    ok = [line for line in ours if " ok " in line]
    assert ok[0].startswith("matmul ok torch.float32 (5, 2)") and len(ok) == 22, ok
    for line in ("isinstance float True False False", "isinstance int True False True",
                 "isinstance shaped True False True", "hooked to_bytes ok torch.uint8 (3,) 12.0", "pytree ok 2",
                 "  | Type-check error whilst checking the parameters of jt_hooked_mod.Model.forward.",
                 "  | Actual value: {'a': f32[2](torch), 'c': [f32[3](torch)]}", "context ok context ok"):
        assert line in ours, line
