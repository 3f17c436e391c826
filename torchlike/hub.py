"""torchlike.hub: torch.hub's cache directory, checkpoint download/caching and local ``hubconf.py`` loading.

Libraries built on torch (torchvision, timm) reach for ``torch.hub`` to find the cache directory and to
fetch pretrained checkpoints. The cache layout and environment variables (``TORCH_HOME``,
``XDG_CACHE_HOME``) are torch's, so a checkpoint torch has cached is found here too. Fetching a repository
from GitHub (``source="github"``) is not supported; ``source="local"`` is.

>>> import os, tempfile, torchlike
>>> d = tempfile.mkdtemp()
>>> torchlike.save({"w": torchlike.ones(2)}, os.path.join(d, "ckpt.pt"))
>>> torchlike.hub.load_state_dict_from_url("file://" + os.path.join(d, "ckpt.pt"), model_dir=d)["w"]
tensor([1., 1.])
"""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import sys
import tempfile
from urllib.parse import urlparse  # noqa: F401 - torch.hub exports it (torchvision imports it from here)
from . import serialization
from .serialization import MAP_LOCATION  # noqa: F401 - torch.hub names it

try:
    from tqdm import tqdm  # noqa: F401 - torch.hub (and torch.utils.model_zoo) export it
except ImportError:
    class tqdm:  # noqa: N801 - torch.hub's stand-in when tqdm is not installed
        """A progress bar that shows nothing (tqdm is not installed)."""

        def __init__(self, total=None, disable=False, unit=None, unit_scale=None, unit_divisor=None):
            self.total, self.n = total, 0

        def update(self, n):
            self.n += n

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

__all__ = ["download_url_to_file", "get_dir", "help", "list", "load", "load_state_dict_from_url", "set_dir"]

HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")
_hub_dir = None


def _get_torch_home():
    return os.path.expanduser(os.getenv("TORCH_HOME", os.path.join(os.getenv("XDG_CACHE_HOME", "~/.cache"),
                                                                   "torch")))


def get_dir() -> str:
    """The hub cache directory: ``set_dir``'s, else ``$TORCH_HOME/hub`` (``~/.cache/torch/hub``)."""
    if os.getenv("TORCH_HUB"):
        import warnings
        warnings.warn("TORCH_HUB is deprecated, please use env TORCH_HOME instead", stacklevel=2)
    if _hub_dir is not None:
        return _hub_dir
    return os.path.join(_get_torch_home(), "hub")


def set_dir(d) -> None:
    """Use ``d`` as the hub cache directory."""
    global _hub_dir
    _hub_dir = os.path.expanduser(d)


def download_url_to_file(url: str, dst: str, hash_prefix: str | None = None, progress: bool = True) -> None:
    """Download ``url`` to ``dst`` (through a temporary file); check the SHA256 prefix when given."""
    from urllib.request import Request, urlopen
    dst = os.path.expanduser(dst)
    tmp = tempfile.NamedTemporaryFile(delete=False, dir=os.path.dirname(dst) or ".")
    try:
        sha = hashlib.sha256() if hash_prefix is not None else None
        with urlopen(Request(url, headers={"User-Agent": "torch.hub"})) as u:
            while True:
                buf = u.read(1 << 16)
                if not buf:
                    break
                tmp.write(buf)
                if sha is not None:
                    sha.update(buf)
        tmp.close()
        if sha is not None:
            digest = sha.hexdigest()
            if digest[:len(hash_prefix)] != hash_prefix:
                raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got "{digest}")')
        shutil.move(tmp.name, dst)
    finally:
        tmp.close()
        if os.path.exists(tmp.name):
            os.remove(tmp.name)


def load_state_dict_from_url(url: str, model_dir: str | None = None, map_location=None, progress: bool = True,
                             check_hash: bool = False, file_name: str | None = None, weights_only: bool = False):
    """Load the checkpoint at ``url``, downloading it into ``<hub dir>/checkpoints`` unless it is cached."""
    if model_dir is None:
        model_dir = os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    filename = file_name or os.path.basename(urlparse(url).path)
    cached_file = os.path.join(model_dir, filename)
    if not os.path.exists(cached_file):
        sys.stderr.write(f'Downloading: "{url}" to {cached_file}\n')
        hash_prefix = None
        if check_hash:
            r = HASH_REGEX.search(filename)
            hash_prefix = r.group(1) if r else None
        download_url_to_file(url, cached_file, hash_prefix, progress=progress)
    return serialization.load(cached_file, map_location=map_location, weights_only=weights_only)


def _github_unsupported(what):
    raise NotImplementedError(f"torch.hub.{what} with a GitHub repository is not supported by torchlike (it does "
                              "not fetch repositories); use source='local'. See docs/differences.md")


def _load_local(hubconf_dir, model, *args, **kwargs):
    import importlib.util
    path = os.path.join(hubconf_dir, "hubconf.py")
    sys.path.insert(0, hubconf_dir)
    try:
        spec = importlib.util.spec_from_file_location("hubconf", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    finally:
        sys.path.remove(hubconf_dir)
    entry = getattr(mod, model, None)
    if entry is None or not callable(entry):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return entry(*args, **kwargs)


def load(repo_or_dir, model, *args, source="github", trust_repo="check", force_reload=False, verbose=True,
         skip_validation=False, **kwargs):
    """Call entrypoint ``model`` of the ``hubconf.py`` in directory ``repo_or_dir`` (``source="local"``)."""
    source = source.lower()
    if source not in ("github", "local"):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    if source == "github":
        _github_unsupported("load")
    return _load_local(repo_or_dir, model, *args, **kwargs)


def list(github, force_reload=False, skip_validation=False, trust_repo="check", verbose=True):  # noqa: A001
    """Not supported: it fetches a GitHub repository."""
    _github_unsupported("list")


def help(github, model, force_reload=False, skip_validation=False, trust_repo="check"):  # noqa: A001
    """Not supported: it fetches a GitHub repository."""
    _github_unsupported("help")
