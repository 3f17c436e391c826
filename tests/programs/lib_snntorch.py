"""snntorch spiking networks: Leaky / Synaptic / Lapicque / Alpha / RLeaky neurons stepped by hand and as
init_hidden layers, surrogate gradients (atan, fast_sigmoid, sigmoid, triangular, straight-through), spikegen
rate / latency / delta encodings with a seed, a small spiking CNN trained a few Adam steps with
snntorch.functional's ce_rate_loss and mse_count_loss, backprop.BPTT over a DataLoader, accuracy_rate, the
membrane losses and a state_dict round trip. Everything seeded, CPU, no downloads."""
import io

import snntorch as snn
import snntorch.functional as SF
import torch
import torch.nn as nn
from snntorch import backprop, spikegen, surrogate, utils
from snntorch.functional import quant


def r(x, n=4):
    return round(float(x), n)


torch.manual_seed(0)
cur = torch.rand(25, 4, 6) * 0.6

# neurons stepped by hand
for name, neuron in [
    ("leaky", snn.Leaky(beta=0.8)),
    ("leaky_zero", snn.Leaky(beta=0.8, reset_mechanism="zero", threshold=0.7)),
    ("leaky_learn", snn.Leaky(beta=torch.full((6,), 0.7), learn_beta=True, learn_threshold=True,
                              spike_grad=surrogate.fast_sigmoid(slope=10))),
    ("lapicque", snn.Lapicque(beta=0.9)),
    ("lapicque_rc", snn.Lapicque(R=5.0, C=1e-3, time_step=1e-3)),
]:
    mem = neuron.init_lapicque() if name.startswith("lapicque") else neuron.init_leaky()
    spk_rec, mem_rec = [], []
    for t in range(cur.shape[0]):
        spk, mem = neuron(cur[t], mem)
        spk_rec.append(spk)
        mem_rec.append(mem)
    spk_rec = torch.stack(spk_rec)
    mem_rec = torch.stack(mem_rec)
    print(name, tuple(spk_rec.shape), spk_rec.dtype, r(spk_rec.sum()), r(mem_rec.sum()), r(mem_rec[-1].max()))

syn = snn.Synaptic(alpha=0.9, beta=0.8)
syn_state, mem = syn.init_synaptic()
total = 0.0
for t in range(cur.shape[0]):
    spk, syn_state, mem = syn(cur[t], syn_state, mem)
    total += spk.sum()
print("synaptic", r(total), r(syn_state.sum()), r(mem.sum()))

alpha = snn.Alpha(alpha=0.9, beta=0.8)
a_syn_exc, a_syn_inh, a_mem = alpha.init_alpha()
for t in range(cur.shape[0]):
    a_spk, a_syn_exc, a_syn_inh, a_mem = alpha(cur[t] * 2, a_syn_exc, a_syn_inh, a_mem)
print("alpha", r(a_syn_exc.sum()), r(a_syn_inh.sum()), r(a_mem.sum()), r(a_spk.sum()))

rleaky = snn.RLeaky(beta=0.85, linear_features=6)
r_spk, r_mem = rleaky.init_rleaky()
rs = 0.0
for t in range(cur.shape[0]):
    r_spk, r_mem = rleaky(cur[t], r_spk, r_mem)
    rs += r_spk.sum()
print("rleaky", r(rs), r(r_mem.sum()))

# surrogate gradients: the spike is a Heaviside, the backward pass the surrogate's derivative
x = torch.linspace(-1.0, 3.0, 9, requires_grad=True)
for sname, fn in [("atan", surrogate.atan(alpha=2.0)), ("fast_sigmoid", surrogate.fast_sigmoid(slope=25)),
                  ("sigmoid", surrogate.sigmoid(slope=5)), ("triangular", surrogate.triangular()),
                  ("ste", surrogate.straight_through_estimator()), ("sfs", surrogate.SFS(slope=5, B=0.5))]:
    lif = snn.Leaky(beta=0.5, spike_grad=fn)
    spk, mem = lif(x, torch.zeros(9))
    (g,) = torch.autograd.grad(spk.sum(), x)
    print("surrogate", sname, spk.tolist(), [r(v) for v in g.tolist()])

# spike encodings
torch.manual_seed(3)
img = torch.rand(2, 1, 6, 6)
torch.manual_seed(4)
rate = spikegen.rate(img, num_steps=10)
print("rate", tuple(rate.shape), rate.dtype, r(rate.sum()), r(rate.mean(0).sub(img).abs().mean()))
torch.manual_seed(4)
rate2 = spikegen.rate(img, num_steps=10)
print("rate seeded again", bool(torch.equal(rate, rate2)))
print("rate gain", r(spikegen.rate(img, num_steps=5, gain=0.5).sum()))
lat = spikegen.latency(img, num_steps=8, tau=5, threshold=0.01, normalize=True, linear=True, clip=True)
print("latency", tuple(lat.shape), r(lat.sum()), r(lat.argmax(0).float().mean()))
lat_log = spikegen.latency(img, num_steps=8, tau=5, threshold=0.01, normalize=True)
print("latency log", r(lat_log.sum()), r((lat_log.argmax(0).float() * (img > 0.01)).sum()))
series = torch.tensor([0.0, 0.2, 0.9, 0.4, 0.4, 1.5, 0.1])
print("delta", spikegen.delta(series, threshold=0.3).tolist(), spikegen.delta(series, threshold=0.3,
      off_spike=True).tolist())
targets = torch.tensor([1, 0, 2])
print("targets_rate", spikegen.targets_rate(targets, num_classes=3).tolist())


# a small spiking CNN with init_hidden layers, trained with ce_rate_loss
def make_net(spike_grad):
    torch.manual_seed(1)
    return nn.Sequential(
        nn.Conv2d(1, 4, 3), nn.MaxPool2d(2), snn.Leaky(beta=0.8, spike_grad=spike_grad, init_hidden=True),
        nn.Flatten(), nn.Linear(4 * 2 * 2, 3),
        snn.Leaky(beta=0.8, spike_grad=spike_grad, init_hidden=True, output=True))


# (seed 7 put a membrane within an ulp of the threshold: torch on AVX2 and on AVX-512 CPUs spiked differently)
g = torch.Generator().manual_seed(1)
images = torch.rand(12, 1, 6, 6, generator=g)
labels = torch.randint(0, 3, (12,), generator=g)
images = images + labels.view(-1, 1, 1, 1) * 0.3
NUM_STEPS = 8


def forward_pass(net, data):
    spk_rec, mem_rec = [], []
    utils.reset(net)
    for _ in range(NUM_STEPS):
        spk, mem = net(data)
        spk_rec.append(spk)
        mem_rec.append(mem)
    return torch.stack(spk_rec), torch.stack(mem_rec)


for loss_name, loss_fn, sg in [("ce_rate", SF.ce_rate_loss(), surrogate.atan()),
                               ("mse_count", SF.mse_count_loss(correct_rate=0.8, incorrect_rate=0.2),
                                surrogate.fast_sigmoid(slope=25))]:
    net = make_net(sg)
    opt = torch.optim.Adam(net.parameters(), lr=2e-2, betas=(0.9, 0.999))
    losses = []
    for step in range(5):
        spk_rec, mem_rec = forward_pass(net, images)
        loss = loss_fn(spk_rec, labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(r(loss))
    spk_rec, mem_rec = forward_pass(net, images)
    print("train", loss_name, losses, r(SF.accuracy_rate(spk_rec, labels)), r(spk_rec.sum()),
          r(net[0].weight.grad.norm(), 5))

# the other losses and the regulariser on the last recording
print("ce_count", r(SF.ce_count_loss()(spk_rec, labels)))
print("ce_max_membrane", r(SF.ce_max_membrane_loss()(mem_rec, labels)))
print("mse_membrane", r(SF.mse_membrane_loss(on_target=1.0, off_target=0.0)(mem_rec, labels)))
print("l1_rate_sparsity", r(SF.l1_rate_sparsity(Lambda=1e-3)(spk_rec), 6))

# backprop.BPTT over a DataLoader (snntorch's training helper)
net = make_net(surrogate.atan())
opt = torch.optim.Adam(net.parameters(), lr=1e-2)
ds = torch.utils.data.TensorDataset(images, labels)
loader = torch.utils.data.DataLoader(ds, batch_size=4, shuffle=False)
bptt_loss = backprop.BPTT(net, loader, optimizer=opt, criterion=SF.mse_count_loss(), num_steps=NUM_STEPS,
                          time_var=False)
print("BPTT", r(bptt_loss))

# state_dict round trip keeps learnable beta / threshold
lif = snn.Leaky(beta=0.6, learn_beta=True, learn_threshold=True, threshold=0.9)
buf = io.BytesIO()
torch.save(lif.state_dict(), buf)
buf.seek(0)
state = torch.load(buf, weights_only=True)
print("state_dict", [(k, r(state[k])) for k in sorted(state)])
lif2 = snn.Leaky(beta=0.1, learn_beta=True, learn_threshold=True)
lif2.load_state_dict(state)
print("loaded", r(lif2.beta), r(lif2.threshold))

# recurrent spiking layers, quantised state, inhibition, graded spikes and the parallel leaky layer
torch.manual_seed(9)
seq = torch.rand(6, 2, 1, 5, 5)
sconv = snn.SConv2dLSTM(in_channels=1, out_channels=2, kernel_size=3, max_pool=2)
c_syn, c_mem = sconv.init_sconv2dlstm()
for t in range(seq.shape[0]):
    c_spk, c_syn, c_mem = sconv(seq[t] * 4, c_syn, c_mem)
print("sconv2dlstm", tuple(c_spk.shape), r(c_syn.sum()), r(c_mem.sum()), r(c_spk.sum()))
slstm = snn.SLSTM(input_size=6, hidden_size=5, spike_grad=surrogate.atan())
s_syn, s_mem = slstm.init_slstm()
for t in range(cur.shape[0]):
    s_spk, s_syn, s_mem = slstm(cur[t] * 8, s_syn, s_mem)
print("slstm", tuple(s_spk.shape), r(s_syn.sum()), r(s_mem.sum()), r(s_spk.sum()))
q = quant.state_quant(num_bits=4, uniform=True, threshold=1.0)
for qname, neuron in [("quant", snn.Leaky(beta=0.8, state_quant=q)),
                      ("inhibition", snn.Leaky(beta=0.8, inhibition=True)),
                      ("graded", snn.Leaky(beta=0.8, graded_spikes_factor=torch.full((6,), 0.5),
                                           learn_graded_spikes_factor=True)),
                      ("reset_none", snn.Leaky(beta=0.8, reset_mechanism="none", reset_delay=False))]:
    mem = neuron.init_leaky()
    tot = 0.0
    for t in range(cur.shape[0]):
        spk, mem = neuron(cur[t], mem)
        tot += spk.sum()
    print(qname, r(tot), r(mem.sum()))
par = snn.LeakyParallel(input_size=6, hidden_size=4, beta=0.7)
torch.manual_seed(2)
out = par(cur * 3)
print("leaky_parallel", tuple(out.shape), r(out.sum()))
