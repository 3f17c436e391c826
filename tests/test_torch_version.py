"""``torch.__version__`` compares as a version, as torch's ``TorchVersion`` does (checked against torch's class)."""
import operator

import pytest
from packaging.version import Version
from torch.torch_version import TorchVersion as Theirs

import torchlike
from torchlike.torch_version import TorchVersion as Ours

VERSIONS = ["2.13.0+cpu", "2.13.0", "1.10.0a", "2.0.0.dev20230101", "2.1.0rc1", "2.1.0.post1", "parrot"]
OTHERS = ["2.2", "2.13", "2.13.0", "2.13.0+cpu", "2.14", "1.9", "2.1.0", "2.0.0", "apple", (1, 12), (2, 13, 0),
          (3,), Version("2.1"), Version("2.13.0")]


@pytest.mark.parametrize("mine", VERSIONS)
@pytest.mark.parametrize("op", ["gt", "lt", "ge", "le", "eq", "ne"])
def test_comparisons_match_torch(mine, op):
    for other in OTHERS:
        def outcome(cls):
            try:
                return getattr(operator, op)(cls(mine), other)  # (as a user's expression: reflection included)
            except Exception as e:  # (the exception type is compared)
                return type(e).__name__
        assert outcome(Ours) == outcome(Theirs), (mine, op, other)


def test_torchlike_version_is_a_torch_version():
    v = torchlike.__version__
    assert isinstance(v, Ours) and isinstance(v, str) and v.startswith("2.13.0")
    assert v >= "2.2" and v > (1, 12) and v < (2, 14) and hash(v) == hash(str(v))
