"""Under the drop-in runner, ``import torch.<anything>`` succeeds or fails as it does with torch.

Real torch's package tree is walked (``pkgutil.walk_packages``); each module is imported under torch and under
``python -m torchlike run``: where torch imports it the runner must too (torchlike's module, or a stub whose
attributes raise NotImplementedError), and where the runner raises, the exception type is torch's. Names torch
does not have (``torch.nn.nope``, ``from torch.nn import nope``, a torchlike-only module such as ``torch.demo``)
must fail with torch's exception type and message. Each module imported on both sides has torch's ``__name__``,
``repr`` (less the path) and AttributeError text for a missing attribute. The totals are printed.
"""
import json
import os
import subprocess
import sys

import torch  # noqa: F401  (the oracle whose tree is walked)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# torch modules whose __name__ differs under the runner, and why
SAME_MODULE = {
    "torch.quantization.": "torchlike.quantization.X is torchlike.ao.quantization.X (torch keeps a deprecated copy "
                           "named torch.quantization.X)",
}

# not walked, and why
SKIPPED = {
    "torch.testing._internal": "torch's own test suite (test-only: needs hypothesis/expecttest, spawns processes)",
    "__main__": "a package's __main__ runs a program when imported (torch.utils.model_dump.__main__ starts a server)",
}

_PROBE = r'''
import importlib, json, pkgutil, sys, warnings
warnings.simplefilter("ignore")
import torch
job = json.load(open(sys.argv[1]))


def outcome(stmt):
    try:
        exec(stmt, {})
        return ["ok", ""]
    except BaseException as e:  # what the user's except clause would see
        return [type(e).__name__, str(e).split(" (")[0]]


if job["walk"]:  # real torch: the names to try
    skip = tuple(job["skip"])
    names = ["torch"] + [m.name for m in pkgutil.walk_packages(torch.__path__, "torch.", onerror=lambda n: None)
                         if not (m.name.startswith(skip) or m.name.endswith(".__main__"))]
    job["modules"] = names
out = {"modules": {n: outcome(f"import {n}") for n in job["modules"]}}
# what a user sees of each module imported: its name, repr (less the path) and a missing attribute's error
out["seen"] = {}
for n, (kind, _) in out["modules"].items():
    m = sys.modules.get(n)
    if kind == "ok" and m is not None:
        try:
            getattr(m, "no_such_attr_h3")
            err = ["", ""]
        except Exception as e:
            err = [type(e).__name__, str(e)]
        out["seen"][n] = [m.__name__, repr(m).split(" from ")[0].split(" (")[0].rstrip(">")] + err
packages = job.get("packages") or [n for n in job["modules"]
                                   if hasattr(sys.modules.get(n), "__path__")]
out["packages"] = packages
out["missing"] = {}
for p in packages:
    out["missing"][f"import {p}.no_such_module_h3"] = outcome(f"import {p}.no_such_module_h3")
    out["missing"][f"from {p} import no_such_name_h3"] = outcome(f"from {p} import no_such_name_h3")
for n in job["foreign"]:
    out["missing"][f"import {n}"] = outcome(f"import {n}")
out["names"] = job["modules"]
json.dump(out, open(sys.argv[2], "w"))
'''


def _torchlike_only_names():
    """torch names of torchlike's own modules torch does not have (``torch.demo``, ``torch.nn._loader``)."""
    pkg = os.path.join(ROOT, "torchlike")
    out = []
    for d, dirs, files in os.walk(pkg):
        if "__init__.py" not in files:
            dirs[:] = []
            continue
        dirs[:] = [x for x in dirs if x != "__pycache__"]
        rel = "torch" if d == pkg else "torch." + os.path.relpath(d, pkg).replace(os.sep, ".")
        out += [rel] + [f"{rel}.{f[:-3]}" for f in files if f.endswith(".py") and f != "__init__.py"]
    return sorted(set(out))


def _probe(tmp_path, job, runner):
    script, jin, jout = tmp_path / "probe.py", tmp_path / f"job{runner}.json", tmp_path / f"out{runner}.json"
    script.write_text(_PROBE)
    jin.write_text(json.dumps(job))
    cmd = [sys.executable] + (["-m", "torchlike", "run"] if runner else []) + [str(script), str(jin), str(jout)]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=1200, cwd=str(tmp_path),
                         env=dict(os.environ, PYTHONPATH=ROOT))
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(jout.read_text())


def test_every_torch_module_name_imports_or_fails_like_torch(tmp_path):
    foreign = _torchlike_only_names()
    theirs = _probe(tmp_path, {"walk": True, "skip": [k for k in SKIPPED if k.startswith("torch")],
                               "foreign": foreign}, runner=False)
    # torchlike's modules torch does not have: under torch the import fails
    foreign = [n for n in foreign if f"import {n}" in theirs["missing"]
               and theirs["missing"][f"import {n}"][0] == "ModuleNotFoundError"]
    ours = _probe(tmp_path, {"walk": False, "modules": theirs["names"], "packages": theirs["packages"],
                             "foreign": foreign}, runner=True)
    counts = {"torch imports": 0, "torch fails": 0, "stub where torch fails": 0}
    bad = []
    for name, (t_type, _) in theirs["modules"].items():
        o_type, o_msg = ours["modules"][name]
        counts["torch imports" if t_type == "ok" else "torch fails"] += 1
        if o_type == "ok" and t_type != "ok":
            counts["stub where torch fails"] += 1  # (a missing optional dependency of torch's, e.g. cutlass)
        elif o_type != t_type:
            bad.append(f"import {name}: torch {t_type}, runner {o_type}: {o_msg}")
    stubs = 0
    for name, t in theirs["seen"].items():
        o = ours["seen"].get(name)
        if o is None:
            continue
        if o[2] == "NotImplementedError" and t[2] == "AttributeError" and "not implemented in torchlike" in o[3]:
            stubs += 1  # torch's module, which torchlike lacks (or the top-level torch): docs/differences.md
        elif o != t and not (name.startswith(tuple(SAME_MODULE)) and o[2:] == [t[2], t[3].replace(t[0], o[0])]):
            bad.append(f"{name}: torch's __name__, repr, error {t}, the runner's {o}")
    for stmt, t in theirs["missing"].items():
        if stmt in ours["missing"] and ours["missing"][stmt] != t:
            bad.append(f"{stmt}: torch {t}, runner {ours['missing'][stmt]}")
    n_missing = sum(1 for s in theirs["missing"] if s in ours["missing"])
    print(f"\nrunner imports: {len(theirs['modules'])} torch module names walked ({counts['torch imports']} import "
          f"under torch, {counts['torch fails']} fail there, {counts['stub where torch fails']} of those a stub "
          f"under the runner); {n_missing} names torch lacks ({len(theirs['packages'])} packages x 2, "
          f"{len(foreign)} torchlike-only modules); {len(ours['seen'])} modules' __name__, repr and missing-attribute "
          f"error compared ({stubs} a NotImplementedError: stubs and the top-level torch); {len(bad)} differences; "
          f"skipped: {SKIPPED}")
    assert not bad, "\n".join(bad[:60])
    assert len(theirs["modules"]) > 2000 and len(foreign) > 100
