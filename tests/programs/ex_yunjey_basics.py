"""yunjey/pytorch-tutorial's "basics" chapter in its own words (own code, MNIST replaced by random tensors in
a TensorDataset + DataLoader): pytorch_basics (autograd, Linear + MSELoss + SGD, the numpy bridge, an input
pipeline with a custom Dataset, freezing a model and replacing its head, save/load of a whole model and of a
state_dict), linear_regression, logistic_regression, feedforward_neural_network and
convolutional_neural_network (BatchNorm2d, MaxPool2d, eval for the test). Prints one fact per line; the
tutorial prints tensors with print(), so their repr is compared too."""
import os
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.utils.data

device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
TMP = tempfile.mkdtemp()


def fake_mnist(n, seed):
    """Random stand-ins for torchvision.datasets.MNIST(transform=ToTensor()): (n, 1, 28, 28) in [0, 1)."""
    g = torch.Generator().manual_seed(seed)
    images = torch.rand(n, 1, 28, 28, generator=g)
    labels = torch.randint(0, 10, (n,), generator=g)
    return torch.utils.data.TensorDataset(images, labels)


def pytorch_basics():
    # 1. basic autograd example 1
    x = torch.tensor(1., requires_grad=True)
    w = torch.tensor(2., requires_grad=True)
    b = torch.tensor(3., requires_grad=True)
    y = w * x + b
    y.backward()
    print(x.grad)
    print(w.grad)
    print(b.grad)
    # 2. basic autograd example 2
    x = torch.randn(10, 3)
    y = torch.randn(10, 2)
    linear = nn.Linear(3, 2)
    print('w: ', linear.weight)
    print('b: ', linear.bias)
    criterion = nn.MSELoss()
    optimizer = torch.optim.SGD(linear.parameters(), lr=0.01)
    pred = linear(x)
    loss = criterion(pred, y)
    print('loss: ', loss.item())
    loss.backward()
    print('dL/dw: ', linear.weight.grad)
    print('dL/db: ', linear.bias.grad)
    optimizer.step()
    pred = linear(x)
    loss = criterion(pred, y)
    print('loss after 1 step optimization: ', loss.item())
    # 3. loading data from numpy
    x = np.array([[1, 2], [3, 4]])
    y = torch.from_numpy(x)
    z = y.numpy()
    print(y, y.dtype, type(z).__name__, z.dtype, np.shares_memory(x, z))
    x[0, 0] = 7
    print('numpy write seen by tensor', y[0, 0].item())
    # 4. input pipeline (a custom Dataset in place of CIFAR-10)

    class CustomDataset(torch.utils.data.Dataset):
        def __init__(self):
            self.data = torch.arange(40, dtype=torch.float32).reshape(10, 4)

        def __getitem__(self, index):
            return self.data[index], index % 3

        def __len__(self):
            return 10

    custom_dataset = CustomDataset()
    train_loader = torch.utils.data.DataLoader(dataset=custom_dataset, batch_size=4, shuffle=True)
    data_iter = iter(train_loader)
    images, labels = next(data_iter)
    print('first batch', images.shape, labels, labels.dtype)
    for images, labels in train_loader:
        pass
    print('last batch', tuple(images.shape), labels.tolist())
    # 5. a "pretrained" model: freeze it, replace the head
    resnet = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
    resnet.fc = nn.Linear(4, 5)
    for param in resnet.parameters():
        param.requires_grad = False
    resnet.fc = nn.Linear(resnet.fc.in_features, 100)
    images = torch.randn(64, 3, 8, 8)
    outputs = resnet.fc(resnet[:4](images))
    print(outputs.size())
    print('trainable', [n for n, p in resnet.named_parameters() if p.requires_grad])
    # 6. save and load the model
    path = os.path.join(TMP, 'model.ckpt')
    torch.save(resnet, path)
    try:
        model = torch.load(path)
        print('load of a whole model', type(model).__name__)
    except Exception as e:  # torch >= 2.6: weights_only=True by default
        print('load of a whole model raises', type(e).__module__, type(e).__name__)
        print(str(e).splitlines()[0])
    model = torch.load(path, weights_only=False)
    print('loaded with weights_only=False', type(model).__name__, model.fc.out_features)
    torch.save(resnet.state_dict(), os.path.join(TMP, 'params.ckpt'))
    print(resnet.load_state_dict(torch.load(os.path.join(TMP, 'params.ckpt'))))


def linear_regression():
    input_size, output_size, num_epochs, learning_rate = 1, 1, 60, 0.001
    x_train = np.array([[3.3], [4.4], [5.5], [6.71], [6.93], [4.168], [9.779], [6.182], [7.59], [2.167],
                        [7.042], [10.791], [5.313], [7.997], [3.1]], dtype=np.float32)
    y_train = np.array([[1.7], [2.76], [2.09], [3.19], [1.694], [1.573], [3.366], [2.596], [2.53], [1.221],
                        [2.827], [3.465], [1.65], [2.904], [1.3]], dtype=np.float32)
    model = nn.Linear(input_size, output_size)
    criterion = nn.MSELoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=learning_rate)
    for epoch in range(num_epochs):
        inputs = torch.from_numpy(x_train)
        targets = torch.from_numpy(y_train)
        outputs = model(inputs)
        loss = criterion(outputs, targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if (epoch + 1) % 10 == 0:
            print('Epoch [{}/{}], Loss: {:.4f}'.format(epoch + 1, num_epochs, loss.item()))
    predicted = model(torch.from_numpy(x_train)).detach().numpy()
    print('predicted', predicted.dtype, predicted.shape, np.round(predicted[:3, 0], 4).tolist())
    torch.save(model.state_dict(), os.path.join(TMP, 'model.ckpt'))
    print(sorted(torch.load(os.path.join(TMP, 'model.ckpt'))))


def logistic_regression():
    input_size, num_classes, num_epochs, batch_size, learning_rate = 28 * 28, 10, 2, 50, 0.001
    train_loader = torch.utils.data.DataLoader(dataset=fake_mnist(200, 1), batch_size=batch_size, shuffle=True)
    test_loader = torch.utils.data.DataLoader(dataset=fake_mnist(100, 2), batch_size=batch_size, shuffle=False)
    model = nn.Linear(input_size, num_classes)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=learning_rate)
    total_step = len(train_loader)
    for epoch in range(num_epochs):
        for i, (images, labels) in enumerate(train_loader):
            images = images.reshape(-1, input_size)
            outputs = model(images)
            loss = criterion(outputs, labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if (i + 1) % 2 == 0:
                print('Epoch [{}/{}], Step [{}/{}], Loss: {:.4f}'
                      .format(epoch + 1, num_epochs, i + 1, total_step, loss.item()))
    with torch.no_grad():
        correct = 0
        total = 0
        for images, labels in test_loader:
            images = images.reshape(-1, input_size)
            outputs = model(images)
            _, predicted = torch.max(outputs.data, 1)
            total += labels.size(0)
            correct += (predicted == labels).sum()
        print('Accuracy of the model on the 100 test images: {} %'.format(100 * correct / total))


class NeuralNet(nn.Module):
    def __init__(self, input_size, hidden_size, num_classes):
        super(NeuralNet, self).__init__()
        self.fc1 = nn.Linear(input_size, hidden_size)
        self.relu = nn.ReLU()
        self.fc2 = nn.Linear(hidden_size, num_classes)

    def forward(self, x):
        out = self.fc1(x)
        out = self.relu(out)
        out = self.fc2(out)
        return out


def feedforward_neural_network():
    input_size, hidden_size, num_classes, num_epochs, batch_size, learning_rate = 784, 50, 10, 2, 40, 0.001
    train_loader = torch.utils.data.DataLoader(dataset=fake_mnist(160, 3), batch_size=batch_size, shuffle=True)
    test_loader = torch.utils.data.DataLoader(dataset=fake_mnist(80, 4), batch_size=batch_size, shuffle=False)
    model = NeuralNet(input_size, hidden_size, num_classes).to(device)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)
    total_step = len(train_loader)
    for epoch in range(num_epochs):
        for i, (images, labels) in enumerate(train_loader):
            images = images.reshape(-1, 28 * 28).to(device)
            labels = labels.to(device)
            outputs = model(images)
            loss = criterion(outputs, labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if (i + 1) % 2 == 0:
                print('Epoch [{}/{}], Step [{}/{}], Loss: {:.4f}'
                      .format(epoch + 1, num_epochs, i + 1, total_step, loss.item()))
    with torch.no_grad():
        correct = 0
        total = 0
        for images, labels in test_loader:
            images = images.reshape(-1, 28 * 28).to(device)
            labels = labels.to(device)
            outputs = model(images)
            _, predicted = torch.max(outputs.data, 1)
            total += labels.size(0)
            correct += (predicted == labels).sum().item()
        print('Accuracy of the network on the 80 test images: {} %'.format(100 * correct / total))
    print(model)


class ConvNet(nn.Module):
    def __init__(self, num_classes=10):
        super(ConvNet, self).__init__()
        self.layer1 = nn.Sequential(
            nn.Conv2d(1, 16, kernel_size=5, stride=1, padding=2),
            nn.BatchNorm2d(16),
            nn.ReLU(),
            nn.MaxPool2d(kernel_size=2, stride=2))
        self.layer2 = nn.Sequential(
            nn.Conv2d(16, 32, kernel_size=5, stride=1, padding=2),
            nn.BatchNorm2d(32),
            nn.ReLU(),
            nn.MaxPool2d(kernel_size=2, stride=2))
        self.fc = nn.Linear(7 * 7 * 32, num_classes)

    def forward(self, x):
        out = self.layer1(x)
        out = self.layer2(out)
        out = out.reshape(out.size(0), -1)
        out = self.fc(out)
        return out


def convolutional_neural_network():
    num_epochs, num_classes, batch_size, learning_rate = 1, 10, 20, 0.001
    train_loader = torch.utils.data.DataLoader(dataset=fake_mnist(60, 5), batch_size=batch_size, shuffle=True)
    test_loader = torch.utils.data.DataLoader(dataset=fake_mnist(40, 6), batch_size=batch_size, shuffle=False)
    model = ConvNet(num_classes).to(device)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)
    total_step = len(train_loader)
    for epoch in range(num_epochs):
        for i, (images, labels) in enumerate(train_loader):
            images = images.to(device)
            labels = labels.to(device)
            outputs = model(images)
            loss = criterion(outputs, labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            print('Epoch [{}/{}], Step [{}/{}], Loss: {:.4f}'
                  .format(epoch + 1, num_epochs, i + 1, total_step, loss.item()))
    bn = model.layer1[1]
    # the conv bias before BatchNorm gets a gradient that is only rounding noise, which Adam turns into steps of
    # +-lr: its sign (and so running_mean and the eval logits) is not reproducible; the weights are
    print('bn running_var', round(bn.running_var.sum().item(), 4), 'batches', bn.num_batches_tracked)
    print('conv weights', round(model.layer1[0].weight.sum().item(), 4), round(model.layer2[0].weight.sum().item(), 4))
    model.eval()
    with torch.no_grad():
        correct = 0
        total = 0
        for images, labels in test_loader:
            images = images.to(device)
            labels = labels.to(device)
            outputs = model(images)
            _, predicted = torch.max(outputs.data, 1)
            total += labels.size(0)
            correct += (predicted == labels).sum().item()
        print('Test Accuracy of the model on the 40 test images: {} %'.format(100 * correct / total))
        print('eval logits', outputs.shape, outputs.dtype, outputs.requires_grad)
    torch.save(model.state_dict(), os.path.join(TMP, 'model.ckpt'))
    print(list(torch.load(os.path.join(TMP, 'model.ckpt')))[:7])


def main():
    torch.manual_seed(0)
    pytorch_basics()
    torch.manual_seed(0)
    linear_regression()
    torch.manual_seed(0)
    logistic_regression()
    torch.manual_seed(0)
    feedforward_neural_network()
    torch.manual_seed(0)
    convolutional_neural_network()


if __name__ == '__main__':
    main()
