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
L0, L1, L2, L3, L4, L5, L6, L7 = range(8)
LAYER_NAMES = {L0: "L0 leaves (dtype, device, views, grad mode, tape data, errors)", L1: "L1 tensor",
               L2: "L2 dispatch and mutation", L3: "L3 ops, creation, functional", L4: "L4 autograd",
               L5: "L5 compile, nn, optim, data, distributed, ...", L6: "L6 the torchlike facade",
               L7: "L7 libraries written on the public API (the facade loads them on first use)"}
LAYERS = {
    # L0: leaves that know no Tensor
    "torchlike._dtype": L0, "torchlike._scalar_fit": L0, "torchlike._device": L0, "torchlike._views": L0, "torchlike._view_strides": L0, "torchlike._errors": L0,
    "torchlike._grad_mode": L0, "torchlike._tape": L0, "torchlike._jit_cache": L0, "torchlike._layout": L0,
    "torchlike._memory_format": L0, "torchlike._missing": L0, "torchlike._torch_paths": L0, "torchlike._class_parts": L0,
    "torchlike.version": L0, "torchlike.torch_version": L0, "torchlike._trace_hooks": L0, "torchlike.autograd.grad_mode": L0, "torchlike.autograd.graph": L0,
    "torchlike.autograd._node_names": L0, "torchlike.autograd.anomaly_mode": L0,
    "torchlike._tensor_messages": L0, "torchlike._ir_context": L0, "torchlike._jit_internal": L0,
    "torchlike.compile._errors": L0, "torchlike._hooks": L0, "torchlike._profiler_state": L0,
    "torchlike._to_args": L0, "torchlike._config_module": L0, "torchlike._pybind_enum": L0, "torchlike._cpu_features": L0, "torchlike._aten_vec_sums": L0, "torchlike._stl_order": L0, "torchlike._shape_churn": L0, "torchlike._row_buckets": L0, "torchlike._fork_guard": L0, "torchlike.nn._loader": L0,  # _loader: a star-import helper, no torchlike import
    # L1: the Tensor (state and metadata)
    "torchlike.tensor": L1, "torchlike._tensor_casts": L1, "torchlike._tensor_devices": L1, "torchlike._tensor_pickling": L1, "torchlike._tensor_inference": L1, "torchlike._tensor_wrapper": L1, "torchlike._tensor_metadata": L1, "torchlike._torch_function": L1,  # Tensor's mixins and parts
    # L2: the dispatcher, out=, mutation
    "torchlike._dispatch": L2, "torchlike._mutation": L2, "torchlike._numpy_bridge": L2, "torchlike._autocast": L2, "torchlike._inference": L2,
    # L3: ops and everything built directly from them
    "torchlike._ops": L3, "torchlike._creation": L3, "torchlike._creation_ranges": L3, "torchlike._creation_infer": L3, "torchlike.nn.functional": L3,
    "torchlike._random": L3,
    "torchlike._mt": L3, "torchlike._mt_avx_consts": L3, "torchlike._mt_kernels": L3, "torchlike._mt_xla": L3, "torchlike._mt_rejection": L3, "torchlike._global_settings": L3, "torchlike._printing": L3,
    "torchlike._storage": L3, "torchlike._legacy": L3, "torchlike._symbolic": L3, "torchlike.return_types": L3,
    "torchlike.linalg": L3, "torchlike.special": L3, "torchlike.fft": L3, "torchlike.masked": L3,
    "torchlike.testing": L3,  # make_tensor / assert_close: tensors, creation and ops only (gradcheck draws with make_tensor)
    "torchlike.signal": L3, "torchlike.sparse": L3, "torchlike.sparse._embedding": L5, "torchlike.random": L3,
    # L4: the autograd API and engine
    "torchlike.autograd": L4, "torchlike.func": L4,
    # L5: everything built on autograd (compile, export, nn, optim, data, distributed, ...)
    "torchlike": L5,
    # L6: the facade and the entry points
    "torchlike.__init__": L6, "torchlike.__main__": L6, "torchlike._runner": L6, "torchlike._runner_site": L6,
    "torchlike.demo": L6, "torchlike._demo": L6,
    # L7: libraries written on the finished facade (`import torchlike`, as torch.distributions does `import
    # torch`); the facade imports none of them at module level, its __getattr__ loads them on first use
    "torchlike.distributions": L7, "torchlike.overrides": L7, "torchlike.utils.benchmark": L7, "torchlike.functional": L7,
    "torchlike.nested": L7,
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


Import = collections.namedtuple("Import", "target line local justified text where", defaults=("",))
# where: the qualified name of the function (or class) the statement sits in, e.g. "Tensor.__new__"


def _targets(mod, is_pkg, node, mods):
    """The torchlike modules an import statement loads: submodules named in ``from x import sub``, and the
    packages a dotted module sits in (importing ``a.b.c`` runs ``a/b/__init__.py``), except the packages
    the importing module sits in itself (already imported before it)."""
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
        while n and n.startswith(PKG + ".") and not (mod + ".").startswith(n + "."):
            out.add(n)  # the module and the packages it sits in, except those the importer sits in too
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

    def visit(node, local, where):
        for ch in ast.iter_child_nodes(node):
            if isinstance(ch, (ast.Import, ast.ImportFrom)):
                text = "\n".join(lines[ch.lineno - 1:ch.end_lineno])
                above = lines[ch.lineno - 2] if ch.lineno > 1 else ""
                just = "# lazy:" in text or above.strip().startswith("# lazy:")
                for t in sorted(_targets(mod, is_pkg, ch, mods)):
                    res.append(Import(t, ch.lineno, local, just, text.strip(), where))
            named = isinstance(ch, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            visit(ch, local or isinstance(ch, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)),
                  f"{where}.{ch.name}".lstrip(".") if named else where)

    visit(ast.parse(src), False, "")
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
    unjust_g = {m: {i.target for i in ims if not i.local or not i.justified} for m, ims in g.items()}
    big_unjust = max(strongly_connected(list(mods), unjust_g), key=len)
    return {"modules": len(mods), "function_local_imports": len(local_stmts),
            "unjustified_function_local_imports": len(unjust),
            "largest_scc_module_level": len(big_top), "largest_scc_with_function_local": len(big_all),
            "largest_scc_without_justified_lazy": len(big_unjust),
            "largest_scc_members": sorted(big_all)}


# ---- the ratchet: what is left in files this change did not own (both lists may only shrink) -------------
# Names are relative to ``torchlike`` (".amp._policy" is torchlike.amp._policy). Fix an entry by importing
# the layer-0 home instead (``torchlike._grad_mode``, ``torchlike._tape``, ``torchlike._errors``), by moving
# the shared piece down a layer, or (for a local import that must stay) by a ``# lazy: <reason>`` comment.
UPWARD_ALLOWED = {  # (importer, imported) module-level upward imports in files this change did not own
    (".export._aten", "torchlike"),
    (".func._common", ".compile"), (".func._common", ".compile._trace"),
}
UNJUSTIFIED_LOCAL = {  # (importer, imported): function-local imports without a `# lazy:` reason
}


# ---- the function-local imports that stay (by file:function; the list may only shrink) -----------------
# Every other torchlike import sits at module level. Each of these carries a `# lazy: <reason>` comment; the
# reasons are of four kinds: a lower layer calling up (Tensor's legacy constructor, torch.masked
# reaching nn.functional, whose package __init__ is layer 5), a module needing the finished facade (`import torchlike`
# while the facade is still importing it), a two-module cycle not yet split (serialization <->
# _weights_only, compile <-> nn.Module), or loading a rarely used module on first use
# (torchvision's operators, the data fork server). Break one (a hook the lower layer exposes,
# or move the shared piece down a layer) and remove its entry; a new function-local import fails the test.
LAZY_ALLOWED = {  # (module, function): the reason its comment gives
('._legacy_serialization', 'legacy_load'): "serialization imports this module (torch.load's legacy branch)",
    ('._vision_ops', '_out'): 'the kernels build tensors; this module is imported only when torchvision loads',
    ('._vision_ops', 'register'): 'library imports the autograd layer',
    ('._weights_only', 'default_allowed_globals'): 'serialization imports this module (its unpickler)',
    ('._weights_only', 'user_allowed_globals'): 'serialization imports this module',
    ('.serialization', 'load'): 'jit imports serialization (it saves with it); load hands a TorchScript archive to jit.load',
    ('._inductor.utils', 'triton_type_to_torch'): 'torch.<name> as the facade has it (aliases too), built after this module',
    ('._tensor_devices', 'device_move_error'): "the op table's parser (layer 3), on the failure path only",
    ('._dynamo', 'explain'): 'its dispatch mode (utils._python_dispatch) sits on the facade, which imports this package',
    ('.autograd._function_transforms', 'active'): 'func is built on autograd',
    ('.autograd._function_transforms', '_under_vmap'): 'func is built on autograd',
    ('.autograd._function_transforms', 'apply'): 'function.py imports this module (its apply calls here)',
    ('.compile', '_compile_module'): 'it subclasses nn.Module (imported after compile)',
    ('.compile', 'compile'): 'compile(fn) works without nn (imported after compile)',
    ('.compile._compiled', '_module_recorder'): 'compile(fn) works without nn (imported after compile)',
    ('.export', '__getattr__'): '_pt2 reads the facade, which loads after this',
    ('.export', 'load'): 'as _pt2 above / it reads the facade and the op table, which load after this package',
    ('.func._eager', '_compiled'): "compile (layer 5) is built on the transforms' layer",
    ('.func._module_state', 'replace_all_batch_norm_modules_'): 'nn (layer 5) is above func (layer 4)',
    ('.func._module_state', 'stack_module_state'): "torch.stack as the facade has it (install's surface, sparse fallback included)",
    ('.library', '_OpNamespace.__getattr__'): 'torch.ops.aten.X resolves X on the facade (layer 6), built after this',
    ('.library', '_Ops.load_library'): "torchvision's operators are defined only when torchvision asks",
    ('.masked', '_softmax_like'): 'importing it runs nn/__init__ (layer 5), which loads after this',
    ('.masked', '_t'): "the facade's functions (torch.sum & co. take sparse operands there), built later",
    ('.multiprocessing._process', '_context_for_start'): "the data package's fork server, started on first use",
    ('.nn.functional._margin_loss', '_mlsm_composite'): "_activation's import chain reaches the losses",
    ('.nn.modules._module_hooks', '_ModuleHooks.compile'): 'the top package (and its ``compile``) is still importing when nn loads',
    ('.nn.utils.prune', '_torch'): "pruning is written against the public API (the facade, layer 6), as torch's is",
    ('.random', 'thread_safe_generator'): 'torchlike.utils.data is built on torchlike (layer above)',
    ('.sparse._functions', 'bmm'): "the facade's functions, which sparse wraps while it is built",
    ('.sparse._functions', 'cat'): "the facade's functions, which sparse wraps while it is built",
    ('.sparse._functions', 'sspaddmm'): "the facade's functions, which sparse wraps while it is built",
    ('.tensor', 'Tensor.__new__'): 'the legacy constructor builds through creation (layer 3)',
    ('.utils.checkpoint', '_accelerator_module'): 'the device modules (torchlike.cuda, ...) sit above this one',
    ('.utils.data._forkserver_boot', '_boot'): "importing torchlike (no backend starts) is the server's job",
    ('.utils.data._forkserver_boot', '_reseed_child'): 'a script the server runs before it forks; importing torchlike is its job',
}


def _short(m):
    return m.replace(PKG, "", 1) or PKG


def _upward(g):
    """{(importer, imported)} module-level imports that go up a layer (short names)."""
    return {(_short(m), _short(i.target)) for m, ims in g.items() for i in ims
            if not i.local and layer_of(i.target) > layer_of(m)}


def _unjustified(g):
    """Counter {(importer, imported): n} of function-local torchlike imports with no ``# lazy:`` reason,
    one per statement (its most specific module)."""
    stmts = {}
    for m, ims in g.items():
        for i in ims:
            if i.local and not i.justified and len(i.target) > len(stmts.get((m, i.line), "")):
                stmts[(m, i.line)] = i.target
    return collections.Counter((_short(m), _short(t)) for (m, _), t in stmts.items())


def test_every_module_has_a_layer():
    mods = modules()
    assert len(mods) > 200  # the walk found the package
    missing = []
    for m in mods:
        try:
            layer_of(m)
        except KeyError:
            missing.append(m)
    assert not missing, f"add these modules to LAYERS in tests/test_layers.py: {missing}"


def test_no_upward_module_level_import():
    _, g = graph()
    up = _upward(g)
    new = sorted(up - UPWARD_ALLOWED)
    print(f"module-level upward imports: {len(up)} (allowlisted {len(UPWARD_ALLOWED)})")
    assert not new, ("module-level imports that go up a layer (see docs/DEVELOPING.md; import the lower "
                     f"home, or move the shared piece down): {new}")
    stale = sorted(UPWARD_ALLOWED - up)
    assert not stale, f"fixed — remove from UPWARD_ALLOWED in tests/test_layers.py: {stale}"


def test_function_local_imports_are_justified():
    _, g = graph()
    have = _unjustified(g)
    over = {k: (n, UNJUSTIFIED_LOCAL.get(k, 0)) for k, n in have.items() if n > UNJUSTIFIED_LOCAL.get(k, 0)}
    print(f"unjustified function-local imports: {sum(have.values())} "
          f"(allowlisted {sum(UNJUSTIFIED_LOCAL.values())} in {len(UNJUSTIFIED_LOCAL)} entries)")
    assert not over, ("function-local imports without a `# lazy: <reason>` comment (found, allowed): "
                      f"{over}; import at module level if the layers allow it, else say why it is lazy")
    stale = {k: (have.get(k, 0), n) for k, n in UNJUSTIFIED_LOCAL.items() if have.get(k, 0) < n}
    assert not stale, f"fixed — lower these counts in UNJUSTIFIED_LOCAL (found, allowed): {stale}"


def test_function_local_imports_are_allowlisted():
    _, g = graph()
    have = {(_short(m), i.where) for m, ims in g.items() for i in ims if i.local}
    new = sorted(have - set(LAZY_ALLOWED))
    print(f"functions with a function-local torchlike import: {len(have)} (allowlisted {len(LAZY_ALLOWED)})")
    assert not new, ("function-local torchlike imports outside LAZY_ALLOWED (tests/test_layers.py): "
                     f"{new}; import at module level, or break the cycle (docs/DEVELOPING.md)")
    stale = sorted(set(LAZY_ALLOWED) - have)
    assert not stale, f"fixed — remove from LAZY_ALLOWED in tests/test_layers.py: {stale}"


CORE = ("torchlike.tensor", "torchlike._dispatch", "torchlike._mutation", "torchlike._creation",
        "torchlike._creation_ranges", "torchlike._tape", "torchlike._grad_mode", "torchlike.autograd", "torchlike.compile", "torchlike._dtype", "torchlike._device", "torchlike._views")


def _is_core(m):
    return any(m == c or m.startswith(c + ".") for c in CORE)


def test_core_has_no_unjustified_local_import_and_no_sys_modules_lookup():
    mods, g = graph()
    bad = [(m, i.line, i.text) for m, ims in g.items() if _is_core(m) for i in ims if i.local and not i.justified]
    assert not bad, bad
    # the engine finds compile through a hook list (autograd.engine.on_backward), not sys.modules
    for m, p in mods.items():
        if _is_core(m):
            assert "sys.modules.get(\"torchlike" not in p.read_text(), m
    assert "Tensor = None" not in mods["torchlike._dispatch"].read_text()


def test_core_import_order_is_the_layer_order():
    # importing the core bottom-up in a fresh interpreter works, and the tensor module pulls in no op,
    # dispatcher, autograd engine or compile module (layer 1 knows only layer 0)
    import subprocess
    code = ("import importlib\n"
            "t, d, e, tr = (importlib.import_module('torchlike.' + m) for m in "
            "('tensor', '_dispatch', 'autograd.engine', 'compile._trace'))\n"
            "assert d.Tensor is t.Tensor\n"
            "import torchlike._mutation as mu\n"
            "assert t.Tensor._inplace_update is mu._inplace_update\n"
            "assert tr._backward_started in e.on_backward\n"
            "print('ok')\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.stdout.strip() == "ok", r.stderr[-2000:]
    _, g = graph()
    tensor_deps = {i.target for i in g["torchlike.tensor"] if not i.local}
    mixins = {"torchlike._tensor_casts", "torchlike._tensor_devices", "torchlike._tensor_pickling",
              "torchlike._tensor_inference", "torchlike._tensor_wrapper",
              "torchlike._tensor_metadata"}  # Tensor's bases and built_from parts: L1, importing L0
    assert mixins <= tensor_deps
    for m in mixins:
        tensor_deps |= {i.target for i in g[m] if not i.local}
    assert all(layer_of(t) == L0 for t in tensor_deps - mixins), tensor_deps


def test_layer_7_loads_on_first_use():
    # torch.distributions is a library on the finished facade: `import torchlike` does not import it, and
    # every way a user reaches it (attribute, from-import, dotted import) loads it then
    import subprocess
    code = ("import sys, torchlike\n"
            "assert 'torchlike.distributions' not in sys.modules\n"
            "n = torchlike.distributions.Normal(0.0, 1.0)\n"
            "from torchlike.distributions import Normal\n"
            "import torchlike.distributions.normal as m\n"
            "assert type(n) is Normal is m.Normal\n"
            "print(float(n.log_prob(torchlike.tensor(0.0))))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.stdout.strip() == "-0.9189385175704956", r.stderr[-2000:]  # log N(0; 0, 1) = -log(2*pi)/2
    _, g = graph()
    assert not [i for i in g["torchlike"] if i.target.startswith("torchlike.distributions")]


def test_compiled_step_with_backward_marks_the_trace():
    # the behaviour the hook list carries: a compiled step that calls backward owns its gradients
    import torchlike
    from torchlike.autograd import engine
    from torchlike.compile import _trace
    assert _trace._backward_started in engine.on_backward
    w = torchlike.ones(3, requires_grad=True)

    @torchlike.compile
    def step(x):
        loss = (w * x).sum()
        loss.backward()
        return loss

    x = torchlike.tensor([1.0, 2.0, 3.0])
    step(x)
    assert w.grad.tolist() == [1.0, 2.0, 3.0]  # d/dw sum(w*x) = x, written back by the compiled step


def _write(root, files):
    for rel, text in files.items():
        p = root / PKG / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


def test_the_tool_sees_upward_local_and_cyclic_imports(tmp_path):
    _write(tmp_path, {
        "__init__.py": "from . import tensor, _dispatch\n",
        "_dtype.py": "",
        "tensor.py": "from . import _dtype\nfrom .autograd import grad_mode\n"
                     "def f():\n    from . import _dispatch\n"
                     "def g():\n    from ._creation import zeros  # lazy: legacy constructor\n",
        "_creation.py": "",
        "_dispatch.py": "from .tensor import Tensor\nimport torchlike\n",
        "autograd/__init__.py": "from . import grad_mode, engine\n",
        "autograd/grad_mode.py": "",
        "autograd/engine.py": "from ..tensor import Tensor\n",
    })
    mods, g = graph(tmp_path)
    assert set(mods) == {"torchlike", "torchlike._dtype", "torchlike.tensor", "torchlike._creation",
                         "torchlike._dispatch", "torchlike.autograd", "torchlike.autograd.grad_mode",
                         "torchlike.autograd.engine"}
    t = {(i.target, i.local, i.justified) for i in g["torchlike.tensor"]}
    # the package a dotted module sits in is imported too (autograd/__init__.py runs)
    assert t == {("torchlike._dtype", False, False), ("torchlike.autograd.grad_mode", False, False),
                 ("torchlike.autograd", False, False), ("torchlike._dispatch", True, False),
                 ("torchlike._creation", True, True)}
    # a function-local import is known by the function it sits in (LAZY_ALLOWED's key)
    assert {(i.target, i.where) for i in g["torchlike.tensor"] if i.local} == {("torchlike._dispatch", "f"),
                                                                                ("torchlike._creation", "g")}
    assert {i.target for i in g["torchlike._dispatch"]} == {"torchlike.tensor", "torchlike"}
    assert _upward(g) == {(".tensor", ".autograd"), ("._dispatch", "torchlike")}
    assert _unjustified(g) == collections.Counter({(".tensor", "._dispatch"): 1})
    top = {m: {i.target for i in ims if not i.local} for m, ims in g.items()}
    comps = {frozenset(c) for c in strongly_connected(list(mods), top) if len(c) > 1}
    # tensor -> autograd package -> engine -> tensor: the knot the implicit package import ties;
    # _dispatch -> the facade -> _dispatch
    assert comps == {frozenset({"torchlike.autograd", "torchlike.autograd.engine", "torchlike.tensor"}),
                     frozenset({"torchlike", "torchlike._dispatch"})}
    r = measure(tmp_path)
    assert (r["modules"], r["function_local_imports"], r["unjustified_function_local_imports"]) == (8, 2, 1)


def test_numbers_only_improve():
    # issue 12 measured 97 of 190 modules in one SCC counting function-local imports. Before this change
    # (same rules, `python tests/test_layers.py`): 266 modules, 274 function-local torchlike imports, none
    # justified, 131 modules in the largest SCC, with tensor, _dispatch, _creation, autograd and compile in it.
    r = measure()
    print({k: v for k, v in r.items() if k != "largest_scc_members"})
    assert r["function_local_imports"] < 274
    assert r["unjustified_function_local_imports"] < 274
    assert r["largest_scc_without_justified_lazy"] < 131
    # module-level imports form no cycle beyond a torch path re-exporting the file of its class (2 modules;
    # the quantized modules' package imports once made one of 13)
    assert r["largest_scc_module_level"] <= 2, r
    # setting aside the deliberate (`# lazy:`) imports, no core module sits in any import cycle
    mods, g = graph()
    edges = {m: {i.target for i in ims if not i.local or not i.justified} for m, ims in g.items()}
    knotted = sorted(m for c in strongly_connected(list(mods), edges) if len(c) > 1 for m in c if _is_core(m))
    assert not knotted, knotted


if __name__ == "__main__":
    r = measure(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT)
    members = r.pop("largest_scc_members")
    for k, v in r.items():
        print(f"{k}: {v}")
    print("largest SCC (with function-local imports):", " ".join(m.replace("torchlike", "") or "torchlike"
                                                                 for m in members))


def test_overrides_loads_on_first_use():
    # torch.overrides (layer 7) is written on the finished facade: `import torchlike` does not import it; the
    # attribute, the from-import and the dotted import all load the same module
    import subprocess
    code = ("import sys, torchlike\n"
            "assert 'torchlike.overrides' not in sys.modules\n"
            "a = torchlike.overrides.has_torch_function((torchlike.ones(1),))\n"
            "from torchlike.overrides import resolve_name\n"
            "import torchlike.overrides as o\n"
            "assert o is sys.modules['torchlike.overrides']\n"
            "print(a, resolve_name(torchlike.add))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.stdout.strip() == "False torch.add", r.stderr[-2000:]  # as torch: no override; torch's name
