"""yunjey/pytorch-tutorial's "intermediate" chapter in its own words (own code; MNIST/CIFAR-10/PTB replaced by
random tensors and a generated text): recurrent_neural_network (LSTM batch_first, h0/c0 zeros, fc on the
last step), bidirectional_recurrent_neural_network, deep_residual_network (ResidualBlock with downsample,
AvgPool2d, update_lr by setting param_group['lr']) and language_model (Dictionary/Corpus, LSTM whose states
are detached between chunks, clip_grad_norm_, perplexity, sampling with torch.multinomial over exp logits).
Prints one fact per line."""
import os
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.utils.data
from torch.nn.utils import clip_grad_norm_

device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
TMP = tempfile.mkdtemp()


def fake_images(n, shape, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.utils.data.TensorDataset(torch.rand(n, *shape, generator=g),
                                          torch.randint(0, 10, (n,), generator=g))


class RNN(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers, num_classes):
        super(RNN, self).__init__()
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.lstm = nn.LSTM(input_size, hidden_size, num_layers, batch_first=True)
        self.fc = nn.Linear(hidden_size, num_classes)

    def forward(self, x):
        h0 = torch.zeros(self.num_layers, x.size(0), self.hidden_size).to(device)
        c0 = torch.zeros(self.num_layers, x.size(0), self.hidden_size).to(device)
        out, _ = self.lstm(x, (h0, c0))
        out = self.fc(out[:, -1, :])
        return out


class BiRNN(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers, num_classes):
        super(BiRNN, self).__init__()
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.lstm = nn.LSTM(input_size, hidden_size, num_layers, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(hidden_size * 2, num_classes)

    def forward(self, x):
        h0 = torch.zeros(self.num_layers * 2, x.size(0), self.hidden_size).to(device)
        c0 = torch.zeros(self.num_layers * 2, x.size(0), self.hidden_size).to(device)
        out, _ = self.lstm(x, (h0, c0))
        out = self.fc(out[:, -1, :])
        return out


def train_sequence_classifier(model_class, name, learning_rate):
    sequence_length, input_size, hidden_size, num_layers, num_classes = 28, 28, 32, 2, 10
    batch_size, num_epochs = 20, 2
    train_loader = torch.utils.data.DataLoader(fake_images(60, (1, 28, 28), 1), batch_size=batch_size,
                                               shuffle=True)
    test_loader = torch.utils.data.DataLoader(fake_images(40, (1, 28, 28), 2), batch_size=batch_size)
    model = model_class(input_size, hidden_size, num_layers, num_classes).to(device)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)
    total_step = len(train_loader)
    for epoch in range(num_epochs):
        for i, (images, labels) in enumerate(train_loader):
            images = images.reshape(-1, sequence_length, input_size).to(device)
            labels = labels.to(device)
            outputs = model(images)
            loss = criterion(outputs, labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            print(name, 'Epoch [{}/{}], Step [{}/{}], Loss: {:.4f}'
                  .format(epoch + 1, num_epochs, i + 1, total_step, loss.item()))
    model.eval()
    with torch.no_grad():
        correct = 0
        total = 0
        for images, labels in test_loader:
            images = images.reshape(-1, sequence_length, input_size).to(device)
            labels = labels.to(device)
            outputs = model(images)
            _, predicted = torch.max(outputs.data, 1)
            total += labels.size(0)
            correct += (predicted == labels).sum().item()
        print(name, 'Test Accuracy of the model on the 40 test images: {} %'.format(100 * correct / total))
    print(name, [(n, tuple(p.shape)) for n, p in model.lstm.named_parameters()][-4:])
    print(name, 'logit sum', round(outputs.sum().item(), 4))


def conv3x3(in_channels, out_channels, stride=1):
    return nn.Conv2d(in_channels, out_channels, kernel_size=3, stride=stride, padding=1, bias=False)


class ResidualBlock(nn.Module):
    def __init__(self, in_channels, out_channels, stride=1, downsample=None):
        super(ResidualBlock, self).__init__()
        self.conv1 = conv3x3(in_channels, out_channels, stride)
        self.bn1 = nn.BatchNorm2d(out_channels)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = conv3x3(out_channels, out_channels)
        self.bn2 = nn.BatchNorm2d(out_channels)
        self.downsample = downsample

    def forward(self, x):
        residual = x
        out = self.conv1(x)
        out = self.bn1(out)
        out = self.relu(out)
        out = self.conv2(out)
        out = self.bn2(out)
        if self.downsample:
            residual = self.downsample(x)
        out += residual
        out = self.relu(out)
        return out


class ResNet(nn.Module):
    def __init__(self, block, layers, num_classes=10):
        super(ResNet, self).__init__()
        self.in_channels = 16
        self.conv = conv3x3(3, 16)
        self.bn = nn.BatchNorm2d(16)
        self.relu = nn.ReLU(inplace=True)
        self.layer1 = self.make_layer(block, 16, layers[0])
        self.layer2 = self.make_layer(block, 32, layers[1], 2)
        self.layer3 = self.make_layer(block, 64, layers[2], 2)
        self.avg_pool = nn.AvgPool2d(8)
        self.fc = nn.Linear(64, num_classes)

    def make_layer(self, block, out_channels, blocks, stride=1):
        downsample = None
        if (stride != 1) or (self.in_channels != out_channels):
            downsample = nn.Sequential(
                conv3x3(self.in_channels, out_channels, stride=stride),
                nn.BatchNorm2d(out_channels))
        layers = []
        layers.append(block(self.in_channels, out_channels, stride, downsample))
        self.in_channels = out_channels
        for i in range(1, blocks):
            layers.append(block(out_channels, out_channels))
        return nn.Sequential(*layers)

    def forward(self, x):
        out = self.conv(x)
        out = self.bn(out)
        out = self.relu(out)
        out = self.layer1(out)
        out = self.layer2(out)
        out = self.layer3(out)
        out = self.avg_pool(out)
        out = out.view(out.size(0), -1)
        out = self.fc(out)
        return out


def update_lr(optimizer, lr):
    for param_group in optimizer.param_groups:
        param_group['lr'] = lr


def deep_residual_network():
    num_epochs, batch_size, learning_rate = 2, 8, 0.001
    dataset = fake_images(16, (3, 32, 32), 3)
    train_loader = torch.utils.data.DataLoader(dataset=dataset, batch_size=batch_size, shuffle=True)
    test_loader = torch.utils.data.DataLoader(dataset=fake_images(8, (3, 32, 32), 4), batch_size=batch_size)
    # Adam's first steps are about lr * sign(grad) for every weight, so a gradient element near zero makes the
    # run chaotic: a 1e-7 relative change of the initial weights moves torch's loss at the 8th step by 1e-3
    model = ResNet(ResidualBlock, [2, 2, 2]).to(device)
    print('resnet params', sum(p.numel() for p in model.parameters()),
          sum(b.numel() for b in model.buffers()))
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)
    total_step = len(train_loader)
    curr_lr = learning_rate
    for epoch in range(num_epochs):
        for i, (images, labels) in enumerate(train_loader):
            # the tutorial's transforms: Pad(4), RandomHorizontalFlip, RandomCrop(32), done with tensor ops
            images = nn.functional.pad(images, (4, 4, 4, 4))
            if torch.rand(1).item() < 0.5:
                images = images.flip(3)
            top, left = torch.randint(0, 9, (2,)).tolist()
            images = images[:, :, top:top + 32, left:left + 32].to(device)
            labels = labels.to(device)
            outputs = model(images)
            loss = criterion(outputs, labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            print("Epoch [{}/{}], Step [{}/{}] Loss: {:.4f}"
                  .format(epoch + 1, num_epochs, i + 1, total_step, loss.item()))
        if (epoch + 1) % 1 == 0:  # the tutorial: every 20 epochs
            curr_lr /= 3
            update_lr(optimizer, curr_lr)
            print('lr now', optimizer.param_groups[0]['lr'], optimizer.state_dict()['param_groups'][0]['lr'])
    print('bn stats', round(model.bn.running_var.sum().item(), 3), int(model.bn.num_batches_tracked))
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
        print('Accuracy of the model on the test images: {} %'.format(100 * correct / total))
        print('eval output', tuple(outputs.shape), round(outputs.abs().sum().item(), 3))
    torch.save(model.state_dict(), os.path.join(TMP, 'resnet.ckpt'))
    print('checkpoint entries', len(torch.load(os.path.join(TMP, 'resnet.ckpt'))))


class Dictionary(object):
    def __init__(self):
        self.word2idx = {}
        self.idx2word = {}
        self.idx = 0

    def add_word(self, word):
        if word not in self.word2idx:
            self.word2idx[word] = self.idx
            self.idx2word[self.idx] = word
            self.idx += 1

    def __len__(self):
        return len(self.word2idx)


class Corpus(object):
    def __init__(self):
        self.dictionary = Dictionary()

    def get_data(self, path, batch_size=20):
        with open(path, 'r') as f:
            tokens = 0
            for line in f:
                words = line.split() + ['<eos>']
                tokens += len(words)
                for word in words:
                    self.dictionary.add_word(word)
        ids = torch.LongTensor(tokens)
        token = 0
        with open(path, 'r') as f:
            for line in f:
                words = line.split() + ['<eos>']
                for word in words:
                    ids[token] = self.dictionary.word2idx[word]
                    token += 1
        num_batches = ids.size(0) // batch_size
        ids = ids[:num_batches * batch_size]
        return ids.view(batch_size, -1)


class RNNLM(nn.Module):
    def __init__(self, vocab_size, embed_size, hidden_size, num_layers):
        super(RNNLM, self).__init__()
        self.embed = nn.Embedding(vocab_size, embed_size)
        self.lstm = nn.LSTM(embed_size, hidden_size, num_layers, batch_first=True)
        self.linear = nn.Linear(hidden_size, vocab_size)

    def forward(self, x, h):
        x = self.embed(x)
        out, (h, c) = self.lstm(x, h)
        out = out.reshape(out.size(0) * out.size(1), out.size(2))
        out = self.linear(out)
        return out, (h, c)


def detach(states):
    return [state.detach() for state in states]


def language_model():
    embed_size, hidden_size, num_layers, num_epochs, num_samples = 16, 32, 1, 2, 40
    batch_size, seq_length, learning_rate = 4, 10, 0.002
    rng = np.random.RandomState(0)
    words = ['the', 'cat', 'sat', 'on', 'a', 'mat', 'dog', 'ran', 'to', 'house', 'big', 'small']
    path = os.path.join(TMP, 'train.txt')
    with open(path, 'w') as f:
        for _ in range(40):
            f.write(' ' + ' '.join(rng.choice(words, size=rng.randint(3, 9))) + ' \n')
    corpus = Corpus()
    ids = corpus.get_data(path, batch_size)
    vocab_size = len(corpus.dictionary)
    num_batches = ids.size(1) // seq_length
    print('corpus', tuple(ids.shape), ids.dtype, vocab_size, num_batches)
    model = RNNLM(vocab_size, embed_size, hidden_size, num_layers).to(device)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)
    for epoch in range(num_epochs):
        states = (torch.zeros(num_layers, batch_size, hidden_size).to(device),
                  torch.zeros(num_layers, batch_size, hidden_size).to(device))
        for i in range(0, ids.size(1) - seq_length, seq_length):
            inputs = ids[:, i:i + seq_length].to(device)
            targets = ids[:, (i + 1):(i + 1) + seq_length].to(device)
            states = detach(states)
            outputs, states = model(inputs, states)
            loss = criterion(outputs, targets.reshape(-1))
            model.zero_grad()
            loss.backward()
            norm = clip_grad_norm_(model.parameters(), 0.5)
            optimizer.step()
            step = (i + 1) // seq_length
            if step % 2 == 0:
                print('Epoch [{}/{}], Step[{}/{}], Loss: {:.4f}, Perplexity: {:5.2f}, grad norm {:.4f}'
                      .format(epoch + 1, num_epochs, step, num_batches, loss.item(), np.exp(loss.item()),
                              norm.item()))
    print('states', type(states).__name__, states[0].requires_grad, states[0].grad_fn is None,
          tuple(states[1].shape))
    sample_path = os.path.join(TMP, 'sample.txt')
    with torch.no_grad():
        with open(sample_path, 'w') as f:
            state = (torch.zeros(num_layers, 1, hidden_size).to(device),
                     torch.zeros(num_layers, 1, hidden_size).to(device))
            prob = torch.ones(vocab_size)
            input = torch.multinomial(prob, num_samples=1).unsqueeze(1).to(device)
            for i in range(num_samples):
                output, state = model(input, state)
                prob = output.exp()
                word_id = torch.multinomial(prob, num_samples=1).item()
                input.fill_(word_id)
                word = corpus.dictionary.idx2word[word_id]
                word = '\n' if word == '<eos>' else word + ' '
                f.write(word)
    with open(sample_path) as f:
        text = f.read()
    print('sampled', repr(text))
    print('last prob', tuple(prob.shape), round(prob.sum().item(), 4))
    torch.save(model.state_dict(), os.path.join(TMP, 'model.ckpt'))


def main():
    torch.manual_seed(0)
    train_sequence_classifier(RNN, 'rnn', 0.01)
    torch.manual_seed(0)
    train_sequence_classifier(BiRNN, 'birnn', 0.003)
    torch.manual_seed(0)
    deep_residual_network()
    torch.manual_seed(0)
    language_model()


if __name__ == '__main__':
    main()
