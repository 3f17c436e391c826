"""torch.distributed.checkpoint.default_planner: the default save and load planners."""
from ..._missing import module_getattr
from ._planners import DefaultLoadPlanner, DefaultSavePlanner

__all__ = ["DefaultSavePlanner", "DefaultLoadPlanner"]
__getattr__ = module_getattr("torch.distributed.checkpoint.default_planner")
