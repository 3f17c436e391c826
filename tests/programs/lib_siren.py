"""siren-pytorch: SIREN networks (sine activations with the paper's w0 initialisation) fitting a small seeded
image through SirenWrapper (coordinate grid, MSE loss) with Adam, a latent-modulated wrapper, a SirenNet on 1-D
coordinates with dropout and a final activation, the gradient of the network with respect to its input
coordinates (what SIREN users fit derivatives with), and a state_dict round trip."""
import io

import torch
import torch.nn.functional as F
from siren_pytorch import Sine, Siren, SirenNet, SirenWrapper


def r(x, n=4):
    if isinstance(x, torch.Tensor):
        x = x.detach().double()
        if x.numel() == 1:
            return round(float(x), n)
        return [round(float(v), n) for v in x.flatten()]
    if isinstance(x, (list, tuple)):
        return [r(v, n) for v in x]
    return round(float(x), n)


torch.manual_seed(0)
H = W = 12
yy, xx = torch.meshgrid(torch.linspace(-1, 1, H), torch.linspace(-1, 1, W), indexing="ij")
img = torch.stack([torch.sin(3 * xx) * torch.cos(2 * yy), xx * yy, torch.exp(-(xx ** 2 + yy ** 2))]).unsqueeze(0)

torch.manual_seed(1)
net = SirenNet(dim_in=2, dim_hidden=32, dim_out=3, num_layers=3, w0_initial=30.0)
wrapper = SirenWrapper(net, image_width=W, image_height=H)
print("params", sum(p.numel() for p in wrapper.parameters()), tuple(wrapper.grid.shape))
opt = torch.optim.Adam(wrapper.parameters(), lr=1e-3)
for step in range(8):
    opt.zero_grad()
    loss = wrapper(img)
    loss.backward()
    opt.step()
    if step % 2 == 1:
        print("fit", step, r(loss))
with torch.no_grad():
    pred = wrapper()
print("pred", tuple(pred.shape), r(pred.mean()), r(pred[0, :, 0, 0]))

# latent modulation
torch.manual_seed(2)
mod_net = SirenNet(dim_in=2, dim_hidden=16, dim_out=3, num_layers=2)
mod_wrapper = SirenWrapper(mod_net, image_width=W, image_height=H, latent_dim=8)
latent = torch.nn.Parameter(torch.zeros(8).normal_(0, 1e-2))
opt = torch.optim.Adam([*mod_wrapper.parameters(), latent], lr=1e-3)
for step in range(4):
    opt.zero_grad()
    loss = mod_wrapper(img, latent=latent)
    loss.backward()
    opt.step()
print("modulated", r(loss), r(latent.norm()))

# 1-D SirenNet with dropout and a final activation, and input gradients
torch.manual_seed(3)
net1d = SirenNet(dim_in=1, dim_hidden=16, dim_out=1, num_layers=2, w0=2.0, w0_initial=10.0,
                 final_activation=torch.nn.Tanh(), dropout=0.1)
t = torch.linspace(-1, 1, 20).unsqueeze(1)
opt = torch.optim.SGD(net1d.parameters(), lr=0.05)
for step in range(5):
    net1d.train()
    opt.zero_grad()
    loss = F.mse_loss(net1d(t), torch.sin(4 * t) * 0.8)
    loss.backward()
    opt.step()
print("1d", r(loss))
net1d.eval()
tc = t.clone().requires_grad_()
y = net1d(tc)
(dy,) = torch.autograd.grad(y.sum(), tc, create_graph=True)
(d2y,) = torch.autograd.grad(dy.sum(), tc)
print("derivatives", r(dy[:4]), r(d2y[:4]))

layer = Siren(4, 5, w0=1.0, is_first=True)
print("layer", tuple(layer(torch.ones(2, 4)).shape), r(layer.weight.abs().max() <= 0.25), r(Sine(2.0)(torch.ones(1))))

buf = io.BytesIO()
torch.save(wrapper.state_dict(), buf)
buf.seek(0)
torch.manual_seed(9)
clone = SirenWrapper(SirenNet(dim_in=2, dim_hidden=32, dim_out=3, num_layers=3, w0_initial=30.0), W, H)
clone.load_state_dict(torch.load(buf))
with torch.no_grad():
    print("reloaded", torch.allclose(clone(), pred, atol=1e-6))
