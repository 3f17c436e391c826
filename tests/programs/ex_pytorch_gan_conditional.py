"""eriklindernoren/PyTorch-GAN-style conditional GANs (own code, synthetic 16x16 images, old-style idioms kept):
``from torch.autograd import Variable``, ``Tensor = torch.cuda.FloatTensor if cuda else torch.FloatTensor``,
``Variable(Tensor(n, 1).fill_(1.0), requires_grad=False)``, noise from ``np.random.normal`` through
``Tensor(...)``, labels through ``LongTensor(np.random.randint(...))``, ``weights_init_normal`` keyed on
``m.__class__.__name__.find("Conv")`` with ``torch.nn.init.normal_(m.weight.data, ...)``. Four variants: cgan
(label embedding concatenated to the noise, MSE adversarial loss), acgan (auxiliary classifier head,
``np.concatenate`` of predictions for the accuracy), infogan (categorical and continuous codes, the mutual
information loss over ``itertools.chain`` of both networks' parameters, ``to_categorical`` via numpy) and sgan
(semi-supervised discriminator with num_classes + 1 outputs, softmax head, label smoothing). Prints one fact
per line, numbers rounded."""
import itertools

import numpy as np
import torch
import torch.nn as nn
from torch.autograd import Variable

torch.manual_seed(0)
np.random.seed(0)

cuda = True if torch.cuda.is_available() else False
Tensor = torch.cuda.FloatTensor if cuda else torch.FloatTensor
LongTensor = torch.cuda.LongTensor if cuda else torch.LongTensor
print("Tensor types", Tensor.__name__, LongTensor.__name__)

n_classes, latent_dim, img_size, channels, batch = 4, 8, 16, 1, 8
img_shape = (channels, img_size, img_size)


def weights_init_normal(m):
    classname = m.__class__.__name__
    if classname.find("Conv") != -1:
        torch.nn.init.normal_(m.weight.data, 0.0, 0.02)
    elif classname.find("BatchNorm2d") != -1:
        torch.nn.init.normal_(m.weight.data, 1.0, 0.02)
        torch.nn.init.constant_(m.bias.data, 0.0)


def real_images(labels):
    """Class-dependent synthetic images in [-1, 1]."""
    base = torch.linspace(-1, 1, img_size)
    grid = base.view(1, -1) * base.view(-1, 1)
    imgs = torch.stack([torch.tanh(grid * (int(c) + 1) + 0.1 * torch.randn(img_size, img_size)) for c in labels])
    return imgs.unsqueeze(1)


def r(x):
    return round(float(x), 4)


# ----------------------------------------------------------------------------------------------- cgan
class CGenerator(nn.Module):
    def __init__(self):
        super(CGenerator, self).__init__()
        self.label_emb = nn.Embedding(n_classes, n_classes)

        def block(in_feat, out_feat, normalize=True):
            layers = [nn.Linear(in_feat, out_feat)]
            if normalize:
                layers.append(nn.BatchNorm1d(out_feat, 0.8))
            layers.append(nn.LeakyReLU(0.2, inplace=True))
            return layers

        self.model = nn.Sequential(
            *block(latent_dim + n_classes, 32, normalize=False),
            *block(32, 64),
            nn.Linear(64, int(np.prod(img_shape))),
            nn.Tanh()
        )

    def forward(self, noise, labels):
        gen_input = torch.cat((self.label_emb(labels), noise), -1)
        img = self.model(gen_input)
        img = img.view(img.size(0), *img_shape)
        return img


class CDiscriminator(nn.Module):
    def __init__(self):
        super(CDiscriminator, self).__init__()
        self.label_embedding = nn.Embedding(n_classes, n_classes)
        self.model = nn.Sequential(
            nn.Linear(n_classes + int(np.prod(img_shape)), 64),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(64, 64),
            nn.Dropout(0.4),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(64, 1),
        )

    def forward(self, img, labels):
        d_in = torch.cat((img.view(img.size(0), -1), self.label_embedding(labels)), -1)
        validity = self.model(d_in)
        return validity


generator, discriminator = CGenerator(), CDiscriminator()
adversarial_loss = torch.nn.MSELoss()
optimizer_G = torch.optim.Adam(generator.parameters(), lr=2e-4, betas=(0.5, 0.999))
optimizer_D = torch.optim.Adam(discriminator.parameters(), lr=2e-4, betas=(0.5, 0.999))
print("cgan G", generator.model[2])
for i in range(3):
    labels_np = np.random.randint(0, n_classes, batch)
    imgs = real_images(labels_np)
    valid = Variable(Tensor(batch, 1).fill_(1.0), requires_grad=False)
    fake = Variable(Tensor(batch, 1).fill_(0.0), requires_grad=False)
    real_imgs = Variable(imgs.type(Tensor))
    labels = Variable(torch.from_numpy(labels_np).type(LongTensor))
    if i == 0:
        print("valid", valid.dtype, valid.requires_grad, tuple(valid.shape), type(valid).__name__)
        print("labels", labels.dtype, labels.tolist())
    optimizer_G.zero_grad()
    z = Variable(Tensor(np.random.normal(0, 1, (batch, latent_dim))))
    gen_labels = Variable(LongTensor(np.random.randint(0, n_classes, batch)))
    gen_imgs = generator(z, gen_labels)
    validity = discriminator(gen_imgs, gen_labels)
    g_loss = adversarial_loss(validity, valid)
    g_loss.backward()
    optimizer_G.step()
    optimizer_D.zero_grad()
    d_real_loss = adversarial_loss(discriminator(real_imgs, labels), valid)
    d_fake_loss = adversarial_loss(discriminator(gen_imgs.detach(), gen_labels), fake)
    d_loss = (d_real_loss + d_fake_loss) / 2
    d_loss.backward()
    optimizer_D.step()
    print("[cgan] [Batch %d/3] [D loss: %.4f] [G loss: %.4f]" % (i, d_loss.item(), g_loss.item()))
print("z dtype", z.dtype, "gen_labels", gen_labels.dtype, gen_imgs.shape)


# ----------------------------------------------------------------------------------------------- acgan
class ACGenerator(nn.Module):
    def __init__(self):
        super(ACGenerator, self).__init__()
        self.label_emb = nn.Embedding(n_classes, latent_dim)
        self.init_size = img_size // 4
        self.l1 = nn.Sequential(nn.Linear(latent_dim, 16 * self.init_size ** 2))
        self.conv_blocks = nn.Sequential(
            nn.BatchNorm2d(16),
            nn.Upsample(scale_factor=2),
            nn.Conv2d(16, 16, 3, stride=1, padding=1),
            nn.BatchNorm2d(16, 0.8),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Upsample(scale_factor=2),
            nn.Conv2d(16, 8, 3, stride=1, padding=1),
            nn.BatchNorm2d(8, 0.8),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(8, channels, 3, stride=1, padding=1),
            nn.Tanh(),
        )

    def forward(self, noise, labels):
        gen_input = torch.mul(self.label_emb(labels), noise)
        out = self.l1(gen_input)
        out = out.view(out.shape[0], 16, self.init_size, self.init_size)
        img = self.conv_blocks(out)
        return img


class ACDiscriminator(nn.Module):
    def __init__(self):
        super(ACDiscriminator, self).__init__()

        def discriminator_block(in_filters, out_filters, bn=True):
            block = [nn.Conv2d(in_filters, out_filters, 3, 2, 1), nn.LeakyReLU(0.2, inplace=True), nn.Dropout2d(0.25)]
            if bn:
                block.append(nn.BatchNorm2d(out_filters, 0.8))
            return block

        self.conv_blocks = nn.Sequential(
            *discriminator_block(channels, 8, bn=False),
            *discriminator_block(8, 16),
            *discriminator_block(16, 16),
        )
        ds_size = img_size // 2 ** 3
        self.adv_layer = nn.Sequential(nn.Linear(16 * ds_size ** 2, 1), nn.Sigmoid())
        self.aux_layer = nn.Sequential(nn.Linear(16 * ds_size ** 2, n_classes), nn.Softmax())

    def forward(self, img):
        out = self.conv_blocks(img)
        out = out.view(out.shape[0], -1)
        validity = self.adv_layer(out)
        label = self.aux_layer(out)
        return validity, label


adversarial_loss = torch.nn.BCELoss()
auxiliary_loss = torch.nn.CrossEntropyLoss()
generator, discriminator = ACGenerator(), ACDiscriminator()
generator.apply(weights_init_normal)
discriminator.apply(weights_init_normal)
print("acgan bn", generator.conv_blocks[3])
print("acgan up", generator.conv_blocks[1])
optimizer_G = torch.optim.Adam(generator.parameters(), lr=2e-4, betas=(0.5, 0.999))
optimizer_D = torch.optim.Adam(discriminator.parameters(), lr=2e-4, betas=(0.5, 0.999))
for i in range(3):
    labels_np = np.random.randint(0, n_classes, batch)
    imgs = real_images(labels_np)
    valid = Variable(Tensor(batch, 1).fill_(1.0), requires_grad=False)
    fake = Variable(Tensor(batch, 1).fill_(0.0), requires_grad=False)
    real_imgs = Variable(imgs.type(Tensor))
    labels = Variable(torch.from_numpy(labels_np).type(LongTensor))
    optimizer_G.zero_grad()
    z = Variable(Tensor(np.random.normal(0, 1, (batch, latent_dim))))
    gen_labels = Variable(LongTensor(np.random.randint(0, n_classes, batch)))
    gen_imgs = generator(z, gen_labels)
    validity, pred_label = discriminator(gen_imgs)
    g_loss = 0.5 * (adversarial_loss(validity, valid) + auxiliary_loss(pred_label, gen_labels))
    g_loss.backward()
    optimizer_G.step()
    optimizer_D.zero_grad()
    real_pred, real_aux = discriminator(real_imgs)
    d_real_loss = (adversarial_loss(real_pred, valid) + auxiliary_loss(real_aux, labels)) / 2
    fake_pred, fake_aux = discriminator(gen_imgs.detach())
    d_fake_loss = (adversarial_loss(fake_pred, fake) + auxiliary_loss(fake_aux, gen_labels)) / 2
    d_loss = (d_real_loss + d_fake_loss) / 2
    pred = np.concatenate([real_aux.data.cpu().numpy(), fake_aux.data.cpu().numpy()], axis=0)
    gt = np.concatenate([labels.data.cpu().numpy(), gen_labels.data.cpu().numpy()], axis=0)
    d_acc = np.mean(np.argmax(pred, axis=1) == gt)
    d_loss.backward()
    optimizer_D.step()
    print("[acgan] [Batch %d/3] [D loss: %.4f, acc: %d%%] [G loss: %.4f]" % (i, d_loss.item(), 100 * d_acc,
                                                                         g_loss.item()))
print("pred", pred.shape, pred.dtype, "gt", gt.dtype, type(d_acc).__name__)
print("bn running_mean", r(generator.conv_blocks[0].running_mean.sum()),
      generator.conv_blocks[0].num_batches_tracked.item())

# ----------------------------------------------------------------------------------------------- infogan
code_dim = 2


def to_categorical(y, num_columns):
    """Returns one-hot encoded Variable"""
    y_cat = np.zeros((y.shape[0], num_columns))
    y_cat[range(y.shape[0]), y] = 1.0
    return Variable(Tensor(y_cat))


class InfoGenerator(nn.Module):
    def __init__(self):
        super(InfoGenerator, self).__init__()
        input_dim = latent_dim + n_classes + code_dim
        self.init_size = img_size // 4
        self.l1 = nn.Sequential(nn.Linear(input_dim, 16 * self.init_size ** 2))
        self.conv_blocks = nn.Sequential(
            nn.BatchNorm2d(16),
            nn.Upsample(scale_factor=2),
            nn.Conv2d(16, 16, 3, stride=1, padding=1),
            nn.BatchNorm2d(16, 0.8),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Upsample(scale_factor=2),
            nn.Conv2d(16, 8, 3, stride=1, padding=1),
            nn.BatchNorm2d(8, 0.8),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(8, channels, 3, stride=1, padding=1),
            nn.Tanh(),
        )

    def forward(self, noise, labels, code):
        gen_input = torch.cat((noise, labels, code), -1)
        out = self.l1(gen_input)
        out = out.view(out.shape[0], 16, self.init_size, self.init_size)
        return self.conv_blocks(out)


class InfoDiscriminator(nn.Module):
    def __init__(self):
        super(InfoDiscriminator, self).__init__()

        def discriminator_block(in_filters, out_filters, bn=True):
            block = [nn.Conv2d(in_filters, out_filters, 3, 2, 1), nn.LeakyReLU(0.2, inplace=True), nn.Dropout2d(0.25)]
            if bn:
                block.append(nn.BatchNorm2d(out_filters, 0.8))
            return block

        self.conv_blocks = nn.Sequential(
            *discriminator_block(channels, 8, bn=False),
            *discriminator_block(8, 16),
            *discriminator_block(16, 16),
        )
        ds_size = img_size // 2 ** 3
        self.adv_layer = nn.Sequential(nn.Linear(16 * ds_size ** 2, 1))
        self.aux_layer = nn.Sequential(nn.Linear(16 * ds_size ** 2, n_classes), nn.Softmax())
        self.latent_layer = nn.Sequential(nn.Linear(16 * ds_size ** 2, code_dim))

    def forward(self, img):
        out = self.conv_blocks(img)
        out = out.view(out.shape[0], -1)
        return self.adv_layer(out), self.aux_layer(out), self.latent_layer(out)


adversarial_loss = torch.nn.MSELoss()
categorical_loss = torch.nn.CrossEntropyLoss()
continuous_loss = torch.nn.MSELoss()
lambda_cat, lambda_con = 1, 0.1
generator, discriminator = InfoGenerator(), InfoDiscriminator()
generator.apply(weights_init_normal)
discriminator.apply(weights_init_normal)
optimizer_G = torch.optim.Adam(generator.parameters(), lr=2e-4, betas=(0.5, 0.999))
optimizer_D = torch.optim.Adam(discriminator.parameters(), lr=2e-4, betas=(0.5, 0.999))
optimizer_info = torch.optim.Adam(
    itertools.chain(generator.parameters(), discriminator.parameters()), lr=2e-4, betas=(0.5, 0.999)
)
print("info param groups", len(optimizer_info.param_groups), len(optimizer_info.param_groups[0]["params"]))
static_z = Variable(Tensor(np.zeros((n_classes ** 2, latent_dim))))
static_label = to_categorical(np.array([num for _ in range(n_classes) for num in range(n_classes)]),
                              num_columns=n_classes)
static_code = Variable(Tensor(np.zeros((n_classes ** 2, code_dim))))
print("static", static_label.dtype, tuple(static_label.shape), static_label.sum(0).tolist())
for i in range(3):
    labels_np = np.random.randint(0, n_classes, batch)
    imgs = real_images(labels_np)
    valid = Variable(Tensor(batch, 1).fill_(1.0), requires_grad=False)
    fake = Variable(Tensor(batch, 1).fill_(0.0), requires_grad=False)
    real_imgs = Variable(imgs.type(Tensor))
    labels = to_categorical(labels_np, num_columns=n_classes)
    optimizer_G.zero_grad()
    z = Variable(Tensor(np.random.normal(0, 1, (batch, latent_dim))))
    label_input = to_categorical(np.random.randint(0, n_classes, batch), num_columns=n_classes)
    code_input = Variable(Tensor(np.random.uniform(-1, 1, (batch, code_dim))))
    gen_imgs = generator(z, label_input, code_input)
    validity, _, _ = discriminator(gen_imgs)
    g_loss = adversarial_loss(validity, valid)
    g_loss.backward()
    optimizer_G.step()
    optimizer_D.zero_grad()
    real_pred, _, _ = discriminator(real_imgs)
    d_real_loss = adversarial_loss(real_pred, valid)
    fake_pred, _, _ = discriminator(gen_imgs.detach())
    d_fake_loss = adversarial_loss(fake_pred, fake)
    d_loss = (d_real_loss + d_fake_loss) / 2
    d_loss.backward()
    optimizer_D.step()
    # Information Loss
    optimizer_info.zero_grad()
    sampled_labels = np.random.randint(0, n_classes, batch)
    gt_labels = Variable(LongTensor(sampled_labels), requires_grad=False)
    z = Variable(Tensor(np.random.normal(0, 1, (batch, latent_dim))))
    label_input = to_categorical(sampled_labels, num_columns=n_classes)
    code_input = Variable(Tensor(np.random.uniform(-1, 1, (batch, code_dim))))
    gen_imgs = generator(z, label_input, code_input)
    _, pred_label, pred_code = discriminator(gen_imgs)
    info_loss = lambda_cat * categorical_loss(pred_label, gt_labels) + lambda_con * continuous_loss(
        pred_code, code_input
    )
    info_loss.backward()
    optimizer_info.step()
    print("[infogan] [Batch %d/3] [D loss: %.4f] [G loss: %.4f] [info loss: %.4f]"
          % (i, d_loss.item(), g_loss.item(), info_loss.item()))
generator.eval()
with torch.no_grad():
    varied = np.repeat(np.linspace(-1, 1, n_classes)[:, np.newaxis], n_classes, 0)
    c1 = Variable(Tensor(np.concatenate((varied, np.zeros((n_classes ** 2, 1))), -1)))
    sample1 = generator(static_z, static_label, c1)
print("sample1", tuple(sample1.shape), r(sample1.mean()), r(sample1.std()))

# ----------------------------------------------------------------------------------------------- sgan


class SDiscriminator(nn.Module):
    def __init__(self):
        super(SDiscriminator, self).__init__()

        def discriminator_block(in_filters, out_filters, bn=True):
            block = [nn.Conv2d(in_filters, out_filters, 3, 2, 1), nn.LeakyReLU(0.2, inplace=True), nn.Dropout2d(0.25)]
            if bn:
                block.append(nn.BatchNorm2d(out_filters, 0.8))
            return block

        self.conv_blocks = nn.Sequential(*discriminator_block(channels, 8, bn=False), *discriminator_block(8, 16))
        ds_size = img_size // 2 ** 2
        self.adv_layer = nn.Sequential(nn.Linear(16 * ds_size ** 2, 1), nn.Sigmoid())
        self.aux_layer = nn.Sequential(nn.Linear(16 * ds_size ** 2, n_classes + 1), nn.Softmax(dim=1))

    def forward(self, img):
        out = self.conv_blocks(img)
        out = out.view(out.shape[0], -1)
        return self.adv_layer(out), self.aux_layer(out)


generator, discriminator = ACGenerator(), SDiscriminator()
generator.apply(weights_init_normal)
discriminator.apply(weights_init_normal)
adversarial_loss = torch.nn.BCELoss()
auxiliary_loss = torch.nn.CrossEntropyLoss()
optimizer_G = torch.optim.Adam(generator.parameters(), lr=2e-4, betas=(0.5, 0.999))
optimizer_D = torch.optim.Adam(discriminator.parameters(), lr=2e-4, betas=(0.5, 0.999))
for i in range(3):
    labels_np = np.random.randint(0, n_classes, batch)
    imgs = real_images(labels_np)
    valid = Variable(Tensor(batch, 1).fill_(0.9), requires_grad=False)  # one-sided label smoothing
    fake = Variable(Tensor(batch, 1).fill_(0.0), requires_grad=False)
    fake_aux_gt = Variable(LongTensor(batch).fill_(n_classes), requires_grad=False)
    real_imgs = Variable(imgs.type(Tensor))
    labels = Variable(torch.from_numpy(labels_np).type(LongTensor))
    optimizer_G.zero_grad()
    z = Variable(Tensor(np.random.normal(0, 1, (batch, latent_dim))))
    gen_imgs = generator(z, Variable(LongTensor(np.random.randint(0, n_classes, batch))))
    validity, _ = discriminator(gen_imgs)
    g_loss = adversarial_loss(validity, valid)
    g_loss.backward()
    optimizer_G.step()
    optimizer_D.zero_grad()
    real_pred, real_aux = discriminator(real_imgs)
    d_real_loss = (adversarial_loss(real_pred, valid) + auxiliary_loss(real_aux, labels)) / 2
    fake_pred, fake_aux = discriminator(gen_imgs.detach())
    d_fake_loss = (adversarial_loss(fake_pred, fake) + auxiliary_loss(fake_aux, fake_aux_gt)) / 2
    d_loss = (d_real_loss + d_fake_loss) / 2
    pred = np.concatenate([real_aux.data.cpu().numpy(), fake_aux.data.cpu().numpy()], axis=0)
    gt = np.concatenate([labels.data.cpu().numpy(), fake_aux_gt.data.cpu().numpy()], axis=0)
    d_acc = np.mean(np.argmax(pred, axis=1) == gt)
    d_loss.backward()
    optimizer_D.step()
    print("[sgan] [Batch %d/3] [D loss: %.4f, acc: %d%%] [G loss: %.4f]" % (i, d_loss.item(), 100 * d_acc,
                                                                        g_loss.item()))
print("fake_aux_gt", fake_aux_gt.tolist(), fake_aux_gt.dtype)
print("sgan aux", discriminator.aux_layer)
print("sum params", r(sum(p.sum() for p in discriminator.parameters())))
