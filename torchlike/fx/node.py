"""torchlike.fx.node: ``torch.fx.node``'s names (``Node``, ``map_arg``), for libraries importing them from there."""
from . import Node, map_arg  # noqa: F401

__all__ = ["Node", "map_arg"]
