"""A pytest plugin that stands the second of two simulated CPU devices in for a GPU (loaded with
``-p _simulated_gpu`` in a process started with ``--xla_force_host_platform_device_count=2``), as a
one-GPU machine has it: every torchlike module's ``_gpus()`` returns that device, it is JAX's default
device, and torchlike takes the default to be an accelerator (so 'cpu' tensors must be kept on the first
device, as on a GPU machine).  tests/test_cuda_simulated.py runs tests/test_cuda_gpu.py under it."""
import jax

import torchlike  # noqa: F401  (imports the modules whose _gpus is replaced)


def _simulated():
    return jax.devices("cpu")[1:]


def pytest_configure(config):
    import sys
    from torchlike import _device
    real = _device._gpus
    for name, mod in list(sys.modules.items()):
        if name.startswith("torchlike") and getattr(mod, "_gpus", None) is real:
            mod._gpus = _simulated
    jax.config.update("jax_default_device", _simulated()[0])
    _device.OFF_CPU[0] = True
    from torchlike import _creation
    _creation._default_is_cpu[:] = [False]


def pytest_collection_modifyitems(items):
    for item in items:  # the simulated device's platform is "cpu"; the tests ask for a GPU's
        item.module._platform = lambda t: "gpu" if next(iter(t._value.devices())) in _simulated() else "cpu"
