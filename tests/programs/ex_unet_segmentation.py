"""milesial/Pytorch-UNet-style segmentation training (unet_parts.py, unet_model.py, dice_score.py, evaluate.py,
train.py, predict.py in one file): ``DoubleConv`` (bias-free convs, ``BatchNorm2d``, ``ReLU(inplace=True)``),
``Down`` with ``MaxPool2d``, ``Up`` with bilinear ``nn.Upsample(align_corners=True)`` or ``ConvTranspose2d``,
``F.pad`` to the skip's size and ``torch.cat``; a ``BasicDataset`` preprocessing PIL images and masks (mask
values mapped to class ids) split by ``random_split`` with a seeded ``Generator``; the Dice coefficient with
``torch.where``, multiclass Dice over ``F.one_hot(...).permute(0, 3, 1, 2)``; ``channels_last`` inputs and
model; ``optim.RMSprop(foreach=True)`` with momentum and weight decay, ``ReduceLROnPlateau('max')``,
``torch.autocast`` (CPU: bfloat16) with a ``GradScaler`` (``scale`` / ``unscale_`` / ``step`` / ``update``),
``clip_grad_norm_``, an ``@torch.inference_mode()`` evaluation, ``isinf`` checks on weights and gradients,
checkpoints with ``mask_values`` saved, reloaded (``del state_dict['mask_values']``) and used by
``predict_img`` (``F.interpolate`` back to full size). The network's widths are scaled down by ``base``
(the repository's is 64). Synthetic shapes, small sizes; prints rounded numbers one fact per line."""
import logging
import os
import tempfile
import warnings
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from PIL import Image
from torch import optim
from torch.utils.data import DataLoader, Dataset, random_split

# ----------------------------------------------------------------------------- unet_parts.py


class DoubleConv(nn.Module):
    """(convolution => [BN] => ReLU) * 2"""

    def __init__(self, in_channels, out_channels, mid_channels=None):
        super().__init__()
        if not mid_channels:
            mid_channels = out_channels
        self.double_conv = nn.Sequential(
            nn.Conv2d(in_channels, mid_channels, kernel_size=3, padding=1, bias=False),
            nn.BatchNorm2d(mid_channels),
            nn.ReLU(inplace=True),
            nn.Conv2d(mid_channels, out_channels, kernel_size=3, padding=1, bias=False),
            nn.BatchNorm2d(out_channels),
            nn.ReLU(inplace=True)
        )

    def forward(self, x):
        return self.double_conv(x)


class Down(nn.Module):
    """Downscaling with maxpool then double conv"""

    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.maxpool_conv = nn.Sequential(
            nn.MaxPool2d(2),
            DoubleConv(in_channels, out_channels)
        )

    def forward(self, x):
        return self.maxpool_conv(x)


class Up(nn.Module):
    """Upscaling then double conv"""

    def __init__(self, in_channels, out_channels, bilinear=True):
        super().__init__()

        # if bilinear, use the normal convolutions to reduce the number of channels
        if bilinear:
            self.up = nn.Upsample(scale_factor=2, mode='bilinear', align_corners=True)
            self.conv = DoubleConv(in_channels, out_channels, in_channels // 2)
        else:
            self.up = nn.ConvTranspose2d(in_channels, in_channels // 2, kernel_size=2, stride=2)
            self.conv = DoubleConv(in_channels, out_channels)

    def forward(self, x1, x2):
        x1 = self.up(x1)
        # input is CHW
        diffY = x2.size()[2] - x1.size()[2]
        diffX = x2.size()[3] - x1.size()[3]

        x1 = F.pad(x1, [diffX // 2, diffX - diffX // 2,
                        diffY // 2, diffY - diffY // 2])
        x = torch.cat([x2, x1], dim=1)
        return self.conv(x)


class OutConv(nn.Module):
    def __init__(self, in_channels, out_channels):
        super(OutConv, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=1)

    def forward(self, x):
        return self.conv(x)

# ----------------------------------------------------------------------------- unet_model.py


class UNet(nn.Module):
    def __init__(self, n_channels, n_classes, bilinear=False, base=64):
        super(UNet, self).__init__()
        self.n_channels = n_channels
        self.n_classes = n_classes
        self.bilinear = bilinear

        self.inc = (DoubleConv(n_channels, base))
        self.down1 = (Down(base, base * 2))
        self.down2 = (Down(base * 2, base * 4))
        self.down3 = (Down(base * 4, base * 8))
        factor = 2 if bilinear else 1
        self.down4 = (Down(base * 8, base * 16 // factor))
        self.up1 = (Up(base * 16, base * 8 // factor, bilinear))
        self.up2 = (Up(base * 8, base * 4 // factor, bilinear))
        self.up3 = (Up(base * 4, base * 2 // factor, bilinear))
        self.up4 = (Up(base * 2, base, bilinear))
        self.outc = (OutConv(base, n_classes))

    def forward(self, x):
        x1 = self.inc(x)
        x2 = self.down1(x1)
        x3 = self.down2(x2)
        x4 = self.down3(x3)
        x5 = self.down4(x4)
        x = self.up1(x5, x4)
        x = self.up2(x, x3)
        x = self.up3(x, x2)
        x = self.up4(x, x1)
        logits = self.outc(x)
        return logits

# ----------------------------------------------------------------------------- utils/dice_score.py


def dice_coeff(input, target, reduce_batch_first: bool = False, epsilon: float = 1e-6):
    # Average of Dice coefficient for all batches, or for a single mask
    assert input.size() == target.size()
    assert input.dim() == 3 or not reduce_batch_first

    sum_dim = (-1, -2) if input.dim() == 2 or not reduce_batch_first else (-1, -2, -3)

    inter = 2 * (input * target).sum(dim=sum_dim)
    sets_sum = input.sum(dim=sum_dim) + target.sum(dim=sum_dim)
    sets_sum = torch.where(sets_sum == 0, inter, sets_sum)

    dice = (inter + epsilon) / (sets_sum + epsilon)
    return dice.mean()


def multiclass_dice_coeff(input, target, reduce_batch_first: bool = False, epsilon: float = 1e-6):
    # Average of Dice coefficient for all classes
    return dice_coeff(input.flatten(0, 1), target.flatten(0, 1), reduce_batch_first, epsilon)


def dice_loss(input, target, multiclass: bool = False):
    # Dice loss (objective to minimize) between 0 and 1
    fn = multiclass_dice_coeff if multiclass else dice_coeff
    return 1 - fn(input, target, reduce_batch_first=True)

# ----------------------------------------------------------------------------- utils/data_loading.py


class BasicDataset(Dataset):
    def __init__(self, images, masks, scale: float = 1.0, mask_suffix: str = ''):
        assert 0 < scale <= 1, 'Scale must be between 0 and 1'
        self.images, self.masks = images, masks
        self.scale = scale
        self.mask_suffix = mask_suffix
        self.ids = [str(i) for i in range(len(images))]
        logging.info(f'Creating dataset with {len(self.ids)} examples')
        self.mask_values = list(sorted(np.unique(np.concatenate([np.unique(np.asarray(m)) for m in masks])).tolist()))
        logging.info(f'Unique mask values: {self.mask_values}')

    def __len__(self):
        return len(self.ids)

    @staticmethod
    def preprocess(mask_values, pil_img, scale, is_mask):
        w, h = pil_img.size
        newW, newH = int(scale * w), int(scale * h)
        assert newW > 0 and newH > 0, 'Scale is too small, resized images would have no pixel'
        pil_img = pil_img.resize((newW, newH), resample=Image.NEAREST if is_mask else Image.BICUBIC)
        img = np.asarray(pil_img)

        if is_mask:
            mask = np.zeros((newH, newW), dtype=np.int64)
            for i, v in enumerate(mask_values):
                if img.ndim == 2:
                    mask[img == v] = i
                else:
                    mask[(img == v).all(-1)] = i

            return mask

        else:
            if img.ndim == 2:
                img = img[np.newaxis, ...]
            else:
                img = img.transpose((2, 0, 1))

            if (img > 1).any():
                img = img / 255.0

            return img

    def __getitem__(self, idx):
        mask = self.masks[idx]
        img = self.images[idx]

        assert img.size == mask.size, \
            f'Image and mask {idx} should be the same size, but are {img.size} and {mask.size}'

        img = self.preprocess(self.mask_values, img, self.scale, is_mask=False)
        mask = self.preprocess(self.mask_values, mask, self.scale, is_mask=True)

        return {
            'image': torch.as_tensor(img.copy()).float().contiguous(),
            'mask': torch.as_tensor(mask.copy()).long().contiguous()
        }


def synthetic_images(n, size, seed):
    """Pictures of a bright disc and a dark square on noise; mask values 0 (background), 128 (disc), 255
    (square), as PIL images like the files the repository reads."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[:size, :size]
    images, masks = [], []
    for _ in range(n):
        img = rng.integers(60, 120, (size, size, 3)).astype(np.uint8)
        mask = np.zeros((size, size), np.uint8)
        cy, cx, r = rng.integers(8, size - 8, 2).tolist() + [int(rng.integers(3, 7))]
        disc = (yy - cy) ** 2 + (xx - cx) ** 2 <= r * r
        sy, sx = rng.integers(0, size - 8, 2).tolist()
        img[sy:sy + 8, sx:sx + 8] = 20
        mask[sy:sy + 8, sx:sx + 8] = 255
        img[disc] = 220
        mask[disc] = 128
        images.append(Image.fromarray(img))
        masks.append(Image.fromarray(mask))
    return images, masks

# ----------------------------------------------------------------------------- evaluate.py


@torch.inference_mode()
def evaluate(net, dataloader, device, amp):
    net.eval()
    num_val_batches = len(dataloader)
    dice_score = 0

    # iterate over the validation set
    with torch.autocast(device.type if device.type != 'mps' else 'cpu', enabled=amp):
        for batch in dataloader:
            image, mask_true = batch['image'], batch['mask']

            # move images and labels to correct device and type
            image = image.to(device=device, dtype=torch.float32, memory_format=torch.channels_last)
            mask_true = mask_true.to(device=device, dtype=torch.long)

            # predict the mask
            mask_pred = net(image)

            if net.n_classes == 1:
                assert mask_true.min() >= 0 and mask_true.max() <= 1, 'True mask indices should be in [0, 1]'
                mask_pred = (F.sigmoid(mask_pred) > 0.5).float()
                # compute the Dice score
                dice_score += dice_coeff(mask_pred, mask_true, reduce_batch_first=False)
            else:
                assert mask_true.min() >= 0 and mask_true.max() < net.n_classes, 'True mask indices should be in [0, n_classes['
                # convert to one-hot format
                mask_true = F.one_hot(mask_true, net.n_classes).permute(0, 3, 1, 2).float()
                mask_pred = F.one_hot(mask_pred.argmax(dim=1), net.n_classes).permute(0, 3, 1, 2).float()
                # compute the Dice score, ignoring background
                dice_score += multiclass_dice_coeff(mask_pred[:, 1:], mask_true[:, 1:], reduce_batch_first=False)

    net.train()
    return dice_score / max(num_val_batches, 1)

# ----------------------------------------------------------------------------- train.py


def train_model(model, device, dataset, dir_checkpoint, epochs: int = 5, batch_size: int = 1,
                learning_rate: float = 1e-5, val_percent: float = 0.1, save_checkpoint: bool = True,
                img_scale: float = 0.5, amp: bool = False, weight_decay: float = 1e-8, momentum: float = 0.999,
                gradient_clipping: float = 1.0):
    # 2. Split into train / validation partitions
    n_val = int(len(dataset) * val_percent)
    n_train = len(dataset) - n_val
    train_set, val_set = random_split(dataset, [n_train, n_val], generator=torch.Generator().manual_seed(0))
    print("split", n_train, n_val, sorted(val_set.indices))

    # 3. Create data loaders
    loader_args = dict(batch_size=batch_size, num_workers=0, pin_memory=True)
    train_loader = DataLoader(train_set, shuffle=True, **loader_args)
    val_loader = DataLoader(val_set, shuffle=False, drop_last=True, **loader_args)

    # 4. Set up the optimizer, the loss, the learning rate scheduler and the loss scaling for AMP
    optimizer = optim.RMSprop(model.parameters(),
                              lr=learning_rate, weight_decay=weight_decay, momentum=momentum, foreach=True)
    scheduler = optim.lr_scheduler.ReduceLROnPlateau(optimizer, 'max', patience=1)  # goal: maximize Dice score
    # the repository's torch.cuda.amp.GradScaler(enabled=amp) disables itself without CUDA (with a warning);
    # the device-generic scaler scales on the CPU too
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        cuda_scaler = torch.cuda.amp.GradScaler(enabled=amp)
    print("cuda GradScaler enabled on cpu:", cuda_scaler.is_enabled())
    grad_scaler = torch.amp.GradScaler(device.type, enabled=amp, init_scale=2.0 ** 8)
    criterion = nn.CrossEntropyLoss() if model.n_classes > 1 else nn.BCEWithLogitsLoss()
    global_step = 0

    # 5. Begin training
    for epoch in range(1, epochs + 1):
        model.train()
        epoch_loss = 0
        for batch in train_loader:
            images, true_masks = batch['image'], batch['mask']

            assert images.shape[1] == model.n_channels, \
                f'Network has been defined with {model.n_channels} input channels, ' \
                f'but loaded images have {images.shape[1]} channels. Please check that ' \
                'the images are loaded correctly.'

            images = images.to(device=device, dtype=torch.float32, memory_format=torch.channels_last)
            true_masks = true_masks.to(device=device, dtype=torch.long)

            with torch.autocast(device.type if device.type != 'mps' else 'cpu', enabled=amp):
                masks_pred = model(images)
                if model.n_classes == 1:
                    loss = criterion(masks_pred.squeeze(1), true_masks.float())
                    loss += dice_loss(F.sigmoid(masks_pred.squeeze(1)), true_masks.float(), multiclass=False)
                else:
                    loss = criterion(masks_pred, true_masks)
                    loss += dice_loss(
                        F.softmax(masks_pred, dim=1).float(),
                        F.one_hot(true_masks, model.n_classes).permute(0, 3, 1, 2).float(),
                        multiclass=True
                    )

            optimizer.zero_grad(set_to_none=True)
            grad_scaler.scale(loss).backward()
            grad_scaler.unscale_(optimizer)
            norm = torch.nn.utils.clip_grad_norm_(model.parameters(), gradient_clipping)
            grad_scaler.step(optimizer)
            grad_scaler.update()

            global_step += 1
            epoch_loss += loss.item()
            print(f"epoch {epoch} step {global_step} loss {loss.item():.4f} norm {norm.item():.4f}"
                  f" pred {masks_pred.dtype} scale {grad_scaler.get_scale():.1f}")

        # Evaluation round (the repository's every len(dataset) / (5 * batch_size) steps: once an epoch here)
        histograms = {}
        for tag, value in model.named_parameters():
            tag = tag.replace('/', '.')
            if not (torch.isinf(value) | torch.isnan(value)).any():
                histograms['Weights/' + tag] = value.data.cpu()
            if not (torch.isinf(value.grad) | torch.isnan(value.grad)).any():
                histograms['Gradients/' + tag] = value.grad.data.cpu()

        val_score = evaluate(model, val_loader, device, amp)
        scheduler.step(val_score)
        print(f"epoch {epoch} validation dice {float(val_score):.4f} lr {optimizer.param_groups[0]['lr']:.2e}"
              f" histograms {len(histograms)} epoch loss {epoch_loss:.4f}")

        if save_checkpoint:
            Path(dir_checkpoint).mkdir(parents=True, exist_ok=True)
            state_dict = model.state_dict()
            state_dict['mask_values'] = dataset.mask_values
            torch.save(state_dict, str(Path(dir_checkpoint) / 'checkpoint_epoch{}.pth'.format(epoch)))
            logging.info(f'Checkpoint {epoch} saved!')

# ----------------------------------------------------------------------------- predict.py


def predict_img(net, full_img, device, scale_factor=1, out_threshold=0.5):
    net.eval()
    img = torch.from_numpy(BasicDataset.preprocess(None, full_img, scale_factor, is_mask=False))
    img = img.unsqueeze(0)
    img = img.to(device=device, dtype=torch.float32)

    with torch.no_grad():
        output = net(img).cpu()
        output = F.interpolate(output, (full_img.size[1], full_img.size[0]), mode='bilinear')
        if net.n_classes > 1:
            mask = output.argmax(dim=1)
        else:
            mask = torch.sigmoid(output) > out_threshold

    return mask[0].long().squeeze().numpy()


def mask_to_image(mask: np.ndarray, mask_values):
    if isinstance(mask_values[0], list):
        out = np.zeros((mask.shape[-2], mask.shape[-1], len(mask_values[0])), dtype=np.uint8)
    elif mask_values == [0, 1]:
        out = np.zeros((mask.shape[-2], mask.shape[-1]), dtype=bool)
    else:
        out = np.zeros((mask.shape[-2], mask.shape[-1]), dtype=np.uint8)

    if mask.ndim == 3:
        mask = np.argmax(mask, axis=0)

    for i, v in enumerate(mask_values):
        out[mask == i] = v

    return Image.fromarray(out)


if __name__ == '__main__':
    logging.basicConfig(level=logging.WARNING, format='%(levelname)s: %(message)s')
    torch.manual_seed(0)
    device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
    dir_checkpoint = tempfile.mkdtemp()

    images, masks = synthetic_images(10, 40, seed=0)
    dataset = BasicDataset(images, masks, scale=0.8)
    print("mask values", dataset.mask_values, "sample", tuple(dataset[0]['image'].shape), dataset[0]['image'].dtype,
          tuple(dataset[0]['mask'].shape), dataset[0]['mask'].unique().tolist(),
          round(dataset[0]['image'].sum().item(), 3))

    # Change here to adapt to your data
    # n_channels=3 for RGB images
    # n_classes is the number of probabilities you want to get per pixel
    for bilinear, amp in [(False, True)]:
        model = UNet(n_channels=3, n_classes=3, bilinear=bilinear, base=8)
        model = model.to(memory_format=torch.channels_last)
        print(f"Network: {model.n_channels} input channels, {model.n_classes} output channels (classes),"
              f" {'Bilinear' if model.bilinear else 'Transposed conv'} upscaling,"
              f" {sum(p.numel() for p in model.parameters())} parameters, amp {amp}")
        print("channels_last weight", model.inc.double_conv[0].weight.is_contiguous(memory_format=torch.channels_last))
        model.to(device=device)
        train_model(model=model, epochs=2, batch_size=4, learning_rate=1e-4, device=device, dataset=dataset,
                    dir_checkpoint=dir_checkpoint, img_scale=0.8, val_percent=0.2, amp=amp)

        # predict.py: reload the last checkpoint and segment one picture at full size
        net = UNet(n_channels=3, n_classes=3, bilinear=bilinear, base=8)
        state_dict = torch.load(os.path.join(dir_checkpoint, 'checkpoint_epoch2.pth'), map_location=device)
        mask_values = state_dict.pop('mask_values', [0, 1])
        print("checkpoint keys", len(state_dict), "mask values", mask_values)
        net.load_state_dict(state_dict)
        mask = predict_img(net=net, full_img=images[1], scale_factor=0.8, out_threshold=0.5, device=device)
        result = mask_to_image(mask, mask_values)
        print("predicted mask", mask.shape, mask.dtype, np.bincount(mask.reshape(-1), minlength=3).tolist(),
              "image", result.size, result.mode, sorted(np.unique(np.asarray(result)).tolist()))

    # the bilinear variant (nn.Upsample(align_corners=True) and half-width DoubleConv): one eval forward
    torch.manual_seed(1)
    net = UNet(n_channels=3, n_classes=1, bilinear=True, base=8).to(memory_format=torch.channels_last).eval()
    with torch.no_grad():
        logits = net(dataset[0]['image'][None].to(memory_format=torch.channels_last))
    print("bilinear logits", tuple(logits.shape), round(logits.sum().item(), 4), "params",
          sum(p.numel() for p in net.parameters()), "dice", round(float(dice_coeff(
              (torch.sigmoid(logits[:, 0]) > 0.5).float(), (dataset[0]['mask'][None] > 0).float())), 5))
