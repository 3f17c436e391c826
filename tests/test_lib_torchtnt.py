"""torchtnt 0.2.4 under the drop-in runner, compared line by line with real torch: an AutoUnit trained with ``fit``
(SGD + StepLR per epoch, gradient accumulation, gradient clipping, an EMA AveragedModel, the Lambda callback and a
Timer), ``evaluate``, ``predict`` with an AutoPredictUnit, EarlyStopping, a hand-written TrainUnit under ``train``, a
DistributedCheckpointSaver checkpoint restored into a fresh unit, and torchtnt's utilities (seed,
copy_data_to_device, get_module_summary's FLOP counts through a TorchDispatchMode, a RoundRobin iterator).

Found: torchtnt's imports reached torch module paths torchlike lacked, each now the module torch has, holding the
same objects as the public names (checked below next to torch): ``torch.cuda.streams``, ``torch.cuda.amp``'s
``autocast_mode`` / ``grad_scaler`` / ``common`` (torchlike.cuda.amp became a package), ``torch._ops``'s operator
classes (``OpOverload``, ``_OpNamespace``, ...), ``torch.distributed.distributed_c10d``,
``torch.distributed._composable_state`` and ``torch.distributed.fsdp._common_utils._FSDPState`` (a base of
FullyShardedDataParallel, as in torch), ``torch.distributed.fsdp.fully_sharded_data_parallel``'s re-exported api
names, ``torch.distributed.launcher.LaunchConfig``, ``torch.distributed.elastic.utils.distributed.get_free_port``,
and ``torch.distributed.checkpoint``'s ``planner`` / ``default_planner`` / ``storage`` / ``_fsspec_filesystem``
(local paths). torchtnt imports ``pkg_resources``, gone from setuptools 81; the program stubs it."""
import importlib

from conftest import lib_program_vs_torch


def test_torchtnt_fit_callbacks_checkpoint_and_utils_like_torch():
    t, ours = lib_program_vs_torch("lib_torchtnt.py", "torchtnt", timeout=600, rtol=1e-4)
    assert len(ours) == 14, ours
    assert ours[2].startswith("lrs [0.05, 0.025, 0.0125] events [('start', 0), ('eval', 1)"), ours[2]
    assert ours[3] == "progress 3 18 6", ours[3]
    assert ours[10] == "checkpoint ['epoch_1_train_step_6', 'epoch_2_train_step_12'] True 2 0.025", ours[10]
    assert ours[12] == t[12] and ours[12].startswith("summary Sequential 113 113 452 384 448"), ours[12]


def _module_paths(root):
    """What library code sees at the module paths torchtnt imports, under ``root`` (torch or torchlike)."""
    def mod(name):
        return importlib.import_module(f"{root}.{name}")
    top = importlib.import_module(root)
    cuda_amp = mod("cuda.amp")
    ops = mod("_ops")
    c10d = mod("distributed.distributed_c10d")
    dist = mod("distributed")
    fsdp = mod("distributed.fsdp")
    fsdp_mod = mod("distributed.fsdp.fully_sharded_data_parallel")
    common = mod("distributed.fsdp._common_utils")
    state = mod("distributed._composable_state")
    dcp = mod("distributed.checkpoint")
    fsspec_fs = mod("distributed.checkpoint._fsspec_filesystem")
    launcher = mod("distributed.launcher")
    port = mod("distributed.elastic.utils.distributed").get_free_port()
    cfg = launcher.LaunchConfig(min_nodes=1, max_nodes=2, nproc_per_node=3)
    cfg2 = launcher.LaunchConfig(min_nodes=1, max_nodes=1, nproc_per_node=1, rdzv_timeout=5)
    m = top.nn.Linear(2, 2)
    return {
        "streams": (mod("cuda.streams").Stream is top.cuda.Stream, mod("cuda.streams").Event is top.cuda.Event,
                    mod("cuda.streams").ExternalStream is top.cuda.ExternalStream),
        "amp": (mod("cuda.amp.grad_scaler").GradScaler is cuda_amp.GradScaler,
                mod("cuda.amp.autocast_mode").autocast is cuda_amp.autocast,
                mod("cuda.amp.autocast_mode").custom_fwd is cuda_amp.custom_fwd,
                mod("cuda.amp.common").amp_definitely_not_available()),
        "ops": (isinstance(top.ops.aten, ops._OpNamespace), isinstance(top.ops.aten.add.Tensor, ops.OpOverload),
                isinstance(top.ops.aten.add, ops.OpOverloadPacket), isinstance(top.ops.aten.add, ops.OpOverload)),
        "c10d": tuple(getattr(c10d, n) is getattr(dist, n)
                      for n in ("Work", "ProcessGroup", "ReduceOp", "get_rank", "all_reduce", "is_initialized",
                                "new_group", "broadcast_object_list", "GroupMember")),
        "state": (state._get_module_state(m), issubclass(fsdp.FullyShardedDataParallel, common._FSDPState),
                  issubclass(common._FSDPState, state._State)),
        "fsdp_names": tuple(getattr(fsdp_mod, n) is getattr(fsdp, n)
                            for n in ("BackwardPrefetch", "CPUOffload", "MixedPrecision", "ShardingStrategy",
                                      "StateDictType", "FullStateDictConfig")),
        "launch": (cfg.rdzv_configs, cfg.max_restarts, cfg.rdzv_backend, cfg.start_method, cfg.role,
                   cfg.shutdown_timeout, cfg2.rdzv_configs),
        "port": (type(port), 0 < port < 65536),
        "dcp": (mod("distributed.checkpoint.planner").SavePlanner is dcp.SavePlanner,
                mod("distributed.checkpoint.default_planner").DefaultLoadPlanner is dcp.DefaultLoadPlanner,
                issubclass(dcp.FileSystemWriter, mod("distributed.checkpoint.storage").StorageWriter),
                issubclass(dcp.FileSystemReader, dcp.StorageReader),
                issubclass(fsspec_fs.FsspecWriter, dcp.FileSystemWriter),
                issubclass(fsspec_fs.FsspecReader, dcp.FileSystemReader)),
    }


def test_module_paths_torchtnt_imports_hold_what_torchs_do():
    theirs = _module_paths("torch")
    ours = _module_paths("torchlike")
    assert ours == theirs


def test_fsspec_writer_round_trip_on_a_local_path(tmp_path):
    import torch

    import torchlike
    from torchlike.distributed.checkpoint._fsspec_filesystem import FsspecReader, FsspecWriter
    sd = {"w": torchlike.arange(6.0).reshape(2, 3), "step": 3}
    torchlike.distributed.checkpoint.save(sd, storage_writer=FsspecWriter(f"file://{tmp_path}/a"))
    # torch reads the directory torchlike's FsspecWriter wrote, and torchlike's FsspecReader reads it back
    out = {"w": torch.zeros(2, 3), "step": 0}
    torch.distributed.checkpoint.load(out, checkpoint_id=str(tmp_path / "a"))
    assert out["step"] == 3 and torch.equal(out["w"], torch.arange(6.0).reshape(2, 3))
    back = {"w": torchlike.zeros(2, 3), "step": 0}
    torchlike.distributed.checkpoint.load(back, storage_reader=FsspecReader(str(tmp_path / "a")))
    assert back["step"] == 3 and back["w"].tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
