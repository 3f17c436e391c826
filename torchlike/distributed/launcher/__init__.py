"""torch.distributed.launcher: ``LaunchConfig`` (libraries build and annotate with it); ``elastic_launch`` /
``launch_agent`` are not implemented (torchlike's workers start from ``python -m torchlike.distributed.run``)."""
from .api import LaunchConfig
from ..._missing import module_getattr

__getattr__ = module_getattr("torch.distributed.launcher")
