"""VAE pattern: reparameterize with randn_like, binary_cross_entropy(reduction='sum'), Adam, no_grad sampling."""
import torch
import torch.utils.data
from torch import nn, optim
from torch.nn import functional as F


class VAE(nn.Module):
    def __init__(self):
        super(VAE, self).__init__()
        self.fc1 = nn.Linear(64, 32)
        self.fc21 = nn.Linear(32, 4)
        self.fc22 = nn.Linear(32, 4)
        self.fc3 = nn.Linear(4, 32)
        self.fc4 = nn.Linear(32, 64)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        eps = torch.randn_like(std)
        return mu + eps * std

    def decode(self, z):
        h3 = F.relu(self.fc3(z))
        return torch.sigmoid(self.fc4(h3))

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, 64))
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


def loss_function(recon_x, x, mu, logvar):
    BCE = F.binary_cross_entropy(recon_x, x.view(-1, 64), reduction='sum')
    KLD = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return BCE + KLD


def main():
    torch.manual_seed(1)
    device = torch.device("cpu")
    data = torch.rand(32, 1, 8, 8)
    labels = torch.zeros(32, dtype=torch.long)
    dataset = torch.utils.data.TensorDataset(data, labels)
    train_loader = torch.utils.data.DataLoader(dataset, batch_size=16, shuffle=True)
    model = VAE().to(device)
    optimizer = optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(1, 3):
        model.train()
        train_loss = 0
        for batch_idx, (x, _) in enumerate(train_loader):
            x = x.to(device)
            optimizer.zero_grad()
            recon_batch, mu, logvar = model(x)
            loss = loss_function(recon_batch, x, mu, logvar)
            loss.backward()
            train_loss += loss.item()
            optimizer.step()
            print('Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}'.format(
                epoch, batch_idx * len(x), len(train_loader.dataset),
                100. * batch_idx / len(train_loader), loss.item() / len(x)))
        print('====> Epoch: {} Average loss: {:.4f}'.format(epoch, train_loss / len(train_loader.dataset)))
        model.eval()
        test_loss = 0
        with torch.no_grad():
            for i, (x, _) in enumerate(train_loader):
                recon_batch, mu, logvar = model(x)
                test_loss += loss_function(recon_batch, x, mu, logvar).item()
                if i == 0:
                    n = min(x.size(0), 8)
                    comparison = torch.cat([x[:n], recon_batch.view(16, 1, 8, 8)[:n]])
                    print(f"comparison {tuple(comparison.shape)} {comparison.sum().item():.4f}")
        print('====> Test set loss: {:.4f}'.format(test_loss / len(train_loader.dataset)))
        with torch.no_grad():
            sample = torch.randn(8, 4).to(device)
            sample = model.decode(sample).cpu()
            print(f"sample {tuple(sample.view(8, 1, 8, 8).shape)} mean {sample.mean().item():.5f}")


if __name__ == '__main__':
    main()
