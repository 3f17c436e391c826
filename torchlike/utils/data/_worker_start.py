"""How DataLoader workers are started: from a private fork server that has already imported torchlike.

Each worker is still a fresh process per epoch (``persistent_workers=False``), exactly as with ``spawn``:
it imports the main module as ``__mp_main__``, unpickles its own copy of the dataset, and its module
state starts clean. What changes is where the process comes from: instead of a bare interpreter that
must import numpy, JAX and torchlike (nearly all of a worker's start-up), it is forked from a server
process that imported them once and never started a JAX backend (``_forkserver_boot.py``), so forking it
is safe (JAX's own fork check only objects once a backend exists); each child reseeds numpy and
torchlike's default generator from the OS, as a fresh process would be. The server runs with
``JAX_PLATFORMS=cpu`` like every worker.

A forked child would inherit the server's environment; instead each child first takes the main
process's current ``os.environ`` (before it imports the main module, as a spawned child would). Variables
read when the preloaded modules were imported or the interpreter started (``_STARTUP_PREFIXES``: JAX_*,
XLA_*, PYTHON*, thread-count variables...) cannot be replayed, so the server is only used while those are
what they were when it started; otherwise, and where the start method is unavailable, workers are
spawned as before.
"""
from __future__ import annotations

import atexit
import io
import json
import multiprocessing
import os
import shutil
import sys
import tempfile
import time
from multiprocessing import context as _context, forkserver as _forkserver
from multiprocessing import spawn as _spawn, util as _util

try:  # absent where file descriptors cannot be sent between processes (Windows): workers are spawned
    from multiprocessing import popen_forkserver as _popen_fs
except ImportError:
    _popen_fs = None

__all__ = []

# what every worker's environment carries (workers make host data; see dataloader._start_on_cpu)
WORKER_ENV = {"JAX_PLATFORMS": "cpu", "XLA_PYTHON_CLIENT_PREALLOCATE": "false"}
# environment variables consumed at interpreter start or while the server imports _PRELOAD
_STARTUP_PREFIXES = ("JAX_", "XLA_", "TF_", "PYTHON", "TORCHLIKE", "TORCH_", "LD_", "OMP_", "MKL_", "OPENBLAS_", "NUMPY_", "CUDA_",
                     "TPU_", "GOTO_", "BLIS_", "VECLIB_", "NUMEXPR_")


def _startup_env():
    return {k: v for k, v in os.environ.items() if k.startswith(_STARTUP_PREFIXES)}


class _RunBootScript(list):
    """The server's preload list. multiprocessing writes it into the server's command line with ``repr``
    (``main(fd, fd, <preload>, ...)``); this one's repr runs ``_forkserver_boot.py`` first (by path, so
    torchlike's package is imported by the script itself, under its patch) and then preloads nothing."""

    def __repr__(self):
        boot = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_forkserver_boot.py")
        return f"(__import__('runpy').run_path({boot!r}, run_name='__torchlike_forkserver_boot__'), [])[1]"


class _Server(_forkserver.ForkServer):
    def __init__(self):
        super().__init__()
        self.set_forkserver_preload(_RunBootScript(["_forkserver_boot.py"]))
        self.env = None  # the startup variables the running server was started with
        self.status = None  # "ok" once the boot script imported torchlike without a JAX backend
        self.status_path = None

    def start(self):
        """Start the server. It imports torchlike in the background while the caller goes on."""
        folder = tempfile.mkdtemp(prefix="torchlike-forkserver-")
        atexit.register(shutil.rmtree, folder, True)
        self.status_path = os.path.join(folder, "status")
        extra = {"TORCHLIKE_FORKSERVER_SYS_PATH": json.dumps([p for p in sys.path if isinstance(p, str)]),
                 "TORCHLIKE_FORKSERVER_STATUS": self.status_path}
        with _WorkerEnv():
            env = _startup_env()
        with _WorkerEnv(extra):
            self.ensure_running()
        self.env = env

    def ready(self, wait=300.0):
        """Whether the server booted fine (waits for its report)."""
        deadline = time.monotonic() + wait
        while self.status is None:
            try:
                with open(self.status_path) as f:
                    self.status = f.read()
            except OSError:
                if time.monotonic() > deadline:
                    self.status = "no report"
                elif self._exited():
                    self.status = _read(self.status_path) or "exited without a report"
                else:
                    time.sleep(0.005)
        return self.status == "ok"

    def _exited(self):
        try:
            return os.waitpid(self._forkserver_pid, os.WNOHANG)[0] != 0
        except ChildProcessError:
            return True


def _read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


_SERVER = _Server()


class _WorkerEnv:
    """``os.environ`` with the worker overrides (and ``extra``) applied, for a ``with`` block."""

    def __init__(self, extra=None):
        self.values = {**WORKER_ENV, **(extra or {})}

    def __enter__(self):
        self.saved = {k: os.environ.get(k) for k in self.values}
        os.environ.update(self.values)

    def __exit__(self, *exc):
        for k, v in self.saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


class _Environ:
    """Unpickled first in the child: replaces the inherited (server's) environment with ``env``."""

    def __init__(self, env):
        self.env = env

    def __reduce__(self):
        # a builtin, so unpickling imports nothing (sys.path is not even set up yet)
        return (exec, ("import os\nos.environ.clear()\nos.environ.update(E)", {"E": self.env}))


class _Popen(_popen_fs.Popen if _popen_fs is not None else object):
    """multiprocessing's forkserver Popen, asking our server instead of the module-wide one."""

    def _launch(self, process_obj):
        prep_data = {"torchlike_environ": _Environ(dict(os.environ))}  # unpickled first: dict order
        prep_data.update(_spawn.get_preparation_data(process_obj._name))
        buf = io.BytesIO()
        _context.set_spawning_popen(self)
        try:
            _context.reduction.dump(prep_data, buf)
            _context.reduction.dump(process_obj, buf)
        finally:
            _context.set_spawning_popen(None)
        self.sentinel, w = _SERVER.connect_to_new_process(self._fds)
        parent_w = os.dup(w)  # the child's sentinel of this process, as in the standard library
        self.finalizer = _util.Finalize(self, _util.close_fds, (parent_w, self.sentinel))
        with open(w, "wb", closefd=True) as f:
            f.write(buf.getbuffer())
        self.pid = _forkserver.read_signed(self.sentinel)


class _Process(_context.ForkServerProcess):
    @staticmethod
    def _Popen(process_obj):
        return _Popen(process_obj)


class _Context(_context.ForkServerContext):
    Process = _Process


_CONTEXT = _Context()


def _available():
    return _popen_fs is not None and _context.reduction.HAVE_SEND_HANDLE and "forkserver" in multiprocessing.get_all_start_methods()


def warm_up():
    """Start the server early (a DataLoader with workers calls this when it is built)."""
    if _available() and _SERVER.env is None:
        try:
            _SERVER.start()
        except Exception:
            pass


def default_context():
    """The context that starts this epoch's workers: the fork server while the environment still matches
    the one it started with, else ``spawn``."""
    if _available():
        with _WorkerEnv():
            env = _startup_env()
        if _SERVER.env is None:
            warm_up()
        if _SERVER.env == env and _SERVER.ready():
            return _CONTEXT
    return multiprocessing.get_context("spawn")
