"""Bounded caches of compiled XLA programs (per-op forwards, pullbacks, view reads/writes, compiled
functions' programs).

Every cached ``jax.jit`` function keeps its own per-shape executables, so the bound is on the number
of *executables* across all caches: after each call the owner compares ``fn._cache_size()`` with the
count it knew (one C++ call), and only when a new shape was compiled does the bookkeeping run.  When
the total passes the limit, whole cached functions are evicted least-recently-used first (a CLOCK
sweep: a function used since the last sweep gets a second chance), their executables released with
``clear_cache()``.  The hot path is a dict lookup, the call, a flag store and one integer compare.

The limit is ``TORCHLIKE_CACHE_SIZE`` (executables, default 256) or :func:`set_cache_size`.  The default
limit adapts to a workload that needs more programs than it holds: a shape compiled again after its function
was evicted (a *refault*: a fixed-shape step cycling through more programs than the limit, which would
otherwise recompile every step) counts, and each ``max(16, limit / 8)`` refaults double the limit, up to 8x
the default.  New shapes are never refaults, so a workload whose shapes keep changing stays at the default
bound.  A limit set by the environment or :func:`set_cache_size` is kept as given.

Tiered compilation (eager per-op programs, pullbacks, fused backwards): a shape's first calls run a
program compiled at a low XLA backend optimization level (``TORCHLIKE_TIERED_COMPILE_LEVEL``, 1 by
default: cheaper to compile, same results); a shape called more often than
``TORCHLIKE_TIERED_COMPILE`` times (default 0: tiering off; opt in with 1 or more) is recompiled at full optimization,
and once a function's recent calls all run full programs it calls its ``jax.jit`` directly again (no
per-call routing).  :func:`set_tiered_compile` sets both.

With tiering off (the default), eager programs on the CPU backend can compile once with cheaper compiler
options (opt-in, :func:`set_eager_compile_options` ``("quick")`` or ``TORCHLIKE_EAGER_COMPILE_OPTIONS=1``:
LLVM -O1 and XLA's classic loop emitters, about half the compile time of a new shape's programs, some
medium-sized programs run slower).  A call made while JAX traces runs the function's jit without
options (:func:`traced_fallback`, on the error path only).

>>> import torchlike
>>> torchlike.set_cache_size(512)
>>> torchlike.cache_info()["limit"]
512
>>> torchlike.set_cache_size(None)  # back to the default (or TORCHLIKE_CACHE_SIZE)
"""
from __future__ import annotations

import collections
import ctypes
import os
import threading
from time import monotonic as _monotonic

__all__ = ["Cache", "Entry", "set_cache_size", "cache_info", "clear_caches", "set_tiered_compile", "tier_of",
           "set_eager_compile_options", "traced_fallback", "signature", "top_level", "on_compiled"]

_DEFAULT = 256
_TIER_DEFAULT = 0  # opt-in: a fixed-shape script compiles each program twice with it (see docs/caches.md)
# The quick tier compiles with LLVM at -O1 by default (the HLO passes are the same): measured on a
# new-shape MLP step, ~23% less compile CPU than XLA's default (-O2), and bit-identical results in the
# elementwise ops compared (LLVM contracts a multiply feeding an add into an FMA at -O1 as at -O2; float
# reductions can sum in another order, last bit: docs/differences.md).  Level 0 saves
# ~36% but rounds differently in the last bit (no FMA contraction at -O0: torch's own CPU kernels use
# FMA, so exact comparisons with torch failed), so it is opt-in.
# Opt-in quick options for eager programs (per-op forwards, pullbacks, fused backwards) on the CPU backend
# (docs/caches.md, "Compile options of eager programs"): LLVM at -O1 and XLA's classic loop emitters instead
# of its MLIR fusion emitters.  Measured on a new-shape MLP step's programs: about half the compile time;
# but some medium-sized programs run slower (relu(x + b) at 128x512 1.46x, softmax 1.24x), so they are
# not the default.  Results can differ from XLA's defaults in the last bits (float reductions sum in
# another order; tan, cbrt, arctan; neither order is torch's).
_EAGER_OPTIONS = {"xla_backend_optimization_level": 1, "xla_cpu_use_fusion_emitters": False}
# On a GPU, eager programs (small, one per op and shape) compile without XLA's autotuning of GEMM and fusion
# configurations by default: measured on an H200 (bench/gpu_results.md), GPT-mini's first eager step took
# 60.5 s with autotuning and 8.7 s without, and its steady step 29.0 vs 27.3 ms (the same programs).
# ``TORCHLIKE_GPU_AUTOTUNE=1`` restores XLA's autotuning; torchlike.compile programs always autotune.
_GPU_EAGER_OPTIONS = {"xla_gpu_autotune_level": 0}


def _env_int(name, least, default):
    """The integer environment setting ``name`` (at least ``least``), ``default`` when unset or not a number."""
    v = os.environ.get(name, "")
    try:
        return max(int(v), least) if v else default
    except ValueError:
        return default


def _env_limit():
    return _env_int("TORCHLIKE_CACHE_SIZE", 1, _DEFAULT)


def _env_tier():
    return _env_int("TORCHLIKE_TIERED_COMPILE", 0, _TIER_DEFAULT)


def _env_options():
    v = os.environ.get("TORCHLIKE_EAGER_COMPILE_OPTIONS", "").strip().lower()
    return dict(_EAGER_OPTIONS) if v in ("1", "on", "true", "yes", "quick") else {}


def _env_gpu_options():
    v = os.environ.get("TORCHLIKE_GPU_AUTOTUNE", "").strip().lower()
    return {} if v in ("1", "on", "true", "yes") else dict(_GPU_EAGER_OPTIONS)


def _env_level():
    v = os.environ.get("TORCHLIKE_TIERED_COMPILE_LEVEL", "")
    return 0 if v.strip() == "0" else 1


class _Tier:
    after = _env_tier()  # calls a shape runs on its quick program before the full one (0: no quick tier)
    level = _env_level()  # the quick tier's xla_backend_optimization_level (0 or 1)
    settle = 8  # a function whose last `settle` calls all ran full programs calls its jit directly
    options = _env_options()  # compiler options of untiered eager programs on the CPU backend ({}: XLA's)
    gpu_options = _env_gpu_options()  # ... and on the GPU backend
    promotions = 0
    demotions = 0


class _Budget:
    limit = _env_limit()
    adaptive = "TORCHLIKE_CACHE_SIZE" not in os.environ  # the default limit grows on refaults (module docstring)
    cap = 8 * _DEFAULT
    ghosts: collections.OrderedDict = collections.OrderedDict()  # (cache, key, signature) of evicted programs
    refaults = 0  # programs compiled again after an eviction (a workload larger than the limit)
    pending = 0  # refaults since the limit last grew
    total = 0  # executables (plus one per cached function) held by all caches, as _shrink last counted them
    clock: collections.OrderedDict = collections.OrderedDict()  # entries, oldest first
    evictions = 0
    compiled = 0  # executables compiled so far (monotonic: a test's "this compiled nothing")
    lock = threading.RLock()


class Entry:
    """A cached function: ``fn`` (a ``jax.jit`` object, or a plain function when ``jitted`` is False),
    ``n`` its executables when last counted, ``used`` set on every call (cleared by the sweep)."""

    __slots__ = ("fn", "n", "used", "key", "owner", "jitted", "tiers", "raw", "plain", "watch", "sigs", "pad",
                 "__weakref__")

    def __init__(self, fn, key, owner, jitted=True):
        self.fn, self.key, self.owner, self.jitted = fn, key, owner, jitted
        self.n = 0
        self.sigs = None  # the signatures of its compiled programs (recorded when they are compiled)
        self.used = True
        self.tiers = None
        self.raw = None  # the traceable function when ``fn`` carries compiler options (see traced_fallback)
        self.plain = None  # its jit without options, made on the first traced call
        self.watch = None  # _shape_churn.Watch while new shapes of a host-computable op run on the host
        self.pad = None  # _row_buckets.Rows while new row counts run a padded program

    def weight(self):
        return self.n + 1

    def __call__(self, *args):
        p = self.pad
        if p is not None:  # the row count keeps changing: a padded program's result, or None
            out = p.route(self, args)
            if out is not None:
                return out
        try:
            out = self.fn(*args)
        except Exception as err:
            out = traced_fallback(self, err)(*args)
        self.used = True
        if self.jitted and self.fn._cache_size() != self.n:
            counted(self, args)
        return out

    def _size(self):
        t = self.tiers
        if t is None:
            return self.fn._cache_size()
        return t.lo._cache_size() + t.hi._cache_size()

    def _route(self, *args):
        """A tiered function's call while it still sees new shapes: the shape's quick program for its
        first calls, then the fully optimized one."""
        t = self.tiers
        sig = _sig(args)
        c = t.counts.get(sig, 0)
        if c >= _Tier.after or not _top_level():  # traced (compile, transforms): jax allows
            # compiler_options only on a top-level jit; the outer program's options apply anyway
            fn = t.hi
            t.streak += 1
            if c == _Tier.after:  # the shape's first full call: promoted
                t.counts[sig] = c + 1
        else:
            if len(t.counts) >= 4096:  # shapes seen once each, forever: forget them, not the programs
                t.counts.clear()
            t.counts[sig] = c + 1
            fn = t.lo
            t.streak = 0
        out = fn(*args)
        self.used = True
        if self._size() != self.n:
            if fn is t.hi and c == _Tier.after:
                _Tier.promotions += 1
            counted(self)
        if t.streak >= t.settle_at:
            _settle(self)
        return out


class _Tiers:
    __slots__ = ("lo", "hi", "counts", "streak", "settle_at")

    def __init__(self, raw):
        import jax  # lazy: importing torchlike starts no JAX work
        self.lo = jax.jit(raw, compiler_options={"xla_backend_optimization_level": _Tier.level})
        self.hi = jax.jit(raw)  # XLA's defaults: tiering's full tier is full optimization
        self.counts = {}  # shape signature -> calls on the quick program (_Tier.after + 1: promoted)
        self.streak = 0  # consecutive calls on full programs
        self.settle_at = _Tier.settle


def _options():
    """The compiler options of eager programs: ``_Tier.options`` on the CPU backend, ``_Tier.gpu_options``
    on the GPU backend, none elsewhere (each was measured on its own compiler only).  XLA's compilers
    ignore the other backend's options, so a CPU tensor's program on a GPU machine compiles as before."""
    if not _Tier.options and not _Tier.gpu_options:
        return None
    import jax  # lazy: importing torchlike starts no JAX work
    backend = jax.default_backend()
    if backend == "cpu":
        return _Tier.options or None
    return (_Tier.gpu_options or None) if backend in ("gpu", "cuda", "rocm") else None


def traced_fallback(e, err):
    """The jit without compiler options of entry ``e``, for a call that failed with ``err`` while JAX
    traces (``torchlike.compile``, jax transforms: JAX accepts compiler options only on a top-level
    jit, and the outer program's options apply anyway); re-raises ``err`` for any other failure.
    Called only on a failure, so eager calls pay nothing for it."""
    if e.raw is None or _top_level():
        raise err
    p = e.plain
    if p is None:
        import jax  # lazy: importing torchlike starts no JAX work
        p = e.plain = jax.jit(e.raw)
    return p


def _top_level():
    """Whether JAX is not tracing (the call runs eagerly, not inside jit/vmap/grad)."""
    f = _TOP["fn"]
    if f is None:
        try:
            from jax._src import core  # lazy: importing torchlike starts no JAX work
            f = core.trace_ctx.is_top_level
        except (ImportError, AttributeError):  # pragma: no cover - another jax: never the quick tier
            f = bool
        _TOP["fn"] = f
    return f()


_TOP = {"fn": None}
top_level = _top_level


def _sig(args):
    """The shapes/dtypes of a call's arguments (nested tuples of arrays; scalars by type), as jit keys them."""
    out = []
    for a in args:
        t = type(a)
        if t is tuple or t is list:
            out.append(_sig(a))
            continue
        shape = getattr(a, "shape", None)
        out.append(t if shape is None else (shape, a.dtype, getattr(a, "weak_type", False)))
    return tuple(out)


signature = _sig


def _settle(e):
    """Every recent call ran a full program: call the full jit directly (the hot path's own check
    then sees a new shape), and release the quick programs."""
    t = e.tiers
    with _Budget.lock:
        t.lo.clear_cache()
        e.fn, e.jitted = t.hi, True
        e.n = t.hi._cache_size()
    t.streak = 0


def _demote(e, args):
    """A settled function compiled a new shape (at full optimization, already done): route again, the
    shape just compiled counted as promoted; the next settling waits twice as long."""
    t = e.tiers
    e.fn, e.jitted = e._route, False
    t.counts.clear()
    if args is not None:
        t.counts[_sig(args)] = _Tier.after + 1
    t.settle_at = min(t.settle_at * 2, 4096)
    _Tier.demotions += 1


def tier_of(e, *args):
    """``"quick"`` or ``"full"``: the tier of the program the latest call of entry ``e`` with
    arguments like ``args`` ran (a shape not seen yet: the tier its first call will compile;
    ``"full"`` for untiered entries)."""
    t = e.tiers
    if t is None or e.fn is t.hi:
        return "full"
    return "full" if t.counts.get(_sig(args), 0) > _Tier.after else "quick"


class Cache(dict):
    """One named cache (a dict key -> Entry) taking part in the global executable budget."""

    def __init__(self, name):
        super().__init__()
        self.name = name

    def add(self, key, fn, jitted=True):
        e = Entry(fn, key, self, jitted)
        return self._put(key, e)

    def add_tiered(self, key, raw):
        """Cache ``raw`` (a traceable function, not yet jitted) with tiered compilation: see the
        module docstring.  With tiering off it is one ``jax.jit(raw)``, as :meth:`add`."""
        import jax  # lazy: importing torchlike starts no JAX work
        if _Tier.after == 0:
            options = _options()
            if not options:
                return self.add(key, jax.jit(raw))
            e = Entry(jax.jit(raw, compiler_options=options), key, self)
            e.raw = raw
            return self._put(key, e)
        e = Entry(None, key, self, False)
        e.tiers = _Tiers(raw)
        e.fn = e._route
        return self._put(key, e)

    def _put(self, key, e):
        with _Budget.lock:
            self[key] = e
            _Budget.clock[e] = None
        _shrink()
        return e

    def discard(self, key):
        """Drop ``key``'s entry (its owner is gone) and release its executables."""
        e = self.get(key)
        if e is not None:
            with _Budget.lock:
                if e in _Budget.clock:
                    _evict(e)
                    _Budget.evictions -= 1
                else:
                    self.pop(key, None)


def counted(e, args=None):
    """Call after ``e.fn`` ran when its executable count may have grown (the miss path); ``args`` the
    call's arguments (a settled tiered entry notes the new shape as promoted)."""
    if e.tiers is not None and e.jitted:
        _demote(e, args)
    n = e._size()
    with _Budget.lock:
        if n > e.n:
            _Budget.compiled += n - e.n
            if args is not None:
                _note_compiled(e, args)
        if e not in _Budget.clock:  # evicted while its owner still holds it (a compiled program)
            _Budget.clock[e] = None
        grew = n > e.n
        e.n = n
    if grew and args is not None:
        for hook in on_compiled:
            hook(e, args)
    _shrink()


# Called as hook(entry, args) after ``entry`` compiled a program for the call ``args`` (the miss path only):
# _row_buckets notes the shapes of eager programs there (a lower layer's hook list, filled on import).
on_compiled: list = []


def call(e, *args):
    """Run a cached entry with the budget bookkeeping (for callers outside the dispatcher)."""
    try:
        out = e.fn(*args)
    except Exception as err:
        out = traced_fallback(e, err)(*args)
    e.used = True
    if e.jitted and e.fn._cache_size() != e.n:
        counted(e, args)
    return out


_GHOSTS = 4096  # evicted programs remembered for refault counting


def _note_compiled(e, args):
    """Record a compiled program's signature; one evicted before counts as a refault, and enough refaults grow
    the default limit (the workload needs more programs than it holds)."""
    try:
        g = (e.owner.name, e.key, _sig(args))
        hash(g)
    except TypeError:  # (an argument jit keys by something unhashable here: not tracked)
        return
    if e.sigs is None:
        e.sigs = []
    if len(e.sigs) < 64:
        e.sigs.append(g)
    if _Budget.ghosts.pop(g, False) is None:
        _Budget.refaults += 1
        _Budget.pending += 1
        if _Budget.adaptive and _Budget.limit < _Budget.cap and _Budget.pending >= max(16, _Budget.limit // 8):
            _Budget.limit = min(2 * _Budget.limit, _Budget.cap)
            _Budget.pending = 0


def _evict(e):
    if e.sigs:
        ghosts = _Budget.ghosts
        for g in e.sigs:
            ghosts[g] = None
        while len(ghosts) > _GHOSTS:
            ghosts.popitem(last=False)
        e.sigs = None
    _Budget.clock.pop(e, None)
    _Budget.total -= e.weight()
    _Budget.evictions += 1
    if e.owner.get(e.key) is e:
        del e.owner[e.key]
    t = e.tiers
    if t is not None:
        t.lo.clear_cache()
        t.hi.clear_cache()
        t.counts.clear()
        t.streak = 0
        if e.jitted:  # back to routing: its next call (a program still holding it) starts quick
            e.fn, e.jitted = e._route, False
    elif e.jitted:
        try:
            e.fn.clear_cache()  # release this function's executables (and JAX's tracing caches of it)
            if e.plain is not None:
                e.plain.clear_cache()
        except Exception:  # pragma: no cover - older jax without clear_cache
            pass
    e.n = 0


def _shrink():
    with _Budget.lock:
        clock = _Budget.clock
        # recounted (cheap next to the compile that led here): a finalizer that drops a dead program's
        # entry can run in the middle of an eviction, and a running count drifted from the entries' sum
        _Budget.total = sum(e.weight() for e in clock)
        if _Budget.total <= _Budget.limit:
            return
        guard = 2 * len(clock) + 1
        while _Budget.total > _Budget.limit and clock and guard:
            guard -= 1
            e = next(iter(clock))
            if e.used:
                e.used = False
                clock.move_to_end(e)
            else:
                _evict(e)
        while _Budget.total > _Budget.limit and clock:  # everything was in use: oldest first
            _evict(next(iter(clock)))
    _trim_heap()


_TRIM = {"fn": None, "last": 0.0}


def _trim_heap():
    """Hand the heap memory freed by evictions back to the OS (glibc keeps it otherwise: measured, RSS
    kept growing ~0.9 MB per new shape with the executables bounded); at most once a second."""
    now = _monotonic()
    if now - _TRIM["last"] < 1.0:
        return
    _TRIM["last"] = now
    fn = _TRIM["fn"]
    if fn is None:
        try:
            fn = ctypes.CDLL("libc.so.6").malloc_trim
        except (OSError, AttributeError):  # not glibc: nothing to do
            fn = False
        _TRIM["fn"] = fn
    if fn:
        fn(0)


def set_cache_size(n):
    """Bound the compiled programs torchlike keeps (executables over all its caches; ``None``: the
    default, 256, or ``TORCHLIKE_CACHE_SIZE``).  Least-recently-used programs are released first.  Only the
    default (``None`` without the environment setting) grows when programs keep being recompiled after their
    eviction (module docstring); a number given here is kept."""
    with _Budget.lock:
        _Budget.limit = _env_limit() if n is None else max(int(n), 1)
        _Budget.adaptive = n is None and "TORCHLIKE_CACHE_SIZE" not in os.environ
        _Budget.pending = 0
    _shrink()


def cache_info():
    """``{"limit", "programs", "functions", "evictions", "refaults", "quick", "promotions", "compiled"}`` of
    torchlike's compiled-program caches (``refaults``: programs compiled again after their eviction;
    ``quick``: executables compiled at the quick tier and still held; ``promotions``: shapes recompiled at full
    optimization; ``compiled``: executables compiled so far, a count that never decreases)."""
    with _Budget.lock:
        return {"limit": _Budget.limit, "programs": sum(e.n for e in _Budget.clock),
                "functions": len(_Budget.clock), "evictions": _Budget.evictions, "refaults": _Budget.refaults,
                "quick": sum(e.tiers.lo._cache_size() for e in _Budget.clock if e.tiers is not None),
                "promotions": _Tier.promotions, "compiled": _Budget.compiled}


def set_tiered_compile(after, level=None):
    """Tiered compilation of eager per-op programs: a new shape first runs a quickly compiled program
    and is recompiled at full optimization when called more than ``after`` times (default 0 = off, or
    ``TORCHLIKE_TIERED_COMPILE``; ``None``: that default; ``0``: no quick tier, every program compiled
    at full optimization).  ``level`` is the quick tier's XLA backend optimization level: 1 (default,
    or ``TORCHLIKE_TIERED_COMPILE_LEVEL``; results bit-identical to the full tier's as measured) or 0
    (cheaper still, but may round differently in the last bit).  Applies to functions cached from now
    on (``clear_caches()`` applies it to all).

    >>> import torchlike
    >>> torchlike.set_tiered_compile(0)  # every eager program at full optimization
    >>> torchlike.set_tiered_compile(None)  # back to the defaults
    """
    _Tier.after = _env_tier() if after is None else max(int(after), 0)
    _Tier.level = _env_level() if level is None else (0 if int(level) == 0 else 1)


def set_eager_compile_options(options=None):
    """The XLA compiler options of eager per-op programs, pullbacks and fused backwards on the CPU
    backend (with tiering off): ``"quick"`` (LLVM at -O1 and XLA's classic loop emitters: about half the
    compile time of a new shape's programs, for workloads of one-off shapes; some medium-sized programs
    run slower, and float reductions and a few transcendental functions can differ in the last bit),
    ``{}`` XLA's defaults (the default, unless ``TORCHLIKE_EAGER_COMPILE_OPTIONS=1`` selects "quick"),
    a dict sets them, ``None`` restores the default.  Applies to functions cached from now on
    (``clear_caches()`` applies it to all).

    >>> import torchlike
    >>> torchlike.set_eager_compile_options("quick")  # new shapes compile faster
    >>> torchlike.set_eager_compile_options(None)  # back to the default
    """
    if options is None:
        _Tier.options = _env_options()
    elif isinstance(options, str):
        if options != "quick":
            raise ValueError(f"set_eager_compile_options: expected 'quick', a dict or None, got {options!r}")
        _Tier.options = dict(_EAGER_OPTIONS)
    else:
        _Tier.options = dict(options)


def clear_caches():
    """Release every compiled program torchlike holds (they are recompiled on demand)."""
    with _Budget.lock:
        for e in list(_Budget.clock):
            _evict(e)


# ---- the persistent compilation cache -------------------------------------------------------------
def _persistent_dir():
    v = os.environ.get("TORCHLIKE_COMPILATION_CACHE", "")
    if v.lower() in ("0", "off", "false", "no", "none"):
        return None
    if v and v.lower() not in ("1", "on", "true", "yes"):
        return v
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "torchlike", "xla")


def _min_secs():
    try:
        return max(float(os.environ.get("TORCHLIKE_COMPILATION_CACHE_MIN_SECS", "0")), 0.0)
    except ValueError:
        return 0.0


def setup_persistent_cache():
    """Turn on JAX's on-disk compilation cache (so a script's second run starts warm) unless the user
    opted out (``TORCHLIKE_COMPILATION_CACHE=0``) or configured JAX's cache themselves.  The directory
    is per user (``~/.cache/torchlike/xla``, or ``TORCHLIKE_COMPILATION_CACHE=/path``) and bounded by
    ``TORCHLIKE_COMPILATION_CACHE_MB`` (default 512) each time torchlike starts, least-recently-used
    entries deleted first.  Every compiled program is written (``TORCHLIKE_COMPILATION_CACHE_MIN_SECS=s``: only
    those whose compilation took at least ``s`` seconds)."""
    import jax
    path = _persistent_dir()
    if path is None or os.environ.get("JAX_COMPILATION_CACHE_DIR") or jax.config.jax_compilation_cache_dir:
        return None
    try:
        mb = int(os.environ.get("TORCHLIKE_COMPILATION_CACHE_MB", "512"))
    except ValueError:
        mb = 512
    try:
        os.makedirs(path, exist_ok=True)
        jax.config.update("jax_compilation_cache_dir", path)
        # every program, the per-op ones too (TORCHLIKE_COMPILATION_CACHE_MIN_SECS: only those compiling longer):
        # a script's second run reads its ~700 small programs (~5 KB each) back instead of compiling them
        # (stable-baselines3's program: 33 s, then 12 s).  (With JAX's size-bounded cache, writing them all had
        # made the OpInfo conformance run ~3x slower: its eviction scanned the directory on each put.)
        jax.config.update("jax_persistent_cache_min_compile_time_secs", _min_secs())
        jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
        # no size bound inside JAX: its bounded cache takes a cross-process file lock on every lookup,
        # i.e. on every compilation, and with a few processes sharing the directory (DataLoader
        # workers, parallel jobs) compilations waited on that lock for seconds (a 12-shape MLP loop:
        # 102-178 s instead of 24-28 s).  The bound is kept here instead, when torchlike starts.
        jax.config.update("jax_compilation_cache_max_size", -1)
    except Exception:  # a read-only home, an older jax: run without the disk cache
        return None
    _prune(path, mb * 2**20)
    # the cache is an optimisation: a busy lock (several processes at once) or an unreadable entry only
    # means a recompilation, which JAX reports as a UserWarning a torch user should not see
    import warnings
    warnings.filterwarnings("ignore", message=r"Error (reading|writing) persistent compilation cache entry")
    return path


def _prune(path, limit):
    """Delete the least recently used entries of the on-disk cache until it holds at most ``limit``
    bytes (entries another process deletes or writes meanwhile are skipped).  The directory scan runs
    at most once an hour (a marker file's time), not at every start."""
    import time
    marker = os.path.join(path, ".pruned")
    try:
        if time.time() - os.stat(marker).st_mtime < 3600:
            return
    except OSError:
        pass
    try:
        with open(marker, "w"):
            pass
    except OSError:
        return
    try:
        entries = []
        total = 0
        with os.scandir(path) as it:
            for d in it:
                if d.name.startswith("."):
                    continue
                try:
                    st = d.stat()
                except OSError:
                    continue
                entries.append((max(st.st_atime, st.st_mtime), st.st_size, d.path))
                total += st.st_size
        if total <= limit:
            return
        entries.sort()
        for _, size, p in entries:
            if total <= limit:
                break
            try:
                os.unlink(p)
            except OSError:
                continue
            total -= size
    except OSError:
        pass
