"""torchkbnufft: the Kaiser-Bessel non-uniform FFT on a seeded complex 2-D image and a radial k-space trajectory:
forward NUFFT (table interpolation and the sparse-matrix path), its adjoint, the Pipe density compensation,
a Toeplitz embedding of the normal operator, multi-coil sensitivity maps with a batch, real-valued (N, 2)
inputs, and a few gradient-descent reconstruction steps through autograd."""
import math

import torch
import torchkbnufft as tkbn


def r(x, n=4):
    if isinstance(x, torch.Tensor):
        x = x.detach()
        if x.is_complex():
            x = torch.view_as_real(x)
        x = x.double()
        if x.numel() == 1:
            return round(float(x), n) + 0.0
        return [round(float(v), n) + 0.0 for v in x.flatten()]
    return round(float(x), n) + 0.0  # (+ 0.0: a mean that rounds to zero prints 0.0, whatever its sign)


def stats(x):
    a = x.abs().double()
    return [r(a.sum(), 3), r(a.max()), r(x.real.double().mean(), 5), r(x.imag.double().mean(), 5)]


torch.manual_seed(0)
H = W = 12
im_size = (H, W)
yy, xx = torch.meshgrid(torch.linspace(-1, 1, H), torch.linspace(-1, 1, W), indexing="ij")
phantom = ((xx ** 2 + yy ** 2) < 0.6).float() + 0.5 * ((xx - 0.2) ** 2 + yy ** 2 < 0.1).float()
image = (phantom * torch.exp(1j * 0.3 * xx)).to(torch.complex64) + 0.05 * torch.randn(H, W, dtype=torch.complex64)
image = image.unsqueeze(0).unsqueeze(0)  # (batch, coil, H, W)

spokes, samples = 8, 16
angles = torch.arange(spokes) * math.pi / spokes
rad = torch.linspace(-math.pi, math.pi, samples)
ktraj = torch.stack([(rad[None] * torch.cos(angles[:, None])).flatten(),
                     (rad[None] * torch.sin(angles[:, None])).flatten()])  # (2, klength)
print("ktraj", tuple(ktraj.shape), r(ktraj.abs().max()))

nufft = tkbn.KbNufft(im_size=im_size)
adjnufft = tkbn.KbNufftAdjoint(im_size=im_size)
print("modules", type(nufft).__name__, tuple(nufft.grid_size.tolist()), tuple(nufft.table_0.shape))

kdata = nufft(image, ktraj)
print("kdata", tuple(kdata.shape), kdata.dtype, stats(kdata))
print("kdata_head", r(kdata[0, 0, :3]))

back = adjnufft(kdata, ktraj)
print("adjoint", tuple(back.shape), stats(back))

dcomp = tkbn.calc_density_compensation_function(ktraj=ktraj, im_size=im_size, num_iterations=4)
print("dcomp", tuple(dcomp.shape), dcomp.dtype, r(dcomp.real.min()), r(dcomp.real.max()), r(dcomp.abs().mean()))
recon = adjnufft(kdata * dcomp, ktraj)
print("dcomp_recon", stats(recon))

# the sparse interpolation matrix path
interp_mats = tkbn.calc_tensor_spmatrix(ktraj, im_size=im_size)
print("spmat", [tuple(m.shape) for m in interp_mats], interp_mats[0].layout)
kdata_sp = nufft(image, ktraj, interp_mats)
print("spmat_vs_table", r((kdata_sp - kdata).abs().max(), 3), r(kdata_sp.abs().max()))
back_sp = adjnufft(kdata_sp, ktraj, interp_mats)
print("spmat_adjoint", stats(back_sp))

# Toeplitz normal operator vs adjoint(forward)
toep = tkbn.ToepNufft()
kernel = tkbn.calc_toeplitz_kernel(ktraj, im_size)
print("kernel", tuple(kernel.shape), stats(kernel))
normal = toep(image, kernel)
print("toeplitz", stats(normal), r((normal - back).abs().max() / back.abs().max() < 2e-2))

# multi-coil with sensitivity maps and a batch of two trajectories
torch.manual_seed(1)
coils = 3
smaps = torch.randn(1, coils, H, W, dtype=torch.complex64) * 0.5 + 1
batch_img = torch.cat([image, image.flip(-1)])
batch_traj = torch.stack([ktraj, ktraj.flip(0)])
kmc = nufft(batch_img, batch_traj, smaps=smaps)
print("multicoil", tuple(kmc.shape), stats(kmc))
print("multicoil_adj", stats(adjnufft(kmc, batch_traj, smaps=smaps)))

# real inputs with a trailing (real, imag) dimension
kreal = nufft(torch.view_as_real(image), ktraj)
print("real_input", tuple(kreal.shape), r((torch.view_as_complex(kreal) - kdata).abs().max() < 1e-5))

# gradient-descent reconstruction through autograd
x = torch.zeros_like(image, requires_grad=True)
opt = torch.optim.Adam([x], lr=0.1)
for step in range(6):
    opt.zero_grad()
    loss = (nufft(x, ktraj) - kdata).abs().pow(2).sum()
    loss.backward()
    opt.step()
    if step % 2 == 1:
        print("recon", step, r(loss, 3))
print("recon_err", r((x.detach() - image).abs().mean()))
