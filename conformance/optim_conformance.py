"""Optimizer conformance: torchlike.optim against torch's own ``optim_db``.

For every ``OptimizerInfo`` in ``torch.testing._internal.common_optimizers.optim_db`` and every option
combination of its ``optim_inputs_func(device="cpu")`` (times each implementation flag the info lists as
supported on CPU, plus complex parameters where the info says they are supported), both frameworks get the
same float64 initial parameters and the same random gradients for 10 steps (LBFGS: a closure computing the
same quadratic loss; SparseAdam: the same row-sparse gradients). Parameters, optimizer state and
``state_dict()['param_groups']`` are compared; a combination passes when every tensor agrees within 1e-6
relative (error = max|a - b| / max(max|a|, 1e-12), per tensor).

Run:  python -m conformance.optim_conformance      (writes conformance/OPTIM_REPORT.md)
"""
from __future__ import annotations

import os
import sys
import time
import traceback
import warnings

import numpy as np
import torch
from torch.testing._internal.common_optimizers import optim_db

import torchlike as tl

TOL = 1e-6
STEPS = 10
SEED = 1234


class _SparseGradShim(tl.Tensor):
    """A stand-in for a sparse COO gradient (torchlike has no sparse layout): dense storage plus the
    coalesced indices/values torch's SparseAdam reads."""

    is_sparse = True

    def coalesce(self):
        return self

    def _indices(self):
        return self.__dict__["idx"]

    def _values(self):
        return self.__dict__["vals"]


def _np(x):
    if isinstance(x, torch.Tensor):
        x = x.detach()
        return x.resolve_conj().numpy() if not x.is_sparse else x.to_dense().numpy()
    return np.asarray(x._value)


def _relerr(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return float("inf")
    if a.size == 0:
        return 0.0
    scale = max(float(np.max(np.abs(a))), 1e-12)
    return float(np.max(np.abs(a.astype(np.complex128) - b.astype(np.complex128)))) / scale


def _cmp_value(tv, lv, path, errs):
    """Compare one state entry (tensor / number / list / None) and record the error under ``path``."""
    if isinstance(tv, torch.Tensor):
        if not isinstance(lv, tl.Tensor):
            errs[path] = f"type {type(lv).__name__} != Tensor"
            return
        if str(tv.dtype).split(".")[-1] != str(lv.dtype).split(".")[-1]:
            errs[path] = f"dtype {lv.dtype} != {tv.dtype}"
            return
        errs[path] = _relerr(_np(tv), _np(lv))
    elif isinstance(tv, (list, tuple)):
        if not isinstance(lv, (list, tuple)) or len(tv) != len(lv):
            errs[path] = "list length/type mismatch"
            return
        # a list of tensors (LBFGS history) is compared as one entry, relative to its largest element:
        # converged history slots hold rounding noise (~1e-14 next to entries ~1e2)
        if [a is None for a in tv] != [b is None for b in lv]:
            errs[path] = "None pattern mismatch in list"
            return
        ta = [_np(a) for a in tv if isinstance(a, torch.Tensor)]
        la = [_np(b) for b in lv if isinstance(b, tl.Tensor)]
        n_set = sum(a is not None for a in tv)
        if len(ta) == len(la) == n_set and ta and all(a.shape == b.shape for a, b in zip(ta, la)):
            if any(str(a.dtype) != str(b.dtype) for a, b in zip(ta, la)):
                errs[path] = "dtype mismatch in list"
                return
            scale = max(max(float(np.max(np.abs(a))) if a.size else 0.0 for a in ta), 1e-12)
            errs[path] = max(float(np.max(np.abs(a - b))) if a.size else 0.0 for a, b in zip(ta, la)) / scale
            return
        for i, (a, b) in enumerate(zip(tv, lv)):
            _cmp_value(a, b, f"{path}[{i}]", errs)
    elif tv is None:
        if lv is not None:
            errs[path] = "None mismatch"
    else:
        if isinstance(lv, tl.Tensor):
            lv = lv.item()
        errs[path] = _relerr(float(tv), float(lv))


def _group_clean(g):
    out = {}
    for k, v in g.items():
        if isinstance(v, (torch.Tensor, tl.Tensor)):
            v = round(float(v.item()), 12)
        out[k] = v
    return out


def _make_params(info, complex_):
    rng = np.random.default_rng(SEED)
    name = info.optim_cls.__name__
    shapes = [(4, 3), (6, 5)] if name == "Muon" else [(4, 3), (5,), ()]
    if name == "SparseAdam":
        shapes = [(6, 3), (5,)]
    arrs = []
    for s in shapes:
        a = rng.standard_normal(s)
        if complex_:
            a = a + 1j * rng.standard_normal(s)
        arrs.append(a)
    return arrs, rng


def _convert_kwargs(kwargs):
    out = {}
    for k, v in kwargs.items():
        if isinstance(v, torch.Tensor):
            v = tl.tensor(v.detach().numpy())
        elif isinstance(v, tuple) and any(isinstance(x, torch.Tensor) for x in v):
            v = tuple(tl.tensor(x.detach().numpy()) if isinstance(x, torch.Tensor) else x for x in v)
        out[k] = v
    return out


def _run_combo(info, kwargs, complex_):
    """Returns (param_err, state_err_dict, group_ok) for one option combination."""
    name = info.optim_cls.__name__
    init, rng = _make_params(info, complex_)
    tps = [torch.tensor(a, requires_grad=True) for a in init]
    lps = [tl.tensor(a, requires_grad=True) for a in init]
    if kwargs.get("differentiable"):
        # torch's differentiable mode updates params in place under autograd: they must not be leaves
        tps, lps = [p.clone() for p in tps], [p.clone() for p in lps]
    topt = info.optim_cls(tps, **kwargs)
    lopt = getattr(tl.optim, name)(lps, **_convert_kwargs(kwargs))
    if info.step_requires_closure:
        weights = [np.abs(rng.standard_normal(a.shape)) + 0.5 for a in init]
        targets = [rng.standard_normal(a.shape) for a in init]

        def make_closure(lib, ps, opt):
            ws = [lib.tensor(w) for w in weights]
            ts = [lib.tensor(t) for t in targets]

            def closure():
                opt.zero_grad()
                loss = sum((((p - t).abs() ** 2) * w).sum() for p, t, w in zip(ps, ts, ws))
                loss.backward()
                return loss
            return closure

        tc, lc = make_closure(torch, tps, topt), make_closure(tl, lps, lopt)
        for _ in range(STEPS):
            topt.step(tc)
            lopt.step(lc)
    else:
        for step in range(STEPS):
            for tp, lp in zip(tps, lps):
                g = rng.standard_normal(tp.shape)
                if complex_:
                    g = g + 1j * rng.standard_normal(tp.shape)
                if name == "SparseAdam":
                    if g.ndim == 2:
                        g[rng.random(g.shape[0]) < 0.4] = 0.0   # some rows carry no gradient
                    else:
                        g[rng.random(g.shape) < 0.4] = 0.0
                    tg = torch.tensor(g).to_sparse(sparse_dim=1).coalesce()
                    lg = tl.tensor(g).as_subclass(_SparseGradShim)
                    lg.__dict__["idx"] = tl.tensor(tg._indices().numpy())
                    lg.__dict__["vals"] = tl.tensor(tg._values().numpy())
                    tp.grad, lp.grad = tg, lg
                else:
                    tp.grad, lp.grad = torch.tensor(g), tl.tensor(g)
            topt.step()
            lopt.step()
    perr = max(_relerr(_np(a), _np(b)) for a, b in zip(tps, lps))
    errs = {}
    tsd, lsd = topt.state_dict(), lopt.state_dict()
    if set(tsd["state"]) != set(lsd["state"]):
        errs["state keys"] = f"param ids {sorted(lsd['state'])} != {sorted(tsd['state'])}"
    for pid, tst in tsd["state"].items():
        lst = lsd["state"].get(pid, {})
        if list(tst) != list(lst):
            errs[f"{pid}.keys"] = f"{list(lst)} != {list(tst)}"
            continue
        for k in tst:
            _cmp_value(tst[k], lst[k], f"{pid}.{k}", errs)
    group_ok = [_group_clean(g) for g in tsd["param_groups"]] == [_group_clean(g) for g in lsd["param_groups"]]
    return perr, errs, group_ok


def _variants(info):
    """(label, extra kwargs, complex?, skip reason or None) for each implementation variant."""
    out = [("default", {}, False, None)]
    for impl in info.supported_impls:
        if impl == "fused" and "cpu" not in info.supports_fused_on:
            out.append((impl, {impl: True}, False, "fused not supported on CPU by this OptimizerInfo"))
        else:
            out.append((impl, {impl: True}, False, None))
    if info.supports_complex:
        out.append(("complex", {}, True, None))
    return out


def main(path=None):
    warnings.simplefilter("ignore")
    path = path or os.path.join(os.path.dirname(__file__), "OPTIM_REPORT.md")
    rows, summary, skipped = [], [], []
    t0 = time.time()
    for info in optim_db:
        name = info.optim_cls.__name__
        npass = ntot = 0
        for inp in info.optim_inputs_func(device="cpu"):
            if inp.params is not None:
                skipped.append((name, inp.desc, "custom param groups input"))
                continue
            for label, extra, complex_, reason in _variants(info):
                kwargs = dict(inp.kwargs, **extra)
                combo = f"{inp.desc} [{label}]"
                if reason:
                    skipped.append((name, combo, reason))
                    continue
                # torch itself rejects some flag mixes (e.g. foreach with a Tensor lr): skip those with its reason
                try:
                    info.optim_cls([torch.zeros(2, 2, requires_grad=True)], **kwargs)
                except Exception as e:  # noqa: BLE001
                    skipped.append((name, combo, f"torch rejects: {type(e).__name__}: {e}"))
                    continue
                ntot += 1
                try:
                    perr, errs, group_ok = _run_combo(info, kwargs, complex_)
                    num = [v for v in errs.values() if isinstance(v, float)]
                    bad = [f"{k}: {v}" for k, v in errs.items() if not isinstance(v, float)]
                    serr = max(num) if num else 0.0
                    ok = perr <= TOL and serr <= TOL and not bad and group_ok
                    note = "; ".join(bad) + ("" if group_ok else " param_groups differ")
                    rows.append((name, combo, f"{perr:.1e}", f"{serr:.1e}", "PASS" if ok else "FAIL", note))
                except Exception as e:  # noqa: BLE001
                    ok = False
                    tb = traceback.format_exc().strip().splitlines()[-1]
                    rows.append((name, combo, "-", "-", "ERROR", f"{type(e).__name__}: {e} ({tb})"[:200]))
                npass += ok
        summary.append((name, npass, ntot))
    total_pass = sum(s[1] for s in summary)
    total = sum(s[2] for s in summary)
    opt_full = sum(1 for s in summary if s[1] == s[2] and s[2] > 0)
    lines = ["# torchlike.optim conformance against torch `optim_db`", "",
             f"torch {torch.__version__}; {STEPS} steps, float64 params (complex128 for the complex variant), "
             f"random gradients (seed {SEED}); LBFGS uses a closure with a weighted quadratic loss; SparseAdam "
             f"gets row-sparse gradients (torch: `to_sparse(sparse_dim=1)`, torchlike: a COO stand-in). "
             f"A combination passes when params, every state tensor and `state_dict()['param_groups']` match "
             f"(max|a-b| / max|a| <= {TOL:g} per tensor).", "",
             f"**Optimizers fully passing: {opt_full}/{len(summary)}; option combinations: "
             f"{total_pass}/{total} passing; {len(skipped)} skipped.** ({time.time() - t0:.0f}s)", "",
             "| optimizer | passing | total |", "|---|---|---|"]
    lines += [f"| {n} | {p} | {t} |" for n, p, t in summary]
    lines += ["", "## Option combinations", "",
              "| optimizer | options [variant] | param err | state err | result | note |", "|---|---|---|---|---|---|"]
    lines += ["| " + " | ".join(str(x).replace("|", "/") for x in r) + " |" for r in rows]
    lines += ["", "## Skipped", "", "| optimizer | options [variant] | reason |", "|---|---|---|"]
    lines += [f"| {n} | {c} | {r.replace('|', '/')} |" for n, c, r in skipped]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"optimizers fully passing {opt_full}/{len(summary)}; combinations {total_pass}/{total}; "
          f"skipped {len(skipped)} -> {path}")
    return total_pass == total


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
