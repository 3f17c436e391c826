"""torch.distributed.checkpoint (dcp.save / dcp.load) against torch: the same program (tests/programs/dist_dcp.py,
the DCP tutorial's AppState pattern over FSDP2) saves with 2 ranks and loads with 2 and with 1, under torch's
torchrun and under torchlike's runner + launcher; checkpoint directories cross over both ways (torchlike loads
torch's, torch loads torchlike's). Single-process checks cover the errors and the on-disk format."""
import os
import pickle
import subprocess
import sys
import warnings

import numpy as np
import pytest

from conftest import same_printed_lines

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROGRAM = os.path.join(ROOT, "tests", "programs", "dist_dcp.py")


def _run(ours, nproc, *args):
    env = dict(os.environ, PYTHONPATH=ROOT, JAX_PLATFORMS="cpu", TORCHLIKE_COMPILATION_CACHE="0",
               OMP_NUM_THREADS="1")
    env.pop("XLA_FLAGS", None)
    launcher = ["torchlike", "run", "-m", "torch.distributed.run"] if ours else ["torch.distributed.run"]
    cmd = [sys.executable, "-m", *launcher, "--standalone", "--nproc-per-node", str(nproc), PROGRAM, *args]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return sorted(ln.split(": ", 1)[-1] if ln.startswith("[rank") else ln
                  for ln in r.stdout.splitlines() if ln.startswith(("R0 ", "R1 ", "[rank")))


@pytest.fixture(scope="module")
def ckpts(tmp_path_factory):
    """torch's and torchlike's checkpoints of the same 2-rank training, and what each program printed."""
    base = tmp_path_factory.mktemp("dcp")
    theirs, ours = str(base / "torch"), str(base / "torchlike")
    return {"torch": theirs, "ours": ours, "torch_save": _run(False, 2, "save", theirs),
            "ours_save": _run(True, 2, "save", ours)}


@pytest.fixture(scope="module")
def torch_loads(ckpts):
    return {n: _run(False, n, "load", ckpts["torch"]) for n in (1, 2)}


def test_save_writes_torchs_layout(ckpts):
    theirs, ours = ckpts["torch_save"], ckpts["ours_save"]
    same_printed_lines(theirs, ours, rtol=1e-5)
    assert "R0 files ['.metadata', '__0_0.distcp', '__1_0.distcp'] version 1.0.0" in ours
    # sharded entries are stored as each rank's chunk (torch.chunk pieces of dim 0), as torch stores them
    assert "R0 md extra.w T torch.float32 (5, 3) [((0, 0), (3, 3)), ((3, 0), (2, 3))]" in ours
    assert any(ln.startswith("R0 md app.optim.state.2.weight.exp_avg T torch.float32 (3, 8) "
                             "[((0, 0), (2, 8)), ((2, 0), (1, 8))]") for ln in ours)


@pytest.mark.parametrize("nproc", [2, 1])
def test_load_resharded_from_torchlike_checkpoint(ckpts, torch_loads, nproc):
    ours = _run(True, nproc, "load", ckpts["ours"])
    same_printed_lines(torch_loads[nproc], ours, rtol=1e-5)
    if nproc == 2:
        assert any(ln.startswith("R1 epoch 3 b [1, 1, 1, 1]") and ln.endswith("local (2, 3)") for ln in ours)


@pytest.mark.parametrize("nproc", [2, 1])
def test_load_checkpoint_written_by_torch(ckpts, torch_loads, nproc):
    same_printed_lines(torch_loads[nproc], _run(True, nproc, "load", ckpts["torch"]), rtol=1e-5)


def test_torch_loads_checkpoint_written_by_torchlike(ckpts, torch_loads):
    same_printed_lines(torch_loads[1], _run(False, 1, "load", ckpts["ours"]), rtol=1e-5)


# ---- single process -------------------------------------------------------------------------------------
def _errors(mod, path):
    import_dcp = __import__(f"{mod.__name__}.distributed.checkpoint", fromlist=["x"])
    out = []
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        import_dcp.save({"a": mod.ones(2, 3), "n": 4}, checkpoint_id=path)
        out.append(str(w[0].message))
    for sd in ({"a": mod.zeros(2, 3), "missing": mod.zeros(1)}, {"a": mod.zeros(3, 2)}):
        try:
            import_dcp.load(sd, checkpoint_id=path, no_dist=True)
        except BaseException as e:  # torch's CheckpointException is a BaseException
            lines = str(e).splitlines()
            out.append((type(e).__name__, lines[0], lines[1], lines[-1]))
    sd = {"a": mod.zeros(2, 3), "n": 0}
    import_dcp.load(sd, checkpoint_id=path, no_dist=True)
    out.append((sd["a"].sum().item(), sd["n"]))
    return out


@pytest.mark.filterwarnings("ignore:torch.distributed is disabled")
def test_single_process_messages_match_torch(tmp_path):
    import torch

    import torchlike
    assert _errors(torchlike, str(tmp_path / "ours")) == _errors(torch, str(tmp_path / "theirs"))


@pytest.mark.filterwarnings("ignore:torch.distributed is disabled")
def test_metadata_pickle_names_torchs_classes(tmp_path):
    import torch
    import torch.distributed.checkpoint as tdcp

    import torchlike
    import torchlike.distributed.checkpoint as dcp
    dcp.save({"w": torchlike.arange(6.).reshape(2, 3), "cfg": {"lr": 0.5}}, checkpoint_id=str(tmp_path),
             no_dist=True)
    with open(tmp_path / ".metadata", "rb") as f:
        md = pickle.load(f)  # plain pickle, with torch importable: every class is torch's own
    assert type(md) is tdcp.metadata.Metadata
    assert md.state_dict_metadata["w"].properties.dtype is torch.float32
    assert md.state_dict_metadata["w"].size == torch.Size([2, 3])
    assert isinstance(md.state_dict_metadata["cfg.lr"], tdcp.metadata.BytesStorageMetadata)
    assert md.planner_data == {"w": ("w",), "cfg.lr": ("cfg", "lr")}
    ((index, info),) = [(i, s) for i, s in md.storage_data.items() if i.fqn == "w"]
    assert type(info).__module__ == "torch.distributed.checkpoint.filesystem" and info.relative_path == "__0_0.distcp"
    with open(tmp_path / info.relative_path, "rb") as f:
        f.seek(info.offset)
        import io
        chunk = torch.load(io.BytesIO(f.read(info.length)), weights_only=True)
    np.testing.assert_array_equal(chunk.numpy(), np.arange(6.).reshape(2, 3))


@pytest.mark.filterwarnings("ignore:torch.distributed is disabled")
def test_format_utils_convert_like_torch(tmp_path):
    import torch
    from torch.distributed.checkpoint import format_utils as tfu

    from torchlike.distributed.checkpoint import format_utils as ofu
    sd = {"model": {"w": torch.arange(6.).reshape(2, 3), "b": torch.ones(2, dtype=torch.int64)},
          "opt": {"param_groups": [{"lr": 0.1, "params": ["w"]}], "state": {"w": {"step": torch.tensor(3.)}}},
          "layers": [torch.zeros(2), torch.ones(1)], "epoch": 4}
    torch.save(sd, tmp_path / "full.pt")
    tfu.torch_save_to_dcp(tmp_path / "full.pt", tmp_path / "theirs")
    ofu.torch_save_to_dcp(str(tmp_path / "full.pt"), str(tmp_path / "ours"))
    for src in ("theirs", "ours"):  # each directory converted back by both
        tfu.dcp_to_torch_save(tmp_path / src, tmp_path / f"{src}_t.pt")
        ofu.dcp_to_torch_save(str(tmp_path / src), str(tmp_path / f"{src}_o.pt"))
    want = torch.load(tmp_path / "theirs_t.pt", weights_only=False)
    assert repr(want) == repr(sd)
    for name in ("theirs_o.pt", "ours_t.pt", "ours_o.pt"):
        assert repr(torch.load(tmp_path / name, weights_only=False)) == repr(want), name
