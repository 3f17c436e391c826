"""The op table vs the harness's inputs (``python -m conformance.table``): every entry of torchlike's op table
(``torchlike._ops.registry.TABLE``, keyed by (namespace, name)) should be exercised by an OpInfo of torch's
``op_db`` (its name or one of its aliases) or by a sample of the harness's own (``OWN_SAMPLES``).  The
entries that are neither are listed here and in REPORT.md's "Op table entries without samples".

    python -m conformance.table          # the uncovered entries, one per line
"""
from __future__ import annotations

import sys
import warnings

__all__ = ["OWN_SAMPLES", "opinfo_names", "table_keys", "uncovered", "main"]

# Table entries the harness exercises with its own samples: (namespace, name) -> a function of the torch
# module (torch or torchlike) returning (fn, args) with the same call in both.
OWN_SAMPLES = {
    ("torch", "is_nonzero"): lambda t: (t.is_nonzero, (t.tensor([1.5]),)),
    ("torch", "trace"): lambda t: (t.trace, (t.arange(9.0).reshape(3, 3),)),
    ("special", "softmax"): lambda t: (t.special.softmax, (t.tensor([1.0, 2.0, 3.0]), 0)),
    ("special", "log_softmax"): lambda t: (t.special.log_softmax, (t.tensor([1.0, 2.0, 3.0]), 0)),
    ("torch", "vander"): lambda t: (t.vander, (t.tensor([1.0, 2.0, 3.0]), 4)),  # op_db has only linalg.vander
    ("torch", "is_same_size"): lambda t: (t.is_same_size, (t.ones(2, 3), t.zeros(2, 3))),
    ("torch", "is_distributed"): lambda t: (t.is_distributed, (t.ones(2),)),
    ("torch", "is_inference"): lambda t: (t.is_inference, (t.ones(2),)),
    ("Tensor", "is_set_to"): lambda t: (t.Tensor.is_set_to, (t.ones(2), t.ones(2))),
}

_NAMESPACES = ("linalg", "special", "fft")


def _keys_for(name):
    """The table keys an OpInfo / alias name stands for: ``linalg.svd`` -> ('linalg', 'svd'),
    ``nn.functional.relu`` -> ('nn.functional', 'relu'); a plain name
    is the torch function or, for a method-only entry, the Tensor method."""
    if name.startswith("nn.functional."):
        return [("nn.functional", name[len("nn.functional."):])]
    head, _, tail = name.partition(".")
    if tail and head in _NAMESPACES:
        return [(head, tail)]
    return [("torch", name), ("Tensor", name)]


def opinfo_names(op_db=None):
    """Every name torch's op_db exercises: each OpInfo's name and its aliases' names."""
    if op_db is None:
        warnings.filterwarnings("ignore")
        from torch.testing._internal.common_methods_invocations import op_db
    names = set()
    for op in op_db:
        names.add(op.name)
        for a in getattr(op, "aliases", ()) or ():
            names.add(getattr(a, "name", a))
    return names


def table_keys():
    from torchlike._ops.registry import TABLE
    return sorted(TABLE)


def uncovered(names=None, keys=None, own=OWN_SAMPLES):
    """Table keys with no OpInfo (by name or alias) and no own sample, sorted."""
    names = opinfo_names() if names is None else names
    from torchlike._ops.registry import _CLAIMS
    # a surface covers the entry declaring it (F.hardshrink's OpInfo covers the entry keyed torch.hardshrink)
    covered = {_CLAIMS.get(k, k) for n in names for k in _keys_for(n)} | set(own)
    return [k for k in (table_keys() if keys is None else keys) if tuple(k) not in covered]


def markdown_section(missing):
    """REPORT.md's section for the uncovered entries."""
    lines = ["## Op table entries without samples\n",
             f"{len(missing)} entries of torchlike's op table have no OpInfo in torch's op_db (by name or alias) "
             "and no sample in `conformance/table.py` (`OWN_SAMPLES`), so this run never calls them:\n"]
    by_ns = {}
    for ns, name in missing:
        by_ns.setdefault(ns, []).append(name)
    for ns, ns_names in sorted(by_ns.items()):
        lines.append(f"- `{ns}` ({len(ns_names)}): " + ", ".join(f"`{n}`" for n in ns_names))
    return "\n".join(lines) + "\n"


def run_own_samples(own=OWN_SAMPLES):
    """Run each own sample through torch and torchlike: {(ns, name): "pass" or the mismatch}."""
    import numpy as np
    import torch

    import torchlike
    out = {}
    for key, make in own.items():
        results = []
        for lib in (torch, torchlike):
            fn, args = make(lib)
            try:
                r = fn(*args)
                results.append(("ok", str(r.dtype), np.asarray(r.tolist()).tolist()) if hasattr(r, "dtype")
                               else ("ok", r))
            except Exception as e:  # noqa: BLE001 - compared: type and message
                results.append((type(e).__name__, str(e)))
        a, b = results
        same = a[0] == b[0] and (a[1:] == b[1:] if a[0] != "ok" else
                                 a[1:2] == b[1:2] and np.allclose(a[-1], b[-1], equal_nan=True))
        out[key] = "pass" if same else f"torch {a!r:.200} vs torchlike {b!r:.200}"
    return out


def main(argv=None):
    for (ns, name), res in run_own_samples().items():
        print(f"own sample {ns}.{name}: {res}")
    missing = uncovered()
    for ns, name in missing:
        print(f"{ns}.{name}")
    print(f"{len(missing)} of {len(table_keys())} table entries have no OpInfo and no own sample")
    return 0


if __name__ == "__main__":
    sys.exit(main())
