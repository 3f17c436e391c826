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
