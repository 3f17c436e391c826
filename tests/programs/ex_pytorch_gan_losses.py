"""eriklindernoren/PyTorch-GAN-style loss variants (own code, synthetic 16x16 images, old-style idioms kept):
wgan (weight clipping with ``p.data.clamp_``, RMSprop, n_critic), wgan_gp (``Tensor(np.random.random(...))``
interpolates, ``autograd.grad(outputs=d, inputs=x, grad_outputs=fake, create_graph=True, retain_graph=True,
only_inputs=True)``), wgan_div (grads w.r.t. both real and fake inputs with ``requires_grad=True`` Variables,
``torch.pow(norm, p / 2)``), dragan (perturbed real data), began (auto-encoder discriminator, ``k_t`` updated
from ``.item()`` and clipped with ``min(max(k, 0), 1)``, the convergence measure), relativistic average GAN
(``BCEWithLogitsLoss`` on ``real - fake.mean(0, keepdim=True)``), softmax GAN (``torch.log(torch.sum(
torch.exp(-d)))``), ebgan (auto-encoder discriminator with the pull-away term on the embeddings) and lsgan
(MSE on a sigmoid-free critic), ``torch.nn.utils.spectral_norm`` on a critic. One fact per line."""
import numpy as np
import torch
import torch.autograd as autograd
import torch.nn as nn
from torch.autograd import Variable

torch.manual_seed(0)
np.random.seed(0)

cuda = True if torch.cuda.is_available() else False
Tensor = torch.cuda.FloatTensor if cuda else torch.FloatTensor
latent_dim, img_size, channels, batch = 8, 16, 1, 8
img_shape = (channels, img_size, img_size)


def r(x):
    return round(float(x), 4)


def real_batch():
    x = torch.linspace(-1, 1, img_size)
    phase = torch.rand(batch, 1, 1, 1) * 3
    return torch.tanh(torch.sin(3 * x.view(1, 1, 1, -1) + phase) * torch.cos(2 * x.view(1, 1, -1, 1)))


class Generator(nn.Module):
    def __init__(self):
        super(Generator, self).__init__()

        def block(in_feat, out_feat, normalize=True):
            layers = [nn.Linear(in_feat, out_feat)]
            if normalize:
                layers.append(nn.BatchNorm1d(out_feat, 0.8))
            layers.append(nn.LeakyReLU(0.2, inplace=True))
            return layers

        self.model = nn.Sequential(*block(latent_dim, 32, normalize=False), *block(32, 64),
                                   nn.Linear(64, int(np.prod(img_shape))), nn.Tanh())

    def forward(self, z):
        img = self.model(z)
        return img.view(img.shape[0], *img_shape)


class Critic(nn.Module):
    def __init__(self, sigmoid=False, sn=False):
        super(Critic, self).__init__()
        wrap = torch.nn.utils.spectral_norm if sn else (lambda m: m)
        layers = [wrap(nn.Linear(int(np.prod(img_shape)), 64)), nn.LeakyReLU(0.2, inplace=True),
                  wrap(nn.Linear(64, 32)), nn.LeakyReLU(0.2, inplace=True), wrap(nn.Linear(32, 1))]
        if sigmoid:
            layers.append(nn.Sigmoid())
        self.model = nn.Sequential(*layers)

    def forward(self, img):
        return self.model(img.view(img.shape[0], -1))


def noise():
    return Variable(Tensor(np.random.normal(0, 1, (batch, latent_dim))))


def compute_gradient_penalty(D, real_samples, fake_samples):
    alpha = Tensor(np.random.random((real_samples.size(0), 1, 1, 1)))
    interpolates = (alpha * real_samples + ((1 - alpha) * fake_samples)).requires_grad_(True)
    d_interpolates = D(interpolates)
    fake = Variable(Tensor(real_samples.shape[0], 1).fill_(1.0), requires_grad=False)
    gradients = autograd.grad(outputs=d_interpolates, inputs=interpolates, grad_outputs=fake, create_graph=True,
                              retain_graph=True, only_inputs=True)[0]
    gradients = gradients.view(gradients.size(0), -1)
    return ((gradients.norm(2, dim=1) - 1) ** 2).mean()


# ----------------------------------------------------------------------------------------------- wgan
generator, discriminator = Generator(), Critic()
optimizer_G = torch.optim.RMSprop(generator.parameters(), lr=5e-4)
optimizer_D = torch.optim.RMSprop(discriminator.parameters(), lr=5e-4)
n_critic, clip_value = 2, 0.01
for i in range(4):
    real_imgs = Variable(real_batch().type(Tensor))
    optimizer_D.zero_grad()
    fake_imgs = generator(noise()).detach()
    loss_D = -torch.mean(discriminator(real_imgs)) + torch.mean(discriminator(fake_imgs))
    loss_D.backward()
    optimizer_D.step()
    for p in discriminator.parameters():
        p.data.clamp_(-clip_value, clip_value)
    if i % n_critic == 0:
        optimizer_G.zero_grad()
        gen_imgs = generator(noise())
        loss_G = -torch.mean(discriminator(gen_imgs))
        loss_G.backward()
        optimizer_G.step()
    print("[wgan] [Batch %d/4] [D loss: %.5f] [G loss: %.5f]" % (i, loss_D.item(), loss_G.item()))
print("clipped", r(max(p.abs().max() for p in discriminator.parameters())))

# ----------------------------------------------------------------------------------------------- wgan_gp / dragan
for variant in ("wgan_gp", "dragan"):
    generator, discriminator = Generator(), Critic(sn=(variant == "dragan"))
    optimizer_G = torch.optim.Adam(generator.parameters(), lr=2e-4, betas=(0.5, 0.999))
    optimizer_D = torch.optim.Adam(discriminator.parameters(), lr=2e-4, betas=(0.5, 0.999))
    for i in range(3):
        real_imgs = Variable(real_batch().type(Tensor))
        optimizer_D.zero_grad()
        fake_imgs = generator(noise())
        if variant == "wgan_gp":
            gradient_penalty = compute_gradient_penalty(discriminator, real_imgs.data, fake_imgs.data)
        else:  # DRAGAN: penalty around perturbed real data
            perturbed = real_imgs.data + 0.5 * real_imgs.data.std() * Tensor(np.random.random(real_imgs.shape))
            gradient_penalty = compute_gradient_penalty(discriminator, real_imgs.data, perturbed)
        d_loss = -torch.mean(discriminator(real_imgs)) + torch.mean(discriminator(fake_imgs)) + 10 * gradient_penalty
        d_loss.backward()
        optimizer_D.step()
        optimizer_G.zero_grad()
        g_loss = -torch.mean(discriminator(generator(noise())))
        g_loss.backward()
        optimizer_G.step()
        print("[%s] [Batch %d/3] [D loss: %.5f] [G loss: %.5f] [GP: %.5f]" % (variant, i, d_loss.item(), g_loss.item(),
                                                                             gradient_penalty.item()))
print("sn keys", sorted(k for k in discriminator.state_dict() if k.startswith("model.0")))
print("sn weight_orig grad", discriminator.model[0].weight_orig.grad is not None, hasattr(discriminator.model[0], "weight"))

# ----------------------------------------------------------------------------------------------- wgan_div
generator, discriminator = Generator(), Critic()
optimizer_G = torch.optim.Adam(generator.parameters(), lr=2e-4, betas=(0.5, 0.999))
optimizer_D = torch.optim.Adam(discriminator.parameters(), lr=2e-4, betas=(0.5, 0.999))
k, p = 2, 6
for i in range(3):
    real_imgs = Variable(real_batch().type(Tensor), requires_grad=True)
    optimizer_D.zero_grad()
    fake_imgs = generator(noise())
    real_validity = discriminator(real_imgs)
    fake_validity = discriminator(fake_imgs)
    real_grad_out = Variable(Tensor(real_imgs.size(0), 1).fill_(1.0), requires_grad=False)
    real_grad = autograd.grad(real_validity, real_imgs, real_grad_out, create_graph=True, retain_graph=True,
                              only_inputs=True)[0]
    real_grad_norm = real_grad.view(real_grad.size(0), -1).pow(2).sum(1) ** (p / 2)
    fake_grad_out = Variable(Tensor(fake_imgs.size(0), 1).fill_(1.0), requires_grad=False)
    fake_grad = autograd.grad(fake_validity, fake_imgs, fake_grad_out, create_graph=True, retain_graph=True,
                              only_inputs=True)[0]
    fake_grad_norm = fake_grad.view(fake_grad.size(0), -1).pow(2).sum(1) ** (p / 2)
    div_gp = torch.mean(real_grad_norm + fake_grad_norm) * k / 2
    d_loss = -torch.mean(real_validity) + torch.mean(fake_validity) + div_gp
    d_loss.backward()
    optimizer_D.step()
    optimizer_G.zero_grad()
    g_loss = -torch.mean(discriminator(generator(noise())))
    g_loss.backward()
    optimizer_G.step()
    print("[wgan_div] [Batch %d/3] [D loss: %.5f] [G loss: %.5f] [div: %.4e]" % (i, d_loss.item(), g_loss.item(),
                                                                                div_gp.item()))
print("real_imgs grad", tuple(real_imgs.grad.shape), r(real_imgs.grad.abs().sum() * 1e4))


# ----------------------------------------------------------------------------------------------- began / ebgan
class AEDiscriminator(nn.Module):
    def __init__(self):
        super(AEDiscriminator, self).__init__()
        self.down = nn.Sequential(nn.Conv2d(channels, 8, 3, 2, 1), nn.ReLU())
        self.down_size = img_size // 2
        down_dim = 8 * (img_size // 2) ** 2
        self.embedding = nn.Linear(down_dim, 16)
        self.fc = nn.Sequential(nn.BatchNorm1d(16, 0.8), nn.ReLU(inplace=True), nn.Linear(16, down_dim),
                                nn.BatchNorm1d(down_dim), nn.ReLU(inplace=True))
        self.up = nn.Sequential(nn.Upsample(scale_factor=2), nn.Conv2d(8, channels, 3, 1, 1))

    def forward(self, img):
        out = self.down(img)
        embedding = self.embedding(out.view(out.size(0), -1))
        out = self.fc(embedding)
        out = self.up(out.view(out.size(0), 8, self.down_size, self.down_size))
        return out, embedding


generator, discriminator = Generator(), AEDiscriminator()
optimizer_G = torch.optim.Adam(generator.parameters(), lr=2e-4, betas=(0.5, 0.999))
optimizer_D = torch.optim.Adam(discriminator.parameters(), lr=2e-4, betas=(0.5, 0.999))
gamma, lambda_k, k = 0.75, 0.001, 0.0
for i in range(3):
    real_imgs = Variable(real_batch().type(Tensor))
    optimizer_G.zero_grad()
    gen_imgs = generator(noise())
    g_loss = torch.mean(torch.abs(discriminator(gen_imgs)[0] - gen_imgs))
    g_loss.backward()
    optimizer_G.step()
    optimizer_D.zero_grad()
    d_real, _ = discriminator(real_imgs)
    d_fake, _ = discriminator(gen_imgs.detach())
    d_loss_real = torch.mean(torch.abs(d_real - real_imgs))
    d_loss_fake = torch.mean(torch.abs(d_fake - gen_imgs.detach()))
    d_loss = d_loss_real - k * d_loss_fake
    d_loss.backward()
    optimizer_D.step()
    diff = torch.mean(gamma * d_loss_real - d_loss_fake)
    k = k + lambda_k * diff.item()
    k = min(max(k, 0), 1)
    M = (d_loss_real + torch.abs(diff)).data.item()
    print("[began] [Batch %d/3] [D loss: %.5f] [G loss: %.5f] -- M: %.5f, k: %.6f" % (i, d_loss.item(), g_loss.item(),
                                                                                   M, k))
print("k type", type(k).__name__, type(M).__name__)

margin, lambda_pt = max(1, batch / 64.0), 0.1
pixelwise_loss = nn.MSELoss()


def pullaway_loss(embeddings):
    norm = torch.sqrt(torch.sum(embeddings ** 2, -1, keepdim=True))
    normalized_emb = embeddings / norm
    similarity = torch.matmul(normalized_emb, normalized_emb.transpose(1, 0))
    batch_size = embeddings.size(0)
    loss_pt = (torch.sum(similarity) - batch_size) / (batch_size * (batch_size - 1))
    return loss_pt


generator, discriminator = Generator(), AEDiscriminator()
optimizer_G = torch.optim.Adam(generator.parameters(), lr=2e-4, betas=(0.5, 0.999))
optimizer_D = torch.optim.Adam(discriminator.parameters(), lr=2e-4, betas=(0.5, 0.999))
for i in range(3):
    real_imgs = Variable(real_batch().type(Tensor))
    optimizer_G.zero_grad()
    gen_imgs = generator(noise())
    recon_imgs, img_embeddings = discriminator(gen_imgs)
    g_loss = pixelwise_loss(recon_imgs, gen_imgs.detach()) + lambda_pt * pullaway_loss(img_embeddings)
    g_loss.backward()
    optimizer_G.step()
    optimizer_D.zero_grad()
    real_recon, _ = discriminator(real_imgs)
    fake_recon, _ = discriminator(gen_imgs.detach())
    d_loss_real = pixelwise_loss(real_recon, real_imgs)
    d_loss_fake = pixelwise_loss(fake_recon, gen_imgs.detach())
    d_loss = d_loss_real
    if (margin - d_loss_fake.data).item() > 0:
        d_loss += margin - d_loss_fake
    d_loss.backward()
    optimizer_D.step()
    print("[ebgan] [Batch %d/3] [D loss: %.5f] [G loss: %.5f]" % (i, d_loss.item(), g_loss.item()))
print("pullaway", r(pullaway_loss(img_embeddings.detach())), d_loss.grad_fn.name())

# ----------------------------------------------------------------------------------------------- relativistic / softmax / lsgan
for variant in ("relativistic", "softmax", "lsgan"):
    generator, discriminator = Generator(), Critic()
    optimizer_G = torch.optim.Adam(generator.parameters(), lr=2e-4, betas=(0.5, 0.999))
    optimizer_D = torch.optim.Adam(discriminator.parameters(), lr=2e-4, betas=(0.5, 0.999))
    adversarial_loss = torch.nn.BCEWithLogitsLoss() if variant == "relativistic" else torch.nn.MSELoss()
    for i in range(3):
        real_imgs = Variable(real_batch().type(Tensor))
        valid = Variable(Tensor(batch, 1).fill_(1.0), requires_grad=False)
        fake = Variable(Tensor(batch, 1).fill_(0.0), requires_grad=False)
        g_target = 1 / (batch * 2)
        d_target = 1 / batch
        optimizer_G.zero_grad()
        gen_imgs = generator(noise())
        real_pred = discriminator(real_imgs).detach()
        fake_pred = discriminator(gen_imgs)
        if variant == "relativistic":
            g_loss = adversarial_loss(fake_pred - real_pred.mean(0, keepdim=True), valid)
        elif variant == "softmax":
            Z = torch.sum(torch.exp(-real_pred)) + torch.sum(torch.exp(-fake_pred))
            g_loss = g_target * (torch.sum(real_pred) + torch.sum(fake_pred)) + torch.log(Z + 1e-8)
        else:
            g_loss = adversarial_loss(fake_pred, valid)
        g_loss.backward()
        optimizer_G.step()
        optimizer_D.zero_grad()
        real_pred = discriminator(real_imgs)
        fake_pred = discriminator(gen_imgs.detach())
        if variant == "relativistic":
            real_loss = adversarial_loss(real_pred - fake_pred.mean(0, keepdim=True), valid)
            fake_loss = adversarial_loss(fake_pred - real_pred.mean(0, keepdim=True), fake)
            d_loss = (real_loss + fake_loss) / 2
        elif variant == "softmax":
            Z = torch.sum(torch.exp(-real_pred)) + torch.sum(torch.exp(-fake_pred))
            d_loss = d_target * torch.sum(real_pred) + torch.log(Z + 1e-8)
        else:
            d_loss = 0.5 * (adversarial_loss(real_pred, valid) + adversarial_loss(fake_pred, fake))
        d_loss.backward()
        optimizer_D.step()
        print("[%s] [Batch %d/3] [D loss: %.5f] [G loss: %.5f]" % (variant, i, d_loss.item(), g_loss.item()))
print("targets", g_target, d_target, type(g_target).__name__)
print("G bn", generator.model[3])
history = Tensor([d_loss.data.view(1), g_loss.data.view(1)])  # one-element tensors read as numbers
print("history", tuple(history.shape), history.dtype, Tensor(history) is history, Tensor(history)._base is history)
try:
    torch.cuda.LongTensor(history) if cuda else torch.LongTensor(history)
except TypeError as e:
    print("LongTensor(float)", type(e).__name__, str(e)[:49])
