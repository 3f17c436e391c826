"""pytorch/examples ``fast_neural_style``-style (own code; torchvision-free: a small frozen conv stack stands in
for VGG16, synthetic 16x16 images in place of COCO and the style image): ``TransformerNet`` (``ReflectionPad2d``
conv layers, ``InstanceNorm2d(affine=True)``, five residual blocks, ``UpsampleConvLayer`` through
``F.interpolate(mode='nearest', scale_factor=2)``), a loss network whose parameters get ``requires_grad =
False`` and which returns a ``namedtuple`` of features, ``utils.gram_matrix`` (``view`` / ``transpose`` /
``bmm``), ``utils.normalize_batch`` (``new_tensor``, ``div_(255.0)``), the style batch via ``repeat``, the
training loop (content MSE on ``relu2_2``, style MSE over grams sliced ``[:n_batch]``, aggregated ``.item()``
losses, the tab-separated log), the checkpoint idiom ``transformer.eval().cpu()`` -> ``torch.save(state_dict)``
-> ``.to(device).train()``, and ``stylize``: a pre-0.4 checkpoint's ``in\\d+.running_(mean|var)`` keys removed
with ``re.search`` before ``load_state_dict`` (the error torch raises when they are left in), ``no_grad``
inference and ``save_image``'s ``clone().clamp(0, 255).numpy().transpose(1, 2, 0).astype("uint8")``."""
import os
import re
import tempfile
from collections import namedtuple

import numpy as np
import torch
from torch.optim import Adam


# ----------------------------------------------------------------------------- transformer_net.py
class TransformerNet(torch.nn.Module):
    def __init__(self):
        super(TransformerNet, self).__init__()
        # Initial convolution layers
        self.conv1 = ConvLayer(3, 32, kernel_size=9, stride=1)
        self.in1 = torch.nn.InstanceNorm2d(32, affine=True)
        self.conv2 = ConvLayer(32, 64, kernel_size=3, stride=2)
        self.in2 = torch.nn.InstanceNorm2d(64, affine=True)
        self.conv3 = ConvLayer(64, 128, kernel_size=3, stride=2)
        self.in3 = torch.nn.InstanceNorm2d(128, affine=True)
        # Residual layers
        self.res1 = ResidualBlock(128)
        self.res2 = ResidualBlock(128)
        self.res3 = ResidualBlock(128)
        self.res4 = ResidualBlock(128)
        self.res5 = ResidualBlock(128)
        # Upsampling Layers
        self.deconv1 = UpsampleConvLayer(128, 64, kernel_size=3, stride=1, upsample=2)
        self.in4 = torch.nn.InstanceNorm2d(64, affine=True)
        self.deconv2 = UpsampleConvLayer(64, 32, kernel_size=3, stride=1, upsample=2)
        self.in5 = torch.nn.InstanceNorm2d(32, affine=True)
        self.deconv3 = ConvLayer(32, 3, kernel_size=9, stride=1)
        # Non-linearities
        self.relu = torch.nn.ReLU()

    def forward(self, X):
        y = self.relu(self.in1(self.conv1(X)))
        y = self.relu(self.in2(self.conv2(y)))
        y = self.relu(self.in3(self.conv3(y)))
        y = self.res1(y)
        y = self.res2(y)
        y = self.res3(y)
        y = self.res4(y)
        y = self.res5(y)
        y = self.relu(self.in4(self.deconv1(y)))
        y = self.relu(self.in5(self.deconv2(y)))
        y = self.deconv3(y)
        return y


class ConvLayer(torch.nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride):
        super(ConvLayer, self).__init__()
        reflection_padding = kernel_size // 2
        self.reflection_pad = torch.nn.ReflectionPad2d(reflection_padding)
        self.conv2d = torch.nn.Conv2d(in_channels, out_channels, kernel_size, stride)

    def forward(self, x):
        out = self.reflection_pad(x)
        out = self.conv2d(out)
        return out


class ResidualBlock(torch.nn.Module):
    """ResidualBlock
    introduced in: https://arxiv.org/abs/1512.03385
    recommended architecture: http://torch.ch/blog/2016/02/04/resnets.html
    """

    def __init__(self, channels):
        super(ResidualBlock, self).__init__()
        self.conv1 = ConvLayer(channels, channels, kernel_size=3, stride=1)
        self.in1 = torch.nn.InstanceNorm2d(channels, affine=True)
        self.conv2 = ConvLayer(channels, channels, kernel_size=3, stride=1)
        self.in2 = torch.nn.InstanceNorm2d(channels, affine=True)
        self.relu = torch.nn.ReLU()

    def forward(self, x):
        residual = x
        out = self.relu(self.in1(self.conv1(x)))
        out = self.in2(self.conv2(out))
        out = out + residual
        return out


class UpsampleConvLayer(torch.nn.Module):
    """UpsampleConvLayer
    Upsamples the input and then does a convolution. This method gives better results
    compared to ConvTranspose2d.
    ref: http://distill.pub/2016/deconv-checkerboard/
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride, upsample=None):
        super(UpsampleConvLayer, self).__init__()
        self.upsample = upsample
        reflection_padding = kernel_size // 2
        self.reflection_pad = torch.nn.ReflectionPad2d(reflection_padding)
        self.conv2d = torch.nn.Conv2d(in_channels, out_channels, kernel_size, stride)

    def forward(self, x):
        x_in = x
        if self.upsample:
            x_in = torch.nn.functional.interpolate(x_in, mode='nearest', scale_factor=self.upsample)
        out = self.reflection_pad(x_in)
        out = self.conv2d(out)
        return out


# ----------------------------------------------------------------------------- vgg.py (a small frozen stand-in)
class Vgg16(torch.nn.Module):
    def __init__(self, requires_grad=False):
        super(Vgg16, self).__init__()
        g = torch.Generator().manual_seed(7)
        features = torch.nn.Sequential(
            torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(inplace=True),
            torch.nn.Conv2d(8, 8, 3, padding=1), torch.nn.ReLU(inplace=True),
            torch.nn.MaxPool2d(kernel_size=2, stride=2),
            torch.nn.Conv2d(8, 16, 3, padding=1), torch.nn.ReLU(inplace=True),
            torch.nn.MaxPool2d(kernel_size=2, stride=2),
            torch.nn.Conv2d(16, 16, 3, padding=1), torch.nn.ReLU(inplace=True),
            torch.nn.Conv2d(16, 24, 3, padding=1), torch.nn.ReLU(inplace=True),
        )
        with torch.no_grad():  # "pretrained" weights drawn from a private generator
            for p in features.parameters():
                p.copy_(torch.randn(p.shape, generator=g) * 0.3)
        self.slice1 = torch.nn.Sequential()
        self.slice2 = torch.nn.Sequential()
        self.slice3 = torch.nn.Sequential()
        self.slice4 = torch.nn.Sequential()
        for x in range(4):
            self.slice1.add_module(str(x), features[x])
        for x in range(4, 7):
            self.slice2.add_module(str(x), features[x])
        for x in range(7, 10):
            self.slice3.add_module(str(x), features[x])
        for x in range(10, 12):
            self.slice4.add_module(str(x), features[x])
        if not requires_grad:
            for param in self.parameters():
                param.requires_grad = False

    def forward(self, X):
        h = self.slice1(X)
        h_relu1_2 = h
        h = self.slice2(h)
        h_relu2_2 = h
        h = self.slice3(h)
        h_relu3_3 = h
        h = self.slice4(h)
        h_relu4_3 = h
        vgg_outputs = namedtuple("VggOutputs", ['relu1_2', 'relu2_2', 'relu3_3', 'relu4_3'])
        out = vgg_outputs(h_relu1_2, h_relu2_2, h_relu3_3, h_relu4_3)
        return out


# ----------------------------------------------------------------------------- utils.py
def gram_matrix(y):
    (b, ch, h, w) = y.size()
    features = y.view(b, ch, w * h)
    features_t = features.transpose(1, 2)
    gram = features.bmm(features_t) / (ch * h * w)
    return gram


def normalize_batch(batch):
    # normalize using imagenet mean and std
    mean = batch.new_tensor([0.485, 0.456, 0.406]).view(-1, 1, 1)
    std = batch.new_tensor([0.229, 0.224, 0.225]).view(-1, 1, 1)
    batch = batch.div_(255.0)
    return (batch - mean) / std


def save_image(filename, data):
    img = data.clone().clamp(0, 255).numpy()
    img = img.transpose(1, 2, 0).astype("uint8")
    np.save(filename, img)  # Image.fromarray(img).save(filename) in the example
    return img


def synthetic_images(n, seed):
    """uint8-valued float images in [0, 255] (ToTensor() then Lambda(lambda x: x.mul(255)))."""
    rs = np.random.RandomState(seed)
    base = np.linspace(0, 1, 16, dtype=np.float32)
    imgs = rs.rand(n, 3, 16, 16).astype(np.float32) * 0.3 + base[None, None, :, None] * base[None, None, None, :]
    return torch.from_numpy(np.round(np.clip(imgs, 0, 1) * 255) / 255).mul(255)


# ----------------------------------------------------------------------------- neural_style.py
class Args:
    seed = 42
    batch_size = 2
    # the example's 1e-3 with Adam turns float noise into whole steps: the conv biases before each
    # InstanceNorm have a gradient that is mathematically zero (the norm removes any per-channel constant),
    # so what they get is rounding noise (~1e2 against real gradients ~1e7), different in torch and here,
    # and Adam's normalised update moves them by +-lr either way; a smaller rate keeps the runs comparable
    lr = 1e-5
    epochs = 2
    content_weight = 1e5
    style_weight = 1e10
    log_interval = 1
    save_model_dir = tempfile.mkdtemp()


def train(args, device):
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    train_dataset = torch.utils.data.TensorDataset(synthetic_images(6, 0), torch.zeros(6, dtype=torch.long))
    train_loader = torch.utils.data.DataLoader(train_dataset, batch_size=args.batch_size)

    transformer = TransformerNet().to(device)
    optimizer = Adam(transformer.parameters(), args.lr)
    mse_loss = torch.nn.MSELoss()

    vgg = Vgg16(requires_grad=False).to(device)
    print("vgg trainable", sum(p.requires_grad for p in vgg.parameters()), "transformer params",
          sum(p.numel() for p in transformer.parameters()))
    style = synthetic_images(1, 1)[0]
    style = style.repeat(args.batch_size, 1, 1, 1).to(device)
    features_style = vgg(normalize_batch(style))
    gram_style = [gram_matrix(y) for y in features_style]
    print("gram style", [tuple(g.shape) for g in gram_style], [round(g.sum().item(), 4) for g in gram_style])
    print("features", type(features_style).__name__, features_style._fields, features_style.relu4_3.shape)

    for e in range(args.epochs):
        transformer.train()
        agg_content_loss = 0.
        agg_style_loss = 0.
        count = 0
        for batch_id, (x, _) in enumerate(train_loader):
            n_batch = len(x)
            count += n_batch
            optimizer.zero_grad()

            x = x.to(device)
            y = transformer(x)

            y = normalize_batch(y)
            x = normalize_batch(x)

            features_y = vgg(y)
            features_x = vgg(x)

            content_loss = args.content_weight * mse_loss(features_y.relu2_2, features_x.relu2_2)

            style_loss = 0.
            for ft_y, gm_s in zip(features_y, gram_style):
                gm_y = gram_matrix(ft_y)
                style_loss += mse_loss(gm_y, gm_s[:n_batch, :, :])
            style_loss *= args.style_weight

            total_loss = content_loss + style_loss
            total_loss.backward()
            optimizer.step()

            agg_content_loss += content_loss.item()
            agg_style_loss += style_loss.item()

            if (batch_id + 1) % args.log_interval == 0:
                mesg = "Epoch {}:\t[{}/{}]\tcontent: {:.6f}\tstyle: {:.6f}\ttotal: {:.6f}".format(
                    e + 1, count, len(train_dataset),
                    agg_content_loss / (batch_id + 1),
                    agg_style_loss / (batch_id + 1),
                    (agg_content_loss + agg_style_loss) / (batch_id + 1)
                )
                print(mesg)

    # save model
    transformer.eval().cpu()
    save_model_filename = "epoch_" + str(args.epochs) + "_" + str(float(args.content_weight)) + "_" + \
        str(float(args.style_weight)) + ".model"
    save_model_path = os.path.join(args.save_model_dir, save_model_filename)
    state = transformer.state_dict()
    # a checkpoint as PyTorch < 0.4 wrote it: InstanceNorm layers carried running stats
    legacy = dict(state)
    for k in list(state):
        if re.search(r'in\d+\.weight$', k):
            legacy[k.replace("weight", "running_mean")] = torch.zeros_like(state[k])
            legacy[k.replace("weight", "running_var")] = torch.ones_like(state[k])
    torch.save(legacy, save_model_path)
    transformer.to(device).train()
    print("\nDone, trained model saved at", save_model_filename, len(state), "keys,", len(legacy), "in the file")
    return save_model_path, transformer


def stylize(model_path, device):
    content_image = synthetic_images(1, 3)[0]
    content_image = content_image.unsqueeze(0).to(device)
    with torch.no_grad():
        style_model = TransformerNet()
        state_dict = torch.load(model_path)
        try:
            style_model.load_state_dict(dict(state_dict))
        except RuntimeError as e:
            print("without the cleanup:", type(e).__name__, str(e).splitlines()[1][:120])
        # remove saved deprecated running_* keys in InstanceNorm from the checkpoint
        for k in list(state_dict.keys()):
            if re.search(r'in\d+\.running_(mean|var)$', k):
                del state_dict[k]
        print(style_model.load_state_dict(state_dict))
        style_model.to(device)
        style_model.eval()
        output = style_model(content_image).cpu()
    print("output", output.shape, output.dtype, round(output.mean().item(), 4), round(output.std().item(), 4))
    img = save_image(os.path.join(os.path.dirname(model_path), "out.npy"), output[0])
    print("image", img.shape, img.dtype, int(img.max()) <= 255)
    return output


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
path, trained = train(Args, device)
out = stylize(path, device)
with torch.no_grad():
    again = trained.eval()(synthetic_images(1, 3)[0].unsqueeze(0))
print("same as the trained model", torch.allclose(out, again, atol=1e-4))
