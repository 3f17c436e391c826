"""torch.set_float32_matmul_precision / torch.backends.cuda.matmul.allow_tf32: float32 products run at JAX's
HIGHEST precision under torch's default "highest", at XLA's default (TF32 on a GPU) under "high"/"medium".
The CPU computes full float32 either way, so results here equal torch's under every setting; the precision
the programs carry is read off their jaxprs."""
import jax
import numpy as np
import pytest

import torchlike
from torchlike import _global_settings
from torchlike.nn.functional import _linear

torch = pytest.importorskip("torch", reason="torch is the oracle for the values and settings")


@pytest.fixture(autouse=True)
def _restore():
    yield
    torchlike.backends.cuda.matmul.fp32_precision = "ieee"
    torch.backends.cuda.matmul.fp32_precision = "ieee"


def _precisions(fn, *args):
    jaxpr = jax.make_jaxpr(fn)(*args)
    return {str(e.params["precision"]) for e in jaxpr.jaxpr.eqns if e.primitive.name == "dot_general"}


def test_default_is_highest_and_high_is_xla_default():
    x, w = np.ones((4, 3), np.float32), np.ones((2, 3), np.float32)
    assert torchlike.get_float32_matmul_precision() == torch.get_float32_matmul_precision() == "highest"
    assert _precisions(lambda a, b: _linear._linear(a, b, None), x, w) == {"(Precision.HIGHEST, Precision.HIGHEST)"}
    torchlike.set_float32_matmul_precision("high")
    assert _precisions(lambda a, b: _linear._linear(a, b, None), x, w) == {"(Precision.DEFAULT, Precision.DEFAULT)"}


@pytest.mark.parametrize("how", ["precision", "allow_tf32", "fp32_precision"])
def test_settings_agree_with_torch_and_results_stay_torchs_on_the_cpu(how):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((32, 16)).astype(np.float32), rng.standard_normal((16, 8)).astype(np.float32)
    before = (torchlike.tensor(a) @ torchlike.tensor(b)).numpy()  # compiled under "highest"
    for m in (torchlike, torch):
        if how == "precision":
            m.set_float32_matmul_precision("high")
        elif how == "allow_tf32":
            m.backends.cuda.matmul.allow_tf32 = True
        else:
            m.backends.cuda.matmul.fp32_precision = "tf32"
    if how == "fp32_precision":  # (torch refuses the legacy getters once the new API was used)
        assert torchlike.backends.cuda.matmul.fp32_precision == torch.backends.cuda.matmul.fp32_precision == "tf32"
    else:
        assert torchlike.get_float32_matmul_precision() == torch.get_float32_matmul_precision() == "high"
        assert torchlike.backends.cuda.matmul.allow_tf32 is torch.backends.cuda.matmul.allow_tf32 is True
    assert _global_settings.matmul_precision() == jax.lax.Precision.DEFAULT
    after = (torchlike.tensor(a) @ torchlike.tensor(b)).numpy()  # a new program: the caches were dropped
    np.testing.assert_allclose(after, torch.tensor(a) @ torch.tensor(b), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(after, before, rtol=1e-5, atol=1e-6)
    torchlike.backends.cuda.matmul.allow_tf32 = False
    assert _global_settings.matmul_precision() == jax.lax.Precision.HIGHEST
