"""yunjey/pytorch-tutorial's "advanced" chapter in its own words (own code; MNIST replaced by random tensors,
VGG-19 by a tiny random CNN, no torchvision): generative_adversarial_network (BCELoss, reset_grad, denorm
with clamp, D(x)/D(G(z)) scores), variational_autoencoder (reparameterize with randn_like, F.sigmoid,
F.binary_cross_entropy(size_average=False) and the deprecation warning it gives, sampling and a
reconstruction grid) and neural_style_transfer (features picked by name from a module's _modules, gram
matrices with torch.mm, Adam on the image itself, denormalize and clamp_), image_captioning (a collate_fn
sorting by length and padding captions, a frozen CNN encoder under no_grad + Linear + BatchNorm1d,
pack_padded_sequence through an LSTM decoder, greedy sample with stacked ids) and the utils chapter's
tensorboard logging (scalars, parameter histograms as numpy, images). Prints one fact per line; warnings are
recorded and printed (category and text)."""
import os
import tempfile
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.data
import numpy as np
from torch.nn.utils.rnn import pack_padded_sequence

device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
TMP = tempfile.mkdtemp()


def fake_mnist(n, seed, normalize=False):
    g = torch.Generator().manual_seed(seed)
    images = torch.rand(n, 1, 28, 28, generator=g)
    if normalize:  # transforms.Normalize(mean=(0.5,), std=(0.5,))
        images = (images - 0.5) / 0.5
    return torch.utils.data.TensorDataset(images, torch.randint(0, 10, (n,), generator=g))


def denorm(x):
    out = (x + 1) / 2
    return out.clamp(0, 1)


def generative_adversarial_network():
    latent_size, hidden_size, image_size, num_epochs, batch_size = 16, 64, 784, 2, 20
    data_loader = torch.utils.data.DataLoader(dataset=fake_mnist(60, 1, normalize=True), batch_size=batch_size,
                                              shuffle=True)
    D = nn.Sequential(
        nn.Linear(image_size, hidden_size),
        nn.LeakyReLU(0.2),
        nn.Linear(hidden_size, hidden_size),
        nn.LeakyReLU(0.2),
        nn.Linear(hidden_size, 1),
        nn.Sigmoid())
    G = nn.Sequential(
        nn.Linear(latent_size, hidden_size),
        nn.ReLU(),
        nn.Linear(hidden_size, hidden_size),
        nn.ReLU(),
        nn.Linear(hidden_size, image_size),
        nn.Tanh())
    D = D.to(device)
    G = G.to(device)
    criterion = nn.BCELoss()
    d_optimizer = torch.optim.Adam(D.parameters(), lr=0.0002)
    g_optimizer = torch.optim.Adam(G.parameters(), lr=0.0002)

    def reset_grad():
        d_optimizer.zero_grad()
        g_optimizer.zero_grad()

    total_step = len(data_loader)
    for epoch in range(num_epochs):
        for i, (images, _) in enumerate(data_loader):
            images = images.reshape(batch_size, -1).to(device)
            real_labels = torch.ones(batch_size, 1).to(device)
            fake_labels = torch.zeros(batch_size, 1).to(device)
            # train the discriminator
            outputs = D(images)
            d_loss_real = criterion(outputs, real_labels)
            real_score = outputs
            z = torch.randn(batch_size, latent_size).to(device)
            fake_images = G(z)
            outputs = D(fake_images)
            d_loss_fake = criterion(outputs, fake_labels)
            fake_score = outputs
            d_loss = d_loss_real + d_loss_fake
            reset_grad()
            d_loss.backward()
            d_optimizer.step()
            # train the generator
            z = torch.randn(batch_size, latent_size).to(device)
            fake_images = G(z)
            outputs = D(fake_images)
            g_loss = criterion(outputs, real_labels)
            reset_grad()
            g_loss.backward()
            g_optimizer.step()
            print('Epoch [{}/{}], Step [{}/{}], d_loss: {:.4f}, g_loss: {:.4f}, D(x): {:.2f}, D(G(z)): {:.2f}'
                  .format(epoch, num_epochs, i + 1, total_step, d_loss.item(), g_loss.item(),
                          real_score.mean().item(), fake_score.mean().item()))
        if (epoch + 1) == 1:
            images = images.reshape(images.size(0), 1, 28, 28)
            real = denorm(images)
            print('real images', tuple(real.shape), round(real.min().item(), 4), round(real.max().item(), 4))
        fake_images = fake_images.reshape(fake_images.size(0), 1, 28, 28)
        fake = denorm(fake_images)
        print('fake images', tuple(fake.shape), fake.requires_grad, round(fake.mean().item(), 4))
    torch.save(G.state_dict(), os.path.join(TMP, 'G.ckpt'))
    torch.save(D.state_dict(), os.path.join(TMP, 'D.ckpt'))
    print('saved', sorted(torch.load(os.path.join(TMP, 'D.ckpt')).keys()))


class VAE(nn.Module):
    def __init__(self, image_size=784, h_dim=64, z_dim=8):
        super(VAE, self).__init__()
        self.fc1 = nn.Linear(image_size, h_dim)
        self.fc2 = nn.Linear(h_dim, z_dim)
        self.fc3 = nn.Linear(h_dim, z_dim)
        self.fc4 = nn.Linear(z_dim, h_dim)
        self.fc5 = nn.Linear(h_dim, image_size)

    def encode(self, x):
        h = F.relu(self.fc1(x))
        return self.fc2(h), self.fc3(h)

    def reparameterize(self, mu, log_var):
        std = torch.exp(log_var / 2)
        eps = torch.randn_like(std)
        return mu + eps * std

    def decode(self, z):
        h = F.relu(self.fc4(z))
        return F.sigmoid(self.fc5(h))

    def forward(self, x):
        mu, log_var = self.encode(x)
        z = self.reparameterize(mu, log_var)
        x_reconst = self.decode(z)
        return x_reconst, mu, log_var


def variational_autoencoder():
    image_size, h_dim, z_dim, num_epochs, batch_size, learning_rate = 784, 64, 8, 2, 20, 1e-3
    data_loader = torch.utils.data.DataLoader(dataset=fake_mnist(60, 2), batch_size=batch_size, shuffle=True)
    model = VAE(image_size, h_dim, z_dim).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)
    caught = []
    for epoch in range(num_epochs):
        for i, (x, _) in enumerate(data_loader):
            x = x.to(device).view(-1, image_size)
            x_reconst, mu, log_var = model(x)
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter('always')
                reconst_loss = F.binary_cross_entropy(x_reconst, x, size_average=False)
            caught.extend(w)
            kl_div = - 0.5 * torch.sum(1 + log_var - mu.pow(2) - log_var.exp())
            loss = reconst_loss + kl_div
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            print('Epoch[{}/{}], Step [{}/{}], Reconst Loss: {:.4f}, KL Div: {:.4f}'
                  .format(epoch + 1, num_epochs, i + 1, len(data_loader), reconst_loss.item(), kl_div.item()))
        with torch.no_grad():
            z = torch.randn(batch_size, z_dim).to(device)
            out = model.decode(z).view(-1, 1, 28, 28)
            print('sampled', tuple(out.shape), round(out.mean().item(), 4))
            out, _, _ = model(x)
            x_concat = torch.cat([x.view(-1, 1, 28, 28), out.view(-1, 1, 28, 28)], dim=3)
            print('reconst grid', tuple(x_concat.shape), round(x_concat.sum().item(), 2))
    print('warnings', len(caught))
    for w in caught[:1]:
        print(w.category.__name__, str(w.message))
    # the other legacy spellings map to the same reductions, with the same warning
    a, b = torch.rand(3, 4), torch.rand(3, 4)
    for kwargs in [dict(size_average=True), dict(reduce=False), dict(size_average=False, reduce=True),
                   dict(reduce=True, size_average=None)]:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            r = F.binary_cross_entropy(a, b, **kwargs)
            r2 = F.mse_loss(a, b, **kwargs)
            r3 = nn.L1Loss(**kwargs)(a, b)
        print(kwargs, tuple(r.shape), round(r.sum().item(), 4), tuple(r2.shape), round(r2.sum().item(), 4),
              tuple(r3.shape), round(r3.sum().item(), 4), [str(x.message) for x in w])


class VGGNet(nn.Module):
    def __init__(self):
        """Select the conv layers whose outputs are the style and content features (a tiny random VGG)."""
        super(VGGNet, self).__init__()
        self.select = ['0', '2', '5', '7']
        self.vgg = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(8, 8, 3, padding=1), nn.ReLU(inplace=True),
            nn.MaxPool2d(2, 2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(inplace=True))

    def forward(self, x):
        features = []
        for name, layer in self.vgg._modules.items():
            x = layer(x)
            if name in self.select:
                features.append(x)
        return features


def neural_style_transfer():
    total_step, style_weight, lr = 6, 100, 0.003
    mean = torch.tensor([0.485, 0.456, 0.406]).view(3, 1, 1)
    std = torch.tensor([0.229, 0.224, 0.225]).view(3, 1, 1)

    def load_image(seed, size):
        g = torch.Generator().manual_seed(seed)
        image = torch.rand(3, size, size, generator=g)  # ToTensor() of a resized image
        image = (image - mean) / std  # Normalize
        return image.unsqueeze(0).to(device)

    content = load_image(1, 24)
    style = load_image(2, 24)
    target = content.clone().requires_grad_(True)
    optimizer = torch.optim.Adam([target], lr=lr, betas=[0.5, 0.999])
    vgg = VGGNet().to(device).eval()
    for step in range(total_step):
        target_features = vgg(target)
        content_features = vgg(content)
        style_features = vgg(style)
        style_loss = 0
        content_loss = 0
        for f1, f2, f3 in zip(target_features, content_features, style_features):
            content_loss += torch.mean((f1 - f2) ** 2)
            _, c, h, w = f1.size()
            f1 = f1.view(c, h * w)
            f3 = f3.view(c, h * w)
            f1 = torch.mm(f1, f1.t())
            f3 = torch.mm(f3, f3.t())
            style_loss += torch.mean((f1 - f3) ** 2) / (c * h * w)
        loss = content_loss + style_weight * style_loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print('Step [{}/{}], Content Loss: {:.4f}, Style Loss: {:.4f}'
              .format(step + 1, total_step, content_loss.item(), style_loss.item()))
    denorm = lambda t: (t - torch.tensor((-2.12, -2.04, -1.80)).view(3, 1, 1)) / \
        torch.tensor((4.37, 4.46, 4.44)).view(3, 1, 1)  # transforms.Normalize((-2.12, -2.04, -1.80), (4.37, 4.46, 4.44))
    img = target.clone().squeeze()
    img = denorm(img).clamp_(0, 1)
    print('output image', tuple(img.shape), img.requires_grad, img.grad_fn.name(), round(img.mean().item(), 4))
    print('target grad', target.grad.shape, round(target.grad.abs().sum().item(), 4))
    print('adam state', sorted(optimizer.state[target].keys()), optimizer.state[target]['step'])


class EncoderCNN(nn.Module):
    def __init__(self, embed_size):
        """A small random CNN in place of the pretrained resnet-152, its last fc layer removed the same way."""
        super(EncoderCNN, self).__init__()
        resnet = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.BatchNorm2d(8), nn.ReLU(inplace=True),
                               nn.AdaptiveAvgPool2d((1, 1)), nn.Linear(8, 1000))
        modules = list(resnet.children())[:-1]
        self.resnet = nn.Sequential(*modules)
        self.linear = nn.Linear(8, embed_size)
        self.bn = nn.BatchNorm1d(embed_size, momentum=0.01)

    def forward(self, images):
        with torch.no_grad():
            features = self.resnet(images)
        features = features.reshape(features.size(0), -1)
        features = self.bn(self.linear(features))
        return features


class DecoderRNN(nn.Module):
    def __init__(self, embed_size, hidden_size, vocab_size, num_layers, max_seq_length=8):
        super(DecoderRNN, self).__init__()
        self.embed = nn.Embedding(vocab_size, embed_size)
        self.lstm = nn.LSTM(embed_size, hidden_size, num_layers, batch_first=True)
        self.linear = nn.Linear(hidden_size, vocab_size)
        self.max_seg_length = max_seq_length

    def forward(self, features, captions, lengths):
        embeddings = self.embed(captions)
        embeddings = torch.cat((features.unsqueeze(1), embeddings), 1)
        packed = pack_padded_sequence(embeddings, lengths, batch_first=True)
        hiddens, _ = self.lstm(packed)
        outputs = self.linear(hiddens[0])
        return outputs

    def sample(self, features, states=None):
        sampled_ids = []
        inputs = features.unsqueeze(1)
        for i in range(self.max_seg_length):
            hiddens, states = self.lstm(inputs, states)
            outputs = self.linear(hiddens.squeeze(1))
            _, predicted = outputs.max(1)
            sampled_ids.append(predicted)
            inputs = self.embed(predicted)
            inputs = inputs.unsqueeze(1)
        sampled_ids = torch.stack(sampled_ids, 1)
        return sampled_ids


class CaptionDataset(torch.utils.data.Dataset):
    """(image, caption) pairs in place of COCO: random images, captions <start> w... <end> of random length."""

    def __init__(self, n, vocab_size):
        g = torch.Generator().manual_seed(7)
        self.images = torch.rand(n, 3, 16, 16, generator=g)
        self.captions = [torch.cat([torch.tensor([1]), torch.randint(3, vocab_size, (int(k),), generator=g),
                                    torch.tensor([2])])
                         for k in torch.randint(2, 7, (n,), generator=g)]

    def __getitem__(self, index):
        return self.images[index], self.captions[index]

    def __len__(self):
        return len(self.captions)


def collate_fn(data):
    data.sort(key=lambda x: len(x[1]), reverse=True)
    images, captions = zip(*data)
    images = torch.stack(images, 0)
    lengths = [len(cap) for cap in captions]
    targets = torch.zeros(len(captions), max(lengths)).long()
    for i, cap in enumerate(captions):
        end = lengths[i]
        targets[i, :end] = cap[:end]
    return images, targets, lengths


def image_captioning():
    embed_size, hidden_size, num_layers, vocab_size, num_epochs = 16, 32, 1, 20, 2
    data_loader = torch.utils.data.DataLoader(dataset=CaptionDataset(24, vocab_size), batch_size=8, shuffle=True,
                                              num_workers=0, collate_fn=collate_fn)
    encoder = EncoderCNN(embed_size).to(device)
    decoder = DecoderRNN(embed_size, hidden_size, vocab_size, num_layers).to(device)
    criterion = nn.CrossEntropyLoss()
    params = list(decoder.parameters()) + list(encoder.linear.parameters()) + list(encoder.bn.parameters())
    optimizer = torch.optim.Adam(params, lr=0.001)
    total_step = len(data_loader)
    for epoch in range(num_epochs):
        for i, (images, captions, lengths) in enumerate(data_loader):
            images = images.to(device)
            captions = captions.to(device)
            targets = pack_padded_sequence(captions, lengths, batch_first=True)[0]
            features = encoder(images)
            outputs = decoder(features, captions, lengths)
            loss = criterion(outputs, targets)
            decoder.zero_grad()
            encoder.zero_grad()
            loss.backward()
            optimizer.step()
            print('Epoch [{}/{}], Step [{}/{}], Loss: {:.4f}, Perplexity: {:5.4f}, lengths {}, targets {}'
                  .format(epoch, num_epochs, i, total_step, loss.item(), np.exp(loss.item()), lengths,
                          tuple(targets.shape)))
    print('encoder cnn frozen', [p.grad is None for p in encoder.resnet.parameters()])
    encoder.eval()
    feature = encoder(images[:1])
    sampled_ids = decoder.sample(feature)
    sampled_ids = sampled_ids[0].cpu().numpy()
    print('sampled ids', sampled_ids.dtype, sampled_ids.shape, feature.requires_grad)


def tensorboard_logging():
    """The utils chapter: a logger fed scalars, parameter histograms (numpy) and images each few steps."""
    logged = {}

    def scalar_summary(tag, value, step):
        logged.setdefault(tag, []).append((step, round(value, 4)))

    data_loader = torch.utils.data.DataLoader(dataset=fake_mnist(40, 3), batch_size=10, shuffle=True)
    model = nn.Sequential(nn.Linear(784, 32), nn.ReLU(), nn.Linear(32, 10)).to(device)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.00001)
    data_iter = iter(data_loader)
    iter_per_epoch = len(data_loader)
    for step in range(6):
        if (step + 1) % iter_per_epoch == 0:
            data_iter = iter(data_loader)
        images, labels = next(data_iter)
        images, labels = images.view(images.size(0), -1).to(device), labels.to(device)
        outputs = model(images)
        loss = criterion(outputs, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        _, argmax = torch.max(outputs, 1)
        accuracy = (labels == argmax.squeeze()).float().mean()
        if (step + 1) % 2 == 0:
            info = {'loss': loss.item(), 'accuracy': accuracy.item()}
            for tag, value in info.items():
                scalar_summary(tag, value, step + 1)
            for tag, value in model.named_parameters():
                tag = tag.replace('.', '/')
                counts, edges = np.histogram(value.data.cpu().numpy(), bins=5)  # (the logger's histo_summary)
                # (bin counts can move by one with a last-bit difference; their total and the edges cannot)
                hist = [int(counts.sum()), round(float(edges[0]), 4), round(float(edges[-1]), 4), edges.dtype.name]
                ghist = value.grad.data.cpu().numpy()
                logged.setdefault(tag, []).append(hist)
                logged.setdefault(tag + '/grad', []).append(round(float(np.abs(ghist).sum()), 4))
            info = {'images': images.view(-1, 28, 28)[:10].cpu().numpy()}
            logged['images'] = (info['images'].shape, info['images'].dtype.name)
    for tag in sorted(logged):
        print('logged', tag, logged[tag])


def main():
    torch.manual_seed(0)
    image_captioning()
    torch.manual_seed(0)
    tensorboard_logging()
    torch.manual_seed(0)
    generative_adversarial_network()
    torch.manual_seed(0)
    variational_autoencoder()
    torch.manual_seed(0)
    neural_style_transfer()


if __name__ == '__main__':
    main()
