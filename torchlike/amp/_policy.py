"""Old home of autocast's per-op policies and their state: they live in ``torchlike._autocast`` (layer 2, below
the ops that opt in with ``@lower`` / ``@fp32`` / ``@keep``); ``torchlike.amp.autocast`` switches them."""
from __future__ import annotations

from .._autocast import _policy, clear_cache, fp32, fp32_if, keep, lower, lower_if, state  # noqa: F401

__all__ = ["state", "lower", "fp32", "keep", "lower_if", "fp32_if", "clear_cache"]
