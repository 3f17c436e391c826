"""The drop-in runner runs an unmodified PyTorch script; its checkpoint loads in real torch."""
import os
import subprocess
import sys

import pytest
from conftest import run_program
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "scripts", "train_mnist_like.py")


def _run(*args):
    out = subprocess.run([sys.executable, "-m", "torchlike", "run", SCRIPT, *args], capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


@pytest.mark.parametrize("extra", [[], ["--compile"]])
def test_unmodified_script_trains_and_checkpoint_loads_in_torch(extra):
    out = _run("--epochs", "2", *extra)
    losses = [float(line.split()[3]) for line in out.splitlines() if line.startswith("epoch")]
    assert len(losses) == 2 and losses[1] < losses[0]
    path = next(line.split()[1] for line in out.splitlines() if line.startswith("CKPT"))
    ck = torch.load(path)  # real torch reads what torchlike wrote
    assert ck["epoch"] == 2
    assert ck["model"][("_orig_mod." if extra else "") + "fc1.weight"].shape == (16, 144)
    assert set(ck["opt"]) == {"state", "param_groups"}
    assert ck["opt"]["param_groups"][0]["lr"] == pytest.approx(0.49)
    prefix = "_orig_mod." if extra else ""  # torch's compiled modules prefix their state_dict keys too
    assert list(ck["model"])[:2] == [prefix + "conv1.weight", prefix + "conv1.bias"]


def test_missing_api_is_a_clear_not_implemented_error(tmp_path):
    script = tmp_path / "uses_missing.py"
    script.write_text("import torch\ntorch.some_future_api(1)\n")
    out = subprocess.run([sys.executable, "-m", "torchlike", "run", str(script)], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode != 0
    assert "NotImplementedError" in out.stderr and "torch.some_future_api" in out.stderr


def test_a_name_from_a_module_torchlike_lacks_is_an_import_error_naming_torch(tmp_path):
    """``from torch.package import PackageExporter`` (a module torchlike does not have) raises the ImportError a
    library's ``except ImportError`` fallback catches, naming torch's module, never torchlike's
    (vit_pytorch.na_vit_nested_tensor saw "No module named 'torchlike.nested'" before torch.nested existed)."""
    script = tmp_path / "missing_module_name.py"
    script.write_text("for stmt in ('from torch.package import PackageExporter', 'import torch.package.sub'):\n"
                      "    try:\n        exec(stmt)\n"
                      "    except ImportError as e:\n        print(type(e).__name__, e.name, e)\n")
    out = subprocess.run([sys.executable, "-m", "torchlike", "run", str(script)], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stdout.splitlines()
    assert lines[0].startswith("ImportError torch.package cannot import name 'PackageExporter' from "
                               "'torch.package'"), lines
    assert lines[1] == "ModuleNotFoundError torch.package.sub No module named 'torch.package.sub'", lines
    assert "torchlike" not in out.stdout


def test_dataloader_workers_under_the_runner_see_torchlike():
    script = os.path.join(HERE, "scripts", "loader_workers.py")
    out = subprocess.run([sys.executable, "-m", "torchlike", "run", script], capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    lines = out.stdout.strip().splitlines()
    # the workers' torch is torchlike; the batch's class answers to torch's name, as under torch
    assert lines[0] == "torchlike torch [0.0, 1.0, 2.0, 3.0] [0, 1, 4, 9]" and len(lines) == 4


def test_nanogpt_style_script_trains_and_samples():
    script = os.path.join(HERE, "scripts", "nanogpt_like.py")
    out = subprocess.run([sys.executable, "-m", "torchlike", "run", script], capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    losses = [float(line.split()[-1]) for line in out.stdout.splitlines() if line.startswith("iter")]
    assert len(losses) == 4 and losses[-1] < losses[0]
    assert out.stdout.strip().splitlines()[-1].startswith("[[0, ")


def test_uncaught_error_reports_like_python(tmp_path):
    """An exception the script lets out: exit status 1 and a traceback that starts at the script's frame
    (no runner or runpy frames) and ends at the user's line, as torch's C++ op would (no torchlike or JAX
    frames); the frames shown are the ones python prints for the same script under torch."""
    script = tmp_path / "bad.py"
    script.write_text("import torch\nm = torch.nn.Linear(3, 2)\n\ndef go():\n    return m(torch.ones(4))\n\ngo()\n")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(HERE))
    torch_run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300)
    ours = subprocess.run([sys.executable, "-m", "torchlike", "run", str(script)], capture_output=True, text=True,
                          env=env, timeout=300)
    assert torch_run.returncode == ours.returncode == 1
    err = ours.stderr
    assert err.startswith("Traceback (most recent call last):\n"), err
    assert "torchlike" not in err and "runpy" not in err and "jax" not in err, err
    frames = [ln.strip() for ln in err.splitlines() if ln.strip().startswith("File ")]
    theirs = [ln.strip() for ln in torch_run.stderr.splitlines() if ln.strip().startswith("File ")]
    assert frames == [f for f in theirs if str(script) in f], (frames, theirs)
    assert err.strip().splitlines()[-1] == torch_run.stderr.strip().splitlines()[-1]


@pytest.mark.parametrize("form", ["-c", "-"])
def test_code_from_the_command_line_or_stdin_runs_as_python_would(form):
    """``run -c CODE`` and ``run -`` (the program on standard input) as ``python -c`` / ``python -``: the same
    output, ``sys.argv``, ``__main__``, and on an error the same traceback frames and exit status."""
    code = ("import sys, torch\nprint(torch.ones(2).sum().item(), sys.argv, __name__, sys.path[0] == '')\n"
            "class A:\n    pass\nimport pickle\nprint(type(pickle.loads(pickle.dumps(A()))).__qualname__)\n"
            "torch.ones(2) + torch.ones(3)\n")
    outs = []
    for prefix in ([sys.executable], [sys.executable, "-m", "torchlike", "run"]):
        args = prefix + ([form, code] if form == "-c" else [form]) + ["x", "y"]
        outs.append(subprocess.run(args, input=None if form == "-c" else code, capture_output=True, text=True,
                                   timeout=300))
    theirs, ours = outs
    assert theirs.returncode == ours.returncode == 1
    assert ours.stdout == theirs.stdout
    frames = [ln.strip() for ln in ours.stderr.splitlines() if ln.strip().startswith("File ")]
    assert frames == [ln.strip() for ln in theirs.stderr.splitlines() if ln.strip().startswith("File ")], ours.stderr
    assert ours.stderr.strip().splitlines()[-1] == theirs.stderr.strip().splitlines()[-1]


@pytest.mark.parametrize("configure_first", [False, True])
def test_a_script_logging_at_info_or_debug_prints_what_torch_prints(configure_first):
    """A script that turns on the root logger (``logging.basicConfig(level=INFO/DEBUG)``, before or after
    ``import torch``) sees only its own records, as under torch: JAX's backend start and compile logs stay out."""
    setup = "import logging, sys\nlogging.basicConfig(stream=sys.stdout, level=logging.{}, format='%(name)s %(message)s')\n"
    body = ("import torch\nlogging.getLogger('train').info('loss %.4f', (torch.ones(3) * 2).sum().item())\n"
            "torch.nn.Linear(2, 2)(torch.ones(1, 2)).sum().backward()\nlogging.getLogger('train').debug('done')\n")
    for level in ("INFO", "DEBUG"):
        code = setup.format(level) + body if configure_first else "import torch\n" + setup.format(level) + body
        theirs, ours = (subprocess.run(prefix + ["-c", code], capture_output=True, text=True, timeout=300)
                        for prefix in ([sys.executable], [sys.executable, "-m", "torchlike", "run"]))
        assert theirs.returncode == ours.returncode == 0, ours.stderr[-2000:]
        assert ours.stdout == theirs.stdout == "train loss 6.0000\n" + ("train done\n" if level == "DEBUG" else "")


_PATCHED_INIT = """
import sys
import torch

names = ["torch.nn", "torch.nn.init", "torch.nn.functional", "torch.nn.modules.activation", "torch.nn.modules.linear",
         "torch.optim", "torch.autograd"]
print([n in sys.modules for n in names])
# what transformers' from_pretrained does: guard the init functions of the torch modules in sys.modules, so a
# loaded weight is not initialized again (nn.MultiheadAttention._reset_parameters runs through them)
original = torch.nn.init.xavier_uniform_
for name in ["torch.nn.init", "torch.nn.modules.activation"]:
    if name in sys.modules and hasattr(sys.modules[name], "xavier_uniform_"):
        sys.modules[name].xavier_uniform_ = lambda t, *a, **k: t if getattr(t, "loaded", False) else original(t)
mha = torch.nn.MultiheadAttention(4, 2)
with torch.no_grad():
    mha.in_proj_weight.fill_(0.5)
mha.in_proj_weight.loaded = True
mha._reset_parameters()
print(mha.in_proj_weight.sum().item())
"""


def test_import_torch_leaves_its_submodules_in_sys_modules_like_torch(tmp_path):
    """After ``import torch`` the submodules it loaded are in ``sys.modules`` under their torch names (as with
    torch), so a library patching ``sys.modules["torch.nn.init"]`` reaches the functions modules call."""
    script = tmp_path / "patched_init.py"
    script.write_text(_PATCHED_INIT)
    theirs = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    ours = subprocess.run([sys.executable, "-m", "torchlike", "run", str(script)], capture_output=True, text=True,
                          timeout=300)
    assert theirs.returncode == ours.returncode == 0, ours.stderr[-3000:]
    assert ours.stdout == theirs.stdout == "[True, True, True, True, True, True, True]\n24.0\n"


def test_classes_answer_to_torchs_names_under_the_runner():
    # type(x) printed <class 'torchlike.tensor.Tensor'>, <class 'torchlike.nn.modules.linear.Linear'>, ...
    script = os.path.join(HERE, "scripts", "type_names.py")
    theirs = subprocess.run([sys.executable, script], capture_output=True, text=True, timeout=300)
    ours = subprocess.run([sys.executable, "-m", "torchlike", "run", script], capture_output=True, text=True,
                          timeout=300)
    assert theirs.returncode == ours.returncode == 0, ours.stderr[-2000:]
    assert ours.stdout == theirs.stdout and theirs.stdout.count("<class 'torch.") == 14


_MODULE_NAME = """
import torch
print(torch.__name__)
# pyro's patch_dependency: walk a dotted path from the root module, checking the root by its __name__
target = "torch.distributions.transforms.Transform"
assert target.split(".")[0] == torch.__name__
obj = torch
for part in target.split(".")[1:]:
    obj = getattr(obj, part)
print(obj.__module__, obj.__name__)
# the lazily loaded parts of the top-level module still load after the rename
print(torch._standard_gamma(torch.ones(2)).shape, torch.overrides.has_torch_function((torch.ones(1),)))
"""


def test_the_torch_module_is_named_torch_under_the_runner(tmp_path):
    script = tmp_path / "module_name.py"
    script.write_text(_MODULE_NAME)
    theirs = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    ours = subprocess.run([sys.executable, "-m", "torchlike", "run", str(script)], capture_output=True, text=True,
                          timeout=300)
    assert theirs.returncode == ours.returncode == 0, ours.stderr[-3000:]
    assert ours.stdout == theirs.stdout
    assert ours.stdout.splitlines()[:2] == ["torch", "torch.distributions.transforms Transform"]


def test_error_classes_print_torchs_paths_under_the_runner():
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs", "error_class_paths.py")
    expected = run_program([script], runner=False, timeout=300)
    ours = run_program([script], runner=True, timeout=300)
    assert ours == expected
    assert expected[0].startswith("torch._C _LinAlgError") and "torch._dynamo.exc Unsupported" in expected[2]


_DILL_MODULES = """
import dill
import torch
import torch.nn.functional as F


def f(x):
    return F.relu(torch.ones(2) * x)


# dill records a function's globals; the torch modules among them by name (as for any installed package),
# not by value (torchlike's whole tree under the runner: minutes, then RecursionError)
data = dill.dumps(f, recurse=True)
print(len(data) < 4000, dill.loads(data)(-1.0).tolist())
print(dill.loads(dill.dumps(torch)) is torch, dill.loads(dill.dumps(F)) is F)
"""


def test_dill_records_torch_modules_by_name_under_the_runner(tmp_path):
    pytest.importorskip("dill")
    script = tmp_path / "dill_modules.py"
    script.write_text(_DILL_MODULES)
    theirs = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    ours = subprocess.run([sys.executable, "-m", "torchlike", "run", str(script)], capture_output=True, text=True,
                          timeout=300)
    assert theirs.returncode == ours.returncode == 0, ours.stderr[-3000:]
    assert ours.stdout == theirs.stdout == "True [0.0, 0.0]\nTrue True\n"


@pytest.mark.parametrize("target", ["missing.py", "a_dir", "-m no_such_module_here"])
def test_a_script_or_module_that_is_not_there_is_reported_as_python_would(tmp_path, target):
    """Python's own one-line message and exit status (2 for a missing file, 1 otherwise), not a traceback through
    the runner and runpy."""
    (tmp_path / "a_dir").mkdir()
    args = target.split()
    python = subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    ours = subprocess.run([sys.executable, "-m", "torchlike", "run", *args], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300)
    assert "Traceback" not in ours.stderr
    assert (ours.returncode, ours.stderr) == (python.returncode, python.stderr)


def test_sys_argv_zero_is_the_script_as_given_like_python(tmp_path):
    """``sys.argv[0]`` keeps the path as typed (``sub/prog.py``), ``__file__`` is absolute, as python's own; runpy
    would put the absolute path in both."""
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "prog.py").write_text("import sys, torch\nprint(sys.argv, __file__, __name__)\n")
    python = subprocess.run([sys.executable, "sub/prog.py", "x"], capture_output=True, text=True, cwd=tmp_path,
                            timeout=300)
    ours = subprocess.run([sys.executable, "-m", "torchlike", "run", "sub/prog.py", "x"], capture_output=True,
                          text=True, cwd=tmp_path, timeout=300)
    assert python.returncode == ours.returncode == 0, ours.stderr
    assert ours.stdout == python.stdout and "['sub/prog.py', 'x']" in ours.stdout
