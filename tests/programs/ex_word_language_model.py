"""word_language_model pattern: Embedding + LSTM/GRU + tied Linear, repackage_hidden, clip_grad_norm_, whole-model save/load."""
import argparse
import math
import os
import sys
import tempfile

import torch
import torch.nn as nn


class RNNModel(nn.Module):
    def __init__(self, rnn_type, ntoken, ninp, nhid, nlayers, dropout=0.0, tie_weights=True):
        super().__init__()
        self.ntoken = ntoken
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = getattr(nn, rnn_type)(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        if tie_weights:
            self.decoder.weight = self.encoder.weight
        self.init_weights()
        self.rnn_type = rnn_type
        self.nhid = nhid
        self.nlayers = nlayers

    def init_weights(self):
        initrange = 0.1
        nn.init.uniform_(self.encoder.weight, -initrange, initrange)
        nn.init.zeros_(self.decoder.bias)
        nn.init.uniform_(self.decoder.weight, -initrange, initrange)

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output)
        decoded = decoded.view(-1, self.ntoken)
        return torch.nn.functional.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        if self.rnn_type == 'LSTM':
            return (weight.new_zeros(self.nlayers, bsz, self.nhid),
                    weight.new_zeros(self.nlayers, bsz, self.nhid))
        return weight.new_zeros(self.nlayers, bsz, self.nhid)


def repackage_hidden(h):
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


def batchify(data, bsz, device):
    nbatch = data.size(0) // bsz
    data = data.narrow(0, 0, nbatch * bsz)
    data = data.view(bsz, -1).t().contiguous()
    return data.to(device)


def get_batch(source, i, bptt):
    seq_len = min(bptt, len(source) - 1 - i)
    data = source[i:i + seq_len]
    target = source[i + 1:i + 1 + seq_len].view(-1)
    return data, target


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--model', type=str, default='LSTM')
    parser.add_argument('--lr', type=float, default=20)
    parser.add_argument('--clip', type=float, default=0.25)
    parser.add_argument('--bptt', type=int, default=6)
    parser.add_argument('--cuda', action='store_true', default=False)
    args = parser.parse_args()
    torch.manual_seed(1111)
    device = torch.device("cuda" if args.cuda else "cpu")
    ntokens = 50
    corpus = torch.randint(0, ntokens, (160,), dtype=torch.long)
    train_data = batchify(corpus[:120], 4, device)
    val_data = batchify(corpus[120:], 2, device)
    criterion = nn.NLLLoss()
    lr = args.lr
    best_val_loss = None
    path = os.path.join(tempfile.mkdtemp(), 'model.pt')
    for rnn_type in (args.model, 'GRU'):
        model = RNNModel(rnn_type, ntokens, 16, 16, 2).to(device)
        lr = args.lr
        best_val_loss = None
        for epoch in range(1, 3):
            model.train()
            total_loss = 0.
            hidden = model.init_hidden(4)
            for batch, i in enumerate(range(0, train_data.size(0) - 1, args.bptt)):
                data, targets = get_batch(train_data, i, args.bptt)
                model.zero_grad()
                hidden = repackage_hidden(hidden)
                output, hidden = model(data, hidden)
                loss = criterion(output, targets)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
                for p in model.parameters():
                    p.data.add_(p.grad, alpha=-lr)
                total_loss += loss.item()
                if batch % 2 == 0:
                    print(f"{rnn_type} epoch {epoch} batch {batch} loss {loss.item():.5f}")
            cur_loss = total_loss / (batch + 1)
            print(f"{rnn_type} epoch {epoch} train ppl {math.exp(cur_loss):.4f}")
            model.eval()
            val_loss = 0.
            hidden = model.init_hidden(2)
            with torch.no_grad():
                for i in range(0, val_data.size(0) - 1, args.bptt):
                    data, targets = get_batch(val_data, i, args.bptt)
                    output, hidden = model(data, hidden)
                    hidden = repackage_hidden(hidden)
                    val_loss += len(data) * criterion(output, targets).item()
            val_loss = val_loss / (len(val_data) - 1)
            print(f"{rnn_type} epoch {epoch} valid loss {val_loss:.5f} ppl {math.exp(val_loss):.4f} lr {lr:.3f}")
            if not best_val_loss or val_loss < best_val_loss:
                with open(path, 'wb') as f:
                    torch.save(model, f)
                best_val_loss = val_loss
            else:
                lr /= 4.0
        with open(path, 'rb') as f:
            with torch.serialization.safe_globals([RNNModel, nn.Dropout, nn.Embedding, nn.LSTM, nn.GRU,
                                                   nn.Linear, set, getattr]):
                model = torch.load(f)
            if args.model in ['RNN_TANH', 'RNN_RELU', 'LSTM', 'GRU']:
                model.rnn.flatten_parameters()
        tied = model.decoder.weight is model.encoder.weight
        with torch.no_grad():
            output, _ = model(val_data[:5], model.init_hidden(2))
            test_loss = criterion(output, val_data[1:6].view(-1)).item()
        print(f"{rnn_type} reloaded tied {tied} test loss {test_loss:.5f}")
    return 0


if __name__ == '__main__':
    sys.exit(main())
