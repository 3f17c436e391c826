"""Deformable DETR (fundamentalvision/Deformable-DETR) in miniature: the pure-PyTorch fallback
ms_deform_attn_core_pytorch (value.split by a list of 0-dim tensor sizes, grid_sample per level, attention-weighted
sums), MSDeformAttn with its polar grid_init of the sampling offsets (a Parameter reassigned under no_grad),
multi-scale flattening with spatial_shapes/level_start_index tensors, get_valid_ratio from padding masks,
get_reference_points (torch.linspace with tensor bounds and steps, legacy meshgrid), a deformable encoder layer,
inverse_sigmoid and the sigmoid focal loss on one-hot targets built with scatter_. Synthetic data, a few steps."""
import copy
import math
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.init import constant_, xavier_uniform_


def ms_deform_attn_core_pytorch(value, value_spatial_shapes, sampling_locations, attention_weights):
    N_, S_, M_, D_ = value.shape
    _, Lq_, M_, L_, P_, _ = sampling_locations.shape
    value_list = value.split([H_ * W_ for H_, W_ in value_spatial_shapes], dim=1)
    sampling_grids = 2 * sampling_locations - 1
    sampling_value_list = []
    for lid_, (H_, W_) in enumerate(value_spatial_shapes):
        value_l_ = value_list[lid_].flatten(2).transpose(1, 2).reshape(N_ * M_, D_, H_, W_)
        sampling_grid_l_ = sampling_grids[:, :, :, lid_].transpose(1, 2).flatten(0, 1)
        sampling_value_l_ = F.grid_sample(value_l_, sampling_grid_l_, mode='bilinear', padding_mode='zeros', align_corners=False)
        sampling_value_list.append(sampling_value_l_)
    attention_weights = attention_weights.transpose(1, 2).reshape(N_ * M_, 1, Lq_, L_ * P_)
    output = (torch.stack(sampling_value_list, dim=-2).flatten(-2) * attention_weights).sum(-1).view(N_, M_ * D_, Lq_)
    return output.transpose(1, 2).contiguous()

class MSDeformAttn(nn.Module):
    def __init__(self, d_model=16, n_levels=2, n_heads=2, n_points=2):
        super().__init__()
        self.d_model = d_model; self.n_levels = n_levels; self.n_heads = n_heads; self.n_points = n_points
        self.sampling_offsets = nn.Linear(d_model, n_heads * n_levels * n_points * 2)
        self.attention_weights = nn.Linear(d_model, n_heads * n_levels * n_points)
        self.value_proj = nn.Linear(d_model, d_model)
        self.output_proj = nn.Linear(d_model, d_model)
        self._reset_parameters()
    def _reset_parameters(self):
        constant_(self.sampling_offsets.weight.data, 0.)
        thetas = torch.arange(self.n_heads, dtype=torch.float32) * (2.0 * math.pi / self.n_heads)
        grid_init = torch.stack([thetas.cos(), thetas.sin()], -1)
        grid_init = (grid_init / grid_init.abs().max(-1, keepdim=True)[0]).view(self.n_heads, 1, 1, 2).repeat(1, self.n_levels, self.n_points, 1)
        for i in range(self.n_points):
            grid_init[:, :, i, :] *= i + 1
        with torch.no_grad():
            self.sampling_offsets.bias = nn.Parameter(grid_init.view(-1))
        constant_(self.attention_weights.weight.data, 0.)
        constant_(self.attention_weights.bias.data, 0.)
        xavier_uniform_(self.value_proj.weight.data)
        constant_(self.value_proj.bias.data, 0.)
        xavier_uniform_(self.output_proj.weight.data)
        constant_(self.output_proj.bias.data, 0.)
    def forward(self, query, reference_points, input_flatten, input_spatial_shapes, input_level_start_index, input_padding_mask=None):
        N, Len_q, _ = query.shape
        N, Len_in, _ = input_flatten.shape
        assert (input_spatial_shapes[:, 0] * input_spatial_shapes[:, 1]).sum() == Len_in
        value = self.value_proj(input_flatten)
        if input_padding_mask is not None:
            value = value.masked_fill(input_padding_mask[..., None], float(0))
        value = value.view(N, Len_in, self.n_heads, self.d_model // self.n_heads)
        sampling_offsets = self.sampling_offsets(query).view(N, Len_q, self.n_heads, self.n_levels, self.n_points, 2)
        attention_weights = self.attention_weights(query).view(N, Len_q, self.n_heads, self.n_levels * self.n_points)
        attention_weights = F.softmax(attention_weights, -1).view(N, Len_q, self.n_heads, self.n_levels, self.n_points)
        offset_normalizer = torch.stack([input_spatial_shapes[..., 1], input_spatial_shapes[..., 0]], -1)
        sampling_locations = reference_points[:, :, None, :, None, :] + sampling_offsets / offset_normalizer[None, None, None, :, None, :]
        output = ms_deform_attn_core_pytorch(value, input_spatial_shapes, sampling_locations, attention_weights)
        return self.output_proj(output)

def get_reference_points(spatial_shapes, valid_ratios, device):
    reference_points_list = []
    for lvl, (H_, W_) in enumerate(spatial_shapes):
        ref_y, ref_x = torch.meshgrid(torch.linspace(0.5, H_ - 0.5, H_, dtype=torch.float32, device=device),
                                      torch.linspace(0.5, W_ - 0.5, W_, dtype=torch.float32, device=device))
        ref_y = ref_y.reshape(-1)[None] / (valid_ratios[:, None, lvl, 1] * H_)
        ref_x = ref_x.reshape(-1)[None] / (valid_ratios[:, None, lvl, 0] * W_)
        ref = torch.stack((ref_x, ref_y), -1)
        reference_points_list.append(ref)
    reference_points = torch.cat(reference_points_list, 1)
    reference_points = reference_points[:, :, None] * valid_ratios[:, None]
    return reference_points
def get_valid_ratio(mask):
    _, H, W = mask.shape
    valid_H = torch.sum(~mask[:, :, 0], 1)
    valid_W = torch.sum(~mask[:, 0, :], 1)
    valid_ratio_h = valid_H.float() / H
    valid_ratio_w = valid_W.float() / W
    return torch.stack([valid_ratio_w, valid_ratio_h], -1)


def inverse_sigmoid(x, eps=1e-5):
    x = x.clamp(min=0, max=1)
    x1 = x.clamp(min=eps)
    x2 = (1 - x).clamp(min=eps)
    return torch.log(x1/x2)
def sigmoid_focal_loss(inputs, targets, num_boxes, alpha: float = 0.25, gamma: float = 2):
    prob = inputs.sigmoid()
    ce_loss = F.binary_cross_entropy_with_logits(inputs, targets, reduction="none")
    p_t = prob * targets + (1 - prob) * (1 - targets)
    loss = ce_loss * ((1 - p_t) ** gamma)
    if alpha >= 0:
        alpha_t = alpha * targets + (1 - alpha) * (1 - targets)
        loss = alpha_t * loss
    return loss.mean(1).sum() / num_boxes


class DeformableTransformerEncoderLayer(nn.Module):
    def __init__(self, d_model=16, d_ffn=32, dropout=0.1, n_levels=2, n_heads=2, n_points=2):
        super().__init__()
        self.self_attn = MSDeformAttn(d_model, n_levels, n_heads, n_points)
        self.dropout1 = nn.Dropout(dropout)
        self.norm1 = nn.LayerNorm(d_model)
        self.linear1 = nn.Linear(d_model, d_ffn)
        self.activation = F.relu
        self.dropout2 = nn.Dropout(dropout)
        self.linear2 = nn.Linear(d_ffn, d_model)
        self.dropout3 = nn.Dropout(dropout)
        self.norm2 = nn.LayerNorm(d_model)

    @staticmethod
    def with_pos_embed(tensor, pos):
        return tensor if pos is None else tensor + pos

    def forward_ffn(self, src):
        src2 = self.linear2(self.dropout2(self.activation(self.linear1(src))))
        src = src + self.dropout3(src2)
        return self.norm2(src)

    def forward(self, src, pos, reference_points, spatial_shapes, level_start_index, padding_mask=None):
        src2 = self.self_attn(self.with_pos_embed(src, pos), reference_points, src, spatial_shapes,
                              level_start_index, padding_mask)
        src = src + self.dropout1(src2)
        src = self.norm1(src)
        return self.forward_ffn(src)


class TinyDeformableDETR(nn.Module):
    def __init__(self, d_model=16, num_classes=4, num_queries=5, n_levels=2):
        super().__init__()
        self.input_proj = nn.ModuleList([nn.Sequential(nn.Conv2d(3, d_model, 3, stride=s, padding=1),
                                                       nn.GroupNorm(4, d_model)) for s in (4, 8)])
        self.level_embed = nn.Parameter(torch.Tensor(n_levels, d_model))
        nn.init.normal_(self.level_embed)
        layer = DeformableTransformerEncoderLayer(d_model, n_levels=n_levels)
        self.layers = nn.ModuleList([copy.deepcopy(layer) for _ in range(2)])
        self.query_embed = nn.Embedding(num_queries, d_model)
        self.class_embed = nn.Linear(d_model, num_classes)
        prior_prob = 0.01
        bias_value = -math.log((1 - prior_prob) / prior_prob)
        self.class_embed.bias.data = torch.ones(num_classes) * bias_value
        self.box_embed = nn.Linear(d_model, 4)
        nn.init.constant_(self.box_embed.weight.data, 0)
        nn.init.constant_(self.box_embed.bias.data, 0)
        nn.init.constant_(self.box_embed.bias.data[2:], -2.0)

    def forward(self, images, masks):
        src_flatten, mask_flatten, lvl_pos_embed_flatten, spatial_shapes, level_masks = [], [], [], [], []
        for lvl, proj in enumerate(self.input_proj):
            src = proj(images)
            bs, c, h, w = src.shape
            mask = F.interpolate(masks[None].float(), size=src.shape[-2:]).to(torch.bool)[0]
            level_masks.append(mask)
            spatial_shapes.append((h, w))
            src_flatten.append(src.flatten(2).transpose(1, 2))
            mask_flatten.append(mask.flatten(1))
            lvl_pos_embed_flatten.append(self.level_embed[lvl].view(1, 1, -1).expand(bs, h * w, -1))
        src_flatten = torch.cat(src_flatten, 1)
        mask_flatten = torch.cat(mask_flatten, 1)
        lvl_pos_embed_flatten = torch.cat(lvl_pos_embed_flatten, 1)
        spatial_shapes = torch.as_tensor(spatial_shapes, dtype=torch.long, device=src_flatten.device)
        level_start_index = torch.cat((spatial_shapes.new_zeros((1, )), spatial_shapes.prod(1).cumsum(0)[:-1]))
        valid_ratios = torch.stack([get_valid_ratio(m) for m in level_masks], 1)
        reference_points = get_reference_points(spatial_shapes, valid_ratios, device=src_flatten.device)
        output = src_flatten
        for layer in self.layers:
            output = layer(output, lvl_pos_embed_flatten, reference_points, spatial_shapes, level_start_index,
                           mask_flatten)
        weights = F.softmax(self.query_embed.weight @ output.transpose(1, 2), -1)
        hs = weights @ output
        reference = inverse_sigmoid(torch.full((hs.shape[0], hs.shape[1], 4), 0.5))
        return self.class_embed(hs), (self.box_embed(hs) + reference).sigmoid(), spatial_shapes, level_start_index


def main():
    torch.manual_seed(0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        masks = [torch.zeros(2, 4, 6, dtype=torch.bool), torch.zeros(2, 2, 3, dtype=torch.bool)]
        masks[0][1, :, 4:] = True
        masks[1][1, :, 2:] = True
        valid_ratios = torch.stack([get_valid_ratio(m) for m in masks], 1)
        spatial_shapes = torch.as_tensor([(4, 6), (2, 3)], dtype=torch.long)
        ref = get_reference_points(spatial_shapes, valid_ratios, "cpu")
    print("valid_ratios", valid_ratios.tolist())
    print("ref", tuple(ref.shape), f"{ref.sum().item():.4f}", [type(w.message).__name__ for w in caught])
    attn = MSDeformAttn()
    print("grid_init", attn.sampling_offsets.bias[:8].tolist(), type(attn.sampling_offsets.bias).__name__)
    print("inverse_sigmoid", [round(v, 4) for v in inverse_sigmoid(torch.tensor([0., 0.25, 1.0])).tolist()])

    model = TinyDeformableDETR()
    print("params", sum(p.numel() for p in model.parameters()))
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-4)
    images = torch.rand(2, 3, 32, 40)
    img_masks = torch.zeros(2, 32, 40, dtype=torch.bool)
    img_masks[1, :, 28:] = True
    labels = torch.tensor([[0, 4, 2, 4, 1], [3, 4, 4, 4, 0]])
    target_boxes = torch.rand(2, 5, 4) * 0.5 + 0.25
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for step in range(3):
            logits, boxes, shapes, starts = model(images, img_masks)
            target_classes_onehot = torch.zeros([2, 5, 5], dtype=logits.dtype, layout=logits.layout,
                                                device=logits.device)
            target_classes_onehot.scatter_(2, labels.unsqueeze(-1), 1)
            target_classes_onehot = target_classes_onehot[:, :, :-1]
            loss_ce = sigmoid_focal_loss(logits, target_classes_onehot, 3) * logits.shape[1]
            loss_bbox = F.l1_loss(boxes, target_boxes)
            loss = 2 * loss_ce + 5 * loss_bbox
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 0.1)
            optimizer.step()
            print(f"step {step} loss {loss.item():.5f} focal {loss_ce.item():.5f} bbox {loss_bbox.item():.5f}")
    print("levels", shapes.tolist(), starts.tolist(), starts.dtype)
    print("offset grad", f"{model.layers[0].self_attn.sampling_offsets.bias.grad.abs().sum().item():.5f}")
    print("outputs", tuple(logits.shape), tuple(boxes.shape), f"{boxes.mean().item():.5f}")


if __name__ == "__main__":
    main()
