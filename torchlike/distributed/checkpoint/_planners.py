"""The planner classes ``dcp.save``/``dcp.load`` accept. torchlike's planning is built in (torch's default
plan: flatten nested dicts, each piece written once, re-shard on load); these carry the options it reads.

>>> DefaultLoadPlanner(allow_partial_load=True).allow_partial_load
True
"""
from __future__ import annotations

__all__ = ["DefaultLoadPlanner", "DefaultSavePlanner", "LoadPlanner", "SavePlanner"]


class SavePlanner:
    """Base of the save planners."""


class LoadPlanner:
    """Base of the load planners."""


class DefaultSavePlanner(SavePlanner):
    """torch's default save plan (``flatten_state_dict`` and ``dedup_replicated_tensors`` are always on)."""

    def __init__(self, flatten_state_dict=True, flatten_sharded_tensors=True, dedup_replicated_tensors=None,
                 dedup_save_to_lowest_rank=False, enable_plan_caching=False):
        self.flatten_state_dict = flatten_state_dict
        self.flatten_sharded_tensors = flatten_sharded_tensors


class DefaultLoadPlanner(LoadPlanner):
    """torch's default load plan; ``allow_partial_load=True`` skips keys the checkpoint lacks."""

    def __init__(self, flatten_state_dict=True, flatten_sharded_tensors=True, allow_partial_load=False):
        self.flatten_state_dict = flatten_state_dict
        self.flatten_sharded_tensors = flatten_sharded_tensors
        self.allow_partial_load = allow_partial_load

