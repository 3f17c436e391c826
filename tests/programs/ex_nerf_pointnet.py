"""Two papers' reference PyTorch idioms, small and on synthetic data.

NeRF after yenchenlin/nerf-pytorch: the Embedder (positional encoding with periodic_fns), the NeRF MLP with a skip
at layer 4 and view directions, get_rays with the legacy torch.meshgrid (its indexing warning), batchify/
run_network, stratified sampling, raw2outputs volume rendering (cumprod transmittance, 1e10 last interval),
hierarchical sample_pdf with torch.searchsorted(right=True) and gather, img2mse/mse2psnr and the exponential
learning-rate decay written into param_groups.

PointNet after fxia22/pointnet.pytorch: STN3d/STNkd with numpy identity offsets, PointNetfeat with torch.bmm
transforms and the max-pool global feature, PointNetCls/PointNetDenseCls, feature_transform_regularizer with
torch.eye and a matrix norm over dim=(1, 2), a numpy-augmenting Dataset through DataLoader, StepLR."""
import warnings

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.data
from torch.autograd import Variable

# ---------------------------------------------------------------- NeRF

img2mse = lambda x, y: torch.mean((x - y) ** 2)  # noqa: E731
mse2psnr = lambda x: -10. * torch.log(x) / torch.log(torch.Tensor([10.]))  # noqa: E731
to8b = lambda x: (255 * np.clip(x, 0, 1)).astype(np.uint8)  # noqa: E731


class Embedder:
    def __init__(self, **kwargs):
        self.kwargs = kwargs
        self.create_embedding_fn()

    def create_embedding_fn(self):
        embed_fns = []
        d = self.kwargs['input_dims']
        out_dim = 0
        if self.kwargs['include_input']:
            embed_fns.append(lambda x: x)
            out_dim += d
        max_freq = self.kwargs['max_freq_log2']
        N_freqs = self.kwargs['num_freqs']
        if self.kwargs['log_sampling']:
            freq_bands = 2. ** torch.linspace(0., max_freq, steps=N_freqs)
        else:
            freq_bands = torch.linspace(2. ** 0., 2. ** max_freq, steps=N_freqs)
        for freq in freq_bands:
            for p_fn in self.kwargs['periodic_fns']:
                embed_fns.append(lambda x, p_fn=p_fn, freq=freq: p_fn(x * freq))
                out_dim += d
        self.embed_fns = embed_fns
        self.out_dim = out_dim

    def embed(self, inputs):
        return torch.cat([fn(inputs) for fn in self.embed_fns], -1)


def get_embedder(multires, i=0):
    if i == -1:
        return nn.Identity(), 3
    embed_kwargs = {
        'include_input': True,
        'input_dims': 3,
        'max_freq_log2': multires - 1,
        'num_freqs': multires,
        'log_sampling': True,
        'periodic_fns': [torch.sin, torch.cos],
    }
    embedder_obj = Embedder(**embed_kwargs)
    embed = lambda x, eo=embedder_obj: eo.embed(x)  # noqa: E731
    return embed, embedder_obj.out_dim


class NeRF(nn.Module):
    def __init__(self, D=8, W=256, input_ch=3, input_ch_views=3, output_ch=4, skips=[4], use_viewdirs=False):
        super(NeRF, self).__init__()
        self.D = D
        self.W = W
        self.input_ch = input_ch
        self.input_ch_views = input_ch_views
        self.skips = skips
        self.use_viewdirs = use_viewdirs
        self.pts_linears = nn.ModuleList(
            [nn.Linear(input_ch, W)] + [nn.Linear(W, W) if i not in self.skips else nn.Linear(W + input_ch, W)
                                        for i in range(D - 1)])
        self.views_linears = nn.ModuleList([nn.Linear(input_ch_views + W, W // 2)])
        if use_viewdirs:
            self.feature_linear = nn.Linear(W, W)
            self.alpha_linear = nn.Linear(W, 1)
            self.rgb_linear = nn.Linear(W // 2, 3)
        else:
            self.output_linear = nn.Linear(W, output_ch)

    def forward(self, x):
        input_pts, input_views = torch.split(x, [self.input_ch, self.input_ch_views], dim=-1)
        h = input_pts
        for i, l in enumerate(self.pts_linears):
            h = self.pts_linears[i](h)
            h = F.relu(h)
            if i in self.skips:
                h = torch.cat([input_pts, h], -1)
        if self.use_viewdirs:
            alpha = self.alpha_linear(h)
            feature = self.feature_linear(h)
            h = torch.cat([feature, input_views], -1)
            for i, l in enumerate(self.views_linears):
                h = self.views_linears[i](h)
                h = F.relu(h)
            rgb = self.rgb_linear(h)
            outputs = torch.cat([rgb, alpha], -1)
        else:
            outputs = self.output_linear(h)
        return outputs


def batchify(fn, chunk):
    if chunk is None:
        return fn

    def ret(inputs):
        return torch.cat([fn(inputs[i:i + chunk]) for i in range(0, inputs.shape[0], chunk)], 0)
    return ret


def run_network(inputs, viewdirs, fn, embed_fn, embeddirs_fn, netchunk=1024 * 64):
    inputs_flat = torch.reshape(inputs, [-1, inputs.shape[-1]])
    embedded = embed_fn(inputs_flat)
    if viewdirs is not None:
        input_dirs = viewdirs[:, None].expand(inputs.shape)
        input_dirs_flat = torch.reshape(input_dirs, [-1, input_dirs.shape[-1]])
        embedded_dirs = embeddirs_fn(input_dirs_flat)
        embedded = torch.cat([embedded, embedded_dirs], -1)
    outputs_flat = batchify(fn, netchunk)(embedded)
    outputs = torch.reshape(outputs_flat, list(inputs.shape[:-1]) + [outputs_flat.shape[-1]])
    return outputs


def get_rays(H, W, K, c2w):
    i, j = torch.meshgrid(torch.linspace(0, W - 1, W), torch.linspace(0, H - 1, H))  # pytorch's meshgrid has indexing='ij'
    i = i.t()
    j = j.t()
    dirs = torch.stack([(i - K[0][2]) / K[0][0], -(j - K[1][2]) / K[1][1], -torch.ones_like(i)], -1)
    rays_d = torch.sum(dirs[..., np.newaxis, :] * c2w[:3, :3], -1)
    rays_o = c2w[:3, -1].expand(rays_d.shape)
    return rays_o, rays_d


def raw2outputs(raw, z_vals, rays_d, raw_noise_std=0, white_bkgd=False):
    raw2alpha = lambda raw, dists, act_fn=F.relu: 1. - torch.exp(-act_fn(raw) * dists)  # noqa: E731
    dists = z_vals[..., 1:] - z_vals[..., :-1]
    dists = torch.cat([dists, torch.Tensor([1e10]).expand(dists[..., :1].shape)], -1)
    dists = dists * torch.norm(rays_d[..., None, :], dim=-1)
    rgb = torch.sigmoid(raw[..., :3])
    noise = 0.
    if raw_noise_std > 0.:
        noise = torch.randn(raw[..., 3].shape) * raw_noise_std
    alpha = raw2alpha(raw[..., 3] + noise, dists)
    weights = alpha * torch.cumprod(torch.cat([torch.ones((alpha.shape[0], 1)), 1. - alpha + 1e-10], -1), -1)[:, :-1]
    rgb_map = torch.sum(weights[..., None] * rgb, -2)
    depth_map = torch.sum(weights * z_vals, -1)
    disp_map = 1. / torch.max(1e-10 * torch.ones_like(depth_map), depth_map / torch.sum(weights, -1))
    acc_map = torch.sum(weights, -1)
    if white_bkgd:
        rgb_map = rgb_map + (1. - acc_map[..., None])
    return rgb_map, disp_map, acc_map, weights, depth_map


def sample_pdf(bins, weights, N_samples, det=False):
    weights = weights + 1e-5
    pdf = weights / torch.sum(weights, -1, keepdim=True)
    cdf = torch.cumsum(pdf, -1)
    cdf = torch.cat([torch.zeros_like(cdf[..., :1]), cdf], -1)
    if det:
        u = torch.linspace(0., 1., steps=N_samples)
        u = u.expand(list(cdf.shape[:-1]) + [N_samples])
    else:
        u = torch.rand(list(cdf.shape[:-1]) + [N_samples])
    u = u.contiguous()
    inds = torch.searchsorted(cdf, u, right=True)
    below = torch.max(torch.zeros_like(inds - 1), inds - 1)
    above = torch.min((cdf.shape[-1] - 1) * torch.ones_like(inds), inds)
    inds_g = torch.stack([below, above], -1)
    matched_shape = [inds_g.shape[0], inds_g.shape[1], cdf.shape[-1]]
    cdf_g = torch.gather(cdf.unsqueeze(1).expand(matched_shape), 2, inds_g)
    bins_g = torch.gather(bins.unsqueeze(1).expand(matched_shape), 2, inds_g)
    denom = (cdf_g[..., 1] - cdf_g[..., 0])
    denom = torch.where(denom < 1e-5, torch.ones_like(denom), denom)
    t = (u - cdf_g[..., 0]) / denom
    samples = bins_g[..., 0] + t * (bins_g[..., 1] - bins_g[..., 0])
    return samples


def render_rays(ray_batch, network_fn, network_query_fn, N_samples, N_importance=0, network_fine=None,
                perturb=0., white_bkgd=False, raw_noise_std=0.):
    N_rays = ray_batch.shape[0]
    rays_o, rays_d = ray_batch[:, 0:3], ray_batch[:, 3:6]
    viewdirs = ray_batch[:, -3:] if ray_batch.shape[-1] > 8 else None
    bounds = torch.reshape(ray_batch[..., 6:8], [-1, 1, 2])
    near, far = bounds[..., 0], bounds[..., 1]
    t_vals = torch.linspace(0., 1., steps=N_samples)
    z_vals = near * (1. - t_vals) + far * (t_vals)
    z_vals = z_vals.expand([N_rays, N_samples])
    if perturb > 0.:
        mids = .5 * (z_vals[..., 1:] + z_vals[..., :-1])
        upper = torch.cat([mids, z_vals[..., -1:]], -1)
        lower = torch.cat([z_vals[..., :1], mids], -1)
        t_rand = torch.rand(z_vals.shape)
        z_vals = lower + (upper - lower) * t_rand
    pts = rays_o[..., None, :] + rays_d[..., None, :] * z_vals[..., :, None]
    raw = network_query_fn(pts, viewdirs, network_fn)
    rgb_map, disp_map, acc_map, weights, depth_map = raw2outputs(raw, z_vals, rays_d, raw_noise_std, white_bkgd)
    ret = {'rgb_map': rgb_map, 'disp_map': disp_map, 'acc_map': acc_map}
    if N_importance > 0:
        rgb_map_0, disp_map_0, acc_map_0 = rgb_map, disp_map, acc_map
        z_vals_mid = .5 * (z_vals[..., 1:] + z_vals[..., :-1])
        z_samples = sample_pdf(z_vals_mid, weights[..., 1:-1], N_importance, det=(perturb == 0.))
        z_samples = z_samples.detach()
        z_vals, _ = torch.sort(torch.cat([z_vals, z_samples], -1), -1)
        pts = rays_o[..., None, :] + rays_d[..., None, :] * z_vals[..., :, None]
        run_fn = network_fn if network_fine is None else network_fine
        raw = network_query_fn(pts, viewdirs, run_fn)
        rgb_map, disp_map, acc_map, weights, depth_map = raw2outputs(raw, z_vals, rays_d, raw_noise_std,
                                                                     white_bkgd)
        ret = {'rgb_map': rgb_map, 'disp_map': disp_map, 'acc_map': acc_map, 'rgb0': rgb_map_0,
               'disp0': disp_map_0, 'acc0': acc_map_0, 'z_std': torch.std(z_samples, dim=-1, unbiased=False)}
    return ret


def nerf_main():
    torch.manual_seed(0)
    np.random.seed(0)
    embed_fn, input_ch = get_embedder(4, 0)
    embeddirs_fn, input_ch_views = get_embedder(2, 0)
    print("embed dims", input_ch, input_ch_views)
    e = embed_fn(torch.tensor([[0.5, -0.25, 1.0]]))
    print("embed", tuple(e.shape), [round(v, 5) for v in e[0, 3:9].tolist()])
    skips = [2]
    model = NeRF(D=4, W=32, input_ch=input_ch, output_ch=5, skips=skips, input_ch_views=input_ch_views,
                 use_viewdirs=True)
    model_fine = NeRF(D=4, W=32, input_ch=input_ch, output_ch=5, skips=skips, input_ch_views=input_ch_views,
                      use_viewdirs=True)
    grad_vars = list(model.parameters()) + list(model_fine.parameters())
    print("nerf params", sum(p.numel() for p in grad_vars), [tuple(l.weight.shape) for l in model.pts_linears])
    network_query_fn = lambda inputs, viewdirs, network_fn: run_network(  # noqa: E731
        inputs, viewdirs, network_fn, embed_fn=embed_fn, embeddirs_fn=embeddirs_fn, netchunk=64)
    lrate, lrate_decay = 5e-3, 1
    optimizer = torch.optim.Adam(params=grad_vars, lr=lrate, betas=(0.9, 0.999))

    H, W, focal = 6, 8, 5.0
    K = np.array([[focal, 0, 0.5 * W], [0, focal, 0.5 * H], [0, 0, 1]])
    c2w = torch.Tensor(np.array([[1, 0, 0, 0.1], [0, 0.8, -0.6, 0.2], [0, 0.6, 0.8, 2.0]], dtype=np.float32))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        rays_o, rays_d = get_rays(H, W, K, c2w)
    print("meshgrid warnings", [type(x.message).__name__ for x in w])
    print("rays", tuple(rays_o.shape), tuple(rays_d.shape), rays_d.dtype, f"{rays_d.sum().item():.4f}")
    target = torch.sigmoid(rays_d * 3.0)
    viewdirs = rays_d / torch.norm(rays_d, dim=-1, keepdim=True)
    rays_o, rays_d, viewdirs = [torch.reshape(t, [-1, 3]).float() for t in (rays_o, rays_d, viewdirs)]
    target = torch.reshape(target, [-1, 3])
    near, far = 1. * torch.ones_like(rays_d[..., :1]), 4. * torch.ones_like(rays_d[..., :1])
    rays = torch.cat([rays_o, rays_d, near, far, viewdirs], -1)
    print("ray batch", tuple(rays.shape))

    decay_rate = 0.1
    decay_steps = lrate_decay * 1000
    N_rand = 16
    for global_step in range(4):
        select = torch.randperm(rays.shape[0])[:N_rand]
        batch, target_s = rays[select], target[select]
        extras = render_rays(batch, model, network_query_fn, N_samples=8, N_importance=8, network_fine=model_fine,
                             perturb=1., raw_noise_std=1.)
        optimizer.zero_grad()
        img_loss = img2mse(extras['rgb_map'], target_s)
        loss = img_loss
        psnr = mse2psnr(img_loss)
        img_loss0 = img2mse(extras['rgb0'], target_s)
        loss = loss + img_loss0
        loss.backward()
        optimizer.step()
        new_lrate = lrate * (decay_rate ** (global_step / decay_steps))
        for param_group in optimizer.param_groups:
            param_group['lr'] = new_lrate
        print(f"[TRAIN] Iter: {global_step} Loss: {loss.item():.5f}  PSNR: {psnr.item():.4f}"
              f" z_std {extras['z_std'].mean().item():.4f}")
    print("psnr", tuple(psnr.shape), psnr.dtype)

    bins = torch.linspace(0, 1, 6).expand(3, 6)
    wts = torch.tensor([[0., 1., 0., 0., 0.], [1., 1., 1., 1., 1.], [0.1, 0.2, 0.3, 0.2, 0.1]])
    s = sample_pdf(bins, wts, 5, det=True)
    print("sample_pdf det", [[round(v, 4) for v in row] for row in s.tolist()])
    print("searchsorted", torch.searchsorted(torch.tensor([0., .25, .5, .75, 1.]), torch.tensor([.25, .6, 1.]),
                                             right=True).tolist(),
          torch.searchsorted(torch.tensor([0., .25, .5, .75, 1.]), torch.tensor([.25, .6, 1.])).tolist())
    with torch.no_grad():
        out = render_rays(rays, model, network_query_fn, N_samples=8, N_importance=4, network_fine=model_fine)
    rgb8 = to8b(out['rgb_map'].reshape(H, W, 3).cpu().numpy())
    print("render", tuple(out['rgb_map'].shape), rgb8.dtype, rgb8.shape, f"{out['disp_map'].mean().item():.4f}",
          f"{out['acc_map'].mean().item():.4f}")
    print("lr", f"{optimizer.param_groups[0]['lr']:.6g}")


# ---------------------------------------------------------------- PointNet

class STN3d(nn.Module):
    def __init__(self, c=16):
        super(STN3d, self).__init__()
        self.c = c
        self.conv1 = torch.nn.Conv1d(3, c, 1)
        self.conv2 = torch.nn.Conv1d(c, 2 * c, 1)
        self.conv3 = torch.nn.Conv1d(2 * c, 4 * c, 1)
        self.fc1 = nn.Linear(4 * c, 2 * c)
        self.fc2 = nn.Linear(2 * c, c)
        self.fc3 = nn.Linear(c, 9)
        self.relu = nn.ReLU()
        self.bn1 = nn.BatchNorm1d(c)
        self.bn2 = nn.BatchNorm1d(2 * c)
        self.bn3 = nn.BatchNorm1d(4 * c)
        self.bn4 = nn.BatchNorm1d(2 * c)
        self.bn5 = nn.BatchNorm1d(c)

    def forward(self, x):
        batchsize = x.size()[0]
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.relu(self.bn2(self.conv2(x)))
        x = F.relu(self.bn3(self.conv3(x)))
        x = torch.max(x, 2, keepdim=True)[0]
        x = x.view(-1, 4 * self.c)
        x = F.relu(self.bn4(self.fc1(x)))
        x = F.relu(self.bn5(self.fc2(x)))
        x = self.fc3(x)
        iden = Variable(torch.from_numpy(np.array([1, 0, 0, 0, 1, 0, 0, 0, 1]).astype(np.float32))).view(
            1, 9).repeat(batchsize, 1)
        if x.is_cuda:
            iden = iden.cuda()
        x = x + iden
        x = x.view(-1, 3, 3)
        return x


class STNkd(nn.Module):
    def __init__(self, k=16, c=16):
        super(STNkd, self).__init__()
        self.c = c
        self.conv1 = torch.nn.Conv1d(k, c, 1)
        self.conv2 = torch.nn.Conv1d(c, 4 * c, 1)
        self.fc1 = nn.Linear(4 * c, 2 * c)
        self.fc2 = nn.Linear(2 * c, k * k)
        self.relu = nn.ReLU()
        self.bn1 = nn.BatchNorm1d(c)
        self.bn2 = nn.BatchNorm1d(4 * c)
        self.bn3 = nn.BatchNorm1d(2 * c)
        self.k = k

    def forward(self, x):
        batchsize = x.size()[0]
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.relu(self.bn2(self.conv2(x)))
        x = torch.max(x, 2, keepdim=True)[0]
        x = x.view(-1, 4 * self.c)
        x = F.relu(self.bn3(self.fc1(x)))
        x = self.fc2(x)
        iden = Variable(torch.from_numpy(np.eye(self.k).flatten().astype(np.float32))).view(
            1, self.k * self.k).repeat(batchsize, 1)
        if x.is_cuda:
            iden = iden.cuda()
        x = x + iden
        x = x.view(-1, self.k, self.k)
        return x


class PointNetfeat(nn.Module):
    def __init__(self, global_feat=True, feature_transform=False, c=16):
        super(PointNetfeat, self).__init__()
        self.stn = STN3d(c)
        self.conv1 = torch.nn.Conv1d(3, c, 1)
        self.conv2 = torch.nn.Conv1d(c, 2 * c, 1)
        self.conv3 = torch.nn.Conv1d(2 * c, 4 * c, 1)
        self.bn1 = nn.BatchNorm1d(c)
        self.bn2 = nn.BatchNorm1d(2 * c)
        self.bn3 = nn.BatchNorm1d(4 * c)
        self.global_feat = global_feat
        self.feature_transform = feature_transform
        self.out = 4 * c
        if self.feature_transform:
            self.fstn = STNkd(k=c, c=c)

    def forward(self, x):
        n_pts = x.size()[2]
        trans = self.stn(x)
        x = x.transpose(2, 1)
        x = torch.bmm(x, trans)
        x = x.transpose(2, 1)
        x = F.relu(self.bn1(self.conv1(x)))
        if self.feature_transform:
            trans_feat = self.fstn(x)
            x = x.transpose(2, 1)
            x = torch.bmm(x, trans_feat)
            x = x.transpose(2, 1)
        else:
            trans_feat = None
        pointfeat = x
        x = F.relu(self.bn2(self.conv2(x)))
        x = self.bn3(self.conv3(x))
        x = torch.max(x, 2, keepdim=True)[0]
        x = x.view(-1, self.out)
        if self.global_feat:
            return x, trans, trans_feat
        x = x.view(-1, self.out, 1).repeat(1, 1, n_pts)
        return torch.cat([x, pointfeat], 1), trans, trans_feat


class PointNetCls(nn.Module):
    def __init__(self, k=2, feature_transform=False, c=16):
        super(PointNetCls, self).__init__()
        self.feature_transform = feature_transform
        self.feat = PointNetfeat(global_feat=True, feature_transform=feature_transform, c=c)
        self.fc1 = nn.Linear(4 * c, 2 * c)
        self.fc2 = nn.Linear(2 * c, c)
        self.fc3 = nn.Linear(c, k)
        self.dropout = nn.Dropout(p=0.3)
        self.bn1 = nn.BatchNorm1d(2 * c)
        self.bn2 = nn.BatchNorm1d(c)
        self.relu = nn.ReLU()

    def forward(self, x):
        x, trans, trans_feat = self.feat(x)
        x = F.relu(self.bn1(self.fc1(x)))
        x = F.relu(self.bn2(self.dropout(self.fc2(x))))
        x = self.fc3(x)
        return F.log_softmax(x, dim=1), trans, trans_feat


class PointNetDenseCls(nn.Module):
    def __init__(self, k=2, feature_transform=False, c=16):
        super(PointNetDenseCls, self).__init__()
        self.k = k
        self.feature_transform = feature_transform
        self.feat = PointNetfeat(global_feat=False, feature_transform=feature_transform, c=c)
        self.conv1 = torch.nn.Conv1d(5 * c, 2 * c, 1)
        self.conv2 = torch.nn.Conv1d(2 * c, k, 1)
        self.bn1 = nn.BatchNorm1d(2 * c)

    def forward(self, x):
        batchsize = x.size()[0]
        n_pts = x.size()[2]
        x, trans, trans_feat = self.feat(x)
        x = F.relu(self.bn1(self.conv1(x)))
        x = self.conv2(x)
        x = x.transpose(2, 1).contiguous()
        x = F.log_softmax(x.view(-1, self.k), dim=-1)
        x = x.view(batchsize, n_pts, self.k)
        return x, trans, trans_feat


def feature_transform_regularizer(trans):
    d = trans.size()[1]
    I = torch.eye(d)[None, :, :]  # noqa: E741
    if trans.is_cuda:
        I = I.cuda()  # noqa: E741
    loss = torch.mean(torch.norm(torch.bmm(trans, trans.transpose(2, 1)) - I, dim=(1, 2)))
    return loss


class ShapeDataset(torch.utils.data.Dataset):
    """Synthetic shapes (sphere / box surface samples) with the repository's augmentation."""

    def __init__(self, n=24, npoints=64, data_augmentation=True, seg=False):
        rng = np.random.RandomState(1)
        self.items = []
        for idx in range(n):
            cls = idx % 2
            p = rng.randn(npoints, 3)
            if cls == 0:
                p = p / np.linalg.norm(p, axis=1, keepdims=True)
            else:
                p = np.clip(p, -1, 1) * np.array([1.0, 0.4, 0.7])
            self.items.append((p, cls))
        self.data_augmentation = data_augmentation
        self.seg = seg

    def __getitem__(self, index):
        point_set, cls = self.items[index]
        point_set = point_set - np.expand_dims(np.mean(point_set, axis=0), 0)
        dist = np.max(np.sqrt(np.sum(point_set ** 2, axis=1)), 0)
        point_set = point_set / dist
        if self.data_augmentation:
            theta = np.random.uniform(0, np.pi * 2)
            rotation_matrix = np.array([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]])
            point_set[:, [0, 2]] = point_set[:, [0, 2]].dot(rotation_matrix)
            point_set += np.random.normal(0, 0.02, size=point_set.shape)
        point_set = torch.from_numpy(point_set.astype(np.float32))
        if self.seg:
            return point_set, torch.from_numpy((point_set[:, 2] > 0).numpy().astype(np.int64))
        return point_set, torch.from_numpy(np.array([cls]).astype(np.int64))

    def __len__(self):
        return len(self.items)


def pointnet_main():
    torch.manual_seed(1)
    np.random.seed(1)
    dataset = ShapeDataset()
    dataloader = torch.utils.data.DataLoader(dataset, batch_size=8, shuffle=True, num_workers=0)
    points, target = dataset[0]
    print("sample", tuple(points.shape), points.dtype, tuple(target.shape), target.dtype)

    sim_data = Variable(torch.rand(4, 3, 32))
    trans = STN3d()(sim_data)
    print('stn', trans.size())
    sim_data_64d = Variable(torch.rand(4, 16, 32))
    trans = STNkd(k=16)(sim_data_64d)
    print('stn64d', trans.size())
    print('loss', f"{feature_transform_regularizer(trans).item():.4f}")
    out, _, _ = PointNetfeat(global_feat=False)(sim_data)
    print('point feat', out.size())

    classifier = PointNetCls(k=2, feature_transform=True)
    optimizer = torch.optim.Adam(classifier.parameters(), lr=0.001, betas=(0.9, 0.999))
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
    num_batch = len(dataset) / 8
    for epoch in range(2):
        for i, data in enumerate(dataloader, 0):
            points, target = data
            target = target[:, 0]
            points = points.transpose(2, 1)
            optimizer.zero_grad()
            classifier = classifier.train()
            pred, trans, trans_feat = classifier(points)
            loss = F.nll_loss(pred, target)
            loss += feature_transform_regularizer(trans_feat) * 0.001
            loss.backward()
            optimizer.step()
            pred_choice = pred.data.max(1)[1]
            correct = pred_choice.eq(target.data).cpu().sum()
            print('[%d: %d/%d] train loss: %f accuracy: %f' % (epoch, i, num_batch, loss.item(),
                                                               correct.item() / float(8)))
        scheduler.step()
    classifier = classifier.eval()
    with torch.no_grad():
        points = torch.stack([dataset[i][0] for i in range(8)]).transpose(2, 1)
        pred, _, trans_feat = classifier(points)
    print("eval", tuple(pred.shape), f"{pred.exp().sum(1).mean().item():.5f}", tuple(trans_feat.shape),
          pred.argmax(1).dtype, "lr", scheduler.get_last_lr())
    print("correct type", type(correct).__name__, correct.dtype)

    seg = PointNetDenseCls(k=3)
    seg_data = ShapeDataset(n=8, seg=True)
    seg_loader = torch.utils.data.DataLoader(seg_data, batch_size=4, shuffle=False)
    seg_opt = torch.optim.Adam(seg.parameters(), lr=0.001)
    for points, target in seg_loader:
        points = points.transpose(2, 1)
        seg_opt.zero_grad()
        pred, trans, trans_feat = seg(points)
        pred = pred.view(-1, 3)
        target = target.view(-1, 1)[:, 0]
        loss = F.nll_loss(pred, target)
        loss.backward()
        seg_opt.step()
        print("seg loss %.5f" % loss.item(), tuple(pred.shape), trans_feat)


if __name__ == "__main__":
    nerf_main()
    pointnet_main()
