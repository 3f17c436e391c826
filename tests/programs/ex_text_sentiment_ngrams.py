"""pytorch/tutorials ``beginner_source/text_sentiment_ngrams_tutorial.py``-style (own code; a generated
four-topic corpus and a plain-Python tokenizer/vocabulary in place of torchtext's AG_NEWS,
``get_tokenizer`` and ``build_vocab_from_iterator``): ``text_pipeline`` / ``label_pipeline``,
``collate_batch`` building ``offsets`` with ``torch.tensor(offsets[:-1]).cumsum(dim=0)`` and
``torch.cat(text_list)``, ``TextClassificationModel`` (``nn.EmbeddingBag(vocab_size, embed_dim,
sparse=False)`` + ``nn.Linear``, ``init_weights`` with ``uniform_`` / ``bias.data.zero_()``), ``train`` with
``clip_grad_norm_(model.parameters(), 0.1)`` and the ``'| epoch {:3d} | {:5d}/{:5d} batches | accuracy
{:8.3f}'`` log, ``evaluate`` under ``torch.no_grad()``, ``random_split`` of a map-style dataset, SGD(lr=5)
with ``StepLR(optimizer, 1.0, gamma=0.1)`` stepped only when validation accuracy stops improving, the test
accuracy, and ``predict`` on new sentences; plus ``EmbeddingBag``'s ``mode='max'``/``'sum'`` with
``per_sample_weights`` and ``padding_idx`` as the tutorial's readers use them."""
import re
import time

import torch
from torch import nn
from torch.utils.data import DataLoader
from torch.utils.data.dataset import random_split

TOPICS = {
    1: "world nations leaders summit treaty election minister border embassy crisis",
    2: "sports match team score league coach season player goal championship",
    3: "business market stocks profit company shares trade economy bank earnings",
    4: "science technology software computer research space internet device chip data",
}
FILLER = "the a of in on and to for with by at from new says after over".split()


def make_corpus(n, seed):
    g = torch.Generator().manual_seed(seed)
    rows = []
    for _ in range(n):
        label = int(torch.randint(1, 5, (1,), generator=g))
        words = TOPICS[label].split()
        length = int(torch.randint(6, 14, (1,), generator=g))
        text = []
        for _ in range(length):
            if torch.rand(1, generator=g) < 0.55:
                text.append(words[int(torch.randint(0, len(words), (1,), generator=g))])
            else:
                text.append(FILLER[int(torch.randint(0, len(FILLER), (1,), generator=g))])
        rows.append((label, " ".join(text).capitalize() + "."))
    return rows


def basic_english(line):
    line = line.lower()
    line = re.sub(r"([.,!?])", r" \1 ", line)
    return line.split()


class Vocab:
    def __init__(self, counter_iter, specials):
        self.itos = list(specials)
        counts = {}
        for tokens in counter_iter:
            for t in tokens:
                counts[t] = counts.get(t, 0) + 1
        self.itos += [t for t, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])) if t not in specials]
        self.stoi = {t: i for i, t in enumerate(self.itos)}
        self.default_index = None

    def set_default_index(self, i):
        self.default_index = i

    def __len__(self):
        return len(self.itos)

    def __call__(self, tokens):
        return [self.stoi.get(t, self.default_index) for t in tokens]


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)

train_iter = make_corpus(240, seed=1)
test_iter = make_corpus(60, seed=2)
tokenizer = basic_english
vocab = Vocab(map(lambda r: tokenizer(r[1]), train_iter), specials=["<unk>"])
vocab.set_default_index(vocab.stoi["<unk>"])
print('vocab', len(vocab), vocab(['here', 'is', 'the', 'an', 'example']))

text_pipeline = lambda x: vocab(tokenizer(x))  # noqa: E731
label_pipeline = lambda x: int(x) - 1  # noqa: E731


def collate_batch(batch):
    label_list, text_list, offsets = [], [], [0]
    for _label, _text in batch:
        label_list.append(label_pipeline(_label))
        processed_text = torch.tensor(text_pipeline(_text), dtype=torch.int64)
        text_list.append(processed_text)
        offsets.append(processed_text.size(0))
    label_list = torch.tensor(label_list, dtype=torch.int64)
    offsets = torch.tensor(offsets[:-1]).cumsum(dim=0)
    text_list = torch.cat(text_list)
    return label_list.to(device), text_list.to(device), offsets.to(device)


dataloader = DataLoader(train_iter, batch_size=8, shuffle=False, collate_fn=collate_batch)
label, text, offsets = next(iter(dataloader))
print('first batch', label.tolist(), tuple(text.shape), offsets.tolist(), offsets.dtype)


class TextClassificationModel(nn.Module):

    def __init__(self, vocab_size, embed_dim, num_class):
        super(TextClassificationModel, self).__init__()
        self.embedding = nn.EmbeddingBag(vocab_size, embed_dim, sparse=False)
        self.fc = nn.Linear(embed_dim, num_class)
        self.init_weights()

    def init_weights(self):
        initrange = 0.5
        self.embedding.weight.data.uniform_(-initrange, initrange)
        self.fc.weight.data.uniform_(-initrange, initrange)
        self.fc.bias.data.zero_()

    def forward(self, text, offsets):
        embedded = self.embedding(text, offsets)
        return self.fc(embedded)


num_class = len(set([label for (label, text) in train_iter]))
vocab_size = len(vocab)
emsize = 16
model = TextClassificationModel(vocab_size, emsize, num_class).to(device)
print(model)


def train(dataloader):
    model.train()
    total_acc, total_count = 0, 0
    log_interval = 10
    start_time = time.time()

    for idx, (label, text, offsets) in enumerate(dataloader):
        optimizer.zero_grad()
        predicted_label = model(text, offsets)
        loss = criterion(predicted_label, label)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.1)
        optimizer.step()
        total_acc += (predicted_label.argmax(1) == label).sum().item()
        total_count += label.size(0)
        if idx % log_interval == 0 and idx > 0:
            elapsed = time.time() - start_time
            assert elapsed >= 0
            print('| epoch {:3d} | {:5d}/{:5d} batches '
                  '| accuracy {:8.3f} | loss {:8.5f}'.format(epoch, idx, len(dataloader),
                                                             total_acc / total_count, loss.item()))
            total_acc, total_count = 0, 0
            start_time = time.time()


def evaluate(dataloader):
    model.eval()
    total_acc, total_count = 0, 0

    with torch.no_grad():
        for idx, (label, text, offsets) in enumerate(dataloader):
            predicted_label = model(text, offsets)
            criterion(predicted_label, label)
            total_acc += (predicted_label.argmax(1) == label).sum().item()
            total_count += label.size(0)
    return total_acc / total_count


# Hyperparameters
EPOCHS = 4  # epoch
LR = 5  # learning rate
BATCH_SIZE = 16  # batch size for training

criterion = torch.nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=LR)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1.0, gamma=0.1)
total_accu = None
train_dataset = list(train_iter)
test_dataset = list(test_iter)
num_train = int(len(train_dataset) * 0.95)
split_train_, split_valid_ = random_split(train_dataset, [num_train, len(train_dataset) - num_train])
print('split', len(split_train_), len(split_valid_), split_valid_.indices[:5])

train_dataloader = DataLoader(split_train_, batch_size=BATCH_SIZE, shuffle=True, collate_fn=collate_batch)
valid_dataloader = DataLoader(split_valid_, batch_size=BATCH_SIZE, shuffle=True, collate_fn=collate_batch)
test_dataloader = DataLoader(test_dataset, batch_size=BATCH_SIZE, shuffle=True, collate_fn=collate_batch)

for epoch in range(1, EPOCHS + 1):
    epoch_start_time = time.time()
    train(train_dataloader)
    accu_val = evaluate(valid_dataloader)
    if total_accu is not None and total_accu > accu_val:
        scheduler.step()
    else:
        total_accu = accu_val
    print('-' * 59)
    print('| end of epoch {:3d} | valid accuracy {:8.3f} | lr {:.4f}'.format(epoch, accu_val,
                                                                             scheduler.get_last_lr()[0]))
    print('-' * 59)

print('Checking the results of test dataset.')
accu_test = evaluate(test_dataloader)
print('test accuracy {:8.3f}'.format(accu_test))

ag_news_label = {1: "World", 2: "Sports", 3: "Business", 4: "Sci/Tec"}


def predict(text, text_pipeline):
    with torch.no_grad():
        text = torch.tensor(text_pipeline(text))
        output = model(text, torch.tensor([0]))
        return output.argmax(1).item() + 1


for ex_text_str in ["The coach says the team will score in the league final.",
                    "Shares of the bank rose after strong earnings and profit.",
                    "New chip research for space software and internet data."]:
    print("This is a %s news" % ag_news_label[predict(ex_text_str, text_pipeline)])

# EmbeddingBag's other modes, as readers of the tutorial try them
w = model.embedding.weight.detach()
bag_max = nn.EmbeddingBag.from_pretrained(w, mode='max')
bag_sum = nn.EmbeddingBag.from_pretrained(w, mode='sum', padding_idx=0)
label, text, offsets = next(iter(DataLoader(test_dataset[:4], batch_size=4, collate_fn=collate_batch)))
print('max bag %.5f' % bag_max(text, offsets).sum().item())
psw = torch.rand(text.shape)
print('weighted sum bag %.5f' % bag_sum(text, offsets, per_sample_weights=psw).sum().item())
print('2-D input mean bag', tuple(model.embedding(text[:12].view(3, 4)).shape),
      '%.5f' % model.embedding(text[:12].view(3, 4)).sum().item())
print('fc grad kept after eval', model.fc.weight.grad is not None, tuple(model.fc.bias.shape))
