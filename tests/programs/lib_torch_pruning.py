"""Torch-Pruning: structural pruning through a dependency graph built from autograd's ``grad_fn`` graph.

A small ResNet-style CNN (residual adds, a channel concatenation, global pooling, flatten, a Linear head), a CNN
whose flattened feature map feeds a Linear layer directly, and a transformer block (ViT-style attention on tokens
flattened to rows, LayerNorm, MLP).  DependencyGraph.build_dependency, get_pruning_group + group.prune() and the
pruning history, the MetaPruner/MagnitudePruner with L1/L2 GroupMagnitudeImportance, BNScaleImportance and
TaylorImportance (after a backward pass), iterative pruning, count_ops_and_params (MACs), and a few fine-tuning
steps of the pruned models.  Each step prints parameter counts, pruned layer shapes and the pruned model's output
on a fixed input.  (Attention-head pruning is left out: see docs/differences.md, torch-pruning.)
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch_pruning as tp


def r(x, n=4):
    return round(float(x), n)


def nparams(model):
    return sum(p.numel() for p in model.parameters())


def shapes(model, types=(nn.Conv2d, nn.Linear, nn.BatchNorm2d, nn.LayerNorm)):
    out = []
    for name, m in model.named_modules():
        if isinstance(m, types):
            out.append(f"{name}:{'x'.join(str(s) for s in m.weight.shape)}")
    return " ".join(out)


def summary(model, x):
    with torch.no_grad():
        y = model(x)
    return f"sum {r(y.sum())} abs {r(y.abs().sum())} first {[r(v) for v in y.flatten()[:3]]}"


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(c)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(c)

    def forward(self, x):
        h = F.relu(self.bn1(self.conv1(x)))
        return F.relu(x + self.bn2(self.conv2(h)))


class ResCatNet(nn.Module):
    """Stem, two residual blocks, two branches concatenated on channels, pooling, flatten, Linear head."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(16)
        self.block1 = Block(16)
        self.block2 = Block(16)
        self.left = nn.Conv2d(16, 12, 1)
        self.right = nn.Conv2d(16, 8, 3, padding=1)
        self.bn_cat = nn.BatchNorm2d(20)
        self.proj = nn.Conv2d(20, 24, 3, stride=2, padding=1)
        self.fc = nn.Linear(24, 10)

    def forward(self, x):
        x = F.relu(self.bn(self.stem(x)))
        x = self.block2(self.block1(x))
        x = torch.cat([self.left(x), self.right(x)], dim=1)
        x = F.relu(self.proj(F.relu(self.bn_cat(x))))
        x = F.adaptive_avg_pool2d(x, 1)
        return self.fc(torch.flatten(x, 1))


class FlatNet(nn.Module):
    """A conv stack whose 4x4 feature map is flattened into a Linear layer (each channel owns 16 inputs)."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.conv2 = nn.Conv2d(8, 12, 3, stride=2, padding=1)
        self.fc1 = nn.Linear(12 * 4 * 4, 32)
        self.fc2 = nn.Linear(32, 5)

    def forward(self, x):
        x = F.relu(self.conv2(F.relu(self.conv1(x))))
        x = x.view(x.size(0), -1)
        return self.fc2(F.relu(self.fc1(x)))


class Attention(nn.Module):
    """ViT-style attention on tokens flattened to rows: one qkv Linear, heads split by reshape/permute and
    indexing, a proj Linear."""

    def __init__(self, dim, heads):
        super().__init__()
        self.num_heads, self.head_dim = heads, dim // heads
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        b, n, c = x.shape
        qkv = self.qkv(x.reshape(b * n, c)).reshape(b, n, 3, self.num_heads, self.head_dim).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        att = (q @ k.transpose(-2, -1)) * self.head_dim ** -0.5
        x = (att.softmax(dim=-1) @ v).transpose(1, 2).reshape(b * n, -1)
        return self.proj(x).reshape(b, n, -1)


class TransformerBlock(nn.Module):
    def __init__(self, dim=32, heads=4):
        super().__init__()
        self.embed = nn.Linear(6, dim)
        self.norm1 = nn.LayerNorm(dim)
        self.attn = Attention(dim, heads)
        self.norm2 = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, 4 * dim)
        self.fc2 = nn.Linear(4 * dim, dim)
        self.head = nn.Linear(dim, 3)

    def forward(self, x):
        x = self.embed(x)
        h = self.norm1(x)
        x = x + self.attn(h)
        b, n, c = x.shape
        x = x + self.fc2(F.gelu(self.fc1(self.norm2(x).reshape(b * n, c)))).reshape(b, n, c)
        return self.head(x.mean(1))


def train(model, x, y, steps, lr=0.05):
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        losses.append(r(loss.item()))
    return losses


def graph_facts(model, example):
    """The dependency graph: how many nodes of each kind and the groups' sizes."""
    dg = tp.DependencyGraph().build_dependency(model, example_inputs=example)
    kinds = {}
    for node in dg.module2node.values():
        kinds[node.type.name] = kinds.get(node.type.name, 0) + 1
    groups = list(dg.get_all_groups(root_module_types=[nn.Conv2d, nn.Linear]))
    return dg, sorted(kinds.items()), [len(g) for g in groups]


def resnet_part():
    torch.manual_seed(0)
    model = ResCatNet().eval()
    example = torch.randn(1, 3, 16, 16)
    x = torch.randn(4, 3, 16, 16)
    base_macs, base_params = tp.utils.count_ops_and_params(model, example)
    print("resnet params", nparams(model), "macs", int(base_macs), int(base_params), summary(model, x))

    dg, kinds, sizes = graph_facts(model, example)
    print("resnet graph", kinds, sizes)
    # the stem's channels are tied to both residual blocks (adds) and to the concat's two branches
    group = dg.get_pruning_group(model.stem, tp.prune_conv_out_channels, idxs=[2, 6, 9])
    print("resnet stem group", len(group), sorted({type(dep.target.module).__name__ for dep, _ in group}))
    print("resnet stem group ok", dg.check_pruning_group(group))
    group.prune()
    # pruning the concat's right branch removes the matching slice of bn_cat and of proj's input channels
    dg.get_pruning_group(model.right, tp.prune_conv_out_channels, idxs=[0, 5]).prune()
    print("resnet manual", nparams(model), shapes(model))
    print("resnet manual out", summary(model, x))
    print("resnet history", [(n, o, list(i)) for n, o, i in dg.pruning_history()])

    for norm in (1, 2):
        torch.manual_seed(0)
        model = ResCatNet().eval()
        imp = tp.importance.GroupMagnitudeImportance(p=norm)
        pruner = tp.pruner.MetaPruner(model, example, importance=imp, pruning_ratio=0.5,
                                      ignored_layers=[model.fc])
        pruner.step()
        macs, params = tp.utils.count_ops_and_params(model, example)
        print(f"resnet L{norm}", nparams(model), int(macs), shapes(model))
        print(f"resnet L{norm} out", summary(model, x))

    torch.manual_seed(0)
    model = ResCatNet().eval()
    with torch.no_grad():  # give the BatchNorm scales distinct magnitudes
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.weight.copy_(torch.rand(m.num_features) + 0.1)
    pruner = tp.pruner.MetaPruner(model, example, importance=tp.importance.BNScaleImportance(),
                                  pruning_ratio=0.25, ignored_layers=[model.fc])
    pruner.step()
    print("resnet bnscale", nparams(model), shapes(model))
    print("resnet bnscale out", summary(model, x))


def taylor_part():
    torch.manual_seed(1)
    model = ResCatNet()
    example = torch.randn(1, 3, 16, 16)
    x = torch.randn(8, 3, 16, 16)
    y = torch.randint(0, 10, (8,))
    imp = tp.importance.TaylorImportance()
    pruner = tp.pruner.MetaPruner(model, example, importance=imp, pruning_ratio=0.5, iterative_steps=3,
                                  ignored_layers=[model.fc])
    model.eval()
    for step in range(3):
        model.zero_grad()
        F.cross_entropy(model(x), y).backward()
        pruner.step()
        macs, params = tp.utils.count_ops_and_params(model, example)
        print("taylor step", step, nparams(model), int(macs), int(params), shapes(model, (nn.Conv2d,)))
    model.eval()
    print("taylor out", summary(model, x))
    model.train()
    print("taylor finetune", train(model, x, y, 6))
    model.eval()
    print("taylor tuned out", summary(model, x))


def flatten_part():
    torch.manual_seed(2)
    model = FlatNet()
    example = torch.randn(1, 3, 16, 16)
    x = torch.randn(4, 3, 16, 16)
    dg, kinds, sizes = graph_facts(model, example)
    print("flat graph", kinds, sizes)
    # conv2's output channel c feeds fc1's inputs 16c..16c+15 through the view
    group = dg.get_pruning_group(model.conv2, tp.prune_conv_out_channels, idxs=[1, 4])
    fc_idxs = [sorted(int(i) for i in idxs) for dep, idxs in group if dep.target.module is model.fc1]
    print("flat fc1 idxs", fc_idxs)
    group.prune()
    print("flat manual", nparams(model), shapes(model), summary(model, x))
    pruner = tp.pruner.MagnitudePruner(model, example, importance=tp.importance.MagnitudeImportance(p=1),
                                       pruning_ratio=0.25, ignored_layers=[model.fc2])
    pruner.step()
    macs, params = tp.utils.count_ops_and_params(model, example)
    print("flat magnitude", nparams(model), int(macs), shapes(model), summary(model, x))
    y = torch.randint(0, 5, (4,))
    print("flat finetune", train(model, x, y, 5))


def transformer_part():
    torch.manual_seed(3)
    example = torch.randn(1, 5, 6)
    x = torch.randn(2, 5, 6)
    model = TransformerBlock().eval()
    macs, params = tp.utils.count_ops_and_params(model, example)
    print("vit params", nparams(model), int(macs), summary(model, x))
    dg = tp.DependencyGraph().build_dependency(model, example_inputs=example)
    group = dg.get_pruning_group(model.fc1, tp.prune_linear_out_channels, idxs=list(range(0, 128, 8)))
    print("vit fc1 group", [type(dep.target.module).__name__ for dep, _ in group])
    group.prune()
    print("vit fc1 pruned", nparams(model), shapes(model), summary(model, x))

    torch.manual_seed(3)
    model = TransformerBlock().eval()
    # the qkv/proj layers keep their output width (the head split's reshape fixes it); the embedding width and
    # the MLP's hidden width are pruned through LayerNorm, the residual adds and the attention's input/output
    pruner = tp.pruner.MetaPruner(model, example, importance=tp.importance.GroupMagnitudeImportance(p=2),
                                  pruning_ratio=0.25, ignored_layers=[model.head, model.attn.qkv, model.attn.proj])
    pruner.step()
    print("vit pruned", nparams(model), shapes(model), summary(model, x))
    y = torch.tensor([0, 2])
    model.train()
    print("vit finetune", train(model, x, y, 5, lr=0.02))


def main():
    resnet_part()
    taylor_part()
    flatten_part()
    transformer_part()


if __name__ == "__main__":
    main()
