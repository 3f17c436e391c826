"""Activation checkpointing.  Eagerly, torchlike keeps the forward's arrays on the tape either way, so
``checkpoint`` runs the function once and returns its result (no memory saving in eager mode; under
torchlike.compile XLA decides rematerialisation)."""
from __future__ import annotations

__all__ = ["checkpoint", "checkpoint_sequential"]


def checkpoint(function, *args, use_reentrant=None, context_fn=None, determinism_check="default", debug=False,
               preserve_rng_state=True, **kwargs):
    return function(*args, **kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    for f in (functions if isinstance(functions, (list, tuple)) else list(functions.children())):
        input = f(input)
    return input
