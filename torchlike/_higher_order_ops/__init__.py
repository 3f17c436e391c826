"""``torch._higher_order_ops``: control flow as operators (``torch.cond``, ``torch.while_loop``).

Eagerly they run the Python branch or loop; inside ``torchlike.compile``, when the predicate is a traced
value, they lower to ``jax.lax.cond`` / ``jax.lax.while_loop`` (one XLA program, no unrolling). ``map``,
``scan`` and ``associative_scan`` run as Python loops (unrolled under ``torchlike.compile``).
"""
from .cond import cond
from .while_loop import while_loop
from .scan_map import associative_scan, map, scan  # noqa: A004 - torch's name

__all__ = ["cond", "while_loop", "map", "scan", "associative_scan"]
