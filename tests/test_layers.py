"""torchlike's core is layered: each module imports only modules of its own layer or below (docs/DEVELOPING.md).

The check reads the import statements with ``ast`` (nothing is imported), so it sees every edge:
module-level imports (``import``/``from`` outside any function, including the implicit import of the
packages a dotted module sits in) must not go up a layer; a function-local ``torchlike`` import must
carry a ``# lazy: <reason>`` comment (on its line or the line above), except those counted in
``UNJUSTIFIED_LOCAL`` (today's leftovers in files this change did not own; the list may only shrink).

Run as a script to print the numbers: ``python tests/test_layers.py`` (modules, function-local imports,
the largest strongly connected component of the import graph with and without function-local imports).
"""
from __future__ import annotations

import ast
import collections
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PKG = "torchlike"

# ---- the layer table: longest matching prefix wins (docs/DEVELOPING.md draws the same picture) ----------
L0, L1, L2, L3, L4, L5, L6 = range(7)
LAYER_NAMES = {L0: "L0 leaves (dtype, device, views, grad mode, tape data, errors)", L1: "L1 tensor",
               L2: "L2 dispatch and mutation", L3: "L3 ops, creation, functional", L4: "L4 autograd",
               L5: "L5 compile, nn, optim, data, distributed, ...", L6: "L6 the torchlike facade"}
LAYERS = {
    # L0: leaves that know no Tensor
    "torchlike._dtype": L0, "torchlike._device": L0, "torchlike._views": L0, "torchlike._errors": L0,
    "torchlike._grad_mode": L0, "torchlike._tape": L0, "torchlike._jit_cache": L0, "torchlike._layout": L0,
    "torchlike._memory_format": L0, "torchlike._missing": L0, "torchlike._torch_paths": L0,
    "torchlike.version": L0, "torchlike.autograd.grad_mode": L0, "torchlike.autograd.graph": L0,
    "torchlike.autograd._node_names": L0, "torchlike.autograd.anomaly_mode": L0,
    "torchlike.compile._errors": L0, "torchlike._hooks": L0,
    # L1: the Tensor (state and metadata)
    "torchlike.tensor": L1,
    # L2: the dispatcher, out=, mutation
    "torchlike._dispatch": L2,
    # L3: ops and everything built directly from them
    "torchlike._ops": L3, "torchlike._creation": L3, "torchlike.nn.functional": L3, "torchlike._random": L3,
    "torchlike._mt": L3, "torchlike._mt_kernels": L3, "torchlike._misc_api": L3, "torchlike._printing": L3,
    "torchlike._storage": L3, "torchlike._legacy": L3, "torchlike._symbolic": L3, "torchlike.return_types": L3,
    "torchlike.linalg": L3, "torchlike.special": L3, "torchlike.fft": L3, "torchlike.masked": L3,
    "torchlike.signal": L3, "torchlike.sparse": L3, "torchlike.random": L3,
    # L4: the autograd API and engine
    "torchlike.autograd": L4, "torchlike.func": L4,
    # L5: everything built on autograd (compile, export, nn, optim, data, distributed, ...)
    "torchlike": L5,
    # L6: the facade and the entry points
    "torchlike.__init__": L6, "torchlike.__main__": L6, "torchlike._runner": L6, "torchlike._runner_site": L6,
    "torchlike.demo": L6, "torchlike._demo": L6,
}


def layer_of(mod):
    """The layer of module ``mod`` (the package ``torchlike`` itself is its ``__init__``: the facade)."""
    if mod == PKG:
        return LAYERS["torchlike.__init__"]
    m = mod
    while m:
        if m in LAYERS:
            return LAYERS[m]
        m = m.rpartition(".")[0]
    raise KeyError(mod)


# ---- the import graph ------------------------------------------------------------------------------------
def modules(root=ROOT):
    """{dotted module name: path} for every torchlike source file."""
    out = {}
    for p in sorted((root / PKG).rglob("*.py")):
        parts = list(p.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = p
    return out


Import = collections.namedtuple("Import", "target line local justified text")


def _targets(mod, is_pkg, node, mods):
    """The torchlike modules an import statement loads (submodules named in ``from x import sub``; parent
    packages of a dotted module, except the root package every module already sits in)."""
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        if node.level:
            base = mod.split(".") if is_pkg else mod.split(".")[:-1]
            base = base[:len(base) - (node.level - 1)]
            prefix = ".".join(base + ([node.module] if node.module else []))
        else:
            prefix = node.module or ""
        subs = [f"{prefix}.{a.name}" for a in node.names]
        found = [s for s in subs if s in mods]
        names = found + ([prefix] if len(found) < len(subs) else [])
    out = set()
    for n in names:
        while n and n not in mods:  # `import a.b.c` where c is an attribute: the module is a.b
            n = n.rpartition(".")[0]
        while n and n.startswith(PKG + ".") and n != mod:  # the module and the packages it sits in
            out.add(n)
            n = n.rpartition(".")[0]
    if isinstance(node, ast.Import) and any(a.name == PKG for a in node.names):
        out.add(PKG)  # `import torchlike`: the facade
    if isinstance(node, ast.ImportFrom) and len(names) and PKG in names:
        out.add(PKG)  # `from torchlike import zeros`: a name from the facade
    out.discard(mod)
    return out


def imports(mod, path, mods):
    """Every torchlike import of module ``mod`` as ``Import`` records (one per target module)."""
    src = path.read_text()
    lines = src.splitlines()
    is_pkg = path.name == "__init__.py"
    res = []

    def visit(node, local):
        for ch in ast.iter_child_nodes(node):
            if isinstance(ch, (ast.Import, ast.ImportFrom)):
                text = "\n".join(lines[ch.lineno - 1:ch.end_lineno])
                above = lines[ch.lineno - 2] if ch.lineno > 1 else ""
                just = "# lazy:" in text or above.strip().startswith("# lazy:")
                for t in sorted(_targets(mod, is_pkg, ch, mods)):
                    res.append(Import(t, ch.lineno, local, just, text.strip()))
            visit(ch, local or isinstance(ch, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

    visit(ast.parse(src), False)
    return res


def graph(root=ROOT):
    """(modules, {module: [Import, ...]})."""
    mods = modules(root)
    return mods, {m: imports(m, p, mods) for m, p in mods.items()}


def strongly_connected(nodes, edges):
    """Tarjan's strongly connected components (iterative) of ``edges`` ({node: set of nodes})."""
    index, low, on, stack, comps, counter = {}, {}, set(), [], [], [0]
    for start in nodes:
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    comps.append(comp)
    return comps


def measure(root=ROOT):
    """The numbers issue 12 quotes: modules, function-local import statements, largest SCCs."""
    mods, g = graph(root)
    local_stmts = {(m, i.line) for m, ims in g.items() for i in ims if i.local}
    unjust = {(m, i.line) for m, ims in g.items() for i in ims if i.local and not i.justified}
    top = {m: {i.target for i in ims if not i.local} for m, ims in g.items()}
    every = {m: {i.target for i in ims} for m, ims in g.items()}
    big_top = max(strongly_connected(list(mods), top), key=len)
    big_all = max(strongly_connected(list(mods), every), key=len)
    return {"modules": len(mods), "function_local_imports": len(local_stmts),
            "unjustified_function_local_imports": len(unjust),
            "largest_scc_module_level": len(big_top), "largest_scc_with_function_local": len(big_all),
            "largest_scc_members": sorted(big_all)}


if __name__ == "__main__":
    r = measure(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT)
    members = r.pop("largest_scc_members")
    for k, v in r.items():
        print(f"{k}: {v}")
    print("largest SCC (with function-local imports):", " ".join(m.replace("torchlike", "") or "torchlike"
                                                                 for m in members))
