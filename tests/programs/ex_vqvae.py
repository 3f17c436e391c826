"""zalandoresearch/pytorch-vq-vae-style VQ-VAE training (the notebook's structure): a ``VectorQuantizer`` (an
``nn.Embedding`` codebook initialised with ``weight.data.uniform_``, squared distances from ``torch.sum`` and
``torch.matmul``, ``argmin`` codes one-hot encoded with ``scatter_``, codebook / commitment losses on
``detach()``ed sides, the straight-through ``inputs + (quantized - inputs).detach()``, perplexity) and its EMA
variant (``_ema_cluster_size`` buffer, Laplace smoothing, the ``_ema_w`` parameter and the codebook weight
replaced by new ``nn.Parameter`` objects inside ``forward``), a residual encoder / ``ConvTranspose2d``
decoder, ``Adam(amsgrad=False)``, the reconstruction error scaled by the data variance, evaluation with
reconstructions and the codebook read back. Synthetic images; small sizes; prints rounded numbers one fact
per line."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset


class VectorQuantizer(nn.Module):
    def __init__(self, num_embeddings, embedding_dim, commitment_cost):
        super(VectorQuantizer, self).__init__()

        self._embedding_dim = embedding_dim
        self._num_embeddings = num_embeddings

        self._embedding = nn.Embedding(self._num_embeddings, self._embedding_dim)
        self._embedding.weight.data.uniform_(-1/self._num_embeddings, 1/self._num_embeddings)
        self._commitment_cost = commitment_cost

    def forward(self, inputs):
        # convert inputs from BCHW -> BHWC
        inputs = inputs.permute(0, 2, 3, 1).contiguous()
        input_shape = inputs.shape

        # Flatten input
        flat_input = inputs.view(-1, self._embedding_dim)

        # Calculate distances
        distances = (torch.sum(flat_input**2, dim=1, keepdim=True)
                     + torch.sum(self._embedding.weight**2, dim=1)
                     - 2 * torch.matmul(flat_input, self._embedding.weight.t()))

        # Encoding
        encoding_indices = torch.argmin(distances, dim=1).unsqueeze(1)
        encodings = torch.zeros(encoding_indices.shape[0], self._num_embeddings, device=inputs.device)
        encodings.scatter_(1, encoding_indices, 1)

        # Quantize and unflatten
        quantized = torch.matmul(encodings, self._embedding.weight).view(input_shape)

        # Loss
        e_latent_loss = F.mse_loss(quantized.detach(), inputs)
        q_latent_loss = F.mse_loss(quantized, inputs.detach())
        loss = q_latent_loss + self._commitment_cost * e_latent_loss

        quantized = inputs + (quantized - inputs).detach()
        avg_probs = torch.mean(encodings, dim=0)
        perplexity = torch.exp(-torch.sum(avg_probs * torch.log(avg_probs + 1e-10)))

        # convert quantized from BHWC -> BCHW
        return loss, quantized.permute(0, 3, 1, 2).contiguous(), perplexity, encodings


class VectorQuantizerEMA(nn.Module):
    def __init__(self, num_embeddings, embedding_dim, commitment_cost, decay, epsilon=1e-5):
        super(VectorQuantizerEMA, self).__init__()

        self._embedding_dim = embedding_dim
        self._num_embeddings = num_embeddings

        self._embedding = nn.Embedding(self._num_embeddings, self._embedding_dim)
        self._embedding.weight.data.normal_()
        self._commitment_cost = commitment_cost

        self.register_buffer('_ema_cluster_size', torch.zeros(num_embeddings))
        self._ema_w = nn.Parameter(torch.Tensor(num_embeddings, self._embedding_dim))
        self._ema_w.data.normal_()

        self._decay = decay
        self._epsilon = epsilon

    def forward(self, inputs):
        # convert inputs from BCHW -> BHWC
        inputs = inputs.permute(0, 2, 3, 1).contiguous()
        input_shape = inputs.shape

        # Flatten input
        flat_input = inputs.view(-1, self._embedding_dim)

        # Calculate distances
        distances = (torch.sum(flat_input**2, dim=1, keepdim=True)
                     + torch.sum(self._embedding.weight**2, dim=1)
                     - 2 * torch.matmul(flat_input, self._embedding.weight.t()))

        # Encoding
        encoding_indices = torch.argmin(distances, dim=1).unsqueeze(1)
        encodings = torch.zeros(encoding_indices.shape[0], self._num_embeddings, device=inputs.device)
        encodings.scatter_(1, encoding_indices, 1)

        # Quantize and unflatten
        quantized = torch.matmul(encodings, self._embedding.weight).view(input_shape)

        # Use EMA to update the embedding vectors
        if self.training:
            self._ema_cluster_size = self._ema_cluster_size * self._decay + \
                                     (1 - self._decay) * torch.sum(encodings, 0)

            # Laplace smoothing of the cluster size
            n = torch.sum(self._ema_cluster_size.data)
            self._ema_cluster_size = (
                (self._ema_cluster_size + self._epsilon)
                / (n + self._num_embeddings * self._epsilon) * n)

            dw = torch.matmul(encodings.t(), flat_input)
            self._ema_w = nn.Parameter(self._ema_w * self._decay + (1 - self._decay) * dw)

            self._embedding.weight = nn.Parameter(self._ema_w / self._ema_cluster_size.unsqueeze(1))

        # Loss
        e_latent_loss = F.mse_loss(quantized.detach(), inputs)
        loss = self._commitment_cost * e_latent_loss

        # Straight Through Estimator
        quantized = inputs + (quantized - inputs).detach()
        avg_probs = torch.mean(encodings, dim=0)
        perplexity = torch.exp(-torch.sum(avg_probs * torch.log(avg_probs + 1e-10)))

        # convert quantized from BHWC -> BCHW
        return loss, quantized.permute(0, 3, 1, 2).contiguous(), perplexity, encodings


class Residual(nn.Module):
    def __init__(self, in_channels, num_hiddens, num_residual_hiddens):
        super(Residual, self).__init__()
        self._block = nn.Sequential(
            nn.ReLU(True),
            nn.Conv2d(in_channels=in_channels, out_channels=num_residual_hiddens,
                      kernel_size=3, stride=1, padding=1, bias=False),
            nn.ReLU(True),
            nn.Conv2d(in_channels=num_residual_hiddens, out_channels=num_hiddens,
                      kernel_size=1, stride=1, bias=False)
        )

    def forward(self, x):
        return x + self._block(x)


class ResidualStack(nn.Module):
    def __init__(self, in_channels, num_hiddens, num_residual_layers, num_residual_hiddens):
        super(ResidualStack, self).__init__()
        self._num_residual_layers = num_residual_layers
        self._layers = nn.ModuleList([Residual(in_channels, num_hiddens, num_residual_hiddens)
                                      for _ in range(self._num_residual_layers)])

    def forward(self, x):
        for i in range(self._num_residual_layers):
            x = self._layers[i](x)
        return F.relu(x)


class Encoder(nn.Module):
    def __init__(self, in_channels, num_hiddens, num_residual_layers, num_residual_hiddens):
        super(Encoder, self).__init__()

        self._conv_1 = nn.Conv2d(in_channels=in_channels, out_channels=num_hiddens//2,
                                 kernel_size=4, stride=2, padding=1)
        self._conv_2 = nn.Conv2d(in_channels=num_hiddens//2, out_channels=num_hiddens,
                                 kernel_size=4, stride=2, padding=1)
        self._conv_3 = nn.Conv2d(in_channels=num_hiddens, out_channels=num_hiddens,
                                 kernel_size=3, stride=1, padding=1)
        self._residual_stack = ResidualStack(in_channels=num_hiddens, num_hiddens=num_hiddens,
                                             num_residual_layers=num_residual_layers,
                                             num_residual_hiddens=num_residual_hiddens)

    def forward(self, inputs):
        x = self._conv_1(inputs)
        x = F.relu(x)

        x = self._conv_2(x)
        x = F.relu(x)

        x = self._conv_3(x)
        return self._residual_stack(x)


class Decoder(nn.Module):
    def __init__(self, in_channels, num_hiddens, num_residual_layers, num_residual_hiddens):
        super(Decoder, self).__init__()

        self._conv_1 = nn.Conv2d(in_channels=in_channels, out_channels=num_hiddens,
                                 kernel_size=3, stride=1, padding=1)

        self._residual_stack = ResidualStack(in_channels=num_hiddens, num_hiddens=num_hiddens,
                                             num_residual_layers=num_residual_layers,
                                             num_residual_hiddens=num_residual_hiddens)

        self._conv_trans_1 = nn.ConvTranspose2d(in_channels=num_hiddens, out_channels=num_hiddens//2,
                                                kernel_size=4, stride=2, padding=1)

        self._conv_trans_2 = nn.ConvTranspose2d(in_channels=num_hiddens//2, out_channels=3,
                                                kernel_size=4, stride=2, padding=1)

    def forward(self, inputs):
        x = self._conv_1(inputs)

        x = self._residual_stack(x)

        x = self._conv_trans_1(x)
        x = F.relu(x)

        return self._conv_trans_2(x)


class Model(nn.Module):
    def __init__(self, num_hiddens, num_residual_layers, num_residual_hiddens,
                 num_embeddings, embedding_dim, commitment_cost, decay=0):
        super(Model, self).__init__()

        self._encoder = Encoder(3, num_hiddens, num_residual_layers, num_residual_hiddens)
        self._pre_vq_conv = nn.Conv2d(in_channels=num_hiddens, out_channels=embedding_dim,
                                      kernel_size=1, stride=1)
        if decay > 0.0:
            self._vq_vae = VectorQuantizerEMA(num_embeddings, embedding_dim, commitment_cost, decay)
        else:
            self._vq_vae = VectorQuantizer(num_embeddings, embedding_dim, commitment_cost)
        self._decoder = Decoder(embedding_dim, num_hiddens, num_residual_layers, num_residual_hiddens)

    def forward(self, x):
        z = self._encoder(x)
        z = self._pre_vq_conv(z)
        loss, quantized, perplexity, _ = self._vq_vae(z)
        x_recon = self._decoder(quantized)

        return loss, x_recon, perplexity


def synthetic_cifar(n, seed):
    """Colour gradients with a bright square: (n, 3, 16, 16) in [-0.5, 0.5] as the notebook's normalized CIFAR."""
    g = np.random.default_rng(seed)
    yy, xx = np.mgrid[:16, :16] / 15.0
    imgs = []
    for _ in range(n):
        c = g.random((3, 1, 1))
        img = c * yy + (1 - c) * xx
        y, x = g.integers(0, 10, 2)
        img[:, y:y + 6, x:x + 6] = g.random((3, 1, 1))
        imgs.append(img)
    return torch.tensor(np.stack(imgs), dtype=torch.float32) - 0.5


if __name__ == "__main__":
    torch.manual_seed(0)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    training_data = synthetic_cifar(48, 0)
    validation_data = synthetic_cifar(16, 1)
    data_variance = np.var(training_data.numpy())
    print("data variance", round(float(data_variance), 6), type(data_variance).__name__)

    batch_size = 16
    num_training_updates = 12
    num_hiddens = 32
    num_residual_hiddens = 8
    num_residual_layers = 2
    embedding_dim = 8
    num_embeddings = 16
    commitment_cost = 0.25
    learning_rate = 1e-3

    for decay in (0.99, 0.0):
        torch.manual_seed(1)
        training_loader = DataLoader(TensorDataset(training_data, torch.zeros(len(training_data))),
                                     batch_size=batch_size, shuffle=True, pin_memory=False)
        validation_loader = DataLoader(TensorDataset(validation_data, torch.zeros(len(validation_data))),
                                       batch_size=8, shuffle=True, pin_memory=False)
        model = Model(num_hiddens, num_residual_layers, num_residual_hiddens,
                      num_embeddings, embedding_dim, commitment_cost, decay).to(device)
        optimizer = optim.Adam(model.parameters(), lr=learning_rate, amsgrad=False)
        n_params = len(optimizer.param_groups[0]["params"])
        model.train()
        train_res_recon_error = []
        train_res_perplexity = []

        for i in range(num_training_updates):
            (data, _) = next(iter(training_loader))
            data = data.to(device)
            optimizer.zero_grad()

            vq_loss, data_recon, perplexity = model(data)
            recon_error = F.mse_loss(data_recon, data) / data_variance
            loss = recon_error + vq_loss
            loss.backward()

            optimizer.step()

            train_res_recon_error.append(recon_error.item())
            train_res_perplexity.append(perplexity.item())

            if (i+1) % 4 == 0:
                print('decay %.2f %d iterations' % (decay, i+1))
                print('recon_error: %.4f' % np.mean(train_res_recon_error[-4:]))
                print('perplexity: %.4f' % np.mean(train_res_perplexity[-4:]))
                print('vq_loss: %.5f loss dtype %s' % (vq_loss.item(), loss.dtype))

        vq = model._vq_vae
        in_optimizer = any(p is vq._embedding.weight for p in optimizer.param_groups[0]["params"])
        print("codebook", tuple(vq._embedding.weight.shape), "requires_grad", vq._embedding.weight.requires_grad,
              "in optimizer", in_optimizer, "optimizer params", n_params, "state", len(optimizer.state))
        if decay > 0:
            print("ema cluster size", round(vq._ema_cluster_size.sum().item(), 4),
                  "buffers", [n for n, _ in model.named_buffers()], "is param", isinstance(vq._ema_w, nn.Parameter))

        model.eval()
        (valid_originals, _) = next(iter(validation_loader))
        valid_originals = valid_originals.to(device)

        vq_output_eval = model._pre_vq_conv(model._encoder(valid_originals))
        _, valid_quantize, _, encodings = model._vq_vae(vq_output_eval)
        valid_reconstructions = model._decoder(valid_quantize)
        print("valid reconstructions", tuple(valid_reconstructions.shape),
              round(F.mse_loss(valid_reconstructions, valid_originals).item() / data_variance, 4),
              "codes used", int((encodings.sum(0) > 0).sum().item()))
        codebook = model._vq_vae._embedding.weight.data.cpu()
        print("codebook norms", [round(v, 4) for v in codebook.norm(dim=1)[:4].tolist()],
              "state keys", len(model.state_dict()))
