"""The on-disk compilation cache's bound (torchlike/_jit_cache.py): JAX's own bounded cache locks a
file on every compilation, so torchlike bounds the directory itself, least recently used first."""
import os

import jax

import torchlike  # noqa: F401  (sets the cache up)
from torchlike import _jit_cache


def test_prune_deletes_least_recently_used_entries_down_to_the_bound(tmp_path):
    for k, name in enumerate(["old-cache", "mid-cache", "new-cache"]):
        p = tmp_path / name
        p.write_bytes(b"x" * 100)
        os.utime(p, (1000 + k, 1000 + k))
    _jit_cache._prune(str(tmp_path), 250)
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(".")) == ["mid-cache", "new-cache"]
    (tmp_path / "big-cache").write_bytes(b"x" * 1000)
    _jit_cache._prune(str(tmp_path), 250)  # within the hour: no second scan
    assert (tmp_path / "big-cache").exists()


def test_jax_cache_runs_without_its_per_lookup_file_lock():
    if jax.config.jax_compilation_cache_dir and _jit_cache._persistent_dir() is not None:
        assert jax.config.jax_compilation_cache_max_size == -1


_CHILD = """
import collections, jax
events = collections.Counter()
jax.monitoring.register_event_listener(lambda name, **kw: events.update([name]))
import torchlike
x = torchlike.randn(37, 5)
(x @ x.T).softmax(1).sum().item()
print(events["/jax/compilation_cache/cache_hits"], events["/jax/compilation_cache/cache_misses"])
"""


def test_a_second_run_reads_the_per_op_programs_back(tmp_path):
    """Every program is written to the disk cache, the per-op ones too: a script's second run compiles none of
    them again (stable-baselines3's test program: 33 s, then 12 s)."""
    import subprocess
    import sys
    env = dict(os.environ, TORCHLIKE_COMPILATION_CACHE=str(tmp_path / "xla"))
    env.pop("TORCHLIKE_COMPILATION_CACHE_MIN_SECS", None)
    env.pop("JAX_COMPILATION_CACHE_DIR", None)
    runs = [subprocess.run([sys.executable, "-c", _CHILD], capture_output=True, text=True, env=env, timeout=300)
            for _ in range(2)]
    (hits1, misses1), (hits2, misses2) = [tuple(int(v) for v in r.stdout.split()) for r in runs]
    assert hits1 == 0 and misses1 >= 3, runs[0].stdout + runs[0].stderr
    assert (hits2, misses2) == (misses1, 0), runs[1].stdout + runs[1].stderr
