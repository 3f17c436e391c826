"""The ``torch._C`` queries libraries make about torch.func transforms and the accelerator
(``_are_functorch_transforms_active``, ``_functorch.is_legacy_batchedtensor``, ``_get_accelerator``): kornia's
blurs, losses and morphology ask the first on every call, transformers and diffusers the last when they pick a
device; each agrees with torch inside and outside vmap/grad/vjp/jvp/jacrev."""
import numpy as np
from conftest import same_as_torch


def _transform_flags(m, x):
    seen = []

    def probe(t):
        seen.append(m._C._are_functorch_transforms_active())
        return (t * t).sum()

    seen.append(m._C._are_functorch_transforms_active())
    m.func.vmap(probe)(x)
    m.func.grad(probe)(x[0])
    m.func.vjp(probe, x[0])
    m.func.jvp(probe, (x[0],), (x[0],))
    m.func.jacrev(probe)(x[0])
    m.func.vmap(m.func.grad(probe))(x)
    seen.append(m._C._are_functorch_transforms_active())
    return seen, m._C._functorch.is_legacy_batchedtensor(x), m._C._get_accelerator().type


def test_transform_state_and_accelerator_like_torch():
    flags, legacy, accel = same_as_torch(_transform_flags, np.ones((3, 2), np.float32), grad=False)
    assert flags[0] is False and flags[-1] is False and all(flags[1:-1]), flags
    assert legacy is False and accel == "cpu"
