"""Libraries built on torch (transformers, einops, safetensors, tqdm) run under the drop-in runner and match torch.

Each check needs its library (pytest.importorskip); the programs in tests/programs/ run twice, once with real
torch and once under ``python -m torchlike run``, and their printed lines are compared.  The runner must also
work where torch is not importable at all: a subprocess hides the installed torch (modules and metadata).
"""
import os
import subprocess
import sys
import textwrap

import pytest
from conftest import run_program, same_printed_lines

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, "programs")
ROOT = os.path.dirname(HERE)


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.setdefault("HF_HUB_OFFLINE", "1")
    env.setdefault("TOKENIZERS_PARALLELISM", "false")
    return env


def _run(args, runner, timeout=900):
    return run_program(args, runner, env=_env(), timeout=timeout)


_same = same_printed_lines


def test_einops_safetensors_tqdm_program_matches_torch(tmp_path):
    pytest.importorskip("torch", reason="the comparison runs the program with real torch too")
    for lib in ("einops", "safetensors", "tqdm"):
        pytest.importorskip(lib, reason=f"{lib} is not installed")
    script = os.path.join(PROGRAMS, "einops_safetensors_tqdm.py")
    init = str(tmp_path / "init.safetensors")  # torch writes the initial weights, torchlike starts from them
    expected = _run([script, init], runner=False)
    ours = _run([script, init], runner=True)
    _same(expected, ours, rtol=1e-4)
    assert any(line.startswith("step 4 loss") for line in ours)


def test_einops_safetensors_less_used_apis_match_torch():
    # EinMix, parse_shape, pack/unpack, reduce with a callable; save_model/load_model with tied weights, get_slice
    for lib in ("torch", "einops", "safetensors"):
        pytest.importorskip(lib, reason=f"{lib} is not installed")
    script = os.path.join(PROGRAMS, "einops_safetensors_more.py")
    ours = _run([script], runner=True)
    _same(_run([script], runner=False), ours, rtol=1e-4)
    assert "load_model [] [] True True [4.0, 5.0, 6.0, 7.0]" in ours
    assert "slice meta [3, 4, 5] F32" in ours


def test_transformers_tiny_models_train_reload_generate_like_torch(tmp_path):
    pytest.importorskip("torch", reason="the comparison runs the program with real torch too")
    pytest.importorskip("transformers", reason="transformers is not installed")
    script = os.path.join(PROGRAMS, "hf_tiny_models.py")
    init = str(tmp_path / "init")
    expected = _run([script, "--init", init], runner=False)
    ours = _run([script, "--init", init], runner=True)
    # same initial weights, no dropout: losses agree step by step; greedy generations token for token
    _same(expected, ours, rtol=2e-4)
    for model in ("gpt2", "llama", "bert", "t5", "vit"):
        losses = [float(line.split()[4]) for line in ours if line.startswith(f"{model} step")]
        assert len(losses) == 4 and losses[-1] < losses[0], (model, losses)
    assert sum(line.endswith("reload maxdiff 0") for line in ours) == 4


# A start-up wrapper that makes an installed torch invisible: no module, no spec, no package metadata.
_HIDE_TORCH = textwrap.dedent("""
    import importlib.abc, importlib.machinery, sys

    class _HiddenTorchPathFinder(importlib.machinery.PathFinder):
        @classmethod
        def find_spec(cls, name, path=None, target=None):
            if name == "torch" or name.startswith("torch."):
                return None
            return super().find_spec(name, path, target)

        @classmethod
        def find_distributions(cls, context=None):
            for d in importlib.machinery.PathFinder.find_distributions(context):
                if (d.metadata["Name"] or "").lower() != "torch":
                    yield d

    sys.meta_path[:] = [_HiddenTorchPathFinder if f is importlib.machinery.PathFinder else f
                        for f in sys.meta_path]
    import importlib.metadata, importlib.util
    assert importlib.util.find_spec("torch") is None
    try:
        importlib.metadata.version("torch")
        raise SystemExit("torch metadata still visible")
    except importlib.metadata.PackageNotFoundError:
        pass
    try:
        import torch  # noqa: F401
        raise SystemExit("torch still importable")
    except ModuleNotFoundError:
        print("torch hidden")
    from torchlike.__main__ import main
    sys.exit(main(["run"] + sys.argv[1:]))
""")

_PROBE = textwrap.dedent("""
    import importlib.metadata, importlib.util
    spec = importlib.util.find_spec("torch")
    print("version", importlib.metadata.version("torch"), importlib.metadata.metadata("torch")["Name"])
    print("spec", spec is not None and spec.origin.endswith("__init__.py"), importlib.util.find_spec("torch.nn") is not None)
    print("dists", [d.metadata["Name"] for d in importlib.metadata.distributions(name="torch")])
    import torch
    import torch.nn.functional as F
    from torch.utils._pytree import tree_flatten
    print("torch", torch.__name__, torch.compiler.is_compiling(), tree_flatten({"a": (1, 2)})[0])
    m = torch.nn.Linear(3, 2)
    print("out", tuple(F.relu(m(torch.ones(4, 3))).shape))
""")


def test_runner_works_where_torch_is_not_importable(tmp_path):
    wrapper, probe = tmp_path / "hide_torch.py", tmp_path / "probe.py"
    wrapper.write_text(_HIDE_TORCH)
    probe.write_text(_PROBE)
    out = subprocess.run([sys.executable, str(wrapper), str(probe)], capture_output=True, text=True, timeout=600,
                         env=_env(), cwd=str(tmp_path))
    assert out.returncode == 0, out.stderr[-4000:]
    lines = out.stdout.splitlines()
    assert lines[0] == "torch hidden"
    assert lines[1] == "version 2.13.0 torch"  # what an installed torch 2.13 answers
    assert lines[2] == "spec True True"
    assert lines[3] == "dists ['torch']"
    assert lines[4] == "torch torch False [1, 2]" or lines[4] == "torch torchlike False [1, 2]"
    assert lines[5] == "out (4, 2)"


def test_transformers_imports_without_torch(tmp_path):
    pytest.importorskip("transformers", reason="transformers is not installed")
    wrapper, probe = tmp_path / "hide_torch.py", tmp_path / "probe.py"
    wrapper.write_text(_HIDE_TORCH)
    probe.write_text(textwrap.dedent("""
        import transformers
        from transformers.utils import is_torch_available
        from transformers import GPT2Config, GPT2LMHeadModel
        import torch
        torch.manual_seed(0)
        model = GPT2LMHeadModel(GPT2Config(vocab_size=11, n_positions=8, n_embd=8, n_layer=1, n_head=2))
        ids = torch.tensor([[1, 2, 3, 4]])
        print(is_torch_available(), transformers.utils.import_utils.get_torch_version(), tuple(model(ids).logits.shape))
    """))
    out = subprocess.run([sys.executable, str(wrapper), str(probe)], capture_output=True, text=True, timeout=600,
                         env=_env(), cwd=str(tmp_path))
    assert out.returncode == 0, out.stderr[-4000:]
    assert out.stdout.splitlines()[-1] == "True 2.13.0 (1, 4, 11)"
