"""tensordict: TensorDict construction with nested keys, indexing, apply/to, stack/cat, reshape/unbind,
update/exclude/select, flatten/unflatten keys, from_dict, a tensorclass, and a
TensorDictSequential of TensorDictModules over nn.Linear trained a few Adam steps, with a fixed seed."""
import numpy as np
import torch
from tensordict import TensorDict, tensorclass
from tensordict.nn import TensorDictModule, TensorDictSequential

rng = np.random.default_rng(0)
obs = torch.from_numpy(rng.standard_normal((4, 3)).astype(np.float32))
nobs = torch.from_numpy(rng.standard_normal((4, 3)).astype(np.float32))
reward = torch.from_numpy(rng.standard_normal((4, 1)).astype(np.float32))


def r(t):
    return [round(v, 5) for v in t.detach().flatten().tolist()]


def keys(td):
    return sorted(str(k) for k in td.keys(include_nested=True, leaves_only=True))


td = TensorDict({"obs": obs, "reward": reward, ("next", "obs"): nobs}, batch_size=[4])
print("td", tuple(td.batch_size), keys(td), td["next", "obs"].shape == (4, 3))
print("index", tuple(td[1].batch_size), r(td[1]["obs"]), tuple(td[1:3].batch_size), r(td[1:3]["reward"]))
print("mask", tuple(td[td["reward"][:, 0] > 0].batch_size))
doubled = td.apply(lambda x: x * 2)
print("apply", r(doubled["next", "obs"][0]), r(td.apply(lambda x: x.sum(-1, keepdim=True))["obs"]))
print("to", td.to(torch.float64)["obs"].dtype, td.to("cpu").device)
st = torch.stack([td, doubled], 0)
print("stack", tuple(st.batch_size), r(st[1, 0]["obs"]), type(st).__name__)
ct = torch.cat([td, doubled], 0)
print("cat", tuple(ct.batch_size), r(ct["reward"]))
rs = td.reshape(2, 2)
print("reshape", tuple(rs.batch_size), tuple(rs["next", "obs"].shape))
print("unbind", len(td.unbind(0)), r(td.unbind(0)[2]["reward"]))
td2 = td.clone()
td2.update({"extra": torch.ones(4, 2), "reward": reward + 1})
print("update", keys(td2), r(td2["reward"]))
print("exclude", keys(td2.exclude("extra", ("next", "obs"))), "select", keys(td2.select("obs", ("next", "obs"))))
flat = td.flatten_keys(".")
print("flatten", keys(flat), keys(flat.unflatten_keys(".")))
fd = TensorDict.from_dict({"a": {"b": torch.arange(6.0).reshape(3, 2)}, "c": torch.zeros(3)})
print("from_dict", tuple(fd.batch_size), keys(fd), r(fd["a", "b"].sum(0)))
print("sum", r(td["obs"].sum(0)), "eq", bool((td == td.clone()).all()))
# td.memmap_() is left out: MemoryMappedTensor needs torch.from_file(shared=True), a tensor over a file's memory,
# which torchlike's immutable JAX arrays cannot be (docs/differences.md, "Library: tensordict")


@tensorclass
class Batch:
    obs: torch.Tensor
    reward: torch.Tensor


b = Batch(obs=obs, reward=reward, batch_size=[4])
bs = torch.stack([b[:2], b[2:]], 0)
print("tensorclass", type(b[0]).__name__, tuple(b[1:].batch_size), r(b[3].obs), tuple(bs.batch_size),
      r(b.apply(lambda x: x + 1).reward))

torch.manual_seed(0)
net = TensorDictSequential(
    TensorDictModule(torch.nn.Linear(3, 8), in_keys=["obs"], out_keys=["hidden"]),
    TensorDictModule(torch.nn.Tanh(), in_keys=["hidden"], out_keys=["hidden"]),
    TensorDictModule(torch.nn.Linear(8, 1), in_keys=["hidden"], out_keys=["value"]),
)
opt = torch.optim.Adam(net.parameters(), lr=0.05)
losses = []
for step in range(5):
    out = net(td.clone())
    loss = ((out["value"] - out["reward"]) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(round(loss.item(), 5))
print("module", keys(out), net.in_keys, net.out_keys, "losses", losses)
