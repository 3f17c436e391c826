"""The vmap and autocast conformance columns (conformance/transforms.py) on a few OpInfos: the checks
themselves compare with torch.func.vmap and torch.autocast; here they must pass for ops that work and
report a failure (not pass) for a wrong result."""
import pytest

from torch.testing._internal.common_methods_invocations import op_db

from conformance import transforms
from conformance.opinfo import op_key

OPS = {op_key(op): op for op in op_db}


@pytest.mark.parametrize("key", ["add", "matmul", "softmax", "sum", "nn.functional.linear", "mm", "exp"])
def test_vmap_and_autocast_columns_pass(key):
    r = transforms.run_op_transforms(OPS[key])
    assert r["vmap"][0] == "pass", r["vmap"]
    assert r["autocast"][0] == "pass", r["autocast"]


def test_autocast_column_catches_a_wrong_dtype():
    import torchlike
    op = OPS["mm"]
    sample = transforms._first_float32_sample(op)
    # a torchlike "mm" that ignores autocast: float32 out where torch's CPU autocast gives bfloat16
    status, category, _ = transforms.check_autocast(op, lambda a, b: torchlike.mm(a.float(), b.float()).float(),
                                                    sample)
    assert status == "fail" and "dtype" in category


def test_vmap_column_catches_a_wrong_value():
    import torchlike
    op = OPS["exp"]
    sample = transforms._first_float32_sample(op)
    status, category, _ = transforms.check_vmap(op, lambda x: torchlike.exp(x) + 1, sample, {})
    assert status == "fail" and "mismatch" in category
