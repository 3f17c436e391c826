"""AntixK/PyTorch-VAE-style model zoo (own code, synthetic 16x16 images): a ``BaseVAE(nn.Module)`` with abstract
``encode`` / ``decode`` / ``sample`` / ``generate`` and ``loss_function(*inputs, **kwargs)`` returning a dict
(``{'loss': ..., 'Reconstruction_Loss': ..., 'KLD': ...}``) weighted by ``kwargs['M_N']`` (``kld_weight``);
VanillaVAE (conv encoder with ``BatchNorm2d`` / ``LeakyReLU``, ``ConvTranspose2d(output_padding=1)`` decoder,
``torch.flatten(result, start_dim=1)``, ``reparameterize`` with ``torch.randn_like``), BetaVAE (the 'B' loss with
the capacity schedule ``torch.clamp(self.C_max / self.C_stop_iter * self.num_iter, 0, self.C_max.data[0])``),
WAE-MMD (RBF and IMQ kernels over ``unsqueeze(-2)`` / ``unsqueeze(-3)`` expansions), IWAE (``repeat`` over
samples, importance weights from ``F.softmax`` of the log-weights, ``logsumexp``), CategoricalVAE
(``F.gumbel_softmax``-style sampling written out with ``torch.rand_like``, temperature annealed by
``np.maximum(temp * np.exp(-anneal_rate * batch_idx), min_temp)``) and VQ-VAE (straight-through estimator,
codebook / commitment losses, EMA codebook updates under ``torch.no_grad()``). One fact per line, rounded."""
from abc import abstractmethod
from typing import Any, List

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

Tensor = torch.Tensor
torch.manual_seed(0)
np.random.seed(0)
img_size, in_channels, batch, latent_dim = 16, 1, 8, 4


def r(x):
    return round(float(x), 4)


def data_batch():
    x = torch.linspace(-1, 1, img_size)
    phase = torch.rand(batch, 1, 1, 1) * 3
    return torch.sigmoid(3 * torch.sin(3 * x.view(1, 1, 1, -1) + phase) * torch.cos(2 * x.view(1, 1, -1, 1)))


class BaseVAE(nn.Module):
    def __init__(self) -> None:
        super(BaseVAE, self).__init__()

    def encode(self, input: Tensor) -> List[Tensor]:
        raise NotImplementedError

    def decode(self, input: Tensor) -> Any:
        raise NotImplementedError

    def sample(self, batch_size: int, current_device: int, **kwargs) -> Tensor:
        raise NotImplementedError

    def generate(self, x: Tensor, **kwargs) -> Tensor:
        raise NotImplementedError

    @abstractmethod
    def forward(self, *inputs: Tensor) -> Tensor:
        pass

    @abstractmethod
    def loss_function(self, *inputs: Any, **kwargs) -> Tensor:
        pass


class ConvCoder(BaseVAE):
    """Shared encoder / decoder body of the zoo's models."""

    def __init__(self, out_dim, hidden_dims=None):
        super(ConvCoder, self).__init__()
        hidden_dims = hidden_dims or [8, 16]
        modules, c = [], in_channels
        for h_dim in hidden_dims:
            modules.append(nn.Sequential(nn.Conv2d(c, out_channels=h_dim, kernel_size=3, stride=2, padding=1),
                                         nn.BatchNorm2d(h_dim), nn.LeakyReLU()))
            c = h_dim
        self.encoder = nn.Sequential(*modules)
        self.flat = hidden_dims[-1] * 4 * 4
        self.fc_mu = nn.Linear(self.flat, out_dim)
        self.fc_var = nn.Linear(self.flat, out_dim)
        self.decoder_input = nn.Linear(out_dim, self.flat)
        hidden_dims = hidden_dims[::-1]
        self.hidden_dims = hidden_dims
        self.decoder = nn.Sequential(
            nn.ConvTranspose2d(hidden_dims[0], hidden_dims[1], kernel_size=3, stride=2, padding=1, output_padding=1),
            nn.BatchNorm2d(hidden_dims[1]), nn.LeakyReLU())
        self.final_layer = nn.Sequential(
            nn.ConvTranspose2d(hidden_dims[-1], hidden_dims[-1], kernel_size=3, stride=2, padding=1, output_padding=1),
            nn.BatchNorm2d(hidden_dims[-1]), nn.LeakyReLU(),
            nn.Conv2d(hidden_dims[-1], out_channels=in_channels, kernel_size=3, padding=1), nn.Sigmoid())

    def encode(self, input: Tensor) -> List[Tensor]:
        result = self.encoder(input)
        result = torch.flatten(result, start_dim=1)
        mu = self.fc_mu(result)
        log_var = self.fc_var(result)
        return [mu, log_var]

    def decode(self, z: Tensor) -> Tensor:
        result = self.decoder_input(z)
        result = result.view(-1, self.hidden_dims[0], 4, 4)
        result = self.decoder(result)
        return self.final_layer(result)

    def reparameterize(self, mu: Tensor, logvar: Tensor) -> Tensor:
        std = torch.exp(0.5 * logvar)
        eps = torch.randn_like(std)
        return eps * std + mu

    def forward(self, input: Tensor, **kwargs) -> List[Tensor]:
        mu, log_var = self.encode(input)
        z = self.reparameterize(mu, log_var)
        return [self.decode(z), input, mu, log_var]

    def sample(self, num_samples: int, current_device: int, **kwargs) -> Tensor:
        z = torch.randn(num_samples, latent_dim)
        return self.decode(z)

    def generate(self, x: Tensor, **kwargs) -> Tensor:
        return self.forward(x)[0]


class VanillaVAE(ConvCoder):
    def __init__(self):
        super(VanillaVAE, self).__init__(latent_dim)

    def loss_function(self, *args, **kwargs) -> dict:
        recons, input, mu, log_var = args[0], args[1], args[2], args[3]
        kld_weight = kwargs['M_N']
        recons_loss = F.mse_loss(recons, input)
        kld_loss = torch.mean(-0.5 * torch.sum(1 + log_var - mu ** 2 - log_var.exp(), dim=1), dim=0)
        loss = recons_loss + kld_weight * kld_loss
        return {'loss': loss, 'Reconstruction_Loss': recons_loss.detach(), 'KLD': -kld_loss.detach()}


class BetaVAE(ConvCoder):
    num_iter = 0

    def __init__(self, beta: int = 4, gamma: float = 10., max_capacity: int = 25, Capacity_max_iter: int = 10,
                 loss_type: str = 'B'):
        super(BetaVAE, self).__init__(latent_dim)
        self.beta, self.gamma, self.loss_type = beta, gamma, loss_type
        self.C_max = torch.Tensor([max_capacity])
        self.C_stop_iter = Capacity_max_iter

    def loss_function(self, *args, **kwargs) -> dict:
        self.num_iter += 1
        recons, input, mu, log_var = args[0], args[1], args[2], args[3]
        kld_weight = kwargs['M_N']
        recons_loss = F.mse_loss(recons, input)
        kld_loss = torch.mean(-0.5 * torch.sum(1 + log_var - mu ** 2 - log_var.exp(), dim=1), dim=0)
        if self.loss_type == 'H':
            loss = recons_loss + self.beta * kld_weight * kld_loss
        elif self.loss_type == 'B':
            self.C_max = self.C_max.to(input.device)
            C = torch.clamp(self.C_max / self.C_stop_iter * self.num_iter, 0, self.C_max.data[0])
            loss = recons_loss + self.gamma * kld_weight * (kld_loss - C).abs()
        else:
            raise ValueError('Undefined loss type.')
        return {'loss': loss, 'Reconstruction_Loss': recons_loss, 'KLD': kld_loss, 'C': C}


class WAE_MMD(ConvCoder):
    def __init__(self, reg_weight: int = 100, kernel_type: str = 'imq', latent_var: float = 2.):
        super(WAE_MMD, self).__init__(latent_dim)
        self.reg_weight, self.kernel_type, self.z_var = reg_weight, kernel_type, latent_var

    def forward(self, input: Tensor, **kwargs) -> List[Tensor]:
        z = self.fc_mu(torch.flatten(self.encoder(input), start_dim=1))
        return [self.decode(z), input, z]

    def loss_function(self, *args, **kwargs) -> dict:
        recons, input, z = args[0], args[1], args[2]
        batch_size = input.size(0)
        bias_corr = batch_size * (batch_size - 1)
        reg_weight = self.reg_weight / bias_corr
        recons_loss = F.mse_loss(recons, input)
        mmd_loss = self.compute_mmd(z, reg_weight)
        return {'loss': recons_loss + mmd_loss, 'Reconstruction_Loss': recons_loss, 'MMD': mmd_loss}

    def compute_kernel(self, x1: Tensor, x2: Tensor) -> Tensor:
        D, N = x1.size(1), x1.size(0)
        x1 = x1.unsqueeze(-2)  # Make it into a column tensor
        x2 = x2.unsqueeze(-3)  # Make it into a row tensor
        x1 = x1.expand(N, N, D)
        x2 = x2.expand(N, N, D)
        if self.kernel_type == 'rbf':
            result = self.compute_rbf(x1, x2)
        elif self.kernel_type == 'imq':
            result = self.compute_inv_mult_quad(x1, x2)
        else:
            raise ValueError('Undefined kernel type.')
        return result

    def compute_rbf(self, x1: Tensor, x2: Tensor, eps: float = 1e-7) -> Tensor:
        z_dim = x2.size(-1)
        sigma = 2. * z_dim * self.z_var
        return torch.exp(-((x1 - x2).pow(2).mean(-1) / sigma))

    def compute_inv_mult_quad(self, x1: Tensor, x2: Tensor, eps: float = 1e-7) -> Tensor:
        z_dim = x2.size(-1)
        C = 2 * z_dim * self.z_var
        kernel = C / (eps + C + (x1 - x2).pow(2).sum(dim=-1))
        return kernel.sum() - kernel.diag().sum()

    def compute_mmd(self, z: Tensor, reg_weight: float) -> Tensor:
        prior_z = torch.randn_like(z)
        prior_z__kernel = self.compute_kernel(prior_z, prior_z)
        z__kernel = self.compute_kernel(z, z)
        priorz_z__kernel = self.compute_kernel(prior_z, z)
        return reg_weight * prior_z__kernel.mean() + reg_weight * z__kernel.mean() - \
            2 * reg_weight * priorz_z__kernel.mean()


class IWAE(ConvCoder):
    def __init__(self, num_samples: int = 3):
        super(IWAE, self).__init__(latent_dim)
        self.num_samples = num_samples

    def decode(self, z: Tensor) -> Tensor:
        B, _, _ = z.size()
        z = z.contiguous().view(-1, latent_dim)  # [BS x latent_dim]
        result = super(IWAE, self).decode(z)
        return result.view([B, -1, in_channels, img_size, img_size])  # [B x S x C x H x W]

    def forward(self, input: Tensor, **kwargs) -> List[Tensor]:
        mu, log_var = self.encode(input)
        mu = mu.repeat(self.num_samples, 1, 1).permute(1, 0, 2)  # [B x S x D]
        log_var = log_var.repeat(self.num_samples, 1, 1).permute(1, 0, 2)  # [B x S x D]
        z = self.reparameterize(mu, log_var)  # [B x S x D]
        eps = (z - mu) / log_var  # Prior samples
        return [self.decode(z), input, mu, log_var, z, eps]

    def loss_function(self, *args, **kwargs) -> dict:
        recons, input, mu, log_var, _z = args[0], args[1], args[2], args[3], args[4]
        input = input.repeat(self.num_samples, 1, 1, 1, 1).permute(1, 0, 2, 3, 4)  # [B x S x C x H x W]
        kld_weight = kwargs['M_N']
        log_p_x_z = ((recons - input) ** 2).flatten(2).mean(-1)  # Reconstruction Loss [B x S]
        kld_loss = -0.5 * torch.sum(1 + log_var - mu ** 2 - log_var.exp(), dim=2)  # [B x S]
        log_weight = (log_p_x_z + kld_weight * kld_loss)  # .detach().data
        weight = F.softmax(log_weight, dim=-1)
        loss = torch.mean(torch.sum(weight * log_weight, dim=-1), dim=0)
        bound = torch.logsumexp(-log_weight, dim=-1).mean() - np.log(self.num_samples)
        return {'loss': loss, 'Reconstruction_Loss': log_p_x_z.mean(), 'KLD': -kld_loss.mean(), 'bound': bound}


class CategoricalVAE(ConvCoder):
    def __init__(self, categorical_dim: int = 5, temperature: float = 0.5, anneal_rate: float = 3e-5,
                 anneal_interval: int = 1, alpha: float = 30.):
        super(CategoricalVAE, self).__init__(latent_dim * categorical_dim)
        self.categorical_dim = categorical_dim
        self.temp, self.min_temp, self.anneal_rate = temperature, temperature, anneal_rate
        self.anneal_interval, self.alpha = anneal_interval, alpha
        self.decoder_input = nn.Linear(latent_dim * categorical_dim, self.flat)
        self.sampling_dist = torch.distributions.OneHotCategorical(1. / categorical_dim *
                                                                   torch.ones((self.categorical_dim, 1)))

    def encode(self, input: Tensor) -> List[Tensor]:
        result = torch.flatten(self.encoder(input), start_dim=1)
        z = self.fc_mu(result)
        z = z.view(-1, latent_dim, self.categorical_dim)
        return [z]

    def decode(self, z: Tensor) -> Tensor:
        return super(CategoricalVAE, self).decode(z.view(z.size(0), -1))

    def reparameterize(self, z: Tensor, eps: float = 1e-7) -> Tensor:
        u = torch.rand_like(z)
        g = - torch.log(- torch.log(u + eps) + eps)
        s = F.softmax((z + g) / self.temp, dim=-1)
        s = s.view(-1, latent_dim * self.categorical_dim)
        return s

    def forward(self, input: Tensor, **kwargs) -> List[Tensor]:
        q = self.encode(input)[0]
        z = self.reparameterize(q)
        return [self.decode(z), input, q]

    def loss_function(self, *args, **kwargs) -> dict:
        recons, input, q = args[0], args[1], args[2]
        q_p = F.softmax(q, dim=-1)  # Convert the categorical codes into probabilities
        kld_weight = kwargs['M_N']
        batch_idx = kwargs['batch_idx']
        if batch_idx % self.anneal_interval == 0 and self.training:
            self.temp = np.maximum(self.temp * np.exp(- self.anneal_rate * batch_idx), self.min_temp)
        recons_loss = F.mse_loss(recons, input, reduction='mean')
        eps = 1e-7
        h1 = q_p * torch.log(q_p + eps)
        h2 = q_p * np.log(1. / self.categorical_dim + eps)
        kld_loss = torch.mean(torch.sum(h1 - h2, dim=(1, 2)), dim=0)
        loss = self.alpha * recons_loss + kld_weight * kld_loss
        return {'loss': loss, 'Reconstruction_Loss': recons_loss, 'KLD': -kld_loss}


class VectorQuantizer(nn.Module):
    def __init__(self, num_embeddings: int, embedding_dim: int, beta: float = 0.25, ema: bool = False,
                 decay: float = 0.99):
        super(VectorQuantizer, self).__init__()
        self.K, self.D, self.beta, self.ema, self.decay = num_embeddings, embedding_dim, beta, ema, decay
        self.embedding = nn.Embedding(self.K, self.D)
        self.embedding.weight.data.uniform_(-1 / self.K, 1 / self.K)
        if ema:
            self.register_buffer("cluster_size", torch.zeros(num_embeddings))
            self.register_buffer("embed_avg", self.embedding.weight.data.clone())

    def forward(self, latents: Tensor) -> Tensor:
        latents = latents.permute(0, 2, 3, 1).contiguous()  # [B x D x H x W] -> [B x H x W x D]
        latents_shape = latents.shape
        flat_latents = latents.view(-1, self.D)  # [BHW x D]
        dist = torch.sum(flat_latents ** 2, dim=1, keepdim=True) + \
            torch.sum(self.embedding.weight ** 2, dim=1) - \
            2 * torch.matmul(flat_latents, self.embedding.weight.t())  # [BHW x K]
        encoding_inds = torch.argmin(dist, dim=1).unsqueeze(1)  # [BHW, 1]
        encoding_one_hot = torch.zeros(encoding_inds.size(0), self.K, device=latents.device)
        encoding_one_hot.scatter_(1, encoding_inds, 1)  # [BHW x K]
        quantized_latents = torch.matmul(encoding_one_hot, self.embedding.weight)  # [BHW, D]
        quantized_latents = quantized_latents.view(latents_shape)  # [B x H x W x D]
        commitment_loss = F.mse_loss(quantized_latents.detach(), latents)
        if self.ema and self.training:
            with torch.no_grad():
                self.cluster_size.mul_(self.decay).add_(encoding_one_hot.sum(0), alpha=1 - self.decay)
                embed_sum = encoding_one_hot.t() @ flat_latents
                self.embed_avg.mul_(self.decay).add_(embed_sum, alpha=1 - self.decay)
                n = self.cluster_size.sum()
                cluster_size = (self.cluster_size + 1e-5) / (n + self.K * 1e-5) * n
                self.embedding.weight.data.copy_(self.embed_avg / cluster_size.unsqueeze(1))
            vq_loss = commitment_loss * self.beta
        else:
            embedding_loss = F.mse_loss(quantized_latents, latents.detach())
            vq_loss = commitment_loss * self.beta + embedding_loss
        quantized_latents = latents + (quantized_latents - latents).detach()  # straight-through
        avg_probs = encoding_one_hot.mean(0)
        perplexity = torch.exp(-torch.sum(avg_probs * torch.log(avg_probs + 1e-10)))
        return quantized_latents.permute(0, 3, 1, 2).contiguous(), vq_loss, perplexity  # [B x D x H x W]


class VQVAE(BaseVAE):
    def __init__(self, embedding_dim: int = 4, num_embeddings: int = 16, beta: float = 0.25, ema: bool = False):
        super(VQVAE, self).__init__()
        self.encoder = nn.Sequential(nn.Conv2d(in_channels, 8, 4, 2, 1), nn.LeakyReLU(),
                                     nn.Conv2d(8, embedding_dim, 1), nn.LeakyReLU())
        self.vq_layer = VectorQuantizer(num_embeddings, embedding_dim, beta, ema=ema)
        self.decoder = nn.Sequential(nn.ConvTranspose2d(embedding_dim, 8, 4, 2, 1), nn.LeakyReLU(),
                                     nn.Conv2d(8, in_channels, 3, padding=1), nn.Sigmoid())

    def forward(self, input: Tensor, **kwargs) -> List[Tensor]:
        encoding = self.encoder(input)
        quantized_inputs, vq_loss, perplexity = self.vq_layer(encoding)
        return [self.decoder(quantized_inputs), input, vq_loss, perplexity]

    def loss_function(self, *args, **kwargs) -> dict:
        recons, input, vq_loss = args[0], args[1], args[2]
        recons_loss = F.mse_loss(recons, input)
        return {'loss': recons_loss + vq_loss, 'Reconstruction_Loss': recons_loss, 'VQ_Loss': vq_loss}

    def generate(self, x: Tensor, **kwargs) -> Tensor:
        return self.forward(x)[0]


def fmt(d):
    return " ".join("%s=%.4f" % (k, v.item() if torch.is_tensor(v) else v) for k, v in d.items())


models = [("VanillaVAE", VanillaVAE()), ("BetaVAE", BetaVAE()), ("WAE_MMD_imq", WAE_MMD()),
          ("WAE_MMD_rbf", WAE_MMD(kernel_type='rbf')), ("IWAE", IWAE()), ("CategoricalVAE", CategoricalVAE()),
          ("VQVAE", VQVAE()), ("VQVAE_EMA", VQVAE(ema=True))]
for name, model in models:
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3, weight_decay=0.0)
    scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.95)
    model.train()
    for batch_idx in range(3):
        real_img = data_batch()
        results = model(real_img)
        train_loss = model.loss_function(*results, M_N=batch / 64, optimizer_idx=0, batch_idx=batch_idx)
        optimizer.zero_grad()
        train_loss['loss'].backward()
        optimizer.step()
        print(name, batch_idx, fmt(train_loss))
    scheduler.step()
    print(name, "keys", sorted(train_loss), "lr", round(scheduler.get_last_lr()[0], 6),
          "params", sum(p.numel() for p in model.parameters()))
    model.eval()
    with torch.no_grad():
        gen = model.generate(data_batch())
    print(name, "generate", tuple(gen.shape), r(gen.mean()), r(gen.std()))

beta_vae = models[1][1]
print("BetaVAE num_iter", beta_vae.num_iter, BetaVAE.num_iter, beta_vae.C_max, type(beta_vae.C_max).__name__)
cat_vae = models[5][1]
print("temp", type(cat_vae.temp).__name__, r(cat_vae.temp))
print("onehot sample", tuple(cat_vae.sampling_dist.sample((3,)).shape))
with torch.no_grad():
    print("sample", tuple(models[0][1].sample(4, 0).shape))
vq = models[7][1].vq_layer
print("ema buffers", sorted(n for n, _ in vq.named_buffers()), r(vq.cluster_size.sum()), r(vq.embedding.weight.sum()))
print("iwae bound", tuple(models[4][1](data_batch())[0].shape))
print("gumbel", tuple(F.gumbel_softmax(torch.zeros(2, 5), tau=0.5, hard=True).sum(-1).tolist()))
