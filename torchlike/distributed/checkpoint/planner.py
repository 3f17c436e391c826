"""torch.distributed.checkpoint.planner: the planner bases (torchlike's planning is built in: see _planners)."""
from ..._missing import module_getattr
from ._planners import LoadPlanner, SavePlanner

__all__ = ["SavePlanner", "LoadPlanner"]
__getattr__ = module_getattr("torch.distributed.checkpoint.planner")
