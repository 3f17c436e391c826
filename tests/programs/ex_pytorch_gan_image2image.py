"""eriklindernoren/PyTorch-GAN-style image-to-image GANs (own code, synthetic 16x16 images): cyclegan (ResNet
generator with ``ReflectionPad2d`` / ``InstanceNorm2d``, PatchGAN discriminator whose ``output_shape`` sizes the
targets, identity / cycle / GAN losses, a ``ReplayBuffer`` of past fakes built with ``torch.cat`` and
``random.uniform``, ``itertools.chain`` of both generators' parameters, ``LambdaLR(optimizer,
lr_lambda=LambdaLR(...).step)`` with a class of the same name), pix2pix (U-Net with skip ``torch.cat``,
``ConvTranspose2d``, the conditional PatchGAN on ``torch.cat((img_A, img_B), 1)``, pixelwise L1 with
``lambda_pixel``), and a unit/munit-lite shared-latent encoder pair (``PixelShuffle`` upsampling,
``Upsample(scale_factor=2)``, a KL term ``torch.mean(torch.pow(mu, 2))``, ``Variable(torch.randn(mu.shape)
.type(Tensor))``) and a munit-lite decoder (AdaIN through ``F.batch_norm`` on a ``(1, b * c, h, w)`` view with
repeated running statistics and weight / bias tensors assigned by ``assign_adain_params``, MUNIT's own
LayerNorm). Old-style ``Variable`` / ``Tensor`` idioms kept; one fact per line, numbers rounded."""
import itertools
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable

torch.manual_seed(0)
np.random.seed(0)
random.seed(0)

cuda = torch.cuda.is_available()
Tensor = torch.cuda.FloatTensor if cuda else torch.FloatTensor
img_size, channels, batch = 16, 3, 2


def r(x):
    return round(float(x), 4)


def weights_init_normal(m):
    classname = m.__class__.__name__
    if classname.find("Conv") != -1:
        torch.nn.init.normal_(m.weight.data, 0.0, 0.02)
        if hasattr(m, "bias") and m.bias is not None:
            torch.nn.init.constant_(m.bias.data, 0.0)
    elif classname.find("BatchNorm2d") != -1:
        torch.nn.init.normal_(m.weight.data, 1.0, 0.02)
        torch.nn.init.constant_(m.bias.data, 0.0)


class ReplayBuffer:
    def __init__(self, max_size=50):
        assert max_size > 0, "Empty buffer or trying to create a black hole. Be careful."
        self.max_size = max_size
        self.data = []

    def push_and_pop(self, data):
        to_return = []
        for element in data.data:
            element = torch.unsqueeze(element, 0)
            if len(self.data) < self.max_size:
                self.data.append(element)
                to_return.append(element)
            else:
                if random.uniform(0, 1) > 0.5:
                    i = random.randint(0, self.max_size - 1)
                    to_return.append(self.data[i].clone())
                    self.data[i] = element
                else:
                    to_return.append(element)
        return Variable(torch.cat(to_return))


class LambdaLR:
    def __init__(self, n_epochs, offset, decay_start_epoch):
        assert (n_epochs - decay_start_epoch) > 0, "Decay must start before the training session ends!"
        self.n_epochs = n_epochs
        self.offset = offset
        self.decay_start_epoch = decay_start_epoch

    def step(self, epoch):
        return 1.0 - max(0, epoch + self.offset - self.decay_start_epoch) / (self.n_epochs - self.decay_start_epoch)


class ResidualBlock(nn.Module):
    def __init__(self, in_features):
        super(ResidualBlock, self).__init__()
        self.block = nn.Sequential(
            nn.ReflectionPad2d(1),
            nn.Conv2d(in_features, in_features, 3),
            nn.InstanceNorm2d(in_features),
            nn.ReLU(inplace=True),
            nn.ReflectionPad2d(1),
            nn.Conv2d(in_features, in_features, 3),
            nn.InstanceNorm2d(in_features),
        )

    def forward(self, x):
        return x + self.block(x)


class GeneratorResNet(nn.Module):
    def __init__(self, input_shape, num_residual_blocks):
        super(GeneratorResNet, self).__init__()
        channels = input_shape[0]
        out_features = 8
        model = [nn.ReflectionPad2d(channels), nn.Conv2d(channels, out_features, 7), nn.InstanceNorm2d(out_features),
                 nn.ReLU(inplace=True)]
        in_features = out_features
        for _ in range(2):
            out_features *= 2
            model += [nn.Conv2d(in_features, out_features, 3, stride=2, padding=1), nn.InstanceNorm2d(out_features),
                      nn.ReLU(inplace=True)]
            in_features = out_features
        for _ in range(num_residual_blocks):
            model += [ResidualBlock(out_features)]
        for _ in range(2):
            out_features //= 2
            model += [nn.Upsample(scale_factor=2), nn.Conv2d(in_features, out_features, 3, stride=1, padding=1),
                      nn.InstanceNorm2d(out_features), nn.ReLU(inplace=True)]
            in_features = out_features
        model += [nn.ReflectionPad2d(channels), nn.Conv2d(out_features, channels, 7), nn.Tanh()]
        self.model = nn.Sequential(*model)

    def forward(self, x):
        return self.model(x)


class Discriminator(nn.Module):
    def __init__(self, input_shape):
        super(Discriminator, self).__init__()
        channels, height, width = input_shape
        self.output_shape = (1, height // 2 ** 3, width // 2 ** 3)

        def discriminator_block(in_filters, out_filters, normalize=True):
            layers = [nn.Conv2d(in_filters, out_filters, 4, stride=2, padding=1)]
            if normalize:
                layers.append(nn.InstanceNorm2d(out_filters))
            layers.append(nn.LeakyReLU(0.2, inplace=True))
            return layers

        self.model = nn.Sequential(
            *discriminator_block(channels, 8, normalize=False),
            *discriminator_block(8, 16),
            *discriminator_block(16, 32),
            nn.ZeroPad2d((1, 0, 1, 0)),
            nn.Conv2d(32, 1, 4, padding=1)
        )

    def forward(self, img):
        return self.model(img)


def domain_batch(kind):
    x = torch.linspace(-1, 1, img_size)
    base = torch.sin(3 * x).view(1, -1) * torch.cos(2 * x).view(-1, 1) if kind == "A" else x.view(1, -1) * x.view(-1, 1)
    imgs = base.expand(batch, channels, img_size, img_size) + 0.1 * torch.randn(batch, channels, img_size, img_size)
    return imgs.clamp(-1, 1)


# ----------------------------------------------------------------------------------------------- cyclegan
input_shape = (channels, img_size, img_size)
G_AB, G_BA = GeneratorResNet(input_shape, 2), GeneratorResNet(input_shape, 2)
D_A, D_B = Discriminator(input_shape), Discriminator(input_shape)
for net in (G_AB, G_BA, D_A, D_B):
    net.apply(weights_init_normal)
print("D_A output_shape", D_A.output_shape)
print("in", G_AB.model[2])
print("pad", G_AB.model[0], D_A.model[-2])
criterion_GAN, criterion_cycle, criterion_identity = torch.nn.MSELoss(), torch.nn.L1Loss(), torch.nn.L1Loss()
n_epochs, decay_epoch = 4, 1
optimizer_G = torch.optim.Adam(itertools.chain(G_AB.parameters(), G_BA.parameters()), lr=2e-4, betas=(0.5, 0.999))
optimizer_D_A = torch.optim.Adam(D_A.parameters(), lr=2e-4, betas=(0.5, 0.999))
optimizer_D_B = torch.optim.Adam(D_B.parameters(), lr=2e-4, betas=(0.5, 0.999))
lr_scheduler_G = torch.optim.lr_scheduler.LambdaLR(optimizer_G, lr_lambda=LambdaLR(n_epochs, 0, decay_epoch).step)
lr_scheduler_D_A = torch.optim.lr_scheduler.LambdaLR(optimizer_D_A, lr_lambda=LambdaLR(n_epochs, 0, decay_epoch).step)
fake_A_buffer, fake_B_buffer = ReplayBuffer(max_size=3), ReplayBuffer(max_size=3)
for epoch in range(3):
    real_A, real_B = Variable(domain_batch("A").type(Tensor)), Variable(domain_batch("B").type(Tensor))
    valid = Variable(Tensor(np.ones((real_A.size(0), *D_A.output_shape))), requires_grad=False)
    fake = Variable(Tensor(np.zeros((real_A.size(0), *D_A.output_shape))), requires_grad=False)
    G_AB.train()
    G_BA.train()
    optimizer_G.zero_grad()
    loss_id_A = criterion_identity(G_BA(real_A), real_A)
    loss_id_B = criterion_identity(G_AB(real_B), real_B)
    loss_identity = (loss_id_A + loss_id_B) / 2
    fake_B = G_AB(real_A)
    loss_GAN_AB = criterion_GAN(D_B(fake_B), valid)
    fake_A = G_BA(real_B)
    loss_GAN_BA = criterion_GAN(D_A(fake_A), valid)
    loss_GAN = (loss_GAN_AB + loss_GAN_BA) / 2
    recov_A = G_BA(fake_B)
    loss_cycle_A = criterion_cycle(recov_A, real_A)
    recov_B = G_AB(fake_A)
    loss_cycle_B = criterion_cycle(recov_B, real_B)
    loss_cycle = (loss_cycle_A + loss_cycle_B) / 2
    loss_G = loss_GAN + 10.0 * loss_cycle + 5.0 * loss_identity
    loss_G.backward()
    optimizer_G.step()
    optimizer_D_A.zero_grad()
    loss_real = criterion_GAN(D_A(real_A), valid)
    fake_A_ = fake_A_buffer.push_and_pop(fake_A)
    loss_fake = criterion_GAN(D_A(fake_A_.detach()), fake)
    loss_D_A = (loss_real + loss_fake) / 2
    loss_D_A.backward()
    optimizer_D_A.step()
    optimizer_D_B.zero_grad()
    loss_real = criterion_GAN(D_B(real_B), valid)
    fake_B_ = fake_B_buffer.push_and_pop(fake_B)
    loss_fake = criterion_GAN(D_B(fake_B_.detach()), fake)
    loss_D_B = (loss_real + loss_fake) / 2
    loss_D_B.backward()
    optimizer_D_B.step()
    loss_D = (loss_D_A + loss_D_B) / 2
    print("[cyclegan] [Epoch %d/3] [D loss: %f] [G loss: %f, adv: %f, cycle: %f, identity: %f]"
          % (epoch, loss_D.item(), loss_G.item(), loss_GAN.item(), loss_cycle.item(), loss_identity.item()))
    lr_scheduler_G.step()
    lr_scheduler_D_A.step()
    print("lr", lr_scheduler_G.get_last_lr(), optimizer_D_A.param_groups[0]["lr"])
print("buffer", len(fake_A_buffer.data), tuple(fake_A_.shape), fake_A_.requires_grad, fake_A_.grad_fn)
print("G_AB params", sum(p.numel() for p in G_AB.parameters()))

# ----------------------------------------------------------------------------------------------- pix2pix


class UNetDown(nn.Module):
    def __init__(self, in_size, out_size, normalize=True, dropout=0.0):
        super(UNetDown, self).__init__()
        layers = [nn.Conv2d(in_size, out_size, 4, 2, 1, bias=False)]
        if normalize:
            layers.append(nn.InstanceNorm2d(out_size))
        layers.append(nn.LeakyReLU(0.2))
        if dropout:
            layers.append(nn.Dropout(dropout))
        self.model = nn.Sequential(*layers)

    def forward(self, x):
        return self.model(x)


class UNetUp(nn.Module):
    def __init__(self, in_size, out_size, dropout=0.0):
        super(UNetUp, self).__init__()
        layers = [nn.ConvTranspose2d(in_size, out_size, 4, 2, 1, bias=False), nn.InstanceNorm2d(out_size),
                  nn.ReLU(inplace=True)]
        if dropout:
            layers.append(nn.Dropout(dropout))
        self.model = nn.Sequential(*layers)

    def forward(self, x, skip_input):
        x = self.model(x)
        x = torch.cat((x, skip_input), 1)
        return x


class GeneratorUNet(nn.Module):
    def __init__(self, in_channels=3, out_channels=3):
        super(GeneratorUNet, self).__init__()
        self.down1 = UNetDown(in_channels, 8, normalize=False)
        self.down2 = UNetDown(8, 16)
        self.down3 = UNetDown(16, 32, dropout=0.5)
        self.down4 = UNetDown(32, 32, normalize=False, dropout=0.5)
        self.up1 = UNetUp(32, 32, dropout=0.5)
        self.up2 = UNetUp(64, 16)
        self.up3 = UNetUp(32, 8)
        self.final = nn.Sequential(
            nn.Upsample(scale_factor=2),
            nn.ZeroPad2d((1, 0, 1, 0)),
            nn.Conv2d(16, out_channels, 4, padding=1),
            nn.Tanh(),
        )

    def forward(self, x):
        d1 = self.down1(x)
        d2 = self.down2(d1)
        d3 = self.down3(d2)
        d4 = self.down4(d3)
        u1 = self.up1(d4, d3)
        u2 = self.up2(u1, d2)
        u3 = self.up3(u2, d1)
        return self.final(u3)


class PatchDiscriminator(nn.Module):
    def __init__(self, in_channels=3):
        super(PatchDiscriminator, self).__init__()

        def discriminator_block(in_filters, out_filters, normalization=True):
            layers = [nn.Conv2d(in_filters, out_filters, 4, stride=2, padding=1)]
            if normalization:
                layers.append(nn.InstanceNorm2d(out_filters))
            layers.append(nn.LeakyReLU(0.2, inplace=True))
            return layers

        self.model = nn.Sequential(
            *discriminator_block(in_channels * 2, 8, normalization=False),
            *discriminator_block(8, 16),
            nn.ZeroPad2d((1, 0, 1, 0)),
            nn.Conv2d(16, 1, 4, padding=1, bias=False)
        )

    def forward(self, img_A, img_B):
        img_input = torch.cat((img_A, img_B), 1)
        return self.model(img_input)


criterion_GAN, criterion_pixelwise = torch.nn.MSELoss(), torch.nn.L1Loss()
lambda_pixel = 100
patch = (1, img_size // 2 ** 2, img_size // 2 ** 2)
generator, discriminator = GeneratorUNet(), PatchDiscriminator()
generator.apply(weights_init_normal)
discriminator.apply(weights_init_normal)
print("up1", generator.up1.model)
optimizer_G = torch.optim.Adam(generator.parameters(), lr=2e-4, betas=(0.5, 0.999))
optimizer_D = torch.optim.Adam(discriminator.parameters(), lr=2e-4, betas=(0.5, 0.999))
for i in range(3):
    real_A, real_B = Variable(domain_batch("A").type(Tensor)), Variable(domain_batch("B").type(Tensor))
    valid = Variable(Tensor(np.ones((real_A.size(0), *patch))), requires_grad=False)
    fake = Variable(Tensor(np.zeros((real_A.size(0), *patch))), requires_grad=False)
    optimizer_G.zero_grad()
    fake_B = generator(real_A)
    pred_fake = discriminator(fake_B, real_A)
    loss_GAN = criterion_GAN(pred_fake, valid)
    loss_pixel = criterion_pixelwise(fake_B, real_B)
    loss_G = loss_GAN + lambda_pixel * loss_pixel
    loss_G.backward()
    optimizer_G.step()
    optimizer_D.zero_grad()
    loss_real = criterion_GAN(discriminator(real_B, real_A), valid)
    loss_fake = criterion_GAN(discriminator(fake_B.detach(), real_A), fake)
    loss_D = 0.5 * (loss_real + loss_fake)
    loss_D.backward()
    optimizer_D.step()
    print("[pix2pix] [Batch %d/3] [D loss: %f] [G loss: %f, pixel: %f, adv: %f]"
          % (i, loss_D.item(), loss_G.item(), loss_pixel.item(), loss_GAN.item()))
print("pred_fake", tuple(pred_fake.shape), "fake_B", tuple(fake_B.shape))
generator.eval()
with torch.no_grad():
    out = generator(real_A)
print("eval", r(out.mean()), r(out.abs().max()))

# ----------------------------------------------------------------------------------------------- unit-lite


class Encoder(nn.Module):
    def __init__(self, shared_block):
        super(Encoder, self).__init__()
        self.model = nn.Sequential(nn.ReflectionPad2d(3), nn.Conv2d(channels, 8, 7), nn.InstanceNorm2d(8),
                                   nn.LeakyReLU(0.2, inplace=True), nn.Conv2d(8, 16, 4, stride=2, padding=1),
                                   nn.InstanceNorm2d(16), nn.ReLU(inplace=True))
        self.shared_block = shared_block

    def reparameterization(self, mu):
        z = Variable(Tensor(np.random.normal(0, 1, mu.shape)))
        return z + mu

    def forward(self, x):
        x = self.model(x)
        mu = self.shared_block(x)
        z = self.reparameterization(mu)
        return mu, z


class Decoder(nn.Module):
    def __init__(self, shared_block):
        super(Decoder, self).__init__()
        self.shared_block = shared_block
        self.model = nn.Sequential(nn.Conv2d(16, 12, 3, padding=1), nn.PixelShuffle(2), nn.LeakyReLU(0.2),
                                   nn.Conv2d(3, channels, 3, padding=1), nn.Tanh())

    def forward(self, x):
        x = self.shared_block(x)
        return self.model(x)


shared_E, shared_G = ResidualBlock(16), ResidualBlock(16)
E1, E2 = Encoder(shared_E), Encoder(shared_E)
G1, G2 = Decoder(shared_G), Decoder(shared_G)
for net in (E1, E2, G1, G2):
    net.apply(weights_init_normal)
print("shared", E1.shared_block is E2.shared_block, len(list(itertools.chain(E1.parameters(), E2.parameters()))))
print("ps", G1.model[1])
params = list({id(p): p for p in itertools.chain(E1.parameters(), E2.parameters(), G1.parameters(),
                                                  G2.parameters())}.values())
print("unique params", len(params))
optimizer = torch.optim.Adam(params, lr=1e-3, betas=(0.5, 0.999))
lambda_0, lambda_1 = 10, 0.1


def compute_kl(mu):
    mu_2 = torch.pow(mu, 2)
    loss = torch.mean(mu_2)
    return loss


for i in range(3):
    X1, X2 = Variable(domain_batch("A").type(Tensor)), Variable(domain_batch("B").type(Tensor))
    optimizer.zero_grad()
    mu1, Z1 = E1(X1)
    mu2, Z2 = E2(X2)
    recon_X1, recon_X2 = G1(Z1), G2(Z2)
    fake_X1, fake_X2 = G1(Z2), G2(Z1)
    mu1_, Z1_ = E1(fake_X1)
    mu2_, Z2_ = E2(fake_X2)
    cycle_X1, cycle_X2 = G1(Z2_), G2(Z1_)
    loss_KL_1, loss_KL_2 = lambda_1 * compute_kl(mu1), lambda_1 * compute_kl(mu2)
    loss_ID_1, loss_ID_2 = lambda_0 * F.l1_loss(recon_X1, X1), lambda_0 * F.l1_loss(recon_X2, X2)
    loss_cyc_1, loss_cyc_2 = lambda_0 * F.l1_loss(cycle_X1, X1), lambda_0 * F.l1_loss(cycle_X2, X2)
    loss_G = loss_KL_1 + loss_KL_2 + loss_ID_1 + loss_ID_2 + loss_cyc_1 + loss_cyc_2
    loss_G.backward()
    optimizer.step()
    print("[unit] [Batch %d/3] [G loss: %.4f] [KL: %.4f] [ID: %.4f]" % (i, loss_G.item(), loss_KL_1.item(),
                                                                    loss_ID_1.item()))
print("Z1", tuple(Z1.shape), Z1.dtype, "recon", tuple(recon_X1.shape))
print("shared grad", r(shared_E.block[1].weight.grad.abs().sum()))

# ----------------------------------------------------------------------------------------------- munit-lite


class AdaptiveInstanceNorm2d(nn.Module):
    """Reference: https://github.com/NVlabs/MUNIT/blob/master/networks.py"""

    def __init__(self, num_features, eps=1e-5, momentum=0.1):
        super(AdaptiveInstanceNorm2d, self).__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.weight = None  # weight and bias are dynamically assigned
        self.bias = None
        self.register_buffer("running_mean", torch.zeros(num_features))
        self.register_buffer("running_var", torch.ones(num_features))

    def forward(self, x):
        assert self.weight is not None and self.bias is not None, "Please assign weight and bias before calling AdaIN!"
        b, c, h, w = x.size()
        running_mean = self.running_mean.repeat(b)
        running_var = self.running_var.repeat(b)
        x_reshaped = x.contiguous().view(1, b * c, h, w)
        out = F.batch_norm(x_reshaped, running_mean, running_var, self.weight, self.bias, True, self.momentum, self.eps)
        return out.view(b, c, h, w)

    def __repr__(self):
        return self.__class__.__name__ + "(" + str(self.num_features) + ")"


class LayerNorm(nn.Module):
    def __init__(self, num_features, eps=1e-5, affine=True):
        super(LayerNorm, self).__init__()
        self.num_features, self.affine, self.eps = num_features, affine, eps
        if self.affine:
            self.gamma = nn.Parameter(torch.Tensor(num_features).uniform_())
            self.beta = nn.Parameter(torch.zeros(num_features))

    def forward(self, x):
        shape = [-1] + [1] * (x.dim() - 1)
        if x.size(0) == 1:
            mean = x.view(-1).mean().view(*shape)
            std = x.view(-1).std().view(*shape)
        else:
            mean = x.view(x.size(0), -1).mean(1).view(*shape)
            std = x.view(x.size(0), -1).std(1).view(*shape)
        x = (x - mean) / (std + self.eps)
        if self.affine:
            shape = [1, -1] + [1] * (x.dim() - 2)
            x = x * self.gamma.view(*shape) + self.beta.view(*shape)
        return x


style_dim = 4
munit_dec = nn.Sequential(nn.Conv2d(channels, 8, 3, padding=1), AdaptiveInstanceNorm2d(8), nn.ReLU(inplace=True),
                          nn.Upsample(scale_factor=2), nn.Conv2d(8, 8, 5, stride=2, padding=2), LayerNorm(8),
                          nn.ReLU(inplace=True), nn.Conv2d(8, channels, 3, padding=1), nn.Tanh())
style_mlp = nn.Sequential(nn.Linear(style_dim, 16), nn.ReLU(inplace=True), nn.Linear(16, 2 * 8))


def assign_adain_params(adain_params, model):
    for m in model.modules():
        if m.__class__.__name__ == "AdaptiveInstanceNorm2d":
            mean = adain_params[:, : m.num_features]
            std = adain_params[:, m.num_features: 2 * m.num_features]
            m.bias = mean.contiguous().view(-1)
            m.weight = std.contiguous().view(-1)
            if adain_params.size(1) > 2 * m.num_features:
                adain_params = adain_params[:, 2 * m.num_features:]


print("munit", munit_dec[1], munit_dec[5].gamma.shape, [n for n, _ in munit_dec.named_parameters()][-4:])
optimizer = torch.optim.Adam(itertools.chain(munit_dec.parameters(), style_mlp.parameters()), lr=1e-3)
for i in range(2):
    X1 = Variable(domain_batch("A").type(Tensor))
    s = Variable(torch.randn(X1.size(0), style_dim, 1, 1).type(Tensor))
    optimizer.zero_grad()
    assign_adain_params(style_mlp(s.view(s.size(0), -1)), munit_dec)
    out = munit_dec(X1)
    loss = F.l1_loss(out, X1)
    loss.backward()
    optimizer.step()
    print("[munit] [Batch %d/2] [recon: %.5f]" % (i, loss.item()))
print("adain weight", tuple(munit_dec[1].weight.shape), munit_dec[1].weight.requires_grad,
      type(munit_dec[1].weight).__name__, r(munit_dec[1].running_mean.sum()), sorted(munit_dec[1].state_dict()))
