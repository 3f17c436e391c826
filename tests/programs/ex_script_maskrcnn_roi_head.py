"""A Mask-R-CNN-style detector head written by hand, as a training script: anchors over a feature map, pairwise
box IoU, anchor matching with thresholds and balanced positive/negative sampling, box-delta encode/decode,
smooth-L1 + BCE RPN losses, RoIAlign through grid_sample, a box head (cross-entropy + smooth-L1 on the class's
deltas), a mask head (ConvTranspose2d, BCE on RoI-cropped masks), greedy NMS with torch ops, SGD with warmup +
MultiStepLR, checkpoint resume and a final mAP@0.5-style recall."""
import argparse
import logging
import math
import os
import sys
import tempfile
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset, RandomSampler

logger = logging.getLogger("detector")


@dataclass
class DetConfig:
    image_size: int = 32
    stride: int = 4
    anchor_sizes: tuple = (6.0, 12.0)
    n_classes: int = 3  # background + 2
    roi_size: int = 7
    mask_size: int = 14
    rpn_batch: int = 32
    pre_nms_top_n: int = 24
    roi_batch: int = 16
    iters: int = 10
    lr: float = 0.02
    seed: int = 3


class ShapesDataset(Dataset):
    """Images with one or two filled squares (class 1) or discs (class 2) and their boxes and masks."""

    def __init__(self, n, size, seed):
        g = torch.Generator().manual_seed(seed)
        self.samples = []
        yy, xx = torch.meshgrid(torch.arange(size).float(), torch.arange(size).float(), indexing="ij")
        for _ in range(n):
            img = 0.1 * torch.randn(3, size, size, generator=g)
            boxes, labels, masks = [], [], []
            for k in range(2):
                w = float(torch.randint(6, 12, (1,), generator=g))
                x0 = float(torch.randint(0, size - int(w), (1,), generator=g))
                y0 = 16.0 * k + float(torch.randint(0, 16 - int(w) // 2, (1,), generator=g)) * 0.5
                cls = int(torch.randint(1, 3, (1,), generator=g))
                if cls == 1:
                    m = (xx >= x0) & (xx < x0 + w) & (yy >= y0) & (yy < y0 + w)
                else:
                    m = (xx + 0.5 - x0 - w / 2) ** 2 + (yy + 0.5 - y0 - w / 2) ** 2 <= (w / 2) ** 2
                img[cls] += m.float()
                boxes.append([x0, y0, x0 + w, y0 + w])
                labels.append(cls)
                masks.append(m.float())
            self.samples.append((img, torch.tensor(boxes), torch.tensor(labels), torch.stack(masks)))

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, i):
        return self.samples[i]


def detection_collate(batch):
    images = torch.stack([b[0] for b in batch])
    targets = [{"boxes": b[1], "labels": b[2], "masks": b[3]} for b in batch]
    return images, targets


def box_area(b):
    return (b[:, 2] - b[:, 0]).clamp(min=0) * (b[:, 3] - b[:, 1]).clamp(min=0)


def box_iou(a, b):
    lt = torch.max(a[:, None, :2], b[None, :, :2])
    rb = torch.min(a[:, None, 2:], b[None, :, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    return inter / (box_area(a)[:, None] + box_area(b)[None, :] - inter)


def encode(ref, boxes, weights=(1.0, 1.0, 1.0, 1.0)):
    rw, rh = ref[:, 2] - ref[:, 0], ref[:, 3] - ref[:, 1]
    rx, ry = ref[:, 0] + 0.5 * rw, ref[:, 1] + 0.5 * rh
    bw, bh = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
    bx, by = boxes[:, 0] + 0.5 * bw, boxes[:, 1] + 0.5 * bh
    wx, wy, ww, wh = weights
    return torch.stack([wx * (bx - rx) / rw, wy * (by - ry) / rh, ww * torch.log(bw / rw), wh * torch.log(bh / rh)], 1)


def decode(ref, deltas, weights=(1.0, 1.0, 1.0, 1.0), clip=math.log(1000.0 / 16)):
    rw, rh = ref[:, 2] - ref[:, 0], ref[:, 3] - ref[:, 1]
    rx, ry = ref[:, 0] + 0.5 * rw, ref[:, 1] + 0.5 * rh
    dx, dy = deltas[:, 0] / weights[0], deltas[:, 1] / weights[1]
    dw, dh = (deltas[:, 2] / weights[2]).clamp(max=clip), (deltas[:, 3] / weights[3]).clamp(max=clip)
    cx, cy, w, h = rx + dx * rw, ry + dy * rh, rw * torch.exp(dw), rh * torch.exp(dh)
    return torch.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], 1)


def nms(boxes, scores, thresh):
    order = scores.argsort(descending=True)
    keep = []
    suppressed = torch.zeros(boxes.shape[0], dtype=torch.bool)
    ious = box_iou(boxes, boxes)
    for i in order.tolist():
        if suppressed[i]:
            continue
        keep.append(i)
        suppressed |= ious[i] > thresh
    return torch.tensor(keep, dtype=torch.long)


def make_anchors(cfg):
    n = cfg.image_size // cfg.stride
    centers = (torch.arange(n, dtype=torch.float32) + 0.5) * cfg.stride
    cy, cx = torch.meshgrid(centers, centers, indexing="ij")
    per_size = [torch.stack([cx - s / 2, cy - s / 2, cx + s / 2, cy + s / 2], -1).reshape(-1, 4)
                for s in cfg.anchor_sizes]
    return torch.stack(per_size, 1).reshape(-1, 4)


def match(iou, high, low):
    """Matcher: index of the best gt per proposal, -1 below `low`, -2 between; each gt keeps its best anchor."""
    vals, idx = iou.max(dim=1)
    matches = idx.clone()
    matches[vals < high] = -2
    matches[vals < low] = -1
    best_per_gt = iou.max(dim=0).values
    rows, cols = torch.nonzero(iou == best_per_gt[None, :], as_tuple=True)
    matches[rows] = idx[rows]
    return matches


def sample(matches, batch, pos_fraction, g):
    pos = torch.nonzero(matches >= 0).flatten()
    neg = torch.nonzero(matches == -1).flatten()
    n_pos = min(pos.numel(), int(batch * pos_fraction))
    n_neg = min(neg.numel(), batch - n_pos)
    pos = pos[torch.randperm(pos.numel(), generator=g)[:n_pos]]
    neg = neg[torch.randperm(neg.numel(), generator=g)[:n_neg]]
    return pos, neg


def roi_align(features, rois, batch_idx, out_size, stride, sampling=2):
    """Bilinear RoIAlign with `sampling` points per bin (averaged), through grid_sample(align_corners=False)."""
    n = rois.shape[0]
    h, w = features.shape[-2:]
    steps = (torch.arange(out_size * sampling, dtype=torch.float32) + 0.5) / (out_size * sampling)
    x = rois[:, 0:1] / stride + steps[None] * (rois[:, 2:3] - rois[:, 0:1]) / stride
    y = rois[:, 1:2] / stride + steps[None] * (rois[:, 3:4] - rois[:, 1:2]) / stride
    gx = (2 * x / w - 1)[:, None, :].expand(n, y.shape[1], x.shape[1])
    gy = (2 * y / h - 1)[:, :, None].expand(n, y.shape[1], x.shape[1])
    grid = torch.stack([gx, gy], -1)
    sampled = F.grid_sample(features[batch_idx], grid, mode="bilinear", align_corners=False)
    return F.avg_pool2d(sampled, sampling)


class MiniMaskRCNN(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.backbone = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.ReLU(), nn.Conv2d(16, 32, 3, 2, 1), nn.ReLU())
        a = len(cfg.anchor_sizes)
        self.rpn_conv = nn.Conv2d(32, 32, 3, padding=1)
        self.rpn_cls = nn.Conv2d(32, a, 1)
        self.rpn_box = nn.Conv2d(32, 4 * a, 1)
        self.box_head = nn.Sequential(nn.Flatten(), nn.Linear(32 * cfg.roi_size ** 2, 64), nn.ReLU())
        self.cls_score = nn.Linear(64, cfg.n_classes)
        self.bbox_pred = nn.Linear(64, 4 * cfg.n_classes)
        self.mask_head = nn.Sequential(nn.Conv2d(32, 16, 3, padding=1), nn.ReLU(),
                                       nn.ConvTranspose2d(16, 16, 2, stride=2), nn.ReLU(),
                                       nn.Conv2d(16, cfg.n_classes, 1))
        self.register_buffer("anchors", make_anchors(cfg), persistent=False)
        for layer in (self.rpn_cls, self.rpn_box):
            nn.init.normal_(layer.weight, std=0.01)
            nn.init.zeros_(layer.bias)
        nn.init.normal_(self.bbox_pred.weight, std=0.001)

    def rpn(self, feats):
        t = F.relu(self.rpn_conv(feats))
        b = feats.shape[0]
        logits = self.rpn_cls(t).permute(0, 2, 3, 1).reshape(b, -1)
        deltas = self.rpn_box(t).permute(0, 2, 3, 1).reshape(b, -1, 4)
        return logits, deltas


def compute_losses(model, images, targets, g):
    cfg = model.cfg
    feats = model.backbone(images)
    obj, deltas = model.rpn(feats)
    rpn_cls, rpn_reg, rois, roi_bidx, roi_labels, roi_targets, roi_masks = [], [], [], [], [], [], []
    for i, t in enumerate(targets):
        iou = box_iou(model.anchors, t["boxes"])
        m = match(iou, 0.5, 0.3)
        pos, neg = sample(m, cfg.rpn_batch, 0.5, g)
        idx = torch.cat([pos, neg])
        lbl = torch.cat([torch.ones(pos.numel()), torch.zeros(neg.numel())])
        rpn_cls.append(F.binary_cross_entropy_with_logits(obj[i, idx], lbl))
        tgt = encode(model.anchors[pos], t["boxes"][m[pos]])
        rpn_reg.append(F.smooth_l1_loss(deltas[i, pos], tgt, beta=1 / 9, reduction="sum") / max(idx.numel(), 1))
        with torch.no_grad():
            props = decode(model.anchors, deltas[i].detach()).clamp(0, cfg.image_size)
            top = obj[i].detach().topk(cfg.pre_nms_top_n).indices  # pre_nms_top_n, then NMS
            keep = top[nms(props[top], obj[i, top].detach(), 0.7)][:12]
            props = torch.cat([props[keep], t["boxes"]])
            m2 = match(box_iou(props, t["boxes"]), 0.5, 0.5)
            pos2, neg2 = sample(m2, cfg.roi_batch, 0.25, g)
        sel = torch.cat([pos2, neg2])
        rois.append(props[sel])
        roi_bidx.append(torch.full((sel.numel(),), i, dtype=torch.long))
        roi_labels.append(torch.cat([t["labels"][m2[pos2]], torch.zeros(neg2.numel(), dtype=torch.long)]))
        roi_targets.append(encode(props[pos2], t["boxes"][m2[pos2]], (10.0, 10.0, 5.0, 5.0)))
        gt_masks = t["masks"][m2[pos2]][:, None]
        roi_masks.append(roi_align(gt_masks, props[pos2], torch.arange(pos2.numel()), cfg.mask_size, 1, 1)[:, 0])
    rois, bidx, labels = torch.cat(rois), torch.cat(roi_bidx), torch.cat(roi_labels)
    pooled = roi_align(feats, rois, bidx, cfg.roi_size, cfg.stride)
    h = model.box_head(pooled)
    scores, box_deltas = model.cls_score(h), model.bbox_pred(h).view(-1, cfg.n_classes, 4)
    loss_cls = F.cross_entropy(scores, labels)
    fg = torch.nonzero(labels > 0).flatten()
    reg = box_deltas[fg, labels[fg]]
    loss_box = F.smooth_l1_loss(reg, torch.cat(roi_targets), beta=1.0, reduction="sum") / labels.numel()
    mask_logits = model.mask_head(pooled[fg])
    mask_logits = mask_logits[torch.arange(fg.numel()), labels[fg]]
    mask_tgt = (torch.cat(roi_masks) >= 0.5).float()
    loss_mask = F.binary_cross_entropy_with_logits(mask_logits, mask_tgt)
    return {"rpn_cls": torch.stack(rpn_cls).mean(), "rpn_reg": torch.stack(rpn_reg).mean(), "cls": loss_cls,
            "box": loss_box, "mask": loss_mask}


@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    hits, total, n_dets = 0, 0, 0
    for images, targets in loader:
        feats = model.backbone(images)
        obj, deltas = model.rpn(feats)
        for i, t in enumerate(targets):
            props = decode(model.anchors, deltas[i]).clamp(0, model.cfg.image_size)
            top = obj[i].topk(model.cfg.pre_nms_top_n).indices
            keep = top[nms(props[top], obj[i, top], 0.7)][:8]
            pooled = roi_align(feats, props[keep], torch.full((keep.numel(),), i), model.cfg.roi_size, model.cfg.stride)
            probs = F.softmax(model.cls_score(model.box_head(pooled)), -1)
            score, cls = probs[:, 1:].max(-1)
            dets = props[keep][score > 0.3]
            n_dets += dets.shape[0]
            if dets.numel():
                hits += int((box_iou(t["boxes"], dets).max(1).values >= 0.5).sum())
            total += t["boxes"].shape[0]
    return hits / total, n_dets


def main():
    parser = argparse.ArgumentParser("mini mask r-cnn")
    parser.add_argument("--iters", type=int, default=DetConfig.iters)
    parser.add_argument("--output-dir", default="")
    args, _ = parser.parse_known_args([])
    cfg = DetConfig(iters=args.iters)
    logging.basicConfig(level=logging.INFO, format="%(name)s %(levelname)s %(message)s", stream=sys.stdout)
    torch.manual_seed(cfg.seed)
    torch.backends.cudnn.deterministic = True
    torch.use_deterministic_algorithms(True, warn_only=True)
    print("deterministic", torch.are_deterministic_algorithms_enabled(),
          torch.is_deterministic_algorithms_warn_only_enabled())

    a = torch.tensor([[0.0, 0.0, 10.0, 10.0], [5.0, 5.0, 15.0, 15.0]])
    b = torch.tensor([[0.0, 0.0, 10.0, 10.0], [10.0, 10.0, 20.0, 20.0], [20.0, 20.0, 30.0, 30.0]])
    print("iou", [[round(v, 4) for v in r] for r in box_iou(a, b).tolist()])
    d = encode(a, b[:2])
    print("encode", [round(v, 4) for v in d.flatten().tolist()], torch.allclose(decode(a, d), b[:2], atol=1e-5))
    boxes = torch.tensor([[0, 0, 10, 10], [1, 1, 11, 11], [20, 20, 30, 30], [0, 0, 9, 10.5]])
    print("nms", nms(boxes, torch.tensor([0.9, 0.8, 0.7, 0.95]), 0.5).tolist())

    train_ds, val_ds = ShapesDataset(8, cfg.image_size, 0), ShapesDataset(4, cfg.image_size, 1)
    sampler = RandomSampler(train_ds, replacement=True, num_samples=cfg.iters * 2,
                            generator=torch.Generator().manual_seed(5))
    loader = DataLoader(train_ds, batch_size=2, sampler=sampler, collate_fn=detection_collate)
    val_loader = DataLoader(val_ds, batch_size=2, collate_fn=detection_collate)
    model = MiniMaskRCNN(cfg)
    print("anchors", tuple(model.anchors.shape), model.anchors[:2].tolist())
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.SGD(params, lr=cfg.lr, momentum=0.9, weight_decay=1e-4)
    warmup = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.1, total_iters=4)
    steps = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[6], gamma=0.1)
    scheduler = torch.optim.lr_scheduler.ChainedScheduler([warmup, steps])
    g = torch.Generator().manual_seed(11)
    ckpt = os.path.join(args.output_dir or tempfile.mkdtemp(), "model_final.pth")
    model.train()
    for it, (images, targets) in enumerate(loader):
        losses = compute_losses(model, images, targets, g)
        loss = sum(losses.values())
        if not math.isfinite(loss.item()):
            raise SystemExit("loss is not finite")
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 10.0)
        optimizer.step()
        scheduler.step()
        if it % 3 == 0:
            logger.info("iter %d loss %.4f %s lr %.5f", it, loss.item(),
                        " ".join(f"{k}={v.item():.4f}" for k, v in losses.items()), optimizer.param_groups[0]["lr"])
        if it == cfg.iters // 2 - 1:
            torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                        "scheduler": scheduler.state_dict(), "epoch": it, "rng": torch.get_rng_state(),
                        "gen": g.get_state()}, ckpt)
    recall, n_dets = evaluate(model, val_loader)
    print(f"recall@0.5 {recall:.4f} dets {n_dets}")

    state = torch.load(ckpt, weights_only=True)
    resumed = MiniMaskRCNN(cfg)
    print("resume", resumed.load_state_dict(state["model"]), state["epoch"], sorted(state["scheduler"])[:2])
    opt2 = torch.optim.SGD(resumed.parameters(), lr=cfg.lr, momentum=0.9, weight_decay=1e-4)
    opt2.load_state_dict(state["optimizer"])
    print("momentum buffers", len(opt2.state), f"{opt2.param_groups[0]['lr']:.5f}")
    torch.set_rng_state(state["rng"])
    g.set_state(state["gen"])
    images, targets = next(iter(val_loader))
    resumed.train()
    losses = compute_losses(resumed, images, targets, g)
    print("resumed losses", {k: round(v.item(), 4) for k, v in losses.items()})
    print("params", sum(p.numel() for p in model.parameters()),
          {n: sum(p.numel() for p in m.parameters()) for n, m in model.named_children()})
    print(model)


if __name__ == "__main__":
    main()
