import re
import sys
import warnings

import jax.monitoring
import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torchlike  # noqa: E402

torch.set_num_threads(1)


class XlaCompiles:
    """Counts XLA compilations (every one, torchlike's caches or not) while active: ``with XlaCompiles() as c:``
    then ``c.n``."""

    EVENT = "/jax/core/compile/backend_compile_duration"

    def __init__(self):
        self.n = 0

    def __call__(self, event, duration, **kwargs):
        if event == self.EVENT:
            self.n += 1

    def __enter__(self):
        jax.monitoring.register_event_duration_secs_listener(self)
        return self

    def __exit__(self, *exc):
        jax.monitoring.unregister_event_duration_listener(self)


def to_torch(t):
    """A torch tensor with the same values/dtype as a torchlike tensor (through numpy)."""
    a = np.asarray(t.detach()._value)
    if t.dtype is torchlike.bfloat16:
        return torch.from_numpy(a.astype(np.float32)).to(torch.bfloat16)
    return torch.from_numpy(a.copy())


def to_tl(t, requires_grad=False):
    """The torchlike twin of a torch tensor."""
    if t.dtype == torch.bfloat16:
        out = torchlike.tensor(t.detach().float().numpy()).to(torchlike.bfloat16)
    else:
        out = torchlike.tensor(t.detach().numpy())
    return out.requires_grad_(requires_grad) if requires_grad else out


def tensor_pair(a, requires_grad=False):
    """``(torchlike.tensor(a), torch.tensor(a))`` of one numpy array, both requiring grad if asked."""
    return torchlike.tensor(a, requires_grad=requires_grad), torch.tensor(a, requires_grad=requires_grad)


def assert_same(ours, theirs, rtol=1e-5, atol=1e-6):
    """Values, shape and dtype of a torchlike tensor equal torch's (``rtol=atol=None``: torch.testing's
    default tolerances for the dtype). A tuple/list/dict of them (and python values) is compared item by
    item as ``same_as_torch`` compares results; comparing nothing fails."""
    if not isinstance(theirs, torch.Tensor):
        assert _compare(ours, theirs, rtol, atol, False) >= 1, "assert_same compared nothing"
        return
    assert str(ours.dtype) == str(theirs.dtype), (ours.dtype, theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape), (ours.shape, theirs.shape)
    torch.testing.assert_close(to_torch(ours), theirs.detach(), rtol=rtol, atol=atol, equal_nan=True)


# --- the two comparators every torch-vs-torchlike test goes through -----------------------------------
# ``same_as_torch`` checks a SUCCESS path (either side raising is a failure: no silent "both raised" pass);
# ``raises_like_torch`` checks an ERROR path (torch must raise; torchlike must raise the same type and message).

def _default_tol(dtype):
    name = str(dtype)
    if name.endswith("bfloat16"):
        return 1.6e-2, 1e-5
    if name.endswith("float16") or name.endswith("complex32"):
        return 1e-3, 1e-5
    return 1e-5, 1e-6


def _convert(v, mod, grad, leaves):
    """The ``mod`` version of one input: numpy arrays become fresh ``mod`` tensors (float/complex ones
    requiring grad when ``grad``); tuples, lists and dicts are converted element-wise; anything else is
    passed unchanged."""
    if isinstance(v, np.ndarray):
        t = mod.tensor(v.copy())
        if grad and v.dtype.kind in "fc":
            t.requires_grad_(True)
            leaves.append(t)
        elif grad:
            leaves.append(None)
        return t
    if isinstance(v, tuple) and not hasattr(v, "_fields"):
        return tuple(_convert(e, mod, grad, leaves) for e in v)
    if isinstance(v, list):
        return [_convert(e, mod, grad, leaves) for e in v]
    if isinstance(v, dict):
        return {k: _convert(e, mod, grad, leaves) for k, e in v.items()}
    return v


def _compare(ours, theirs, rtol, atol, check_grad, path="result"):
    """Assert torchlike's ``ours`` equals torch's ``theirs``; returns how many values were compared."""
    if isinstance(theirs, torch.Tensor):
        assert isinstance(ours, torchlike.Tensor), f"{path}: torchlike gave {type(ours)}, torch a Tensor"
        r0, a0 = _default_tol(theirs.dtype)
        assert_same(ours, theirs, rtol=r0 if rtol is None else rtol, atol=a0 if atol is None else atol)
        if check_grad:
            assert ours.requires_grad == theirs.requires_grad, \
                f"{path}: requires_grad {ours.requires_grad} != torch's {theirs.requires_grad}"
        return 1
    if isinstance(theirs, (tuple, list)):
        assert isinstance(ours, (tuple, list)), f"{path}: torchlike gave {type(ours)}, torch {type(theirs)}"
        assert type(ours).__name__ == type(theirs).__name__, f"{path}: {type(ours)} != torch's {type(theirs)}"
        assert len(ours) == len(theirs), f"{path}: {len(ours)} items != torch's {len(theirs)}"
        n = 0
        for name in getattr(theirs, "_fields", ()) or getattr(type(theirs), "_fields", ()):
            n += _compare(getattr(ours, name), getattr(theirs, name), rtol, atol, check_grad, f"{path}.{name}")
        for i, (o, t) in enumerate(zip(ours, theirs)):
            n += _compare(o, t, rtol, atol, check_grad, f"{path}[{i}]")
        return n + (1 if not theirs else 0)  # an empty tuple/list compared equal is a comparison
    if isinstance(theirs, dict):
        assert isinstance(ours, dict) and list(ours) == list(theirs), f"{path}: keys {ours} != {theirs}"
        return sum(_compare(ours[k], theirs[k], rtol, atol, check_grad, f"{path}[{k!r}]") for k in theirs) or 1
    if theirs is None:
        assert ours is None, f"{path}: torchlike gave {ours!r}, torch None"
        return 0
    if isinstance(theirs, (bool, int, float, complex)):
        assert type(ours) is type(theirs), f"{path}: {type(ours).__name__} {ours!r} != torch's {theirs!r}"
        if isinstance(theirs, (float, complex)) and theirs != theirs:
            assert ours != ours, f"{path}: {ours!r} != torch's nan"
        elif isinstance(theirs, (float, complex)):
            r0, a0 = _default_tol(None)
            r, a = (r0 if rtol is None else rtol), (a0 if atol is None else atol)
            assert ours == theirs or abs(ours - theirs) <= a + r * abs(theirs), f"{path}: {ours!r} != {theirs!r}"
        else:
            assert ours == theirs, f"{path}: {ours!r} != torch's {theirs!r}"
        return 1
    if isinstance(theirs, (torch.dtype, torch.device, torch.layout, torch.memory_format)):
        assert str(ours) == str(theirs), f"{path}: {ours} != torch's {theirs}"
        return 1
    assert ours == theirs, f"{path}: {ours!r} != torch's {theirs!r}"
    return 1


def _float_outputs(r):
    """The tensors of a (nested) result that carry gradient, in order."""
    if isinstance(r, (torch.Tensor, torchlike.Tensor)):
        return [r] if (r.dtype.is_floating_point or r.dtype.is_complex) and r.requires_grad else []
    if isinstance(r, (tuple, list)):
        return [o for e in r for o in _float_outputs(e)]
    if isinstance(r, dict):
        return [o for e in r.values() for o in _float_outputs(e)]
    return []


def _upstream(o, rng):
    g = rng.standard_normal(tuple(o.shape))
    if o.dtype.is_complex:
        g = g + 1j * rng.standard_normal(tuple(o.shape))
    return g


def _run_side(mod, fn, inputs, grad, quiet, grad_inputs=None):
    leaves = []
    args = [_convert(a, mod, grad and (grad_inputs is None or i in grad_inputs), leaves)
            for i, a in enumerate(inputs)]
    if not quiet:
        return fn(mod, *args), leaves
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(mod, *args), leaves


def same_as_torch(fn, *inputs, grad=True, rtol=None, atol=None, grad_rtol=None, grad_atol=None, seed=0,
                  quiet=False, grad_inputs=None):
    """Run ``fn(module, *inputs)`` with ``module`` = torch and = torchlike and require the same result.

    numpy arrays in ``inputs`` (also inside tuples/lists/dicts) become fresh tensors of that module; other
    values are passed as they are. Results are compared recursively: tensors by value, dtype and shape
    (``assert_same``), tuples/lists/structseqs by type name, length and items, python scalars by type and
    value, dtypes/devices by name. With ``grad`` (the default) float/complex array inputs require grad, the
    outputs' ``requires_grad`` must agree, and after backward from the same random upstream gradients the
    input gradients must agree (``grad_inputs``, a set of input positions, limits which inputs require
    grad). Fails if either side raises (use ``raises_like_torch`` for error paths) or
    if nothing was compared. ``quiet`` silences warnings raised inside ``fn``. Returns torchlike's result.
    """
    try:
        theirs, t_leaves = _run_side(torch, fn, inputs, grad, quiet, grad_inputs)
    except Exception as e:  # noqa: BLE001 - a success-path comparison must not raise in torch
        raise AssertionError(f"torch raised {type(e).__name__}: {e} -- use raises_like_torch for an error "
                             f"path, or fix the test") from e
    ours, l_leaves = _run_side(torchlike, fn, inputs, grad, quiet, grad_inputs)
    n = _compare(ours, theirs, rtol, atol, grad)
    assert n >= 1, "same_as_torch compared nothing (fn returned no value)"
    outs_t = _float_outputs(theirs) if grad else []
    if outs_t:
        outs_l = _float_outputs(ours)
        assert len(outs_l) == len(outs_t), (len(outs_l), len(outs_t))
        rng = np.random.default_rng(seed)
        gs = [_upstream(o, rng) for o in outs_t]
        torch.autograd.backward(outs_t, [torch.tensor(g).to(o.dtype) for o, g in zip(outs_t, gs)])
        torchlike.autograd.backward(outs_l, [torchlike.tensor(g).to(o.dtype) for o, g in zip(outs_l, gs)])
        r0, a0 = _default_tol(None)
        rg = grad_rtol if grad_rtol is not None else max((r0 if rtol is None else rtol) * 10, 1e-4)
        ag = grad_atol if grad_atol is not None else max((a0 if atol is None else atol) * 10, 1e-5)
        for i, (a, b) in enumerate(zip(t_leaves, l_leaves)):
            if a is None:
                continue
            if a.grad is None:
                assert b.grad is None or not np.any(np.asarray(b.grad._value)), f"input {i}: grad where torch has none"
            else:
                assert b.grad is not None, f"input {i}: no grad, torch has one"
                _compare(b.grad, a.grad, rg, ag, False, f"input {i}.grad")
    return ours


def _same_exception_type(el, et):
    te, tl_ = type(et), type(el)
    if te.__module__ == "builtins":
        return tl_ is te
    # torch's own classes (torch.linalg.LinAlgError, torch.OutOfMemoryError, ...): same name and builtin bases
    return tl_.__name__ == te.__name__ and all(isinstance(el, b) for b in te.__mro__ if b.__module__ == "builtins")


_TEST_BUGS = (NameError, SyntaxError, ImportError)


def not_a_test_bug(e):
    """``e``, an exception a comparison caught, or an AssertionError when it says the test itself is wrong: a
    name error, an import error, or a library attribute that does not exist (``torch.nonexistent``) raised
    on both sides would otherwise compare equal and pass as an "error test"."""
    if isinstance(e, _TEST_BUGS) or (isinstance(e, AttributeError) and isinstance(getattr(e, "obj", None),
                                                                               type(sys))):
        raise AssertionError(f"the test's own code failed, nothing was compared: {type(e).__name__}: {e}") from e
    return e


def raises_like_torch(fn, *inputs, match=None, quiet=False):
    """Require ``fn(torch, *inputs)`` to raise, and ``fn(torchlike, *inputs)`` to raise the same exception
    type with the same message -- or, given ``match`` (a regex), messages that both match it.
    Inputs are converted as in ``same_as_torch`` (no grad). Returns torchlike's exception."""
    try:
        r = _run_side(torch, fn, inputs, False, quiet)[0]
    except Exception as e:  # noqa: BLE001
        et = not_a_test_bug(e)
    else:
        raise AssertionError(f"torch did not raise (returned {type(r).__name__}) -- not an error case")
    try:
        r = _run_side(torchlike, fn, inputs, False, quiet)[0]
    except Exception as e:  # noqa: BLE001
        el = e
    else:
        raise AssertionError(f"torchlike did not raise; torch raised {type(et).__name__}: {et}")
    assert _same_exception_type(el, et), f"torchlike raised {type(el).__name__}: {el}; torch {type(et).__name__}: {et}"
    if match is None:
        assert str(el) == str(et), f"message differs:\n torchlike: {el}\n torch:     {et}"
    else:
        assert re.search(match, str(et)), f"torch's message does not match {match!r}: {et}"
        assert re.search(match, str(el)), f"torchlike's message does not match {match!r}: {el}"
    return el


def same_draws_as_torch(fn, seed=0):
    """``fn(module)`` after ``manual_seed(seed)`` in torch and in torchlike: bit-equal results (values,
    dtypes, shapes, python values, as ``same_as_torch`` with ``rtol=atol=0``), and the same stream advance
    (both draw ``rand(3)`` afterwards, compared too). Returns torchlike's ``[result, rand(3)]``."""
    return same_as_torch(lambda m: (m.manual_seed(seed), [fn(m), m.rand(3)])[1], grad=False, rtol=0, atol=0)


def assert_close_values(ours, theirs, rtol=1e-7, atol=0.0):
    """Values only (as float64/complex128, NaNs equal) of a torchlike tensor against torch's -- for checks
    that deliberately leave dtype aside; prefer ``same_as_torch`` / ``assert_same``."""
    a = np.asarray(ours.detach().numpy())
    b = np.asarray(theirs.detach().numpy())
    kind = np.complex128 if (a.dtype.kind == "c" or b.dtype.kind == "c") else np.float64
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a.astype(kind), b.astype(kind), rtol=rtol, atol=atol, equal_nan=True)


def torch_or_tl(torch_call, torchlike_call):
    """Adapt a torch callable and its torchlike twin (no arguments) to the ``fn(module)`` form that
    ``same_as_torch`` / ``raises_like_torch`` take."""
    return lambda m: torch_call() if m is torch else torchlike_call()


# --- programs run twice: plain python (real torch) and under the drop-in runner ----------------------------
_ROOT = __import__("os").path.dirname(__import__("os").path.dirname(__import__("os").path.abspath(__file__)))
_NUM = re.compile(r"-?\d+\.\d+(?:e[-+]?\d+)?")


def free_port():
    """A TCP port on 127.0.0.1 that was free when asked (for a process group's MASTER_PORT)."""
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def simulated_devices_env(n, *paths, **extra):
    """The environment of a subprocess that sees ``n`` simulated XLA CPU devices (JAX_PLATFORMS=cpu), with
    the repository and ``paths`` on PYTHONPATH and ``extra`` variables set."""
    import os
    return dict(os.environ, XLA_FLAGS=f"--xla_force_host_platform_device_count={n}", JAX_PLATFORMS="cpu",
                PYTHONPATH=os.pathsep.join(list(paths) + [_ROOT]), **extra)


def run_program(args, runner, *, env=None, timeout=900):
    """Run ``python [-m torchlike run] args`` from the repository root; its non-empty stdout lines."""
    import os
    import subprocess
    import sys
    env = dict(os.environ if env is None else env)  # a copy: the caller reuses its dict for the other side
    if not runner:
        # the torch oracle on one intra-op thread, as torch in this process (set_num_threads(1) above) and
        # under torchrun: with pytest -n 2 on two cores its OpenMP threads only spun against each other
        # (ex_seq2seq_attention under load 7: 6-13 s of CPU with the default threads, 3.2 s with one; the
        # printed lines identical)
        env.setdefault("OMP_NUM_THREADS", "1")
    env["PYTHONPATH"] = _ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    cmd = [sys.executable] + (["-m", "torchlike", "run"] if runner else []) + list(args)
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, cwd=_ROOT)
    assert out.returncode == 0, out.stderr[-4000:]
    return [line for line in out.stdout.splitlines() if line.strip()]


def same_printed_lines(torch_lines, ours, rtol):
    """Line by line: equal text once numbers are taken out; numbers equal within rtol, or within one unit of
    their last printed decimal (two values a hair apart can round to neighbouring 4-decimal texts: 0.1108/0.1109)."""
    assert len(ours) == len(torch_lines), (torch_lines, ours)
    for t, o in zip(torch_lines, ours):
        assert _NUM.sub("#", t) == _NUM.sub("#", o), (t, o)
        for a, b in zip(_NUM.findall(t), _NUM.findall(o)):
            if abs(float(a) - float(b)) <= _last_digit(a, b) * (1 + 1e-9):
                continue
            assert float(b) == pytest.approx(float(a), rel=rtol, abs=rtol), (t, o)


def _last_digit(a, b):
    """One unit of the finer last decimal of two printed numbers with 3 or more decimals (0 for others, and for
    exponent forms: a one-decimal 0.5 against 0.6 is a real difference)."""
    if any(c in a + b for c in "eE"):
        return 0.0
    decimals = max(len(x.partition(".")[2]) for x in (a, b))
    return 10.0 ** -decimals if decimals >= 3 else 0.0


def program_matches_torch(name, rtol, key_lines, requires=()):
    """The example-program check: ``name`` run with real torch and under the drop-in runner prints the same lines
    (numbers within ``rtol``; ``lib_program_vs_torch``), at least 10 of them, each of ``key_lines`` exactly in both."""
    pytest.importorskip("torch", reason="the comparison runs the program with real torch too")
    expected, ours = lib_program_vs_torch(name, *requires, timeout=600, rtol=rtol)
    assert len(ours) >= 10, ours
    for line in key_lines:
        assert line in expected, (line, expected)
        assert line in ours, (line, ours)


def lib_program_vs_torch(program, *modules, env=None, timeout=600, rtol=1e-4):
    """Skip unless ``modules`` are importable; run ``tests/programs/<program>`` under torch and under the
    runner, check the printed lines agree (``same_printed_lines``), and return ``(torch_lines, ours)``."""
    import importlib.util
    import os
    for mod in modules:
        if importlib.util.find_spec(mod) is None:
            pytest.skip(f"{mod} is not installed")
    script = os.path.join(_ROOT, "tests", "programs", program)
    expected = run_program([script], runner=False, env=env, timeout=timeout)
    ours = run_program([script], runner=True, env=env, timeout=timeout)
    same_printed_lines(expected, ours, rtol=rtol)
    return expected, ours


@pytest.fixture
def sb3_env(tmp_path):
    """The environment for a Stable-Baselines3 program: its learn() logs into $SB3_LOGDIR, else into a new
    tempdir/SB3-<date> folder per call that nothing removes."""
    import os
    return dict(os.environ, SB3_LOGDIR=str(tmp_path))


@pytest.fixture(autouse=True)
def _no_process_group_left_behind():
    """Each test starts without a default process group: an in-process test that makes one (a DeviceMesh
    does, as in torch) must not change what a later test in the same worker sees."""
    yield
    d = sys.modules.get("torchlike.distributed")
    if d is not None and d.is_initialized():
        d.destroy_process_group()


@pytest.fixture(autouse=True)
def _distribution_validation_as_at_start():
    """Each test starts with torch.distributions' argument validation on, in both frameworks: the process's first
    ``torch.compile`` / ``torchlike.compile`` call turns it off for good, as torch does, and an earlier test's
    compile must not change what a later test in the same worker sees."""
    yield
    for name in ("torchlike.distributions.distribution", "torch.distributions.distribution"):
        m = sys.modules.get(name)
        if m is not None:
            m.Distribution._validate_args = __debug__


def example_program_vs_torch(name, rtol, *modules):
    """``tests/programs/<name>`` (a pytorch/examples-style program) prints under the runner what it prints
    under real torch (``same_printed_lines`` within ``rtol``), at least five lines; skipped unless ``modules``
    (libraries the program imports, e.g. gymnasium) are installed."""
    pytest.importorskip("torch", reason="the comparison runs the program with real torch too")
    _, ours = lib_program_vs_torch(name, *modules, timeout=600, rtol=rtol)
    assert len(ours) >= 5, ours
