"""tkipf/pygcn and Diego999/pyGAT-style (own code, a random citation-like graph in place of Cora): pygcn's
``encode_onehot``, scipy ``coo_matrix`` adjacency made symmetric (``adj + adj.T.multiply(adj.T > adj) -
adj.multiply(adj.T > adj)``), row ``normalize`` with ``sp.diags``, ``sparse_mx_to_torch_sparse_tensor`` through
the legacy ``torch.sparse.FloatTensor(indices, values, shape)``, ``GraphConvolution`` (``Parameter(torch.
FloatTensor(in, out))`` + ``uniform_``, ``torch.mm`` then ``torch.spmm``), ``accuracy`` (``max(1)[1].type_as``,
``eq().double()``); pyGAT's dense ``GraphAttentionLayer`` (``xavier_uniform_(gain=1.414)``, ``Wh1 + Wh2.T``,
``torch.where(adj > 0, e, zero_vec)``, multi-head ``torch.cat``, ``F.elu``) and sparse ``SpGraphAttentionLayer``
with its custom ``SpecialSpmmFunction`` (``torch.sparse_coo_tensor`` in ``forward``, ``ctx.needs_input_grad``,
``a._indices()``, ``edge.nonzero().t()``); Adam with weight decay, ``nll_loss`` on ``idx_train``, early
stopping bookkeeping with ``torch.save``/``torch.load`` of the best ``state_dict``."""
import glob
import math
import os
import tempfile

import numpy as np
import scipy.sparse as sp
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parameter import Parameter
from torch.nn.modules.module import Module

np.random.seed(42)
torch.manual_seed(42)


def encode_onehot(labels):
    classes = sorted(set(labels))
    classes_dict = {c: np.identity(len(classes))[i, :] for i, c in enumerate(classes)}
    labels_onehot = np.array(list(map(classes_dict.get, labels)), dtype=np.int32)
    return labels_onehot


def normalize(mx):
    rowsum = np.array(mx.sum(1))
    r_inv = np.power(rowsum, -1).flatten()
    r_inv[np.isinf(r_inv)] = 0.
    r_mat_inv = sp.diags(r_inv)
    mx = r_mat_inv.dot(mx)
    return mx


def accuracy(output, labels):
    preds = output.max(1)[1].type_as(labels)
    correct = preds.eq(labels).double()
    correct = correct.sum()
    return correct / len(labels)


def sparse_mx_to_torch_sparse_tensor(sparse_mx):
    sparse_mx = sparse_mx.tocoo().astype(np.float32)
    indices = torch.from_numpy(np.vstack((sparse_mx.row, sparse_mx.col)).astype(np.int64))
    values = torch.from_numpy(sparse_mx.data)
    shape = torch.Size(sparse_mx.shape)
    return torch.sparse.FloatTensor(indices, values, shape)


def load_data(n=60, nfeat=20, nclass=3):
    labels_raw = np.random.randint(0, nclass, size=n).astype(str)
    feats = (np.random.rand(n, nfeat) < 0.2).astype(np.float32)
    for i, c in enumerate(labels_raw):  # make features informative
        feats[i, int(c) * 5:(int(c) + 1) * 5] += (np.random.rand(5) < 0.5)
    features = sp.csr_matrix(feats, dtype=np.float32)
    labels = encode_onehot(list(labels_raw))
    edges = []
    for i in range(n):
        for j in np.random.choice(n, 3, replace=False):
            if j != i and (labels_raw[i] == labels_raw[j] or np.random.rand() < 0.3):
                edges.append((i, j))
    edges = np.array(edges, dtype=np.int32)
    adj = sp.coo_matrix((np.ones(edges.shape[0]), (edges[:, 0], edges[:, 1])), shape=(n, n), dtype=np.float32)
    adj = adj + adj.T.multiply(adj.T > adj) - adj.multiply(adj.T > adj)
    features = normalize(features)
    adj = normalize(adj + sp.eye(adj.shape[0]))
    idx_train = range(30)
    idx_val = range(30, 45)
    idx_test = range(45, 60)
    features = torch.FloatTensor(np.array(features.todense()))
    labels = torch.LongTensor(np.where(labels)[1])
    adj = sparse_mx_to_torch_sparse_tensor(adj)
    idx_train = torch.LongTensor(idx_train)
    idx_val = torch.LongTensor(idx_val)
    idx_test = torch.LongTensor(idx_test)
    return adj, features, labels, idx_train, idx_val, idx_test


class GraphConvolution(Module):
    def __init__(self, in_features, out_features, bias=True):
        super(GraphConvolution, self).__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(torch.FloatTensor(in_features, out_features))
        if bias:
            self.bias = Parameter(torch.FloatTensor(out_features))
        else:
            self.register_parameter('bias', None)
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1. / math.sqrt(self.weight.size(1))
        self.weight.data.uniform_(-stdv, stdv)
        if self.bias is not None:
            self.bias.data.uniform_(-stdv, stdv)

    def forward(self, input, adj):
        support = torch.mm(input, self.weight)
        output = torch.spmm(adj, support)
        if self.bias is not None:
            return output + self.bias
        else:
            return output

    def __repr__(self):
        return self.__class__.__name__ + ' (' + str(self.in_features) + ' -> ' + str(self.out_features) + ')'


class GCN(nn.Module):
    def __init__(self, nfeat, nhid, nclass, dropout):
        super(GCN, self).__init__()
        self.gc1 = GraphConvolution(nfeat, nhid)
        self.gc2 = GraphConvolution(nhid, nclass)
        self.dropout = dropout

    def forward(self, x, adj):
        x = F.relu(self.gc1(x, adj))
        x = F.dropout(x, self.dropout, training=self.training)
        x = self.gc2(x, adj)
        return F.log_softmax(x, dim=1)


class GraphAttentionLayer(nn.Module):
    def __init__(self, in_features, out_features, dropout, alpha, concat=True):
        super(GraphAttentionLayer, self).__init__()
        self.dropout = dropout
        self.in_features = in_features
        self.out_features = out_features
        self.alpha = alpha
        self.concat = concat
        self.W = nn.Parameter(torch.empty(size=(in_features, out_features)))
        nn.init.xavier_uniform_(self.W.data, gain=1.414)
        self.a = nn.Parameter(torch.empty(size=(2 * out_features, 1)))
        nn.init.xavier_uniform_(self.a.data, gain=1.414)
        self.leakyrelu = nn.LeakyReLU(self.alpha)

    def forward(self, h, adj):
        Wh = torch.mm(h, self.W)
        e = self._prepare_attentional_mechanism_input(Wh)
        zero_vec = -9e15 * torch.ones_like(e)
        attention = torch.where(adj > 0, e, zero_vec)
        attention = F.softmax(attention, dim=1)
        attention = F.dropout(attention, self.dropout, training=self.training)
        h_prime = torch.matmul(attention, Wh)
        if self.concat:
            return F.elu(h_prime)
        else:
            return h_prime

    def _prepare_attentional_mechanism_input(self, Wh):
        Wh1 = torch.matmul(Wh, self.a[:self.out_features, :])
        Wh2 = torch.matmul(Wh, self.a[self.out_features:, :])
        e = Wh1 + Wh2.T
        return self.leakyrelu(e)


class GAT(nn.Module):
    def __init__(self, nfeat, nhid, nclass, dropout, alpha, nheads):
        super(GAT, self).__init__()
        self.dropout = dropout
        self.attentions = [GraphAttentionLayer(nfeat, nhid, dropout=dropout, alpha=alpha, concat=True) for _ in range(nheads)]
        for i, attention in enumerate(self.attentions):
            self.add_module('attention_{}'.format(i), attention)
        self.out_att = GraphAttentionLayer(nhid * nheads, nclass, dropout=dropout, alpha=alpha, concat=False)

    def forward(self, x, adj):
        x = F.dropout(x, self.dropout, training=self.training)
        x = torch.cat([att(x, adj) for att in self.attentions], dim=1)
        x = F.dropout(x, self.dropout, training=self.training)
        x = F.elu(self.out_att(x, adj))
        return F.log_softmax(x, dim=1)


class SpecialSpmmFunction(torch.autograd.Function):
    """Special function for only sparse region backpropataion layer."""
    @staticmethod
    def forward(ctx, indices, values, shape, b):
        assert indices.requires_grad == False
        a = torch.sparse_coo_tensor(indices, values, shape)
        ctx.save_for_backward(a, b)
        ctx.N = shape[0]
        return torch.matmul(a, b)

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        grad_values = grad_b = None
        if ctx.needs_input_grad[1]:
            grad_a_dense = grad_output.matmul(b.t())
            edge_idx = a._indices()[0, :] * ctx.N + a._indices()[1, :]
            grad_values = grad_a_dense.view(-1)[edge_idx]
        if ctx.needs_input_grad[3]:
            grad_b = a.t().matmul(grad_output)
        return None, grad_values, None, grad_b


class SpecialSpmm(nn.Module):
    def forward(self, indices, values, shape, b):
        return SpecialSpmmFunction.apply(indices, values, shape, b)


class SpGraphAttentionLayer(nn.Module):
    def __init__(self, in_features, out_features, dropout, alpha, concat=True):
        super(SpGraphAttentionLayer, self).__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.alpha = alpha
        self.concat = concat
        self.W = nn.Parameter(torch.zeros(size=(in_features, out_features)))
        nn.init.xavier_normal_(self.W.data, gain=1.414)
        self.a = nn.Parameter(torch.zeros(size=(1, 2 * out_features)))
        nn.init.xavier_normal_(self.a.data, gain=1.414)
        self.dropout = nn.Dropout(dropout)
        self.leakyrelu = nn.LeakyReLU(self.alpha)
        self.special_spmm = SpecialSpmm()

    def forward(self, input, adj):
        dv = 'cuda' if input.is_cuda else 'cpu'
        N = input.size()[0]
        edge = adj.nonzero().t()
        h = torch.mm(input, self.W)
        assert not torch.isnan(h).any()
        edge_h = torch.cat((h[edge[0, :], :], h[edge[1, :], :]), dim=1).t()
        edge_e = torch.exp(-self.leakyrelu(self.a.mm(edge_h).squeeze()))
        assert not torch.isnan(edge_e).any()
        e_rowsum = self.special_spmm(edge, edge_e, torch.Size([N, N]), torch.ones(size=(N, 1), device=dv))
        edge_e = self.dropout(edge_e)
        h_prime = self.special_spmm(edge, edge_e, torch.Size([N, N]), h)
        assert not torch.isnan(h_prime).any()
        h_prime = h_prime.div(e_rowsum)
        assert not torch.isnan(h_prime).any()
        if self.concat:
            return F.elu(h_prime)
        else:
            return h_prime


adj, features, labels, idx_train, idx_val, idx_test = load_data()
print("adj", adj.layout, adj.is_sparse, tuple(adj.shape), adj._nnz(), adj.dtype, adj.type())
print("features", tuple(features.shape), round(features.sum().item(), 4), labels[:10].tolist())
print("idx", idx_train.dtype, idx_val[:3].tolist(), len(idx_test))
dense_adj = adj.to_dense()
print("row sums", [round(v, 4) for v in dense_adj.sum(1)[:5].tolist()])
ci = adj.coalesce()
print("coalesced", ci.is_coalesced(), ci.indices()[:, :4].tolist(), [round(v, 4) for v in ci.values()[:4].tolist()])

model = GCN(nfeat=features.shape[1], nhid=16, nclass=int(labels.max()) + 1, dropout=0.5)
print(model)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)


def train(epoch):
    model.train()
    optimizer.zero_grad()
    output = model(features, adj)
    loss_train = F.nll_loss(output[idx_train], labels[idx_train])
    acc_train = accuracy(output[idx_train], labels[idx_train])
    loss_train.backward()
    optimizer.step()
    model.eval()
    output = model(features, adj)
    loss_val = F.nll_loss(output[idx_val], labels[idx_val])
    acc_val = accuracy(output[idx_val], labels[idx_val])
    print('Epoch: {:04d}'.format(epoch + 1),
          'loss_train: {:.4f}'.format(loss_train.item()),
          'acc_train: {:.4f}'.format(acc_train.item()),
          'loss_val: {:.4f}'.format(loss_val.item()),
          'acc_val: {:.4f}'.format(acc_val.item()))
    return loss_val.data.item()


for epoch in range(6):
    train(epoch)
model.eval()
output = model(features, adj)
print("Test set results:", "loss= {:.4f}".format(F.nll_loss(output[idx_test], labels[idx_test]).item()),
      "accuracy= {:.4f}".format(accuracy(output[idx_test], labels[idx_test]).item()), accuracy(output, labels).dtype)

# ---- pyGAT (dense and sparse) with its patience loop and best-checkpoint files ----
torch.manual_seed(7)
dense = torch.FloatTensor(np.array(dense_adj.numpy()))
gat = GAT(nfeat=features.shape[1], nhid=8, nclass=int(labels.max()) + 1, dropout=0.6, alpha=0.2, nheads=2)
print("gat params", [n for n, _ in gat.named_parameters()])
opt = torch.optim.Adam(gat.parameters(), lr=0.005, weight_decay=5e-4)
workdir = tempfile.mkdtemp()
cwd = os.getcwd()
os.chdir(workdir)
loss_values, bad_counter, best, best_epoch = [], 0, 1e9, 0
for epoch in range(5):
    gat.train()
    opt.zero_grad()
    output = gat(features, dense)
    loss_train = F.nll_loss(output[idx_train], labels[idx_train])
    loss_train.backward()
    opt.step()
    gat.eval()
    output = gat(features, dense)
    loss_val = F.nll_loss(output[idx_val], labels[idx_val])
    loss_values.append(loss_val.data.item())
    torch.save(gat.state_dict(), '{}.pkl'.format(epoch))
    if loss_values[-1] < best:
        best = loss_values[-1]
        best_epoch = epoch
        bad_counter = 0
    else:
        bad_counter += 1
    files = glob.glob('*.pkl')
    for file in files:
        epoch_nb = int(file.split('.')[0])
        if epoch_nb < best_epoch:
            os.remove(file)
    print("gat epoch", epoch, round(loss_train.item(), 4), round(loss_val.item(), 4))
print("kept", sorted(glob.glob('*.pkl')), "best", best_epoch)
gat.load_state_dict(torch.load('{}.pkl'.format(best_epoch)))
gat.eval()
print("gat restored", round(F.nll_loss(gat(features, dense)[idx_val], labels[idx_val]).item(), 4))
os.chdir(cwd)

torch.manual_seed(3)
sp_layer = SpGraphAttentionLayer(features.shape[1], 6, dropout=0.0, alpha=0.2, concat=True)
dense.requires_grad_(False)
out = sp_layer(features, dense)
loss = out.pow(2).mean()
loss.backward()
print("spgat", tuple(out.shape), round(out.sum().item(), 4), round(loss.item(), 5))
print("spgat grads", round(sp_layer.W.grad.abs().sum().item(), 4), round(sp_layer.a.grad.abs().sum().item(), 4))
print("nonzero edges", dense.nonzero().t().shape[1], dense.nonzero().t().dtype)
