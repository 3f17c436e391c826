"""accelerate under the drop-in runner, compared with real torch, and the torch APIs it reaches for.

tests/programs/lib_accelerate_train.py runs once with real torch and once under ``python -m torchlike run``:
``Accelerator(cpu=True)`` with gradient accumulation, ``prepare`` (model, optimizer, dataloader, scheduler),
``backward``, ``clip_grad_norm_``, ``gather``/``gather_for_metrics``/``reduce``, ``save_state``/``load_state``,
``unwrap_model`` and ``save_model``; every step's loss must match. The program check runs only where accelerate
is installed; the shim checks below need only torch (the oracle).
"""
import os
import subprocess
import sys
import textwrap

import pytest
from conftest import run_program, same_printed_lines

torch = pytest.importorskip("torch", reason="the expected values come from torch")

import torchlike  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, "programs")


def test_accelerate_program_matches_torch(tmp_path):
    pytest.importorskip("accelerate", reason="accelerate is not installed")
    script = os.path.join(PROGRAMS, "lib_accelerate_train.py")
    expected = run_program([script, str(tmp_path / "torch")], runner=False, timeout=600)
    ours = run_program([script, str(tmp_path / "torchlike")], runner=True, timeout=600)
    same_printed_lines(expected, ours, rtol=1e-5)
    assert sum(line.startswith("epoch ") for line in ours) == 12
    assert "load_state restores True" in ours and ours[-1] == "done"
    # what accelerate saved under torchlike, real torch loads (weights_only) and it equals torch's own run's
    for name in ("optimizer.bin", "scheduler.bin"):
        ref = torch.load(str(tmp_path / "torch" / "state" / name), weights_only=True)
        got = torch.load(str(tmp_path / "torchlike" / "state" / name), weights_only=True)
        assert got.keys() == ref.keys(), name
        if name == "optimizer.bin":
            assert got["param_groups"] == ref["param_groups"]
            for i, st in ref["state"].items():
                for k, v in st.items():
                    torch.testing.assert_close(got["state"][i][k], v, rtol=1e-5, atol=1e-6)


def test_three_libraries_import_without_torch_installed(tmp_path):
    pytest.importorskip("accelerate", reason="accelerate is not installed")
    pytest.importorskip("pytorch_lightning", reason="pytorch-lightning is not installed")
    pytest.importorskip("torchmetrics", reason="torchmetrics is not installed")
    from test_libraries import _HIDE_TORCH, _env
    wrapper, probe = tmp_path / "hide_torch.py", tmp_path / "probe.py"
    wrapper.write_text(_HIDE_TORCH)
    probe.write_text(textwrap.dedent("""
        import accelerate, pytorch_lightning as pl, torch, torchmetrics
        from accelerate.utils import is_torch_version
        acc = accelerate.Accelerator(cpu=True)
        acc_metric = torchmetrics.Accuracy(task="binary")(torch.tensor([0.9, 0.2]), torch.tensor([1, 1]))
        print(is_torch_version(">=", "2.0"), str(acc.device), issubclass(pl.LightningModule, torch.nn.Module),
              acc_metric.item())
        m = torchmetrics.SumMetric()   # a Metric's states are torchlike tensors; state_dict/clone/to work on them
        m.persistent(True)
        m.update(torch.tensor([1.0, 2.0, 4.0]))
        c = m.clone().to("cpu")
        print(isinstance(m.sum_value, torch.Tensor), m.compute().item(), c.compute().item(), sorted(m.state_dict()))
    """))
    out = subprocess.run([sys.executable, str(wrapper), str(probe)], capture_output=True, text=True, timeout=600,
                         env=_env(), cwd=str(tmp_path))
    assert out.returncode == 0, out.stderr[-4000:]
    assert out.stdout.splitlines()[-2:] == ["True cpu True 0.5", "True 7.0 7.0 ['sum_value']"]


def test_device_equals_only_devices_as_torch():
    for lib in (torch, torchlike):
        d = lib.device("cpu")
        assert [d == "cpu", d == "npu", d == "cpu:0", d == 0, d == None, d != "npu"] == \
            [False, False, False, False, False, True]  # noqa: E711 - the comparison is what is tested
        assert d == lib.device("cpu") and d != lib.device("meta")
        assert hash(d) == hash(lib.device("cpu"))


def test_join_in_a_world_of_one_runs_post_hooks():
    from torchlike.distributed.algorithms import Join, JoinHook, Joinable
    from torchlike.distributed.constants import default_pg_timeout

    assert default_pg_timeout == torch.distributed.constants.default_pg_timeout
    calls = []

    class Hook(JoinHook):
        def post_hook(self, is_last_joiner):
            calls.append(is_last_joiner)

    class J(Joinable):
        def __init__(self):
            super().__init__()

        def join_hook(self, **kwargs):
            return Hook()

        @property
        def join_device(self):
            return torchlike.device("cpu")

        @property
        def join_process_group(self):
            return None

    a, b = J(), J()
    with Join([a, b]):
        assert Join.notify_join_context(a) is None
    assert calls == [True, True]
    assert a._join_config.is_first_joinable and not b._join_config.is_first_joinable
    with Join([a], enable=False):
        pass
    assert calls == [True, True]
    for lib in (torch, torchlike):
        with pytest.raises(ValueError, match="The join context manager requires at least one joinable"):
            lib.distributed.algorithms.join.Join([])


def test_fsdp_names_are_one_placeholder(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text(textwrap.dedent("""
        from torch.distributed.fsdp.fully_sharded_data_parallel import FullyShardedDataParallel as A
        from torch.distributed.fsdp import FullyShardedDataParallel as B
        import torch
        print(A is B, isinstance(torch.nn.Linear(1, 1), A))
        print(type(A(torch.nn.Linear(1, 1))).__name__ == "FullyShardedDataParallel")  # real FSDP1 now
    """))
    assert run_program([str(probe)], runner=True, timeout=300) == ["True False", "True"]
