"""Strict module conformance: the checks of torch's ``test/test_modules.py`` that make sense for torchlike.

Opt-in from ``python -m conformance.module_conformance --checks extra`` (usually with ``--all-samples``).
Each check runs on every sample of the ModuleInfo and records pass/fail per sample under its own key:

* ``forward_nograd`` -- forward with ``requires_grad=False`` samples (test_forward), compared with torch.
* ``factory_kwargs`` -- ``Module(..., device='cpu', dtype=float64)`` gives parameters/buffers torch's dtypes.
* ``pickle`` -- ``torch.save(module)`` / ``torch.load(weights_only=False)`` round trip gives the same output.
* ``inplace`` -- ``inplace=True`` gives the out-of-place result, bumps the input's ``_version``, same grads.
* ``non_contiguous`` -- non-contiguous inputs / grad outputs give the contiguous results (test_non_contiguous_tensors).
* ``to`` -- ``module.to(dtype)``/``.double()``/``.half()`` keep Parameters (same objects), convert grads, buffer
  dtypes as torch's.
* ``train_eval`` -- forward with the ``training`` attribute deleted fails only when the ModuleInfo says
  ``train_and_eval_differ`` (test_if_train_and_eval_modes_differ).
* ``errors`` -- ``module_error_inputs_func``: torch's exception type and message regex.
* ``memory_format`` -- channels_last inputs / modules give the contiguous results.
* ``gradgrad`` -- double backward (float64) against torch's, for ModuleInfos with ``supports_gradgrad``.

>>> from conformance.module_strict import EXTRA_CHECKS   # doctest: +SKIP
>>> 'errors' in EXTRA_CHECKS                              # doctest: +SKIP
True
"""
from __future__ import annotations

import inspect
import io
import re
import warnings

import numpy as np
import torch

import torchlike as tl
from conformance.convert import Unconvertible, clone_torch, tl_dtype

EXTRA_CHECKS = ("forward_nograd", "factory_kwargs", "pickle", "inplace", "non_contiguous", "to", "train_eval",
                "errors", "memory_format", "gradgrad")


def _mc():
    import conformance.module_conformance as mc  # lazy: module_conformance imports this module
    return mc


def _samples(info, dtype, training, requires_grad=True):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [s for s in info.module_inputs_func(info, device="cpu", dtype=dtype, requires_grad=requires_grad,
                                                   training=training) if s.forward_input is not None]


def _materialize_lazy(m_t, m_l, sample):
    """One no-grad forward of ``sample`` through both lazy modules, so their parameters take shape."""
    fa, fk = sample.forward_input.args, sample.forward_input.kwargs
    with torch.no_grad():
        m_t(*clone_torch(fa), **clone_torch(fk))
    conv = _mc().ModuleConverter(grad=False)
    with tl.no_grad():
        m_l(*conv(clone_torch(fa)), **conv(clone_torch(fk)))


def build_pair(info, sample, dtype, training, extra_kwargs=None):
    """(torch module, torchlike module) built from one sample, torch's state copied into torchlike's."""
    mc = _mc()
    name = info.module_cls.__name__
    cls_l = getattr(tl.nn, name)
    cargs, ckw = sample.constructor_input.args, dict(sample.constructor_input.kwargs, **(extra_kwargs or {}))
    torch.manual_seed(mc.SEED)
    tl.manual_seed(mc.SEED)
    m_t = info.module_cls(*cargs, **ckw).to(dtype).train(training)
    cv = mc.ModuleConverter(grad=False)
    m_l = cls_l(*cv(tuple(cargs)), **cv(ckw))
    m_l.to(tl_dtype(dtype))
    m_l.train(training)
    if name.startswith("Lazy"):
        _materialize_lazy(m_t, m_l, sample)
    sd = m_t.state_dict()
    m_l.load_state_dict({k: v for k, v in mc.to_tl_state(sd).items() if k in m_l.state_dict()}, strict=False)
    return m_t, m_l


def _tl_inputs(sample, grad=True):
    mc = _mc()
    cv = mc.ModuleConverter(grad=grad)
    t_in = clone_torch((sample.forward_input.args, sample.forward_input.kwargs))
    return t_in, cv(t_in), cv


def _stoch(info, sample, m_t, training):
    return _mc().stochastic_reason(m_t, sample.constructor_input.kwargs, training)


def _tensors(x):
    return [t for t in _mc().flatten(x) if isinstance(t, tl.Tensor)]


def _diff(x):
    return [t for t in _tensors(x) if t.requires_grad]


def _same_tl(a, b, tols, path):
    """Compare two torchlike structures by converting the first to torch."""
    mc = _mc()
    mc.compare(_to_torch(a), b, tols, path)


def _to_torch(x):
    if isinstance(x, tl.Tensor):
        return torch.from_numpy(np.array(np.asarray(x.detach()._value)))
    if isinstance(x, (tuple, list)):
        return type(x)(_to_torch(v) for v in x) if not hasattr(x, "_fields") else tuple(_to_torch(v) for v in x)
    if isinstance(x, dict):
        return {k: _to_torch(v) for k, v in x.items()}
    return x


# --- the checks (each returns a list of (ok, reason) per sample) -------------------------------------------
def check_forward_nograd(info, dtype, training):
    mc = _mc()
    out = []
    for s in _samples(info, dtype, training, requires_grad=False):
        m_t, m_l = build_pair(info, s, dtype, training)
        t_in, l_in, _ = _tl_inputs(s, grad=False)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                o_t = m_t(*t_in[0], **t_in[1])
        except Exception:
            continue  # error samples are judged by the default checks
        o_l = m_l(*l_in[0], **l_in[1])
        if _stoch(info, s, m_t, training):
            out.append(mc._check(lambda: mc.compare_structure(o_t, o_l)))
        else:
            out.append(mc._check(lambda: mc.compare(o_t, o_l, mc.TOLS[dtype])))
    return out


def _buffer_param_dtypes(m):
    return ({n: str(p.dtype).split(".")[-1] for n, p in m.named_parameters()},
            {n: str(b.dtype).split(".")[-1] for n, b in m.named_buffers() if b is not None})


def check_factory_kwargs(info, dtype, training):
    mc = _mc()
    out = []
    name = info.module_cls.__name__
    for s in _samples(info, dtype, training, requires_grad=False):
        cargs, ckw = s.constructor_input.args, dict(s.constructor_input.kwargs)
        try:
            m_t = info.module_cls(*cargs, **ckw, device="cpu", dtype=dtype)
        except TypeError:
            continue  # torch's module takes no factory kwargs
        cv = mc.ModuleConverter(grad=False)

        def one():
            m_l = getattr(tl.nn, name)(*cv(tuple(cargs)), **cv(ckw), device="cpu", dtype=tl_dtype(dtype))
            if name.startswith("Lazy"):
                _materialize_lazy(m_t, m_l, s)
            mc._eq(repr(_buffer_param_dtypes(m_l)), repr(_buffer_param_dtypes(m_t)), "param/buffer dtypes")
            for n, p in m_l.named_parameters():
                if str(p.device) != "cpu":
                    raise mc.Mismatch(f"{n} on {p.device}")
        out.append(_guard(one))
    return out


class _TorchRaised(Exception):
    """torch itself can't do what the check asks (the sample is not counted)."""


def _guard(fn):
    mc = _mc()
    try:
        return mc._check(fn)
    except _TorchRaised:
        return None
    except Unconvertible as e:
        return (False, f"unconvertible: {e}")
    except Exception as e:  # noqa: BLE001 -- any torchlike exception is a failure of the check
        return (False, f"raised {type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}")


def check_pickle(info, dtype, training):
    mc = _mc()
    out = []
    for s in _samples(info, dtype, training, requires_grad=False):
        m_t, m_l = build_pair(info, s, dtype, training)
        if _stoch(info, s, m_t, training):
            continue

        def one():
            _, l_in, _ = _tl_inputs(s, grad=False)
            _, l_in2, _ = _tl_inputs(s, grad=False)
            buf = io.BytesIO()
            tl.save(m_l, buf)
            buf.seek(0)
            m_c = tl.load(buf, weights_only=False)
            if type(m_c) is not type(m_l):
                raise mc.Mismatch(f"loaded {type(m_c).__name__}")
            tl.manual_seed(0)
            o1 = m_l(*l_in[0], **l_in[1])
            tl.manual_seed(0)
            o2 = m_c(*l_in2[0], **l_in2[1])
            _same_tl(o1, o2, mc.TOLS[dtype], "pickled module output")
        out.append(_guard(one))
    return out


def check_inplace(info, dtype, training):
    mc = _mc()
    if "inplace" not in inspect.signature(info.module_cls).parameters:
        return []
    out = []
    for s in _samples(info, dtype, training):
        if "inplace" in s.constructor_input.kwargs:
            continue

        def one():
            _, m_op = build_pair(info, s, dtype, training, {"inplace": False})
            _, m_ip = build_pair(info, s, dtype, training, {"inplace": True})
            _, l_in, _ = _tl_inputs(s)
            x = l_in[0][0]
            v0 = x._version
            o_op = m_op(*l_in[0], **l_in[1])
            if x._version != v0:
                raise mc.Mismatch("out-of-place module changed the input's _version")
            x2 = x.detach().clone().requires_grad_(x.requires_grad)
            xc = x2.clone()
            v1 = xc._version
            o_ip = m_ip(xc, *l_in[0][1:], **l_in[1])
            if not xc._version > v1:
                raise mc.Mismatch("inplace=True did not bump the input's _version")
            _same_tl(o_op, o_ip, mc.TOLS[dtype], "inplace output")
            if x.requires_grad:
                g = tl.randn(o_op.shape, dtype=o_op.dtype)
                o_op.backward(g)
                o_ip.backward(g)
                _same_tl(x.grad, x2.grad, mc.GRAD_TOLS[dtype], "inplace input grad")
        out.append(_guard(one))
    return out


def _non_contig(x):
    if isinstance(x, tl.Tensor):
        if x.dim() == 0:
            return x
        y = tl.repeat_interleave(x.detach(), 2, dim=-1)[..., ::2]
        return y.requires_grad_(x.requires_grad) if x.is_floating_point() else y
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return type(x)(*(_non_contig(v) for v in x))
    if isinstance(x, (tuple, list)):
        return type(x)(_non_contig(v) for v in x)
    if isinstance(x, dict):
        return {k: _non_contig(v) for k, v in x.items()}
    return x


def _run_grads(m_l, l_in, gouts):
    for p in m_l.parameters():
        p.grad = None
    tl.manual_seed(0)
    o = m_l(*l_in[0], **l_in[1])
    outs = _diff(o)
    if outs:
        tl.autograd.backward(outs, gouts[:len(outs)])
    return o, [t.grad for t in _diff(l_in)], [p.grad for p in m_l.parameters()]


def check_non_contiguous(info, dtype, training):
    mc = _mc()
    out = []
    for s in _samples(info, dtype, training):
        m_t, m_l = build_pair(info, s, dtype, training)
        if _stoch(info, s, m_t, training):
            continue

        def one():
            _, l_in, _ = _tl_inputs(s)
            tl.manual_seed(0)
            o = m_l(*l_in[0], **l_in[1])
            gouts = [tl.randn(t.shape, dtype=t.dtype) for t in _diff(o)]
            ref = _run_grads(m_l, l_in, gouts)
            ref = tuple(_to_torch(r) for r in ref)
            for nc_in in (False, True):
                for nc_g in (False, True):
                    _, li, _ = _tl_inputs(s)
                    if nc_in:
                        li = _non_contig(li)
                    g = _non_contig(gouts) if nc_g else gouts
                    got = _run_grads(m_l, li, g)
                    tag = f"(non-contiguous input={nc_in}, grad={nc_g})"
                    mc.compare(ref[0], got[0], mc.TOLS[dtype], f"output {tag}")
                    mc.compare(ref[1], got[1], mc.GRAD_TOLS[dtype], f"input grads {tag}")
                    mc.compare(ref[2], got[2], mc.GRAD_TOLS[dtype], f"param grads {tag}")
        out.append(_guard(one))
    return out


def check_to(info, dtype, training):
    mc = _mc()
    out = []
    for s in _samples(info, dtype, training, requires_grad=False)[:4]:
        m_t, m_l = build_pair(info, s, torch.float32, training)
        if name_is_lazy(info):
            continue

        def one():
            for p in m_l.parameters():
                p.grad = tl.randn(p.shape, dtype=p.dtype)
            for p in m_t.parameters():
                p.grad = torch.randn_like(p)
            for conv_name, args in (("to", (torch.float64,)), ("half", ()), ("float", ()), ("double", ()),
                                    ("to", (torch.float32,))):
                ids = [id(p) for p in m_l.parameters()]
                getattr(m_t, conv_name)(*args)
                getattr(m_l, conv_name)(*(tl_dtype(a) for a in args))
                what = f"{conv_name}({', '.join(map(str, args))})"
                if [id(p) for p in m_l.parameters()] != ids:
                    raise mc.Mismatch(f"{what}: parameters replaced by new objects")
                if not all(isinstance(p, tl.nn.Parameter) for p in m_l.parameters()):
                    raise mc.Mismatch(f"{what}: a parameter is no longer a Parameter")
                mc._eq(repr(_buffer_param_dtypes(m_l)), repr(_buffer_param_dtypes(m_t)), f"{what} dtypes")
                gd_l = [str(p.grad.dtype).split(".")[-1] for p in m_l.parameters()]
                gd_t = [str(p.grad.dtype).split(".")[-1] for p in m_t.parameters()]
                mc._eq(gd_l, gd_t, f"{what} grad dtypes")
        out.append(_guard(one))
    return out


def name_is_lazy(info):
    return info.module_cls.__name__.startswith("Lazy")


def check_train_eval(info, dtype, training):
    out = []
    for s in _samples(info, dtype, training, requires_grad=False):
        _, m_l = build_pair(info, s, dtype, training)

        def one():
            delattr(m_l, "training")
            _, l_in, _ = _tl_inputs(s, grad=False)
            try:
                m_l(*l_in[0], **l_in[1])
            except AttributeError as e:
                if "'training'" in str(e) and not info.train_and_eval_differ:
                    raise _mc().Mismatch("forward reads self.training but torch's ModuleInfo says "
                                         "train_and_eval_differ=False") from None
                if "'training'" not in str(e):
                    raise
        out.append(_guard(one))
    return out


def check_errors(info, dtype, training):
    mc = _mc()
    if info.module_error_inputs_func is None:
        return []
    from torch.testing._internal.common_modules import ModuleErrorEnum
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        errs = list(info.module_error_inputs_func(info, device="cpu", dtype=dtype, requires_grad=False,
                                                  training=training))
    name = info.module_cls.__name__
    for ei in errs:
        mi = ei.module_error_input
        cv = mc.ModuleConverter(grad=False)

        def one():
            ca, ck = cv(tuple(mi.constructor_input.args)), cv(dict(mi.constructor_input.kwargs))
            cls = getattr(tl.nn, name)
            try:
                if ei.error_on == ModuleErrorEnum.CONSTRUCTION_ERROR:
                    cls(*ca, **ck)
                else:
                    m = cls(*ca, **ck)  # torch's test_errors leaves the module in its default (training) mode
                    m(*cv(tuple(mi.forward_input.args)), **cv(dict(mi.forward_input.kwargs)))
            except Exception as e:  # noqa: BLE001
                if not isinstance(e, ei.error_type) or not re.search(ei.error_regex, str(e)):
                    raise mc.Mismatch(f"{ei.error_on.name}: raised {type(e).__name__}({str(e)[:120]!r}), torch "
                                      f"{ei.error_type.__name__} matching {ei.error_regex!r}") from None
                return
            raise mc.Mismatch(f"{ei.error_on.name}: no exception, torch {ei.error_type.__name__} "
                              f"matching {ei.error_regex!r}")
        out.append(_guard(one))
    return out


def check_memory_format(info, dtype, training):
    mc = _mc()
    if name_is_lazy(info):
        return []
    out = []
    for s in _samples(info, dtype, training):
        dims = {t.dim() for t in mc.flatten((s.forward_input.args, s.forward_input.kwargs))
                if isinstance(t, torch.Tensor)}
        fmt = tl.channels_last if 4 in dims else tl.channels_last_3d if 5 in dims else None
        if fmt is None:
            continue
        m_t, m_l = build_pair(info, s, dtype, training)
        if _stoch(info, s, m_t, training):
            continue

        def one():
            _, l_in, _ = _tl_inputs(s)
            tl.manual_seed(0)
            ref = _to_torch(m_l(*l_in[0], **l_in[1]))
            want = 4 if fmt is tl.channels_last else 5

            def cl(x):
                if isinstance(x, tl.Tensor) and x.dim() == want:
                    return x.detach().clone().to(memory_format=fmt).requires_grad_(x.requires_grad)
                if isinstance(x, (tuple, list)):
                    return type(x)(cl(v) for v in x)
                if isinstance(x, dict):
                    return {k: cl(v) for k, v in x.items()}
                return x
            for mod_fmt in (tl.contiguous_format, fmt):
                m_l.to(memory_format=mod_fmt)
                _, li, _ = _tl_inputs(s)
                li = cl(li)
                tl.manual_seed(0)
                o = m_l(*li[0], **li[1])
                mc.compare(ref, o, mc.TOLS[dtype], f"output (channels_last input, module {mod_fmt})")
                for t in _tensors(o):
                    if t.dim() == want and t.numel() and not t.is_contiguous(memory_format=fmt):
                        raise mc.Mismatch(f"output not {fmt}")
        out.append(_guard(one))
    return out


def check_gradgrad(info, dtype, training):
    mc = _mc()
    if not info.supports_gradgrad:
        return []
    dtype = torch.float64
    out = []
    rng = np.random.default_rng(mc.SEED)
    for s in _samples(info, dtype, training):
        m_t, m_l = build_pair(info, s, dtype, training)
        if _stoch(info, s, m_t, training):
            continue

        def one():
            t_in, l_in, cv = _tl_inputs(s)
            o_t = m_t(*t_in[0], **t_in[1])
            o_l = m_l(*l_in[0], **l_in[1])
            outs_t = [t for t in mc.flatten(o_t) if isinstance(t, torch.Tensor) and t.requires_grad]
            outs_l = _diff(o_l)
            if len(outs_t) != len(outs_l):
                raise mc.Mismatch("number of differentiable outputs differs")
            if not outs_t:
                return
            xs_t = [a for a, _ in cv.leaves] + list(m_t.parameters())
            xs_l = [b for _, b in cv.leaves] + list(m_l.parameters())
            cots = [rng.standard_normal(tuple(t.shape)) for t in outs_t]
            g_t = torch.autograd.grad(outs_t, xs_t, [torch.from_numpy(c) for c in cots], create_graph=True,
                                      allow_unused=True)
            g_l = tl.autograd.grad(outs_l, xs_l, [tl.from_numpy(c) for c in cots], create_graph=True,
                                   allow_unused=True)
            keep = [i for i, g in enumerate(g_t) if g is not None and g.requires_grad]
            if not keep:
                return
            vs = [rng.standard_normal(tuple(g_t[i].shape)) for i in keep]
            try:
                gg_t = torch.autograd.grad([g_t[i] for i in keep], xs_t, [torch.from_numpy(v) for v in vs],
                                           allow_unused=True)
            except RuntimeError as e:  # torch has no double backward here either: nothing to compare
                raise _TorchRaised(str(e)) from None
            if any(g_l[i] is None or not g_l[i].requires_grad for i in keep):
                raise mc.Mismatch("first-order grad is not differentiable (create_graph=True)")
            gg_l = tl.autograd.grad([g_l[i] for i in keep], xs_l, [tl.from_numpy(v) for v in vs],
                                    allow_unused=True)
            for i, (a, b) in enumerate(zip(gg_t, gg_l)):
                if a is None:
                    if b is not None and bool((b != 0).any()):
                        raise mc.Mismatch(f"double-backward grad {i}: torch None, torchlike nonzero")
                    continue
                if b is None:
                    if bool((a != 0).any()):
                        raise mc.Mismatch(f"double-backward grad {i}: torchlike None, torch nonzero")
                    continue
                mc.compare(a, b, mc.GRAD_TOLS[dtype], f"double-backward grad {i}")
        res = _guard(one)
        if res is not None:
            out.append(res)
    return out


CHECK_FNS = {"forward_nograd": check_forward_nograd, "factory_kwargs": check_factory_kwargs,
             "pickle": check_pickle, "inplace": check_inplace, "non_contiguous": check_non_contiguous,
             "to": check_to, "train_eval": check_train_eval, "errors": check_errors,
             "memory_format": check_memory_format, "gradgrad": check_gradgrad}
# dtypes / modes each check runs in (gradgrad always float64; the cheap ones in both dtypes)
PLAN = {"forward_nograd": [(torch.float32, True), (torch.float32, False)],
        "factory_kwargs": [(torch.float64, True)], "pickle": [(torch.float32, False)],
        "inplace": [(torch.float32, True), (torch.float64, True)], "non_contiguous": [(torch.float32, True)],
        "to": [(torch.float32, True)], "train_eval": [(torch.float32, True), (torch.float32, False)],
        "errors": [(torch.float32, True), (torch.float32, False)], "memory_format": [(torch.float32, True)],
        "gradgrad": [(torch.float64, True)]}


def run_extra(info, r, only=None):
    """Run the extra checks of one ModuleInfo, recording into ``r['checks']`` (a run_module result)."""
    mc = _mc()
    for c in EXTRA_CHECKS:
        if only and c not in only:
            continue
        slot = r["checks"].setdefault(c, {"pass": 0, "fail": 0, "reasons": []})
        for dtype, training in PLAN[c]:
            try:
                res = CHECK_FNS[c](info, dtype, training)
            except mc.ModuleTimeout:
                raise
            except Exception as e:  # noqa: BLE001 -- a crash in the check's setup is a failure too
                res = [(False, f"setup raised {type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}")]
            for i, (ok, why) in enumerate(res):
                slot["pass" if ok else "fail"] += 1
                if not ok and len(slot["reasons"]) < 3:
                    slot["reasons"].append(f"#{i} [{str(dtype)[6:]} {'train' if training else 'eval'}]: {why}")
