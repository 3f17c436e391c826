"""torch.distributed.tensor / device_mesh on JAX shardings: the single-process surface against torch (world
size 1, gloo), and a mesh of 8 simulated devices in a subprocess against numpy."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from conftest import free_port, simulated_devices_env

import torchlike
import torchlike.distributed as tl_dist
from torchlike.distributed import tensor as tl_dt
from torchlike.distributed.device_mesh import init_device_mesh as tl_mesh

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="module")
def torch_world1():
    torch = pytest.importorskip("torch", reason="torch is the oracle")
    import torch.distributed as dist
    env = dict(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(free_port()), RANK="0", WORLD_SIZE="1")
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    from torch.distributed.device_mesh import init_device_mesh
    mesh = init_device_mesh("cpu", (1,), mesh_dim_names=("dp",))
    yield torch, mesh
    dist.destroy_process_group()
    tl_dist.destroy_process_group()  # init_device_mesh started torchlike's default group too
    for k, v in old.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


def test_transformers_style_imports():
    from torchlike.distributed.device_mesh import DeviceMesh, init_device_mesh  # noqa: F401
    from torchlike.distributed.tensor import DTensor, Partial, Replicate, Shard  # noqa: F401
    assert tl_dist.is_available() is True


def test_is_initialized_single_process():
    torch = pytest.importorskip("torch", reason="torch is the oracle")
    assert tl_dist.is_available() == torch.distributed.is_available()
    tl_dist.destroy_process_group()
    assert tl_dist.is_initialized() is False
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        tl_dist.get_rank()


def test_mesh_and_placements_match_torch(torch_world1):
    torch, tmesh = torch_world1
    from torch.distributed.tensor import Partial, Replicate, Shard
    m = tl_mesh("cpu", (1,), mesh_dim_names=("dp",))
    assert repr(m) == repr(tmesh)
    assert (m.ndim, m.shape, m.size(), m.get_rank(), m.mesh_dim_names, m.get_coordinate()) == \
        (tmesh.ndim, tmesh.shape, tmesh.size(), tmesh.get_rank(), tmesh.mesh_dim_names, tmesh.get_coordinate())
    assert m.mesh.tolist() == tmesh.mesh.tolist()
    assert repr(m["dp"]) == repr(tmesh["dp"])
    for tp, lp in [(Shard(0), tl_dt.Shard(0)), (Shard(1), tl_dt.Shard(1)), (Replicate(), tl_dt.Replicate()),
                   (Partial(), tl_dt.Partial()), (Partial("max"), tl_dt.Partial("max"))]:
        assert (repr(lp), str(lp)) == (repr(tp), str(tp))
    assert tl_dt.Shard(0) == tl_dt.Shard(0) and tl_dt.Shard(0) != tl_dt.Shard(1)


def test_distribute_tensor_matches_torch(torch_world1):
    torch, tmesh = torch_world1
    from torch.distributed.tensor import (
        DTensor,
        Partial,
        Replicate,
        Shard,
        distribute_tensor,
    )
    a = np.arange(8.0, dtype=np.float32).reshape(4, 2)
    m = tl_mesh("cpu", (1,), mesh_dim_names=("dp",))
    for tp, lp in [(Shard(0), tl_dt.Shard(0)), (Shard(1), tl_dt.Shard(1)), (Replicate(), tl_dt.Replicate())]:
        td = distribute_tensor(torch.tensor(a), tmesh, [tp])
        ld = tl_dt.distribute_tensor(torchlike.tensor(a), m, [lp])
        assert isinstance(ld, tl_dt.DTensor) and isinstance(ld, torchlike.Tensor)
        assert repr(ld.placements) == repr(td.placements)
        assert tuple(ld.shape) == tuple(td.shape)
        np.testing.assert_array_equal(ld.to_local().numpy(), td.to_local().numpy())
        np.testing.assert_array_equal(ld.full_tensor().numpy(), td.full_tensor().numpy())
        assert repr(ld) == repr(td).replace("torch.", "torchlike.")
    te = DTensor.from_local(torch.ones(2), tmesh, [Partial()])
    le = tl_dt.DTensor.from_local(torchlike.ones(2), m, [tl_dt.Partial()])
    np.testing.assert_array_equal(le.full_tensor().numpy(), te.full_tensor().numpy())
    assert repr(le.redistribute(m, [tl_dt.Replicate()]).placements) == \
        repr(te.redistribute(tmesh, [Replicate()]).placements)
    # errors
    for bad_t, bad_l in [([Shard(0), Shard(1)], [tl_dt.Shard(0), tl_dt.Shard(1)]), ([Shard(3)], [tl_dt.Shard(3)])]:
        with pytest.raises(Exception) as te_:
            distribute_tensor(torch.arange(5.0), tmesh, bad_t)
        with pytest.raises(type(te_.value)) as le_:
            tl_dt.distribute_tensor(torchlike.arange(5.0), m, bad_l)
        assert str(le_.value) == str(te_.value)


def test_dtensor_autograd_and_factories(torch_world1):
    torch, tmesh = torch_world1
    from torch.distributed.tensor import Replicate, distribute_tensor
    tw = torch.ones(3, requires_grad=True)
    tdw = distribute_tensor(tw, tmesh, [Replicate()])
    m = tl_mesh("cpu", (1,))
    lw = torchlike.ones(3, requires_grad=True)
    ldw = tl_dt.distribute_tensor(lw, m, [tl_dt.Replicate()])
    assert (ldw.requires_grad, ldw.is_leaf) == (tdw.requires_grad, tdw.is_leaf)
    (ldw.full_tensor() * 2).sum().backward()
    np.testing.assert_array_equal(ldw.grad.numpy(), np.full(3, 2.0, np.float32))
    z = tl_dt.zeros(2, 3, device_mesh=m, placements=[tl_dt.Shard(1)])
    np.testing.assert_array_equal(z.to_local().numpy(), np.zeros((2, 3), np.float32))
    assert tl_dt.ones(2, device_mesh=m).placements == (tl_dt.Replicate(),)


SPMD = textwrap.dedent("""
    import numpy as np, torchlike
    from torchlike.distributed.tensor import DTensor, Shard, Replicate, Partial, distribute_tensor, init_device_mesh
    m = init_device_mesh("cpu", (2, 4), mesh_dim_names=("dp", "tp"))
    assert m.size() == 8 and m["tp"].size() == 4 and m.get_coordinate() == (0, 0)
    a = np.arange(40., dtype=np.float32).reshape(8, 5)
    d = distribute_tensor(torchlike.tensor(a), m, [Shard(0), Shard(1)])
    # torch.chunk pieces for coordinate (0, 0): rows 0:4, cols 0:2
    np.testing.assert_array_equal(d.to_local().numpy(), a[:4, :2])
    np.testing.assert_array_equal(d.full_tensor().numpy(), a)
    d2 = distribute_tensor(torchlike.tensor(a[:, :2]), m, [Shard(0), Replicate()])
    assert len(d2._value.sharding.device_set) == 8 and d2._value.sharding.spec[0] == "dp"
    assert d2._value.addressable_shards[0].data.shape == (4, 2)
    np.testing.assert_array_equal(d2.redistribute(m, [Replicate(), Shard(0)]).to_local().numpy(), a[:2, :2])
    e = DTensor.from_local(torchlike.ones(2, 3), m, [Shard(0), Partial()])
    np.testing.assert_array_equal(e.full_tensor().numpy(), np.full((4, 3), 4., np.float32))
    np.testing.assert_array_equal((d2 * 2).sum().item(), (a[:, :2] * 2).sum())
    print("OK")
""")


def test_dtensor_on_8_simulated_devices():
    env = simulated_devices_env(8)
    r = subprocess.run([sys.executable, "-c", SPMD], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "OK" in r.stdout, r.stderr[-3000:]


def test_loss_parallel_matches_torch(torch_world1):
    torch, tmesh = torch_world1
    import torch.nn.functional as TF
    from torch.distributed.tensor import Replicate, Shard, distribute_tensor
    from torch.distributed.tensor.parallel import loss_parallel

    from torchlike.distributed.tensor.parallel import loss_parallel as tl_loss_parallel
    TL_F = torchlike.nn.functional
    m = tl_mesh("cpu", (1,), mesh_dim_names=("dp",))
    rs = np.random.RandomState(0)
    x, tgt, w = rs.randn(4, 6).astype(np.float32), np.array([0, 1, 5, 3]), rs.rand(6).astype(np.float32)

    def run(lib, F, dt, mesh, ctx, placements, red, weighted, target=None):
        d = dt.distribute_tensor(lib.tensor(x), mesh, placements).requires_grad_()
        kw = {"weight": lib.tensor(w), "ignore_index": 1} if weighted else {}
        with ctx():
            loss = F.cross_entropy(d, lib.tensor(tgt) if target is None else target, reduction=red, **kw)
            (loss.sum() if red == "none" else loss).backward()
        return loss, d.grad

    for red in ("mean", "sum", "none"):
        for weighted in (False, True):
            tl_, tg = run(torch, TF, torch.distributed.tensor, tmesh, loss_parallel, [Shard(1)], red, weighted)
            ll, lg = run(torchlike, TL_F, tl_dt, m, tl_loss_parallel, [tl_dt.Shard(1)], red, weighted)
            assert isinstance(ll, tl_dt.DTensor) and repr(ll.placements) == repr(tl_.placements), red
            np.testing.assert_allclose(ll.to_local().detach().numpy(), tl_.to_local().detach().numpy(), rtol=1e-6,
                                       atol=1e-6)
            np.testing.assert_allclose(lg.numpy(), tg.to_local().numpy(), rtol=1e-6, atol=1e-7)
    # torch's errors: logits not sharded on the class dim, a target with other placements, label smoothing
    cases = [(dict(placements=[Replicate()]), dict(placements=[tl_dt.Replicate()])),
             (dict(placements=[Shard(0)]), dict(placements=[tl_dt.Shard(0)])),
             (dict(placements=[Shard(1)], target=distribute_tensor(torch.tensor(tgt), tmesh, [Shard(0)])),
              dict(placements=[tl_dt.Shard(1)], target=tl_dt.distribute_tensor(torchlike.tensor(tgt), m,
                                                                                [tl_dt.Shard(0)])))]
    for tkw, lkw in cases:
        with pytest.raises(Exception) as te:
            run(torch, TF, torch.distributed.tensor, tmesh, loss_parallel, red="mean", weighted=False, **tkw)
        with pytest.raises(type(te.value)) as le:
            run(torchlike, TL_F, tl_dt, m, tl_loss_parallel, red="mean", weighted=False, **lkw)
        assert str(le.value) == str(te.value)
    td = distribute_tensor(torch.tensor(x), tmesh, [Shard(1)])
    ld = tl_dt.distribute_tensor(torchlike.tensor(x), m, [tl_dt.Shard(1)])
    with pytest.raises(RuntimeError) as te:
        with loss_parallel():
            TF.cross_entropy(td, torch.tensor(tgt), label_smoothing=0.1)
    with pytest.raises(RuntimeError) as le:
        with tl_loss_parallel():
            TL_F.cross_entropy(ld, torchlike.tensor(tgt), label_smoothing=0.1)
    assert str(le.value) == str(te.value)
    # plain tensors inside the context, and a replicated DTensor outside it, are ordinary cross-entropy
    with loss_parallel():
        want = TF.cross_entropy(torch.tensor(x), torch.tensor(tgt))
    with tl_loss_parallel():
        got = TL_F.cross_entropy(torchlike.tensor(x), torchlike.tensor(tgt))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
    rep_t = TF.cross_entropy(*(distribute_tensor(torch.tensor(v), tmesh, [Replicate()]) for v in (x, tgt)))
    rep_l = TL_F.cross_entropy(*(tl_dt.distribute_tensor(torchlike.tensor(v), m, [tl_dt.Replicate()])
                                 for v in (x, tgt)))
    np.testing.assert_allclose(rep_l.item(), rep_t.full_tensor().item(), rtol=1e-6)


@pytest.mark.parametrize("place", ["shard0", "shard1", "replicate"])
def test_dtensor_leaf_gradient_is_a_dtensor_like_torch(torch_world1, place):
    torch, tmesh = torch_world1
    from torch.distributed.tensor import Replicate, Shard, distribute_tensor
    tp = {"shard0": [Shard(0)], "shard1": [Shard(1)], "replicate": [Replicate()]}[place]
    lp = {"shard0": [tl_dt.Shard(0)], "shard1": [tl_dt.Shard(1)], "replicate": [tl_dt.Replicate()]}[place]
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    tw = distribute_tensor(torch.tensor(a), tmesh, tp).requires_grad_()
    lw = tl_dt.distribute_tensor(torchlike.tensor(a), tl_mesh("cpu", (1,)), lp).requires_grad_()
    for _ in range(2):  # the second backward accumulates into the DTensor gradient
        (tw.full_tensor() ** 2).sum().backward()
        (lw.full_tensor() ** 2).sum().backward()
    assert type(lw.grad).__name__ == type(tw.grad).__name__ == "DTensor"
    assert lw.grad.placements == tuple(lp) and tw.grad.placements == tuple(tp)
    assert tuple(lw.grad.shape) == tuple(tw.grad.shape)
    np.testing.assert_array_equal(lw.grad.full_tensor().numpy(), tw.grad.full_tensor().detach().numpy())
    np.testing.assert_array_equal(lw.grad.to_local().numpy(), tw.grad.to_local().detach().numpy())
    lw.grad = None
    assert lw.grad is None
