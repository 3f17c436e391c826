"""``torch._higher_order_ops``: control flow as operators (``torch.cond``, ``torch.while_loop``).

Eagerly they run the Python branch or loop; inside ``torchlike.compile``, when the predicate is a traced
value, they lower to ``jax.lax.cond`` / ``jax.lax.while_loop`` (one XLA program, no unrolling). ``map``,
``scan`` and ``associative_scan`` run as Python loops (unrolled under ``torchlike.compile``); each is
also the module of its name, as in torch (``from torch._higher_order_ops.associative_scan import associative_scan``).
"""
from .cond import cond
from .while_loop import while_loop
from .associative_scan import associative_scan
from .map import map  # noqa: A004 - torch's name
from .scan import scan

__all__ = ["cond", "while_loop", "map", "scan", "associative_scan"]
