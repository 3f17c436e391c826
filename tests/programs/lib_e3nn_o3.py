"""e3nn, the parts that need no FX graph: irreps algebra, random rotations and Euler angles, spherical harmonics and
their rotation equivariance through Wigner D matrices, Wigner 3j symbols, a smooth radial basis, and a small model
on spherical-harmonic edge features (an invariant read-out) trained a few steps with a fixed seed. (e3nn's tensor
products and o3.Linear generate their code with torch.fx, which torchlike does not implement.)"""
import torch
from e3nn import o3
from e3nn.math import soft_one_hot_linspace, soft_unit_step

torch.manual_seed(0)
irreps_in = o3.Irreps("2x0e + 1x1o")
irreps_out = o3.Irreps("1x0e + 1x1o + 1x2e")
print("irreps", irreps_in, irreps_in.dim, irreps_in.lmax, o3.Irreps("1x1o") * 2, irreps_out.simplify(),
      irreps_in.count("0e"), [str(ir) for _, ir in irreps_out])
R = o3.rand_matrix()
print("R orthogonal", round((R @ R.T - torch.eye(3)).abs().max().item(), 6), "det", round(R.det().item(), 5))
x = torch.randn(5, 3)
sh = o3.spherical_harmonics([0, 1, 2], x, normalize=True, normalization="component")
print("sh", list(sh.shape), [round(v, 5) for v in sh[0].tolist()])
D = o3.Irreps("0e + 1o + 2e").D_from_matrix(R)
sh_rot = o3.spherical_harmonics([0, 1, 2], x @ R.T, normalize=True, normalization="component")
print("sh equivariance below 1e-4", bool((sh_rot - sh @ D.T).abs().max() < 1e-4))
print("D", [round(v, 5) for v in D[4:9, 4:9].diagonal().tolist()])
a, b, c = o3.matrix_to_angles(R)
print("angles", [round(v.item(), 5) for v in (a, b, c)],
      "roundtrip", round((o3.angles_to_matrix(a, b, c) - R).abs().max().item(), 5))
q = o3.matrix_to_quaternion(R)
print("quaternion", [round(v, 5) for v in q.tolist()], round((o3.quaternion_to_matrix(q) - R).abs().max().item(), 5))
print("wigner_3j", [round(v, 5) for v in o3.wigner_3j(1, 1, 2).flatten()[:9].tolist()])
d = torch.linspace(0, 3, 7)
print("basis", [round(v, 5) for v in soft_one_hot_linspace(d, 0.0, 3.0, 4, basis="smooth_finite", cutoff=True)[3].tolist()],
      [round(v, 5) for v in soft_unit_step(d - 1).tolist()])


class Invariant(torch.nn.Module):
    """Per-node sums of edge spherical harmonics, contracted to rotation invariants (norms per l)."""

    def __init__(self):
        super().__init__()
        self.sh = o3.Irreps.spherical_harmonics(2)
        self.radial = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.SiLU(), torch.nn.Linear(16, 3))
        self.out = torch.nn.Linear(3, 1)

    def forward(self, pos):
        rel = pos[:, None, :] - pos[None, :, :]
        emb = soft_one_hot_linspace(rel.norm(dim=-1), 0.0, 3.0, 6, basis="smooth_finite", cutoff=True)
        w = self.radial(emb)  # [n, n, 3]: a weight per l
        edge = o3.spherical_harmonics(self.sh, rel, normalize=True, normalization="component")
        per_l = [edge[..., s] * w[..., l:l + 1] for l, s in enumerate(self.sh.slices())]
        node = [p.sum(1) for p in per_l]
        inv = torch.stack([n.pow(2).sum(-1) for n in node], -1)
        return self.out(inv).sum()


net = Invariant()
pos = torch.randn(6, 3)
print("invariance below 1e-3", bool((net(pos @ R.T) - net(pos)).abs() < 1e-3))
opt = torch.optim.Adam(net.parameters(), lr=1e-2)
for step in range(4):
    loss = (net(pos) - 1.0) ** 2
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.6f}")
