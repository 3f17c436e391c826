"""torchlike._dynamo.config: dynamo's configuration knobs; ``cache_size_limit`` is torchlike.compile's."""
from __future__ import annotations

import sys

from .._config_module import SettingsModule
from ..compile import config as _compile_config


class _Config(SettingsModule):
    """A settings module whose ``cache_size_limit`` (``recompile_limit``) is torchlike.compile's."""

    _FORWARDED = ("cache_size_limit",)

    def __getattr__(self, name):
        if name in _Config._FORWARDED:
            return getattr(_compile_config, name)
        if name == "recompile_limit":
            return _compile_config.cache_size_limit
        raise AttributeError(f"torch._dynamo.config.{name} does not exist")  # (torch's ConfigModule text)

    def __setattr__(self, name, value):
        if name in _Config._FORWARDED or name == "recompile_limit":
            setattr(_compile_config, "cache_size_limit", value)
        else:
            super().__setattr__(name, value)


suppress_errors = False
verbose = False
capture_scalar_outputs = False
capture_dynamic_output_shape_ops = False
accumulated_cache_size_limit = 256
accumulated_recompile_limit = 256
optimize_ddp = True
automatic_dynamic_shapes = True
assume_static_by_default = True
force_parameter_static_shapes = True
inline_inbuilt_nn_modules = True
error_on_recompile = False
allow_unspec_int_on_nn_module = False
specialize_int = False

sys.modules[__name__].__class__ = _Config
