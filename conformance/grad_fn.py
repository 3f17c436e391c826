"""grad_fn names vs torch over the OpInfo database (``python -m conformance.grad_fn [-k NAME] [--json PATH]``).

For every op in torch's ``op_db`` that the conformance run covers, the first float sample that gives
torch a ``grad_fn`` is run through torch and torchlike (inputs requiring grad), and the backward node of
the first differentiable output is compared: its class name (``type(out.grad_fn).__name__``, e.g.
``MulBackward0``) and the structure of its ``next_functions`` (how many edges, which are ``None``, the
class names of the nodes they lead to).  Prints one line per mismatch and the totals.
"""
from __future__ import annotations

import itertools
import json
import signal
import sys
import warnings

import torch

import torchlike

from .convert import Converter, Unconvertible, clone_torch, flatten
from .opinfo import OpTimeout, _on_alarm, op_key, resolve, skip_reason

__all__ = ["compare_op", "run", "edge_structure"]


def _first_grad_fn(out, tensor_cls):
    for o in flatten(out):
        if isinstance(o, tensor_cls) and o.grad_fn is not None:
            return o.grad_fn
    return None


def edge_structure(node):
    """``next_functions`` as ((class name or None, index), ...)."""
    return tuple((None if n is None else type(n).__name__, i) for n, i in node.next_functions)


def _sample(op, fn):
    """(torch grad_fn, torchlike grad_fn or exception) of the first sample where torch records a node."""
    sup = op.supported_dtypes("cpu")
    for dt in (torch.float32, torch.float64):
        if dt not in sup:
            continue
        for s in itertools.islice(op.sample_inputs("cpu", dt, requires_grad=True), 4):
            ti, ta, tk = clone_torch((s.input, s.args, s.kwargs), {})
            try:
                t_out = op.op(ti, *ta, **tk)
            except Exception:  # noqa: BLE001
                continue
            t_node = _first_grad_fn(t_out, torch.Tensor)
            if t_node is None:
                continue
            try:
                li, la, lk = Converter(grad=True)((s.input, tuple(s.args), dict(s.kwargs)))
            except Unconvertible:
                continue
            try:
                l_out = fn(li, *la, **lk)
            except OpTimeout:
                raise
            except Exception as e:  # noqa: BLE001
                return t_node, e
            return t_node, _first_grad_fn(l_out, torchlike.Tensor)
    return None, None


def compare_op(op, time_limit=20.0):
    """A dict: key, torch (class name), torchlike (class name or a failure), edges_torch, edges_tl,
    name_ok, edges_ok; None when the op is out of scope or torch records no node for it."""
    if skip_reason(op) or not op.supports_autograd:
        return None
    fn, _ = resolve(op)
    if fn is None:
        return None
    old = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, time_limit)
    try:
        t_node, l_node = _sample(op, fn)
    except OpTimeout:
        t_node, l_node = "timeout", None
    except Exception:  # noqa: BLE001  (sample generation failed)
        return None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    if t_node is None:
        return None
    if t_node == "timeout":
        return {"key": op_key(op), "torch": "?", "torchlike": "timeout", "name_ok": False, "edges_ok": False}
    r = {"key": op_key(op), "torch": type(t_node).__name__, "edges_torch": edge_structure(t_node)}
    if isinstance(l_node, BaseException):
        r["torchlike"] = f"raised {type(l_node).__name__}"
    elif l_node is None:
        r["torchlike"] = "no grad_fn"
    else:
        r["torchlike"] = type(l_node).__name__
        r["edges_tl"] = edge_structure(l_node)
    r["name_ok"] = r["torchlike"] == r["torch"]
    r["edges_ok"] = r.get("edges_tl") == r["edges_torch"]
    return r


def run(filter_=None, progress=None):
    """Compare every in-scope op (``filter_``: substrings of op keys); returns the list of result dicts."""
    warnings.filterwarnings("ignore")
    from torch.testing._internal.common_methods_invocations import op_db

    from . import sample_lookup
    sample_lookup.install()
    out = []
    for op in op_db:
        if filter_ and not any(f in op_key(op) for f in filter_):
            continue
        r = compare_op(op)
        if r is not None:
            out.append(r)
            if progress:
                progress(r)
    return out


def summary(results):
    n = len(results)
    names = sum(r["name_ok"] for r in results)
    edges = sum(r["edges_ok"] for r in results)
    return {"ops": n, "name_match": names, "edges_match": edges}


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    flt, path = [], None
    while argv:
        a = argv.pop(0)
        if a == "-k":
            flt.append(argv.pop(0))
        elif a == "--json":
            path = argv.pop(0)

    def show(r):
        if not r["name_ok"]:
            print(f"NAME  {r['key']}: torch {r['torch']} / torchlike {r['torchlike']}", flush=True)
        elif not r["edges_ok"]:
            print(f"EDGES {r['key']}: torch {r['edges_torch']} / torchlike {r.get('edges_tl')}", flush=True)

    res = run(flt or None, show)
    s = summary(res)
    print(f"grad_fn class names matching torch: {s['name_match']}/{s['ops']}; "
          f"next_functions structure matching: {s['edges_match']}/{s['ops']}")
    if path:
        with open(path, "w") as f:
            json.dump({"summary": s, "results": res}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
