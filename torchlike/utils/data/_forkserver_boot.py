"""Run (as a script) by the DataLoader workers' fork server before it serves: import torchlike without
starting a JAX backend, so that forking the server stays safe and workers start with torchlike loaded.

Importing torchlike computes nothing on a JAX backend (``default_generator``'s key is built on the host),
so the server checks that no backend started. Each forked
child then reseeds numpy's global state and ``default_generator`` from the OS (as a freshly spawned
process would have) before it does anything else. The result ("ok" or why not) is written to the file
named by ``TORCHLIKE_FORKSERVER_STATUS``; the main process uses the server only after reading "ok".
"""
import json
import os
import sys


def _reseed_child():
    import numpy as np
    import torchlike  # lazy: a script the server runs before it forks; importing torchlike is its job
    np.random.seed()
    torchlike.default_generator.seed()


def _boot():
    for entry in json.loads(os.environ.get("TORCHLIKE_FORKSERVER_SYS_PATH", "[]")):
        if entry not in sys.path:
            sys.path.append(entry)
    from jax._src import xla_bridge
    try:
        import torchlike  # noqa: F401  # lazy: importing torchlike (no backend starts) is the server's job
    except Exception as e:
        return f"importing torchlike failed: {type(e).__name__}: {e}"
    if xla_bridge._backends:
        return "importing torchlike started a JAX backend"
    os.register_at_fork(after_in_child=_reseed_child)
    return "ok"


def _report(status):
    path = os.environ.get("TORCHLIKE_FORKSERVER_STATUS")
    if path:
        with open(path + ".tmp", "w") as f:
            f.write(status)
        os.replace(path + ".tmp", path)


if __name__ == "__torchlike_forkserver_boot__":  # run by the server (runpy); importing it does nothing
    _status = _boot()
    _report(_status)
    if _status != "ok":
        os._exit(1)  # a server that may have started a backend must not fork; the main process spawns instead
