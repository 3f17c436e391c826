"""FSDP2 (fully_shard) and FSDP1 (FullyShardedDataParallel): typical 2-rank training scripts run under torch's
torchrun and under torchlike's runner + launcher print the same lines (losses, gradient norms, state-dict keys
and values) within 1e-5; single-process checks against torch's plain training and torch's wrap policies."""
import functools
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from conftest import free_port, same_printed_lines

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _lines(launcher, script, *args, nproc=2):
    env = dict(os.environ, PYTHONPATH=ROOT, JAX_PLATFORMS="cpu", TORCHLIKE_COMPILATION_CACHE="0",
               OMP_NUM_THREADS="1")
    env.pop("XLA_FLAGS", None)
    cmd = [sys.executable, "-m", *launcher, "--standalone", "--nproc-per-node", str(nproc),
           os.path.join(ROOT, "tests", "programs", script), *args]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return sorted(ln.split(": ", 1)[-1] if ln.startswith("[rank") else ln
                  for ln in r.stdout.splitlines() if re.search(r"(^|: )R\d ", ln))


def _same_as_torchrun(script, *args, nproc=2):
    theirs = _lines(["torch.distributed.run"], script, *args, nproc=nproc)
    ours = _lines(["torchlike", "run", "-m", "torch.distributed.run"], script, *args, nproc=nproc)
    same_printed_lines(theirs, ours, rtol=1e-5)
    return theirs


def test_fsdp2_script_prints_what_torch_prints():
    lines = _same_as_torchrun("dist_fsdp2_train.py")
    assert len(lines) == 24
    # each rank holds half of fc1.weight (24 rows): really sharded, as torch's DTensor local shards
    assert any("local (12, 8)" in ln for ln in lines)


def test_fsdp2_hsdp_mesh_prints_what_torch_prints():
    """fully_shard over a (2, 2) mesh on 4 ranks (HSDP): placements (Replicate(), Shard(0)), shards of half the
    rows, gradients averaged over both replica groups, clip_grad_norm_ and state dicts as torch's."""
    lines = _same_as_torchrun("dist_fsdp2_train.py", "hsdp", nproc=4)
    assert len(lines) == 46 and "R3 placements (Replicate(), Shard(dim=0))" in lines


@pytest.mark.parametrize("policy", ["FULL_SHARD", "size", "HYBRID_SHARD"])
def test_fsdp1_script_prints_what_torch_prints(policy):
    lines = _same_as_torchrun("dist_fsdp1_train.py", policy)
    assert any(ln.startswith("R0 keys ['inp.weight'") for ln in lines)


def test_hsdp_two_replica_groups_prints_what_torch_prints():
    """HYBRID_SHARD over a (2, 2) mesh on 4 ranks: parameters sharded within each row, gradients reduce-scattered
    there and averaged over the replicas; clip_grad_norm_ over the shard group; rank0_only state dicts on each
    replica group's rank 0 (ranks 0 and 2), as torch."""
    lines = _same_as_torchrun("dist_fsdp1_train.py", "HYBRID_SHARD_2x2", nproc=4)
    assert len(lines) == 22 and "R2 sd 12" in lines and "R3 sd 0" in lines


# ---- single process ---------------------------------------------------------------------------------------
@pytest.fixture
def one_rank():
    import torchlike.distributed as dist
    yield
    if dist.is_initialized():
        dist.destroy_process_group()


def _net(mod):
    mod.manual_seed(0)
    return mod.nn.Sequential(mod.nn.Linear(5, 7), mod.nn.Tanh(), mod.nn.Linear(7, 3))


def _train(mod, model, steps=4):
    opt = mod.optim.AdamW(model.parameters(), lr=1e-2)
    g = mod.Generator().manual_seed(3)
    losses = []
    for _ in range(steps):
        x, y = mod.randn(6, 5, generator=g), mod.randn(6, 3, generator=g)
        loss = mod.nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def test_fully_shard_one_rank_trains_like_torch_unsharded(one_rank):
    import torch

    import torchlike
    from torchlike.distributed.fsdp import FSDPModule, fully_shard
    from torchlike.distributed.tensor import DTensor, Shard
    ours = _net(torchlike)
    fully_shard(ours[0])
    fully_shard(ours)
    assert isinstance(ours, FSDPModule) and type(ours).__name__ == "FSDPSequential"
    assert isinstance(ours[2].weight, DTensor) and ours[2].weight.placements == (Shard(0),)
    assert isinstance(ours[2].weight, torchlike.nn.Parameter)
    np.testing.assert_allclose(_train(torchlike, ours), _train(torch, _net(torch)), rtol=1e-6)
    assert isinstance(ours[0].weight.grad, DTensor)


def test_fsdp1_one_rank_state_dict_and_reload(one_rank):
    import torch

    import torchlike
    from torchlike.distributed.fsdp import FullyShardedDataParallel as FSDP
    from torchlike.distributed.fsdp import StateDictType
    ours = FSDP(_net(torchlike))
    theirs = _net(torch)
    np.testing.assert_allclose(_train(torchlike, ours), _train(torch, theirs), rtol=1e-6)
    sd = ours.state_dict()
    assert list(sd) == list(theirs.state_dict())
    for k, v in theirs.state_dict().items():
        np.testing.assert_allclose(sd[k].numpy(), v.numpy(), rtol=1e-6, atol=1e-7)
    with FSDP.state_dict_type(ours, StateDictType.SHARDED_STATE_DICT):
        assert all(type(v).__name__ == "DTensor" for v in ours.state_dict().values())
    fresh = FSDP(_net(torchlike))
    fresh.load_state_dict(sd)
    x = torchlike.ones(2, 5)
    np.testing.assert_allclose(fresh(x).detach().numpy(), theirs(torch.ones(2, 5)).detach().numpy(), rtol=1e-6)


def test_state_dict_helpers_match_torch_layout(one_rank):
    import torch
    from torch.distributed.checkpoint import state_dict as tsd

    import torchlike
    from torchlike.distributed.checkpoint import state_dict as osd
    from torchlike.distributed.fsdp import fully_shard
    assert repr(osd.StateDictOptions()).split("(", 1)[1] == repr(tsd.StateDictOptions()).split("(", 1)[1]
    ours, theirs = _net(torchlike), _net(torch)
    fully_shard(ours)
    o_opt, t_opt = torchlike.optim.AdamW(ours.parameters()), torch.optim.AdamW(theirs.parameters())
    for m, opt, mod in ((ours, o_opt, torchlike), (theirs, t_opt, torch)):
        m(mod.ones(2, 5)).sum().backward()
        opt.step()
    full = osd.StateDictOptions(full_state_dict=True)
    o_sd = osd.get_optimizer_state_dict(ours, o_opt, options=full)
    t_sd = tsd.get_optimizer_state_dict(theirs, t_opt)
    assert sorted(o_sd) == sorted(t_sd) == ["param_groups", "state"]
    assert list(o_sd["state"]) == list(t_sd["state"])
    assert o_sd["param_groups"][0]["params"] == t_sd["param_groups"][0]["params"]
    for k in t_sd["state"]:
        for s in ("exp_avg", "exp_avg_sq"):
            np.testing.assert_allclose(o_sd["state"][k][s].numpy(), t_sd["state"][k][s].numpy(), rtol=1e-6)
    m_sd = osd.get_model_state_dict(ours, options=full)
    assert list(m_sd) == list(tsd.get_model_state_dict(theirs))
    # round trip: load the full state into a fresh sharded model
    fresh = _net(torchlike)
    fully_shard(fresh)
    osd.set_model_state_dict(fresh, m_sd)
    np.testing.assert_allclose(fresh(torchlike.ones(1, 5)).detach().numpy(),
                               theirs(torch.ones(1, 5)).detach().numpy(), rtol=1e-6)


def test_wrap_policies_decide_like_torch():
    import torch
    from torch.distributed.fsdp import wrap as twrap

    import torchlike
    from torchlike.distributed.fsdp import wrap as owrap
    cases = []
    for mod, w in ((torchlike, owrap), (torch, twrap)):
        lin, seq = mod.nn.Linear(3, 3), mod.nn.ModuleList([mod.nn.Linear(3, 3)])
        mha = mod.nn.MultiheadAttention(4, 2)
        out = []
        for m in (lin, seq, mha):
            for recurse in (True, False):
                for numel in (5, 500):
                    out.append(w.size_based_auto_wrap_policy(m, recurse, numel, min_num_params=100))
                    out.append(w.transformer_auto_wrap_policy(m, recurse, numel, transformer_layer_cls={type(lin)}))
                    out.append(w.lambda_auto_wrap_policy(m, recurse, numel, lambda_fn=lambda x: x is lin))
                    out.append(bool(w.ModuleWrapPolicy({type(lin)})(m, recurse, numel)))
        cases.append(out)
    assert cases[0] == cases[1]
    pol = functools.partial(owrap.transformer_auto_wrap_policy, transformer_layer_cls={torchlike.nn.Linear})
    assert pol(module=torchlike.nn.Linear(1, 1), recurse=False, nonwrapped_numel=0)


def test_config_types_match_torch():
    import torch.distributed.fsdp as tf

    import torchlike.distributed.fsdp as of
    for name in ("ShardingStrategy", "StateDictType", "BackwardPrefetch"):
        assert [(e.name, e.value) for e in getattr(of, name)] == [(e.name, e.value) for e in getattr(tf, name)]
    assert repr(of.FullStateDictConfig(True, True)) == repr(tf.FullStateDictConfig(True, True))
    assert repr(of.CPUOffload()) == repr(tf.CPUOffload())
    assert of.fully_shard.__module__ == tf.fully_shard.__module__.replace("torch", "torchlike")
    import torchlike.distributed._composable.fsdp as comp
    assert comp.fully_shard is of.fully_shard


def test_gradient_accumulation_without_sync_like_torch(one_rank):
    import torch

    import torchlike
    from torchlike.distributed.fsdp import FullyShardedDataParallel as FSDP
    from torchlike.distributed.fsdp import fully_shard
    two = _net(torchlike)
    fully_shard(two)
    one = FSDP(_net(torchlike))
    ref = _net(torch)
    xs = [torch.randn(4, 5, generator=torch.Generator().manual_seed(i)) for i in range(2)]
    for i, x in enumerate(xs):
        two.set_requires_gradient_sync(i == 1)
        two(torchlike.tensor(x.numpy())).pow(2).sum().backward()
        if i == 0:
            assert two[0].weight.grad is None  # no reduce-scatter yet: the full gradient waits locally
            with one.no_sync():
                one(torchlike.tensor(x.numpy())).pow(2).sum().backward()
        else:
            one(torchlike.tensor(x.numpy())).pow(2).sum().backward()
        ref(x).pow(2).sum().backward()
    for name, p in ref.named_parameters():
        a = dict(two.named_parameters())[name].grad.full_tensor()
        b = dict(one.named_parameters())["_fsdp_wrapped_module." + name].grad.full_tensor()
        np.testing.assert_allclose(a.numpy(), p.grad.numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(b.numpy(), p.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_clip_grad_norm_on_sharded_gradients_like_torch(one_rank):
    import torch

    import torchlike
    from torchlike.distributed.fsdp import fully_shard
    ours, theirs = _net(torchlike), _net(torch)
    fully_shard(ours)
    ours(torchlike.ones(3, 5)).sum().backward()
    theirs(torch.ones(3, 5)).sum().backward()
    n1 = torchlike.nn.utils.clip_grad_norm_(ours.parameters(), 0.1)
    n2 = torch.nn.utils.clip_grad_norm_(theirs.parameters(), 0.1)
    assert abs(n1.item() - n2.item()) < 1e-5
    np.testing.assert_allclose(ours[0].weight.grad.full_tensor().numpy(), theirs[0].weight.grad.numpy(), rtol=1e-5)


def test_hybrid_shard_mesh_checks_raise_torchs_errors(one_rank):
    """HSDP's argument checks against torch's (one rank, gloo): both a group and a mesh, manual wrapping without
    either, and a 1-d mesh; a (1, 1) mesh trains like FULL_SHARD (replica groups: the 4-rank test above)."""
    torch = pytest.importorskip("torch", reason="torch is the oracle")

    import torch.distributed as tdist
    from torch.distributed.device_mesh import init_device_mesh as t_mesh
    from torch.distributed.fsdp import FullyShardedDataParallel as TFSDP
    from torch.distributed.fsdp import ShardingStrategy as TS

    import torchlike
    import torchlike.distributed as dist
    from torchlike.distributed.device_mesh import init_device_mesh as l_mesh
    from torchlike.distributed.fsdp import FullyShardedDataParallel as LFSDP
    from torchlike.distributed.fsdp import ShardingStrategy as LS
    tdist.init_process_group("gloo", rank=0, world_size=1, init_method=f"tcp://127.0.0.1:{free_port()}")
    dist.init_process_group("gloo", rank=0, world_size=1, init_method="tcp://127.0.0.1:0")
    try:
        cases = [(dict(sharding_strategy="HYBRID_SHARD", device_mesh=(1,)), "one-d"),
                 (dict(sharding_strategy="HYBRID_SHARD"), "manual"),
                 (dict(sharding_strategy="FULL_SHARD", device_mesh=(1,), process_group="world"), "both")]
        for kw, what in cases:
            errs = []
            for mod, fsdp, strat, mesh, group in ((torch, TFSDP, TS, t_mesh, tdist.group.WORLD),
                                                  (torchlike, LFSDP, LS, l_mesh, dist.group.WORLD)):
                args = dict(sharding_strategy=getattr(strat, kw["sharding_strategy"]), device_id=mod.device("cpu"))
                if "device_mesh" in kw:
                    args["device_mesh"] = mesh("cpu", kw["device_mesh"])
                if "process_group" in kw:
                    args["process_group"] = group
                with pytest.raises(Exception) as e:
                    fsdp(mod.nn.Linear(3, 2), **args)
                errs.append((type(e.value), str(e.value)))
            assert errs[0] == errs[1], what
        tm = TFSDP(_net(torch), sharding_strategy=TS.HYBRID_SHARD, device_mesh=t_mesh("cpu", (1, 1)),
                   device_id=torch.device("cpu"))
        lm = LFSDP(_net(torchlike), sharding_strategy=LS.HYBRID_SHARD, device_mesh=l_mesh("cpu", (1, 1)))
        np.testing.assert_allclose(_train(torchlike, lm), _train(torch, tm), rtol=1e-5)
    finally:
        tdist.destroy_process_group()


# ---- PyTorch's FSDP tutorials, unchanged, against torchrun -----------------------------------------------------
def test_fsdp1_tutorial_prints_what_torch_prints():
    """The FSDP1 tutorials' script (size-based wrapping, MixedPrecision, StepLR, FULL_STATE_DICT rank0_only,
    FSDP.optim_state_dict / optim_state_dict_to_load, SHARDED_STATE_DICT through dcp, resumed training)."""
    lines = _same_as_torchrun("dist_fsdp1_tutorial.py", "fp64", "size")
    assert len(lines) == 30
    assert any(ln.startswith("R0 optim keys ['param_groups', 'state'] ['conv1.weight'") for ln in lines)
    assert any(ln.startswith("R1 summoned fc1.weight (16, 36) torch.float32") for ln in lines)  # full precision


@pytest.mark.parametrize("mode", [("manual", "mp"), ("dcp",)])
def test_fsdp2_example_prints_what_torch_prints(mode):
    """pytorch/examples' FSDP2 example: meta-device model, to_empty, MixedPrecisionPolicy, prefetch settings,
    its Checkpointer (manual: nn.Parameter(distribute_tensor(...)) + load_state_dict(assign=True) and the
    optimizer state rebuilt with distribute_tensor; dcp: the state-dict API with broadcast_from_rank0)."""
    lines = _same_as_torchrun("dist_fsdp2_tutorial.py", *mode)
    assert len(lines) == (30 if mode[0] == "manual" else 22)
    assert any(ln.startswith("R0 resumed lr 0.01 state 29") for ln in lines)


@pytest.fixture
def both_groups():
    """One-rank gloo process groups of torch and of torchlike (DTensor and FSDP need them in torch)."""

    import torch.distributed as tdist

    import torchlike.distributed as dist
    tdist.init_process_group("gloo", rank=0, world_size=1, init_method=f"tcp://127.0.0.1:{free_port()}")
    dist.init_process_group("gloo", rank=0, world_size=1, init_method="tcp://127.0.0.1:0")
    try:
        yield
    finally:
        tdist.destroy_process_group()
        dist.destroy_process_group()


def test_dtensor_parameters_and_optimizer_state_like_torch(both_groups):
    """nn.Parameter(DTensor) stays a DTensor; zeros_like/empty_like of one keep its layout; a fully_shard model's
    Adam state is DTensors (step a plain tensor); a meta-device model after to_empty keeps its sharding."""
    import torch
    from torch.distributed.device_mesh import init_device_mesh as t_mesh
    from torch.distributed.fsdp import fully_shard as t_shard
    from torch.distributed.tensor import Shard as TShard
    from torch.distributed.tensor import distribute_tensor as t_dist

    import torchlike
    from torchlike.distributed.device_mesh import init_device_mesh as l_mesh
    from torchlike.distributed.fsdp import fully_shard as l_shard
    from torchlike.distributed.tensor import Shard as LShard
    from torchlike.distributed.tensor import distribute_tensor as l_dist
    seen = []
    for mod, mesh, dist_t, shard, fs in ((torch, t_mesh, t_dist, TShard, t_shard),
                                         (torchlike, l_mesh, l_dist, LShard, l_shard)):
        p = mod.nn.Parameter(dist_t(mod.arange(12.).reshape(4, 3), mesh("cpu", (1,)), [shard(0)]))
        z, e = mod.zeros_like(p), mod.empty_like(p, dtype=mod.float64)
        out = [type(p).__name__, isinstance(p, mod.nn.Parameter), p.requires_grad, p.full_tensor().sum().item(),
               type(z).__name__, str(z.placements), type(e).__name__, str(e.dtype)]
        with mod.device("meta"):
            net = _net(mod)
        fs(net)
        net.to_empty(device="cpu")
        with mod.no_grad():
            for q, r in zip(net.parameters(), _net(mod).parameters()):
                q.to_local().copy_(r)  # the local tensor shares the parameter's storage
        losses = _train(mod, net, steps=2)
        opt = mod.optim.Adam(net.parameters(), lr=1e-2)
        net(mod.ones(2, 5)).sum().backward()
        opt.step()
        st = opt.state[net[0].weight]
        out += [str(net[0].weight.device), type(st["exp_avg"]).__name__, type(st["step"]).__name__,
                str(st["exp_avg"].placements), tuple(st["exp_avg"].to_local().shape)]
        seen.append((out, losses))
    assert seen[0][0] == seen[1][0]
    np.testing.assert_allclose(seen[1][1], seen[0][1], rtol=1e-6)


def test_fsdp1_mixed_precision_summon_and_optim_state_to_load_like_torch(both_groups):
    """FSDP1 with MixedPrecision: summon_full_params gives the full-precision parameters (and writes them back
    unchanged); FSDP.optim_state_dict -> FSDP.optim_state_dict_to_load into a fresh model's optimizer resumes
    training at torch's losses; the optimizer state dict is keyed by torch's parameter order."""
    import torch
    from torch.distributed.fsdp import FullyShardedDataParallel as TFSDP
    from torch.distributed.fsdp import MixedPrecision as TMP

    import torchlike
    from torchlike.distributed.fsdp import FullyShardedDataParallel as LFSDP
    from torchlike.distributed.fsdp import MixedPrecision as LMP
    from torchlike.distributed.fsdp.wrap import ModuleWrapPolicy as LPol
    from torch.distributed.fsdp.wrap import ModuleWrapPolicy as TPol
    res = []
    for mod, fsdp, mp, pol in ((torch, TFSDP, TMP, TPol), (torchlike, LFSDP, LMP, LPol)):
        kw = dict(mixed_precision=mp(param_dtype=mod.float64, reduce_dtype=mod.float32),
                  auto_wrap_policy=pol({mod.nn.Tanh, mod.nn.Linear}), device_id=mod.device("cpu"))
        model = fsdp(_net(mod), **kw)
        opt = mod.optim.AdamW(model.parameters(), lr=1e-2)
        g = mod.Generator().manual_seed(5)
        data = [(mod.randn(4, 5, generator=g), mod.randn(4, 3, generator=g)) for _ in range(4)]

        def step(m, o, x, y):
            loss = mod.nn.functional.mse_loss(m(x), y)
            o.zero_grad()
            loss.backward()
            o.step()
            return loss.item(), str(loss.dtype)
        out = [step(model, opt, *data[i]) for i in range(2)]
        with fsdp.summon_full_params(model):
            w = model._fsdp_wrapped_module[0]._fsdp_wrapped_module.weight
            out.append((str(w.dtype), tuple(w.shape), round(w.sum().item(), 6)))
        osd = fsdp.optim_state_dict(model, opt)
        out.append((list(osd["state"]), osd["param_groups"][0]["params"]))
        fresh = fsdp(_net(mod), **kw)
        fresh.load_state_dict(model.state_dict())
        opt2 = mod.optim.AdamW(fresh.parameters(), lr=1e-2)
        opt2.load_state_dict(fsdp.optim_state_dict_to_load(fresh, opt2, osd))
        out += [step(fresh, opt2, *data[i]) for i in (2, 3)]
        out += [step(model, opt, *data[i]) for i in (2, 3)]
        res.append(out)
    same_printed_lines([repr(x) for x in res[0]], [repr(x) for x in res[1]], rtol=1e-6)


def test_activation_checkpointing_wrapper_like_torch():
    """The FSDP tutorials' apply_activation_checkpointing(checkpoint_wrapper, check_fn): the same modules
    wrapped (children first), the same repr, parameter names and prefix-free state-dict keys, gradients, and
    a state dict that loads into a model wrapped differently."""
    import torch

    import torchlike
    res = []
    for mod in (torch, torchlike):
        w = __import__(mod.__name__ + ".distributed.algorithms._checkpoint.checkpoint_wrapper", fromlist=["w"])

        def make():
            mod.manual_seed(0)
            return mod.nn.Sequential(mod.nn.Linear(3, 4), mod.nn.Sequential(mod.nn.Linear(4, 4), mod.nn.Tanh()),
                                     mod.nn.Linear(4, 2))
        wrapper = functools.partial(w.checkpoint_wrapper, checkpoint_impl=w.CheckpointImpl.NO_REENTRANT)
        net = make()
        w.apply_activation_checkpointing(net, checkpoint_wrapper_fn=wrapper,
                                         check_fn=lambda m: isinstance(m, (mod.nn.Linear, mod.nn.Sequential)))
        out = net(mod.ones(2, 3)).sum()
        out.backward()
        fresh = make()
        w.apply_activation_checkpointing(fresh, checkpoint_wrapper_fn=wrapper,
                                         check_fn=lambda m: isinstance(m, mod.nn.Linear))
        keys = fresh.load_state_dict(net.state_dict())
        res.append((repr(net).replace("torchlike", "torch"), [n for n, _ in net.named_parameters()],
                    list(net.state_dict()), str(keys), f"{out.item():.5f}",
                    [f"{p.grad.sum().item():.5f}" for p in net.parameters()]))
    assert res[0] == res[1]
