"""Module conformance: torchlike.nn against torch's own ``module_db`` (ModuleInfo database).

For every ``ModuleInfo`` in ``torch.testing._internal.common_modules.module_db`` and (a capped number of) the
ModuleInputs of its ``module_inputs_func`` for ``training=True`` and ``training=False``, the harness

* builds the module in torch and the same-named class ``torchlike.nn.<Name>`` (constructor arguments
  converted: dtypes, tensors, ``F.*`` callables and torch sub-modules given as arguments),
* copies torch's ``state_dict`` into the torchlike module (``load_state_dict`` via numpy; lazy modules are
  materialised first by one ``no_grad`` forward in both frameworks), sets ``train``/``eval``,
* runs forward on the same inputs and compares outputs (nested structures, dtypes, shapes, values) and the
  module's state afterwards (BatchNorm running statistics),
* runs backward with the same random cotangents and compares the input gradients and parameter gradients,
* compares ``repr(module)`` and ``list(state_dict())`` (names and order).

Modules whose training-mode output is random (dropout > 0 inside, FractionalMaxPool without
``_random_samples``) are compared on structure (shapes/dtypes) and summary statistics only and reported as
"pass (stochastic)". Random modules module_db lacks (Dropout*, AlphaDropout, FeatureAlphaDropout, RReLU) are
added as extras (``extra_infos``), reported separately from the module_db totals.

Run:  python -m conformance.module_conformance [-k NAME] [--max-samples N] [--jobs N] [--update-expected]
      writes conformance/MODULE_REPORT.md and conformance/module_report.json (not with -k); exits 1 when a
      module listed in conformance/expected_modules.json no longer passes a check it passed before.
      Modules are dealt round-robin to ``--jobs`` (default 2) worker processes.

>>> from conformance.module_conformance import run_module, status   # doctest: +SKIP
>>> from torch.testing._internal.common_modules import module_db      # doctest: +SKIP
>>> status(run_module(next(m for m in module_db if m.name == "nn.ReLU")), "forward_train")  # doctest: +SKIP
'pass'
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
import traceback
import warnings

import numpy as np
import torch

import torchlike as tl
from conformance.convert import Converter, Unconvertible, clone_torch, tl_dtype

HERE = os.path.dirname(os.path.abspath(__file__))
REPORT_MD = os.path.join(HERE, "MODULE_REPORT.md")
REPORT_JSON = os.path.join(HERE, "module_report.json")
EXPECTED = os.path.join(HERE, "expected_modules.json")

CHECKS = ("forward_train", "forward_eval", "input_grad", "param_grad", "repr", "state_dict")
# (rtol, atol) -- atol is scaled by max(1, max|expected|) so sums over many elements are judged relatively
TOLS = {torch.float32: (1e-4, 1e-5), torch.float64: (1e-7, 1e-9)}
GRAD_TOLS = {torch.float32: (1e-4, 1e-4), torch.float64: (1e-6, 1e-8)}
SEED = 1234


class ModuleTimeout(BaseException):
    """Raised by the CPU-time timer (SIGPROF); a BaseException so the harness's ``except Exception`` never swallows it."""


class Mismatch(Exception):
    """A comparison failed; the message is the one-line reason."""


# --- converting constructor / forward arguments ----------------------------------------------------
class ModuleConverter(Converter):
    """Converter that also maps PackedSequence, ``torch.nn.functional`` callables and torch modules."""

    def __call__(self, x):
        from torch.nn.utils.rnn import PackedSequence
        if isinstance(x, PackedSequence):
            return tl.nn.utils.rnn.PackedSequence(self(x.data), self(x.batch_sizes), self(x.sorted_indices),
                                                  self(x.unsorted_indices))
        if isinstance(x, torch.nn.Module):
            return module_from_torch(x, self)
        if callable(x) and not isinstance(x, type) and (getattr(x, "__module__", "") or "").startswith("torch") \
                and not isinstance(x, torch.Tensor):
            name = getattr(x, "__name__", None)
            for ns in (tl.nn.functional, tl):
                if name and hasattr(ns, name):
                    return getattr(ns, name)
            raise Unconvertible(f"callable {name}")
        return super().__call__(x)


def module_from_torch(tm, conv):
    """A torchlike module configured like torch module ``tm`` (weights are copied later by state_dict)."""
    name = type(tm).__name__
    cls = getattr(tl.nn, name, None)
    if cls is None:
        raise Unconvertible(f"torchlike.nn.{name} missing (needed as a constructor argument)")
    if name in ("TransformerEncoderLayer", "TransformerDecoderLayer"):
        act = tm.activation
        act = conv(act) if not isinstance(act, torch.nn.Module) else module_from_torch(act, conv)
        m = cls(tm.self_attn.embed_dim, tm.self_attn.num_heads, dim_feedforward=tm.linear1.out_features,
                dropout=tm.dropout.p, activation=act, layer_norm_eps=tm.norm1.eps,
                batch_first=tm.self_attn.batch_first, norm_first=tm.norm_first, bias=tm.linear1.bias is not None)
    elif name == "LayerNorm":
        m = cls(tm.normalized_shape, eps=tm.eps, elementwise_affine=tm.elementwise_affine,
                bias=getattr(tm, "bias", None) is not None)
    elif len(list(tm.parameters())) == 0 and not list(tm.buffers()):
        m = cls()  # parameter-free activations (ReLU(), GELU() ...) with default arguments
    else:
        raise Unconvertible(f"torch module argument {name}")
    dt = next((p.dtype for p in tm.parameters()), None)
    if dt is not None:
        m.to(tl_dtype(dt))
    return m


def _np(t):
    return t.detach().resolve_conj().numpy()


def to_tl_state(sd):
    return {k: tl.from_numpy(np.array(_np(v))) if isinstance(v, torch.Tensor) else v for k, v in sd.items()}


# --- comparing results ------------------------------------------------------------------------------
def _as_torch(x):
    return torch.from_numpy(np.array(np.asarray(x._value)))


def _same_meta(t_obj, l_obj, path):
    """Raise Mismatch unless ``l_obj`` is a tensor with torch tensor ``t_obj``'s dtype and shape."""
    if not isinstance(l_obj, tl.Tensor):
        raise Mismatch(f"{path}: expected Tensor, got {type(l_obj).__name__}")
    if str(t_obj.dtype).split(".")[-1] != str(l_obj.dtype).split(".")[-1]:
        raise Mismatch(f"{path}: dtype {l_obj.dtype} != torch {t_obj.dtype}")
    if tuple(t_obj.shape) != tuple(l_obj.shape):
        raise Mismatch(f"{path}: shape {tuple(l_obj.shape)} != torch {tuple(t_obj.shape)}")


def compare(t_obj, l_obj, tols, path="out"):
    """Raise Mismatch if torchlike's ``l_obj`` differs from torch's ``t_obj`` (recursively)."""
    if isinstance(t_obj, torch.Tensor):
        _same_meta(t_obj, l_obj, path)
        exp = t_obj.detach()
        act = _as_torch(l_obj)
        if exp.is_floating_point() or exp.is_complex():
            rtol, atol = tols
            finite = exp[torch.isfinite(exp)] if exp.numel() else exp
            scale = max(1.0, float(finite.abs().max())) if finite.numel() else 1.0
            try:
                torch.testing.assert_close(act, exp, rtol=rtol, atol=atol * scale, equal_nan=True,
                                           check_dtype=False)
            except AssertionError:
                if not torch.equal(torch.isnan(act), torch.isnan(exp)):
                    raise Mismatch(f"{path}: NaN positions differ ({int(torch.isnan(act).sum())} NaN vs torch "
                                   f"{int(torch.isnan(exp).sum())})") from None
                diff = (act.double() - exp.double()).abs()
                diff = diff[torch.isfinite(diff)]
                md = float(diff.max()) if diff.numel() else float("nan")
                raise Mismatch(f"{path}: values differ (max abs diff {md:.3g}, scale {scale:.3g})") from None
        elif not torch.equal(act, exp):
            raise Mismatch(f"{path}: integer/bool values differ")
        return
    if isinstance(t_obj, (tuple, list)):
        if not isinstance(l_obj, (tuple, list)):
            raise Mismatch(f"{path}: expected {type(t_obj).__name__}, got {type(l_obj).__name__}")
        if len(t_obj) != len(l_obj):
            raise Mismatch(f"{path}: length {len(l_obj)} != torch {len(t_obj)}")
        for i, (a, b) in enumerate(zip(t_obj, l_obj)):
            compare(a, b, tols, f"{path}[{i}]")
        return
    if isinstance(t_obj, dict):
        if not isinstance(l_obj, dict) or list(t_obj) != list(l_obj):
            raise Mismatch(f"{path}: dict keys differ")
        for k in t_obj:
            compare(t_obj[k], l_obj[k], tols, f"{path}[{k!r}]")
        return
    if t_obj != l_obj and not (t_obj is None and l_obj is None):
        raise Mismatch(f"{path}: {l_obj!r} != torch {t_obj!r}")


def compare_structure(t_obj, l_obj, path="out"):
    """Stochastic outputs: same nesting, dtypes and shapes; finite where torch is finite; similar zero
    fraction and mean magnitude (dropout keeps scale)."""
    if isinstance(t_obj, torch.Tensor):
        _same_meta(t_obj, l_obj, path)
        act = _as_torch(l_obj)
        if t_obj.is_floating_point() and t_obj.numel():
            if bool(torch.isfinite(t_obj).all()) and not bool(torch.isfinite(act).all()):
                raise Mismatch(f"{path}: non-finite values where torch is finite")
            if t_obj.numel() >= 50:
                mt, ml = float(t_obj.detach().abs().mean()), float(act.abs().mean())
                if abs(mt - ml) > 0.5 * max(mt, 1e-6) + 1e-3:
                    raise Mismatch(f"{path}: mean |x| {ml:.3g} far from torch {mt:.3g}")
                zt, zl = float((t_obj.detach() == 0).double().mean()), float((act == 0).double().mean())
                if abs(zt - zl) > 0.15:
                    raise Mismatch(f"{path}: fraction of zeros {zl:.2f} far from torch {zt:.2f}")
        return
    if isinstance(t_obj, (tuple, list)):
        if not isinstance(l_obj, (tuple, list)) or len(t_obj) != len(l_obj):
            raise Mismatch(f"{path}: structure differs")
        for i, (a, b) in enumerate(zip(t_obj, l_obj)):
            compare_structure(a, b, f"{path}[{i}]")


def flatten(x):
    if isinstance(x, (tuple, list)):
        return [y for v in x for y in flatten(v)]
    if isinstance(x, dict):
        return [y for v in x.values() for y in flatten(v)]
    return [x]


def stochastic_reason(tm, ctor_kwargs, training):
    """Why this module's output can't match torch's bit for bit, or None."""
    if type(tm).__name__.startswith("FractionalMaxPool") and ctor_kwargs.get("_random_samples") is None:
        return "FractionalMaxPool without _random_samples draws random pooling regions"
    if type(tm).__name__ == "RReLU" and training:
        return "RReLU samples random slopes in training mode"
    if training:
        for name, sub in tm.named_modules():
            p = getattr(sub, "p", None) if "Dropout" in type(sub).__name__ else None
            if p is None and isinstance(sub, torch.nn.MultiheadAttention):
                p = sub.dropout
            if p:
                return f"dropout p={p} in {name or type(tm).__name__} (training mode)"
    return None


# --- one sample ---------------------------------------------------------------------------------------
def run_sample(info, sample, dtype, training, rng, first):
    """Run one ModuleInput in both frameworks. Returns dict check -> (ok, reason) (only checks done)."""
    res = {}
    name = info.module_cls.__name__
    cls_l = getattr(tl.nn, name, None)
    if cls_l is None:
        raise Mismatch(f"torchlike.nn.{name} does not exist")
    cargs, ckwargs = sample.constructor_input.args, sample.constructor_input.kwargs
    is_lazy = name.startswith("Lazy")
    torch.manual_seed(SEED)
    tl.manual_seed(SEED)
    m_t = info.module_cls(*cargs, **ckwargs)
    m_t.to(dtype)
    m_t.train(training)
    conv_c = ModuleConverter(grad=False)
    m_l = cls_l(*conv_c(tuple(cargs)), **conv_c(dict(ckwargs)))
    m_l.to(tl_dtype(dtype))
    m_l.train(training)

    fargs, fkwargs = (sample.forward_input.args, sample.forward_input.kwargs)
    if is_lazy:  # materialise parameters in both frameworks, then copy torch's values
        with torch.no_grad():
            m_t(*clone_torch(fargs), **clone_torch(fkwargs))
        with tl.no_grad():
            m_l(*ModuleConverter(grad=False)(clone_torch(fargs)), **ModuleConverter(grad=False)(
                clone_torch(fkwargs)))
    if first:
        res["repr"] = _check(lambda: _eq(repr(m_l), repr(m_t), "repr"))
        res["state_dict"] = _check(lambda: _eq(list(m_l.state_dict()), list(m_t.state_dict()), "state_dict keys"))
    sd_t = m_t.state_dict()
    try:
        m_l.load_state_dict(to_tl_state(sd_t))
    except Exception as e:  # keys differ: load what matches so forward can still be judged
        res.setdefault("state_dict", (False, f"load_state_dict: {type(e).__name__}: {str(e).splitlines()[0][:150]}"))
        m_l.load_state_dict({k: v for k, v in to_tl_state(sd_t).items() if k in m_l.state_dict()}, strict=False)

    t_in = clone_torch((fargs, fkwargs))
    conv = ModuleConverter()
    l_in = conv(t_in)
    stoch = stochastic_reason(m_t, ckwargs, training)
    fwd_key = "forward_train" if training else "forward_eval"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out_t = m_t(*t_in[0], **t_in[1])
    except Exception as e:  # an error sample: torchlike must raise the same type
        try:
            m_l(*l_in[0], **l_in[1])
        except Exception as e2:
            ok = type(e2) is type(e) or isinstance(e2, type(e))
            res[fwd_key] = (ok, None if ok else f"raised {type(e2).__name__}, torch {type(e).__name__}")
            return res, None
        res[fwd_key] = (False, f"torch raised {type(e).__name__}, torchlike did not")
        return res, None
    try:
        out_l = m_l(*l_in[0], **l_in[1])
    except Exception as e:
        res[fwd_key] = (False, f"forward raised {type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}")
        return res, None
    tols = TOLS[dtype]
    if stoch:
        res[fwd_key] = _check(lambda: compare_structure(out_t, out_l))
    else:
        def fwd():
            compare(out_t, out_l, tols)
            compare(dict(m_t.state_dict()), dict(m_l.state_dict()), tols, "state after forward")
        res[fwd_key] = _check(fwd)
    if not res[fwd_key][0]:
        return res, stoch

    # backward with the same random cotangents
    outs_t, outs_l = flatten(out_t), flatten(out_l)
    if len(outs_t) != len(outs_l):
        return res, stoch
    pairs = [(a, b) for a, b in zip(outs_t, outs_l) if isinstance(a, torch.Tensor) and a.requires_grad]
    if not pairs:
        return res, stoch
    for a, b in pairs:
        if not (isinstance(b, tl.Tensor) and b.requires_grad):
            res["input_grad"] = (False, "output does not require grad in torchlike")
            return res, stoch
    cots = [rng.standard_normal(a.shape).astype(np.float64) for a, _ in pairs]
    gt = [torch.from_numpy(c).to(a.dtype) for c, (a, _) in zip(cots, pairs)]
    gl = [tl.from_numpy(c).to(b.dtype) for c, (_, b) in zip(cots, pairs)]
    torch.autograd.backward([a for a, _ in pairs], gt)
    try:
        tl.autograd.backward([b for _, b in pairs], gl)
    except Exception as e:
        reason = f"backward raised {type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"
        res["input_grad"] = (False, reason)
        if list(m_t.parameters()):
            res["param_grad"] = (False, reason)
        return res, stoch
    gtols = GRAD_TOLS[dtype]
    if stoch:  # different random masks: only structure of the gradients
        cmp = lambda a, b, p: compare_structure(a, b, p) if a is not None else _none(b, p)  # noqa: E731
    else:
        cmp = lambda a, b, p: compare(a, b, gtols, p) if a is not None else _none(b, p)  # noqa: E731
    if conv.leaves:
        res["input_grad"] = _check(lambda: [cmp(t.grad, l.grad, f"input grad {i}")
                                            for i, (t, l) in enumerate(conv.leaves)])
    params_l = dict(m_l.named_parameters())
    if list(m_t.parameters()):
        res["param_grad"] = _check(lambda: [cmp(p.grad, params_l[n].grad if n in params_l else None, f"grad {n}")
                                            for n, p in m_t.named_parameters()])
    return res, stoch


def _none(b, path):
    if b is not None:
        raise Mismatch(f"{path}: torch grad is None, torchlike has a gradient")


def _eq(a, b, what):
    if a != b:
        if isinstance(a, str):
            la, lb = a.splitlines(), b.splitlines()
            for x, y in zip(la + [""] * len(lb), lb + [""] * len(la)):
                if x != y:
                    raise Mismatch(f"{what}: {x.strip()!r} != torch {y.strip()!r}")
        raise Mismatch(f"{what}: {a} != torch {b}")


def _check(fn):
    try:
        fn()
        return (True, None)
    except Mismatch as e:
        return (False, str(e))


# --- random modules torch's module_db doesn't list (checked statistically) ---------------------------
def extra_infos():
    """ModuleInfos for Dropout*, AlphaDropout, FeatureAlphaDropout and RReLU (not in module_db)."""
    from functools import partial

    from torch.testing._internal.common_modules import FunctionInput, ModuleInfo, ModuleInput
    from torch.testing._internal.common_utils import make_tensor

    def inputs(shape, ctors, module_info, device, dtype, requires_grad, training, **kw):
        mk = partial(make_tensor, device=device, dtype=dtype, requires_grad=requires_grad, low=-2, high=2)
        return [ModuleInput(constructor_input=FunctionInput(*a, **k), forward_input=FunctionInput(mk(shape)),
                            desc="_".join(f"{x}" for x in a + tuple(k.values())))
                for a, k in ctors]
    specs = [(torch.nn.Dropout, (16, 64), [((), {}), ((0.3,), {})]),
             (torch.nn.Dropout1d, (16, 64, 8), [((0.4,), {})]),
             (torch.nn.Dropout2d, (16, 64, 4, 4), [((0.4,), {})]),
             (torch.nn.Dropout3d, (16, 64, 2, 2, 2), [((0.4,), {})]),
             (torch.nn.AlphaDropout, (8, 64), [((0.2,), {})]),
             (torch.nn.FeatureAlphaDropout, (16, 64, 4, 4), [((0.2,), {})]),
             (torch.nn.RReLU, (8, 64), [((), {}), ((0.1, 0.3), {})])]
    return [ModuleInfo(cls, module_inputs_func=partial(inputs, shape, ctors), train_and_eval_differ=True)
            for cls, shape, ctors in specs]


# --- one module -----------------------------------------------------------------------------------------
def _pick(n, k):
    """Indices of k samples spread evenly over n (all when n <= k)."""
    if n <= k:
        return list(range(n))
    return sorted({round(i * (n - 1) / (k - 1)) for i in range(k)}) if k > 1 else [0]


def _alarm(signum, frame):
    raise ModuleTimeout()


def run_module(info, max_samples=8, max_eval=3, time_limit=30, dtypes=(torch.float32,), f64_samples=1,
               f64_eval=False, extra=None):
    """Run all checks of one ModuleInfo; returns a JSON-able dict. Strict mode: ``f64_eval`` adds float64
    eval-mode samples and repeats repr/state_dict on every sample; ``extra`` (a collection of
    module_strict.EXTRA_CHECKS names) runs those checks of torch's test_modules.py too."""
    name = info.module_cls.__name__
    r = {"name": name, "checks": {c: {"pass": 0, "fail": 0, "reasons": []} for c in CHECKS + ("float64",)},
         "stochastic": None, "skip": None, "timeout": False, "samples": {}, "crash": None}
    t0, c0 = time.time(), time.process_time()
    rng = np.random.default_rng(SEED)
    # the limit is process CPU time (ITIMER_PROF), so a busy machine doesn't turn slow modules into failures
    old = signal.signal(signal.SIGPROF, _alarm)
    signal.setitimer(signal.ITIMER_PROF, time_limit)
    try:
        if getattr(tl.nn, name, None) is None:
            r["skip"] = f"torchlike.nn.{name} does not exist"
            for c in CHECKS:
                r["checks"][c]["fail"] = 1
                r["checks"][c]["reasons"].append(r["skip"])
            return r
        first = True
        plan = [(torch.float32, True, max_samples),
                (torch.float32, False, max_samples if info.train_and_eval_differ else max_eval)]
        if torch.float64 in dtypes:
            plan.append((torch.float64, True, f64_samples))
            if f64_eval:
                plan.append((torch.float64, False, f64_samples))
        for dtype, training, cap in plan:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                samples = [s for s in info.module_inputs_func(info, device="cpu", dtype=dtype, requires_grad=True,
                                                              training=training) if s.forward_input is not None]
            idx = _pick(len(samples), cap)
            r["samples"][f"{str(dtype)[6:]}/{'train' if training else 'eval'}"] = [len(idx), len(samples)]
            for i in idx:
                s = samples[i]
                tag = f"#{i}{' ' + s.desc if s.desc else ''}"
                try:
                    res, stoch = run_sample(info, s, dtype, training, rng, first)
                except Unconvertible as e:
                    res, stoch = {"forward_train" if training else "forward_eval": (False, f"unconvertible: {e}")}, None
                except Mismatch as e:
                    res, stoch = {"forward_train" if training else "forward_eval": (False, str(e))}, None
                except ModuleTimeout:
                    raise
                except Exception as e:
                    msg = f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"
                    res, stoch = {"forward_train" if training else "forward_eval": (False, f"harness/construct: {msg}")}, None
                    r["crash"] = r["crash"] or traceback.format_exc(limit=-3)
                if "repr" in res and not f64_eval:
                    first = False
                if stoch:
                    r["stochastic"] = stoch
                for c, (ok, why) in res.items():
                    key = "float64" if dtype is torch.float64 and c in ("forward_train", "forward_eval") else c
                    if dtype is torch.float64 and key != "float64":
                        if not ok:  # float64 grad failures are reported under float64 too
                            key = "float64"
                        else:
                            continue
                    slot = r["checks"][key]
                    slot["pass" if ok else "fail"] += 1
                    if not ok and len(slot["reasons"]) < 3:
                        slot["reasons"].append(f"{tag} [{'train' if training else 'eval'}]: {why}")
        if extra:
            from conformance.module_strict import run_extra  # lazy: the strict checks are opt-in
            run_extra(info, r, extra)
    except ModuleTimeout:
        r["timeout"] = True
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, old)
        r["time"] = round(time.time() - t0, 2)
        r["cpu"] = round(time.process_time() - c0, 2)
    return r


def status(r, check):
    """'pass' / 'fail' / 'n/a' for one check of a module result."""
    c = r["checks"][check]
    if c["fail"]:
        return "fail"
    if c["pass"]:
        return "pass"
    if r["timeout"] and check in ("forward_train", "forward_eval"):
        return "fail"
    return "n/a"


# --- report ------------------------------------------------------------------------------------------------
def _cell(r, check):
    c = r["checks"][check]
    st = status(r, check)
    if st == "n/a":
        return "—"
    n = c["pass"] + c["fail"]
    if st == "pass":
        extra = " (stochastic)" if r["stochastic"] and check in ("forward_train", "input_grad", "param_grad") else ""
        return f"✓ {c['pass']}/{n}{extra}" if check not in ("repr", "state_dict") else "✓"
    return f"✗ {c['pass']}/{n}" if check not in ("repr", "state_dict") else "✗"


def forward_ok(r):
    return status(r, "forward_train") == "pass" and status(r, "forward_eval") in ("pass", "n/a")


def write_report(results, meta, path_md=REPORT_MD, path_json=REPORT_JSON):
    with open(path_json, "w") as f:
        json.dump({"meta": meta, "results": results}, f, indent=1, sort_keys=True)
    extras = [r for r in results if r.get("extra")]
    results_all, results = results, [r for r in results if not r.get("extra")]
    n = len(results)
    tot = {c: sum(status(r, c) == "pass" for r in results) for c in CHECKS + ("float64",)}
    app = {c: sum(status(r, c) != "n/a" for r in results) for c in CHECKS + ("float64",)}
    fwd = sum(forward_ok(r) for r in results)
    stoch = [r for r in results if r["stochastic"] and forward_ok(r)]
    L = ["# torchlike.nn conformance against torch's ModuleInfo database (`module_db`)", "",
         f"Generated by `python -m conformance.module_conformance` on torch {torch.__version__}, "
         f"{meta['date']}; {meta['seconds']:.0f} s wall with {meta['jobs']} worker processes, "
         f"{sum(r.get('cpu', 0) for r in results):.0f} s CPU in the modules.", "",
         "## Totals", "",
         f"- **forward (train and eval): {fwd}/{n} modules**"
         + (f" (of which {len(stoch)} stochastic: structure/statistics only)" if stoch else ""),
         f"- forward, training mode: {tot['forward_train']}/{app['forward_train']}",
         f"- forward, eval mode: {tot['forward_eval']}/{app['forward_eval']}",
         f"- input gradients: {tot['input_grad']}/{app['input_grad']} (modules with differentiable inputs)",
         f"- parameter gradients: {tot['param_grad']}/{app['param_grad']} (modules with parameters)",
         f"- `repr(module)` identical: {tot['repr']}/{app['repr']}",
         f"- `list(state_dict())` identical (names and order): {tot['state_dict']}/{app['state_dict']}",
         f"- float64 spot check (forward + grads): {tot['float64']}/{app['float64']}",
         f"- extra random modules not in module_db (Dropout*, AlphaDropout, FeatureAlphaDropout, RReLU): "
         f"{sum(forward_ok(r) for r in extras)}/{len(extras)} forward", "",
         "## Method", "",
         "For each ModuleInfo, samples come from `module_inputs_func(info, device='cpu', dtype, requires_grad=True, "
         "training=...)`. The torch module is built from the sample's constructor input; `torchlike.nn.<Name>` from "
         "the converted input (dtypes, tensors, `F.*` callables and torch sub-modules such as a "
         "TransformerEncoderLayer are mapped). torch's `state_dict` is loaded into the torchlike module (lazy "
         "modules: one `no_grad` forward first in both, then the copy). Forward outputs are compared recursively "
         "(type, dtype, shape, values; float32 rtol 1e-4 / atol 1e-5·max(1, max|expected|); float64 rtol 1e-7) "
         "and the module state after forward (running statistics) too. Backward uses the same standard-normal "
         "cotangents for every differentiable output; input gradients (every floating input, as a leaf) and "
         "parameter gradients (by name) are compared (float32 rtol/atol 1e-4 scaled). `repr` and state_dict "
         "keys are checked on the first sample.", "",
         f"Sample limits (to fit the whole run in ~10 minutes on 2 cores): at most {meta['max_samples']} "
         f"training-mode samples per module (spread evenly over the list); eval mode gets the same cap when the "
         f"ModuleInfo says `train_and_eval_differ`, otherwise {meta['max_eval']}; float64: "
         f"{meta['f64_samples']} training sample per module. Per-module time limit {meta['time_limit']} s "
         "of process CPU time (`setitimer(ITIMER_PROF)`, checked between Python bytecodes, so a long XLA "
         "compilation finishes first); a timed-out module keeps the results it had and a check with no completed "
         "sample counts as failed.", "",
         "Stochastic modules (dropout > 0 in training mode, FractionalMaxPool without `_random_samples`) "
         "can't match values; they are compared on structure (types, dtypes, shapes), finiteness and the mean "
         "magnitude, and counted as *pass (stochastic)*.", "",
         "Strict mode (opt-in, not part of this run): `--all-samples` (every sample, train and eval, float64 "
         "for all) and `--checks extra` (the checks of torch's test_modules.py, conformance/module_strict.py); "
         "measured totals are in [MODULE_STRICT.md](MODULE_STRICT.md).", "",
         "## Per module", "",
         "| module | fwd train | fwd eval | input grad | param grad | repr | state_dict keys | float64 | samples "
         "(run/total) | CPU s | notes |",
         "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results_all:
        if r is (extras[0] if extras else None):
            L.append("| *extra (not in module_db)* | | | | | | | | | | |")
        smp = ", ".join(f"{k.split('/')[1] if k.startswith('float32') else 'f64'} {a}/{b}"
                        for k, (a, b) in r["samples"].items())
        notes = []
        if r["skip"]:
            notes.append("skip: " + r["skip"])
        if r["stochastic"]:
            notes.append("stochastic: " + r["stochastic"])
        if r["timeout"]:
            notes.append("timed out (partial)")
        L.append(f"| {r['name']} | " + " | ".join(_cell(r, c) for c in CHECKS + ("float64",))
                 + f" | {smp} | {r.get('cpu', 0):.1f} | {'; '.join(notes)} |")
    L += ["", "## Failures", ""]
    anyf = False
    for r in results_all:
        bad = [(c, r["checks"][c]["reasons"]) for c in CHECKS + ("float64",) if status(r, c) == "fail"]
        if r["timeout"]:
            bad.append(("timeout", [f"stopped after {meta['time_limit']} s"]))
        if not bad:
            continue
        anyf = True
        L.append(f"### {r['name']}")
        if r["skip"]:
            L += [f"- **all checks**: {r['skip']}", ""]
            continue
        for c, reasons in bad:
            L.append(f"- **{c}**: " + ("; ".join(x.replace("|", "\\|") for x in reasons[:2]) or "no sample completed"))
        L.append("")
    if not anyf:
        L.append("None.")
    with open(path_md, "w") as f:
        f.write("\n".join(L) + "\n")


def strict_totals(results):
    """Markdown lines: per check, modules passing / modules the check applies to (module_db only) and the
    failing modules."""
    rs = [r for r in results if not r.get("extra")]
    keys = list(dict.fromkeys(k for r in rs for k in r["checks"]))
    L = ["| check | modules passing | failing |", "|---|---|---|"]
    for k in keys:
        app = [r for r in rs if status(r, k) != "n/a"]
        bad = [r["name"] for r in app if status(r, k) == "fail"]
        L.append(f"| {k} | {len(app) - len(bad)}/{len(app)} | {', '.join(bad)} |")
    ok = sum(all(status(r, k) != "fail" for k in keys) for r in rs)
    L.append(f"\nall checks: {ok}/{len(rs)} modules")
    return "\n".join(L)


def passing(results):
    return {c: sorted(r["name"] for r in results if status(r, c) == "pass") for c in CHECKS}


def regressions(results, expected):
    """[(module, check)] that the expected file lists as passing but now don't."""
    byname = {r["name"]: r for r in results}
    out = []
    for c, names in expected.items():
        for n in names:
            if n in byname and status(byname[n], c) != "pass":
                out.append((n, c))
    return out


def _progress(r):
    bad = [c for c in r["checks"] if status(r, c) == "fail"]
    print(f"{r['name']:28s} {r['time']:6.1f}s {r['cpu']:6.1f}cpu  {'ok' if not bad else 'FAIL ' + ','.join(bad)}"
          f"{'  (timeout)' if r['timeout'] else ''}", flush=True)


def _run_workers(a, argv, names):
    """Run the module list in ``a.jobs`` subprocesses (JAX compilation is mostly single-threaded)."""
    import subprocess
    import tempfile
    tmp = tempfile.mkdtemp(prefix="modconf")
    base = [x for x in argv if x != "--update-expected"]
    procs = []
    for w in range(a.jobs):
        out = os.path.join(tmp, f"w{w}.json")
        cmd = [sys.executable, "-m", "conformance.module_conformance", *base, "--worker", str(w),
               "--json-out", out]
        procs.append((subprocess.Popen(cmd, cwd=os.path.dirname(HERE)), out))
    got = {}
    for p, out in procs:
        p.wait()
        if os.path.exists(out):
            for r in json.load(open(out)):
                got[r["name"]] = r
    results = []
    for n in names:  # a crashed worker's modules are reported as failures
        results.append(got.get(n) or {"name": n, "checks": {c: {"pass": 0, "fail": 1, "reasons": ["worker crashed"]}
                                                            for c in CHECKS + ("float64",)},
                                      "stochastic": None, "skip": None, "timeout": False, "samples": {},
                                      "crash": "worker crashed", "time": 0.0, "cpu": 0.0})
    return results


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-k", default=None, help="only modules whose name contains this (case-insensitive)")
    ap.add_argument("--max-samples", type=int, default=8)
    ap.add_argument("--max-eval", type=int, default=3)
    ap.add_argument("--f64-samples", type=int, default=1)
    ap.add_argument("--time-limit", type=int, default=None, help="CPU s per module (default 30, strict 900)")
    ap.add_argument("--all-samples", action="store_true",
                    help="strict: every sample in train and eval mode, float64 for all of them, repr every sample")
    ap.add_argument("--checks", default="default",
                    help="'default', 'extra' (also torch test_modules.py checks, see module_strict.py) or a "
                         "comma list of extra check names")
    ap.add_argument("--only", default=None, help="comma list of exact module names")
    ap.add_argument("--strict-json", default=None, help="strict mode: write the per-module results here")
    ap.add_argument("--no-f64", action="store_true")
    ap.add_argument("--no-extra", action="store_true", help="skip the Dropout*/RReLU modules module_db lacks")
    ap.add_argument("--update-expected", action="store_true", help="rewrite expected_modules.json")
    ap.add_argument("--no-write", action="store_true", help="don't write the report files")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes (modules dealt round-robin)")
    ap.add_argument("--worker", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--json-out", default=None, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    warnings.filterwarnings("ignore")
    t0 = time.time()
    from torch.testing._internal.common_modules import module_db
    infos = list(module_db) + ([] if a.no_extra else extra_infos())
    n_db = len(module_db)
    extra_names = {m.module_cls.__name__ for m in infos[n_db:]}
    infos = [m for m in infos if a.k is None or a.k.lower() in m.module_cls.__name__.lower()]
    if a.only:
        infos = [m for m in infos if m.module_cls.__name__ in a.only.split(",")]
    extra = None
    if a.checks != "default":
        from conformance.module_strict import EXTRA_CHECKS  # lazy: the strict checks are opt-in
        extra = EXTRA_CHECKS if a.checks == "extra" else tuple(a.checks.split(","))
    strict = a.all_samples or extra is not None
    if a.all_samples:
        a.max_samples = a.max_eval = a.f64_samples = 10 ** 6
    if a.time_limit is None:
        a.time_limit = 900 if strict else 30
    dtypes = (torch.float32,) if a.no_f64 else (torch.float32, torch.float64)
    if a.worker is not None:
        infos = infos[a.worker::a.jobs]
    if a.jobs > 1 and a.worker is None and len(infos) > 1:
        results = _run_workers(a, argv if argv is not None else sys.argv[1:], [i.module_cls.__name__ for i in infos])
    else:
        results = []
        for info in infos:
            r = run_module(info, a.max_samples, a.max_eval, a.time_limit, dtypes, a.f64_samples,
                           f64_eval=a.all_samples, extra=extra)
            results.append(r)
            _progress(r)
    for r in results:
        r["extra"] = r["name"] in extra_names
    if a.worker is not None:
        with open(a.json_out, "w") as f:
            json.dump(results, f)
        return 0
    meta = {"date": time.strftime("%Y-%m-%d"), "seconds": time.time() - t0, "max_samples": a.max_samples,
            "max_eval": a.max_eval, "jobs": a.jobs, "f64_samples": 0 if a.no_f64 else a.f64_samples, "time_limit": a.time_limit,
            "filter": a.k}
    if strict:  # never rewrites the default report; totals per check go to stdout (and --strict-json)
        if a.strict_json:
            with open(a.strict_json, "w") as f:
                json.dump({"meta": meta, "results": results}, f, indent=1, sort_keys=True)
        print(strict_totals(results))
        return 0
    if not a.no_write and a.k is None:
        write_report(results, meta)
    elif not a.no_write:
        print("(-k given: report files not rewritten)")
    fwd = sum(forward_ok(r) for r in results)
    print(f"forward: {fwd}/{len(results)} modules pass; {time.time() - t0:.0f} s")
    expected = json.load(open(EXPECTED)) if os.path.exists(EXPECTED) else {}
    if a.update_expected:
        new = passing(results)
        if a.k is not None:  # keep other modules' entries
            names = {r["name"] for r in results}
            for c in CHECKS:
                new[c] = sorted(set(n for n in expected.get(c, []) if n not in names) | set(new[c]))
        with open(EXPECTED, "w") as f:
            json.dump(new, f, indent=1)
            f.write("\n")
        print(f"wrote {EXPECTED}")
        return 0
    reg = regressions(results, expected)
    for n, c in reg:
        print(f"REGRESSION: {n} {c}")
    return 1 if reg else 0


if __name__ == "__main__":
    sys.exit(main())
