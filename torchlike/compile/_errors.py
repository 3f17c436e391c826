"""Errors the compile path recognises."""


class GraphBreak(RuntimeError):
    """Raised when traced code needs a concrete value (``.item()``, ``bool(t)``, data-dependent shapes)."""
