r"""The Python side effects of a compiled function's trace: what it printed and the Python state it changed.

Tracing runs the function's Python code once. Where that run is not the call's result (a graph break, after
which the call runs eagerly from the start; a retrace), its side effects must not count, or a ``print`` before
a break appears twice; where the trace succeeds, its program replays none of them on later calls, while
torch.compile prints, appends and counts on every call. ``Watch`` records both, so the compiled function can
undo them and run the call eagerly instead, once, as torch does:

- output: writes to ``sys.stdout`` / ``sys.stderr`` made by code outside torchlike, JAX, ``warnings`` and
  ``logging`` on the tracing thread are held back (and dropped when undone, written when kept);
- state: the globals the function's code names (and the same-module functions it calls, transitively) and its
  closure cells: a rebinding (``global n; n += 1``) and a change to a list, dict or set bound there
  (``LOG.append(x)``) are seen and undone. An attribute set on an object (``self.calls += 1``) is not seen.

>>> ns = {"__name__": "script"}
>>> exec("LOG = []\ndef f():\n    LOG.append(1)\n    print('hello')\n", ns)
>>> w = Watch(ns["f"])
>>> with w:
...     ns["f"]()
>>> w.happened(), ns["LOG"]
('print, LOG changed', [1])
>>> w.undo()
>>> ns["LOG"]
[]
"""
from __future__ import annotations

import functools
import sys
import threading
import types

__all__ = ["Watch"]

_QUIET = ("torchlike", "jax", "jaxlib", "warnings", "logging", "importlib")
_CONTAINERS = (list, dict, set, bytearray)


def _copy(value):
    if isinstance(value, dict):
        return dict(value)
    if isinstance(value, (list, bytearray)):
        return list(value)
    return set(value)


def _same(saved, value):
    if isinstance(value, dict):
        return len(saved) == len(value) and all(k in value and value[k] is v for k, v in saved.items())
    if isinstance(value, (list, bytearray)):
        return len(saved) == len(value) and all(a is b for a, b in zip(saved, value))
    return saved == value


def _restore(value, saved):
    if isinstance(value, dict):
        value.clear()
        value.update(saved)
    elif isinstance(value, (list, bytearray)):
        value[:] = saved
    else:
        value.clear()
        value.update(saved)


def _functions(fn):
    """The plain functions behind ``fn`` (a function, bound method, partial, wrapper or callable object)."""
    seen = []
    todo = [fn]
    while todo:
        f = todo.pop()
        if isinstance(f, functools.partial):
            todo.append(f.func)
        elif isinstance(f, types.MethodType):
            todo.append(f.__func__)
            if not isinstance(f.__self__, type) and hasattr(type(f.__self__), "forward"):
                todo.append(type(f.__self__).forward)  # a module's _call_impl runs its forward
        elif isinstance(f, types.FunctionType):
            if f not in seen:
                seen.append(f)
                if getattr(f, "__wrapped__", None) is not None:
                    todo.append(f.__wrapped__)
        elif not isinstance(f, type) and hasattr(type(f), "forward"):  # an nn.Module
            todo.append(type(f).forward)
        elif callable(f) and isinstance(getattr(type(f), "__call__", None), types.FunctionType):
            todo.append(type(f).__call__)
    return seen


def _names(code):
    out = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            out |= _names(c)
    return out


_HOLDING = {}  # thread id -> the list a watch on that thread holds its output in
_LOCK = threading.Lock()
_SAVED = []  # the streams the proxies replaced, while any thread watches


class _Stream:
    """Stands in for ``sys.stdout``/``sys.stderr`` while some thread traces: holds back the writes of that
    thread's user code; every other write goes through."""

    def __init__(self, real):
        self._real = real

    def write(self, text):
        held = _HOLDING.get(threading.get_ident())
        if held is not None:
            name = str(sys._getframe(1).f_globals.get("__name__", ""))
            if not name.startswith(_QUIET):
                held.append((self._real, text))
                return len(text)
        return self._real.write(text)

    def __getattr__(self, name):
        return getattr(self._real, name)


class Watch:
    """Records the Python side effects of running ``fn`` inside ``with Watch(fn) as w:`` (see the module)."""

    def __init__(self, fn, depth=3):
        self._slots = []  # (namespace dict or cell, name or None, present, value, container copy)
        seen_fns = set()
        todo = [(f, 0) for f in _functions(fn)]
        while todo:
            f, d = todo.pop()
            if f in seen_fns:
                continue
            seen_fns.add(f)
            g = f.__globals__
            if str(g.get("__name__", "")).startswith(_QUIET):
                continue
            for name in sorted(_names(f.__code__)):
                present = name in g
                value = g.get(name)
                self._slots.append((g, name, present, value, _copy(value) if isinstance(value, _CONTAINERS) else None))
                if d < depth and isinstance(value, types.FunctionType) and value.__globals__ is g:
                    todo.append((value, d + 1))
            for cell in f.__closure__ or ():
                try:
                    value = cell.cell_contents
                except ValueError:
                    continue
                self._slots.append((cell, None, True, value, _copy(value) if isinstance(value, _CONTAINERS) else None))
        self._held = []
        self._outer = None

    def __enter__(self):
        with _LOCK:
            if not _SAVED:
                _SAVED[:] = [sys.stdout, sys.stderr]
                sys.stdout, sys.stderr = _Stream(sys.stdout), _Stream(sys.stderr)
            self._outer = _HOLDING.get(threading.get_ident())
            _HOLDING[threading.get_ident()] = self._held
        return self

    def __exit__(self, *exc):
        with _LOCK:
            if self._outer is None:
                _HOLDING.pop(threading.get_ident(), None)
            else:
                _HOLDING[threading.get_ident()] = self._outer
            if not _HOLDING and _SAVED:
                if isinstance(sys.stdout, _Stream):
                    sys.stdout = _SAVED[0]
                if isinstance(sys.stderr, _Stream):
                    sys.stderr = _SAVED[1]
                _SAVED.clear()
        return False

    def _changed(self):
        out = []
        for ns, name, present, value, saved in self._slots:
            if name is None:
                try:
                    now, now_present = ns.cell_contents, True
                except ValueError:
                    now, now_present = None, False
            else:
                now_present, now = name in ns, ns.get(name)
            if now_present != present or now is not value or (saved is not None and not _same(saved, value)):
                out.append(name or "a closure variable")
        return out

    def changed_values(self):
        """The values the run left in the state it changed (a rebound global's, a changed container's items)."""
        changed = set(self._changed())
        for ns, name, present, value, saved in self._slots:
            if (name or "a closure variable") in changed:
                now = ns.get(name) if name is not None else getattr(ns, "cell_contents", None)
                yield now
                if isinstance(now, dict):
                    yield from now.values()
                elif isinstance(now, (list, set)):
                    yield from now

    def happened(self):
        """What the run did that a program cannot replay ("print, LOG changed"), or "" (nothing)."""
        what = (["print"] if self._held else []) + [f"{n} changed" for n in sorted(set(self._changed()))]
        return ", ".join(what)

    def keep(self):
        """The run counts (its output is written now)."""
        held, self._held[:] = list(self._held), []
        for stream, text in held:
            stream.write(text)

    def undo(self):
        """The run does not count: its held output is dropped and the state it changed goes back."""
        self._held.clear()
        for ns, name, present, value, saved in self._slots:
            if name is None:
                ns.cell_contents = value
            elif present:
                ns[name] = value
            else:
                ns.pop(name, None)
            if saved is not None:
                _restore(value, saved)
