"""torchlike.fx.subgraph_rewriter: ``replace_pattern``."""
from __future__ import annotations

__all__ = ["replace_pattern"]


def replace_pattern(gm, pattern, replacement):
    raise NotImplementedError("torchlike.fx.replace_pattern is not implemented yet")
