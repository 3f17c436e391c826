"""CycleGAN and pix2pix after junyanz/pytorch-CycleGAN-and-pix2pix (own code, synthetic images, no downloads).

networks.py: ``get_norm_layer`` returning ``functools.partial(nn.InstanceNorm2d, affine=False,
track_running_stats=False)`` and ``use_bias = norm_layer.func == nn.InstanceNorm2d``; the ResnetGenerator
(``ReflectionPad2d(3)``, 7x7 convolutions, strided downsampling, ResnetBlocks with reflect/replicate/zero padding and
``Dropout(0.5)``, ``ConvTranspose2d(..., output_padding=1)`` upsampling, ``Tanh``); the UnetGenerator built from
recursive UnetSkipConnectionBlocks whose in-place ``LeakyReLU(0.2, True)`` rewrites the skip tensor before
``torch.cat([x, self.model(x)], 1)``; the PatchGAN NLayerDiscriminator; ``init_weights`` through ``net.apply`` with
``classname.find('Conv')`` and ``init.normal_(m.weight.data, 0.0, 0.02)``; GANLoss with ``register_buffer`` label
tensors ``expand_as`` the prediction (lsgan ``MSELoss``, vanilla ``BCEWithLogitsLoss``); the linear-decay
``LambdaLR``. util/image_pool.py's ImagePool (``torch.unsqueeze(image.data, 0)``, python ``random``, ``clone``).
cycle_gan_model.py's optimize_parameters (``set_requires_grad`` of the discriminators around the generator step,
identity and cycle L1 losses, ``itertools.chain`` of generator parameters, ``fake.detach()`` for D) and
pix2pix_model.py's conditional D on ``torch.cat((real_A, fake_B), 1)`` with the L1 term."""
import functools
import itertools
import random

import torch
import torch.nn as nn
from torch.nn import init
from torch.optim import lr_scheduler

torch.manual_seed(0)
random.seed(0)


def get_norm_layer(norm_type='instance'):
    if norm_type == 'batch':
        norm_layer = functools.partial(nn.BatchNorm2d, affine=True, track_running_stats=True)
    elif norm_type == 'instance':
        norm_layer = functools.partial(nn.InstanceNorm2d, affine=False, track_running_stats=False)
    else:
        raise NotImplementedError('normalization layer [%s] is not found' % norm_type)
    return norm_layer


def get_scheduler(optimizer, epoch_count=1, n_epochs=2, n_epochs_decay=3):
    def lambda_rule(epoch):
        lr_l = 1.0 - max(0, epoch + epoch_count - n_epochs) / float(n_epochs_decay + 1)
        return lr_l
    return lr_scheduler.LambdaLR(optimizer, lr_lambda=lambda_rule)


def init_weights(net, init_type='normal', init_gain=0.02):
    def init_func(m):
        classname = m.__class__.__name__
        if hasattr(m, 'weight') and (classname.find('Conv') != -1 or classname.find('Linear') != -1):
            if init_type == 'normal':
                init.normal_(m.weight.data, 0.0, init_gain)
            elif init_type == 'xavier':
                init.xavier_normal_(m.weight.data, gain=init_gain)
            if hasattr(m, 'bias') and m.bias is not None:
                init.constant_(m.bias.data, 0.0)
        elif classname.find('BatchNorm2d') != -1:
            init.normal_(m.weight.data, 1.0, init_gain)
            init.constant_(m.bias.data, 0.0)
    net.apply(init_func)
    return net


class GANLoss(nn.Module):
    def __init__(self, gan_mode, target_real_label=1.0, target_fake_label=0.0):
        super(GANLoss, self).__init__()
        self.register_buffer('real_label', torch.tensor(target_real_label))
        self.register_buffer('fake_label', torch.tensor(target_fake_label))
        self.gan_mode = gan_mode
        if gan_mode == 'lsgan':
            self.loss = nn.MSELoss()
        elif gan_mode == 'vanilla':
            self.loss = nn.BCEWithLogitsLoss()
        else:
            raise NotImplementedError('gan mode %s not implemented' % gan_mode)

    def get_target_tensor(self, prediction, target_is_real):
        target_tensor = self.real_label if target_is_real else self.fake_label
        return target_tensor.expand_as(prediction)

    def __call__(self, prediction, target_is_real):
        target_tensor = self.get_target_tensor(prediction, target_is_real)
        return self.loss(prediction, target_tensor)


class ResnetBlock(nn.Module):
    def __init__(self, dim, padding_type, norm_layer, use_dropout, use_bias):
        super(ResnetBlock, self).__init__()
        self.conv_block = self.build_conv_block(dim, padding_type, norm_layer, use_dropout, use_bias)

    def build_conv_block(self, dim, padding_type, norm_layer, use_dropout, use_bias):
        conv_block = []
        p = 0
        if padding_type == 'reflect':
            conv_block += [nn.ReflectionPad2d(1)]
        elif padding_type == 'replicate':
            conv_block += [nn.ReplicationPad2d(1)]
        elif padding_type == 'zero':
            p = 1
        else:
            raise NotImplementedError('padding [%s] is not implemented' % padding_type)
        conv_block += [nn.Conv2d(dim, dim, kernel_size=3, padding=p, bias=use_bias), norm_layer(dim), nn.ReLU(True)]
        if use_dropout:
            conv_block += [nn.Dropout(0.5)]
        p = 0
        if padding_type == 'reflect':
            conv_block += [nn.ReflectionPad2d(1)]
        elif padding_type == 'replicate':
            conv_block += [nn.ReplicationPad2d(1)]
        elif padding_type == 'zero':
            p = 1
        conv_block += [nn.Conv2d(dim, dim, kernel_size=3, padding=p, bias=use_bias), norm_layer(dim)]
        return nn.Sequential(*conv_block)

    def forward(self, x):
        out = x + self.conv_block(x)
        return out


class ResnetGenerator(nn.Module):
    def __init__(self, input_nc, output_nc, ngf=64, norm_layer=nn.BatchNorm2d, use_dropout=False, n_blocks=6,
                 padding_type='reflect'):
        assert (n_blocks >= 0)
        super(ResnetGenerator, self).__init__()
        if type(norm_layer) == functools.partial:
            use_bias = norm_layer.func == nn.InstanceNorm2d
        else:
            use_bias = norm_layer == nn.InstanceNorm2d
        model = [nn.ReflectionPad2d(3),
                 nn.Conv2d(input_nc, ngf, kernel_size=7, padding=0, bias=use_bias),
                 norm_layer(ngf),
                 nn.ReLU(True)]
        n_downsampling = 2
        for i in range(n_downsampling):
            mult = 2 ** i
            model += [nn.Conv2d(ngf * mult, ngf * mult * 2, kernel_size=3, stride=2, padding=1, bias=use_bias),
                      norm_layer(ngf * mult * 2),
                      nn.ReLU(True)]
        mult = 2 ** n_downsampling
        for i in range(n_blocks):
            pad = padding_type if i == 0 else ('replicate', 'zero')[i % 2]
            model += [ResnetBlock(ngf * mult, padding_type=pad, norm_layer=norm_layer, use_dropout=use_dropout,
                                  use_bias=use_bias)]
        for i in range(n_downsampling):
            mult = 2 ** (n_downsampling - i)
            model += [nn.ConvTranspose2d(ngf * mult, int(ngf * mult / 2), kernel_size=3, stride=2, padding=1,
                                         output_padding=1, bias=use_bias),
                      norm_layer(int(ngf * mult / 2)),
                      nn.ReLU(True)]
        model += [nn.ReflectionPad2d(3)]
        model += [nn.Conv2d(ngf, output_nc, kernel_size=7, padding=0)]
        model += [nn.Tanh()]
        self.model = nn.Sequential(*model)

    def forward(self, input):
        return self.model(input)


class UnetSkipConnectionBlock(nn.Module):
    def __init__(self, outer_nc, inner_nc, input_nc=None, submodule=None, outermost=False, innermost=False,
                 norm_layer=nn.BatchNorm2d, use_dropout=False):
        super(UnetSkipConnectionBlock, self).__init__()
        self.outermost = outermost
        if type(norm_layer) == functools.partial:
            use_bias = norm_layer.func == nn.InstanceNorm2d
        else:
            use_bias = norm_layer == nn.InstanceNorm2d
        if input_nc is None:
            input_nc = outer_nc
        downconv = nn.Conv2d(input_nc, inner_nc, kernel_size=4, stride=2, padding=1, bias=use_bias)
        downrelu = nn.LeakyReLU(0.2, True)
        downnorm = norm_layer(inner_nc)
        uprelu = nn.ReLU(True)
        upnorm = norm_layer(outer_nc)
        if outermost:
            upconv = nn.ConvTranspose2d(inner_nc * 2, outer_nc, kernel_size=4, stride=2, padding=1)
            down = [downconv]
            up = [uprelu, upconv, nn.Tanh()]
            model = down + [submodule] + up
        elif innermost:
            upconv = nn.ConvTranspose2d(inner_nc, outer_nc, kernel_size=4, stride=2, padding=1, bias=use_bias)
            down = [downrelu, downconv]
            up = [uprelu, upconv, upnorm]
            model = down + up
        else:
            upconv = nn.ConvTranspose2d(inner_nc * 2, outer_nc, kernel_size=4, stride=2, padding=1, bias=use_bias)
            down = [downrelu, downconv, downnorm]
            up = [uprelu, upconv, upnorm]
            if use_dropout:
                model = down + [submodule] + up + [nn.Dropout(0.5)]
            else:
                model = down + [submodule] + up
        self.model = nn.Sequential(*model)

    def forward(self, x):
        if self.outermost:
            return self.model(x)
        else:
            return torch.cat([x, self.model(x)], 1)


class UnetGenerator(nn.Module):
    def __init__(self, input_nc, output_nc, num_downs, ngf=64, norm_layer=nn.BatchNorm2d, use_dropout=False):
        super(UnetGenerator, self).__init__()
        unet_block = UnetSkipConnectionBlock(ngf * 4, ngf * 4, input_nc=None, submodule=None, norm_layer=norm_layer,
                                             innermost=True)
        for i in range(num_downs - 4):
            unet_block = UnetSkipConnectionBlock(ngf * 4, ngf * 4, input_nc=None, submodule=unet_block,
                                                 norm_layer=norm_layer, use_dropout=use_dropout)
        unet_block = UnetSkipConnectionBlock(ngf * 2, ngf * 4, input_nc=None, submodule=unet_block,
                                             norm_layer=norm_layer)
        unet_block = UnetSkipConnectionBlock(ngf, ngf * 2, input_nc=None, submodule=unet_block, norm_layer=norm_layer)
        self.model = UnetSkipConnectionBlock(output_nc, ngf, input_nc=input_nc, submodule=unet_block, outermost=True,
                                             norm_layer=norm_layer)

    def forward(self, input):
        return self.model(input)


class NLayerDiscriminator(nn.Module):
    def __init__(self, input_nc, ndf=64, n_layers=3, norm_layer=nn.BatchNorm2d):
        super(NLayerDiscriminator, self).__init__()
        if type(norm_layer) == functools.partial:
            use_bias = norm_layer.func == nn.InstanceNorm2d
        else:
            use_bias = norm_layer == nn.InstanceNorm2d
        kw = 4
        padw = 1
        sequence = [nn.Conv2d(input_nc, ndf, kernel_size=kw, stride=2, padding=padw), nn.LeakyReLU(0.2, True)]
        nf_mult = 1
        nf_mult_prev = 1
        for n in range(1, n_layers):
            nf_mult_prev = nf_mult
            nf_mult = min(2 ** n, 8)
            sequence += [
                nn.Conv2d(ndf * nf_mult_prev, ndf * nf_mult, kernel_size=kw, stride=2, padding=padw, bias=use_bias),
                norm_layer(ndf * nf_mult),
                nn.LeakyReLU(0.2, True)
            ]
        nf_mult_prev = nf_mult
        nf_mult = min(2 ** n_layers, 8)
        sequence += [
            nn.Conv2d(ndf * nf_mult_prev, ndf * nf_mult, kernel_size=kw, stride=1, padding=padw, bias=use_bias),
            norm_layer(ndf * nf_mult),
            nn.LeakyReLU(0.2, True)
        ]
        sequence += [nn.Conv2d(ndf * nf_mult, 1, kernel_size=kw, stride=1, padding=padw)]
        self.model = nn.Sequential(*sequence)

    def forward(self, input):
        return self.model(input)


class ImagePool():
    def __init__(self, pool_size):
        self.pool_size = pool_size
        if self.pool_size > 0:
            self.num_imgs = 0
            self.images = []

    def query(self, images):
        if self.pool_size == 0:
            return images
        return_images = []
        for image in images:
            image = torch.unsqueeze(image.data, 0)
            if self.num_imgs < self.pool_size:
                self.num_imgs = self.num_imgs + 1
                self.images.append(image)
                return_images.append(image)
            else:
                p = random.uniform(0, 1)
                if p > 0.5:
                    random_id = random.randint(0, self.pool_size - 1)
                    tmp = self.images[random_id].clone()
                    self.images[random_id] = image
                    return_images.append(tmp)
                else:
                    return_images.append(image)
        return_images = torch.cat(return_images, 0)
        return return_images


def set_requires_grad(nets, requires_grad=False):
    if not isinstance(nets, list):
        nets = [nets]
    for net in nets:
        if net is not None:
            for param in net.parameters():
                param.requires_grad = requires_grad


# ---------------------------------------------------------------- pieces
norm_layer = get_norm_layer('instance')
print("norm partial", norm_layer.func.__name__, norm_layer.keywords, norm_layer(4))
pad = nn.ReflectionPad2d(2)(torch.arange(9.).view(1, 1, 3, 3))
print("reflect pad", tuple(pad.shape), pad[0, 0, 0].tolist())
print("replicate pad", nn.ReplicationPad2d(1)(torch.arange(4.).view(1, 1, 2, 2))[0, 0, 0].tolist())
x = torch.randn(2, 3, 5, 5)
inorm = nn.InstanceNorm2d(3)(x)
print("instance norm", f"{abs(inorm.mean().item()):.4f}", f"{inorm[0, 0].std(unbiased=False).item():.4f}")
gan = GANLoss('lsgan')
print("ganloss buffers", [(n, b.dtype, tuple(b.shape)) for n, b in gan.named_buffers()],
      tuple(gan.get_target_tensor(torch.zeros(2, 1, 3, 3), True).stride()))
pool = ImagePool(3)

# ---------------------------------------------------------------- CycleGAN
netG_A = init_weights(ResnetGenerator(3, 3, ngf=4, norm_layer=norm_layer, use_dropout=False, n_blocks=3))
netG_B = init_weights(ResnetGenerator(3, 3, ngf=4, norm_layer=norm_layer, use_dropout=False, n_blocks=2))
netD_A = init_weights(NLayerDiscriminator(3, ndf=4, n_layers=2, norm_layer=norm_layer))
netD_B = init_weights(NLayerDiscriminator(3, ndf=4, n_layers=2, norm_layer=norm_layer))
print("G params", sum(p.numel() for p in netG_A.parameters()), "D params", sum(p.numel() for p in netD_A.parameters()))
print("G pads", [type(m).__name__ for m in netG_A.modules() if 'Pad' in type(m).__name__])
print(netG_A.model[4])
fake_B_pool, fake_A_pool = ImagePool(3), ImagePool(3)
criterionGAN = GANLoss('lsgan')
criterionCycle = torch.nn.L1Loss()
criterionIdt = torch.nn.L1Loss()
optimizer_G = torch.optim.Adam(itertools.chain(netG_A.parameters(), netG_B.parameters()), lr=2e-4, betas=(0.5, 0.999))
optimizer_D = torch.optim.Adam(itertools.chain(netD_A.parameters(), netD_B.parameters()), lr=2e-4, betas=(0.5, 0.999))
schedulers = [get_scheduler(optimizer) for optimizer in [optimizer_G, optimizer_D]]
lambda_A, lambda_B, lambda_idt = 10.0, 10.0, 0.5
gen = torch.Generator().manual_seed(3)
domain_A = torch.tanh(torch.randn(6, 3, 16, 16, generator=gen))
domain_B = torch.tanh(torch.randn(6, 3, 16, 16, generator=gen) * 0.5 + 0.3)


def backward_D_basic(netD, real, fake):
    pred_real = netD(real)
    loss_D_real = criterionGAN(pred_real, True)
    pred_fake = netD(fake.detach())
    loss_D_fake = criterionGAN(pred_fake, False)
    loss_D = (loss_D_real + loss_D_fake) * 0.5
    loss_D.backward()
    return loss_D


for epoch in range(1, 3):
    for i in range(0, 6, 3):
        real_A, real_B = domain_A[i:i + 3], domain_B[i:i + 3]
        fake_B = netG_A(real_A)
        rec_A = netG_B(fake_B)
        fake_A = netG_B(real_B)
        rec_B = netG_A(fake_A)
        set_requires_grad([netD_A, netD_B], False)
        optimizer_G.zero_grad()
        idt_A = netG_A(real_B)
        loss_idt_A = criterionIdt(idt_A, real_B) * lambda_B * lambda_idt
        idt_B = netG_B(real_A)
        loss_idt_B = criterionIdt(idt_B, real_A) * lambda_A * lambda_idt
        loss_G_A = criterionGAN(netD_A(fake_B), True)
        loss_G_B = criterionGAN(netD_B(fake_A), True)
        loss_cycle_A = criterionCycle(rec_A, real_A) * lambda_A
        loss_cycle_B = criterionCycle(rec_B, real_B) * lambda_B
        loss_G = loss_G_A + loss_G_B + loss_cycle_A + loss_cycle_B + loss_idt_A + loss_idt_B
        loss_G.backward()
        d_grads = [p.grad for p in netD_A.parameters()]
        optimizer_G.step()
        set_requires_grad([netD_A, netD_B], True)
        optimizer_D.zero_grad()
        loss_D_A = backward_D_basic(netD_A, real_B, fake_B_pool.query(fake_B))
        loss_D_B = backward_D_basic(netD_B, real_A, fake_A_pool.query(fake_A))
        optimizer_D.step()
    for scheduler in schedulers:
        scheduler.step()
    errors = {'D_A': loss_D_A, 'G_A': loss_G_A, 'cycle_A': loss_cycle_A, 'idt_A': loss_idt_A, 'D_B': loss_D_B,
              'G_B': loss_G_B, 'cycle_B': loss_cycle_B, 'idt_B': loss_idt_B}
    message = '(epoch: %d) ' % epoch + ''.join('%s: %.3f ' % (k, float(v)) for k, v in errors.items())
    print(message.strip())
    print("learning rate %.7f" % optimizer_G.param_groups[0]['lr'])
print("fake", tuple(fake_B.shape), fake_B.dtype, "in tanh range", bool(fake_B.abs().max() < 1),
      "D grads during G step", all(gr is None for gr in d_grads))
print("pool", fake_B_pool.num_imgs, len(fake_B_pool.images), tuple(fake_B_pool.images[0].shape),
      fake_B_pool.images[0].requires_grad)
print("patch", tuple(netD_A(domain_A[:2]).shape), "lr_lambda", [round(schedulers[0].lr_lambdas[0](e), 3)
                                                                  for e in range(5)])

# ---------------------------------------------------------------- pix2pix
torch.manual_seed(4)
netG = init_weights(UnetGenerator(3, 3, 4, ngf=4, norm_layer=get_norm_layer('batch'), use_dropout=True))
netD = init_weights(NLayerDiscriminator(6, ndf=4, n_layers=2, norm_layer=get_norm_layer('batch')))
print("unet params", sum(p.numel() for p in netG.parameters()), "innermost",
      type(netG.model.model[1].model[3].model[3].model[2]).__name__)
skip = torch.randn(1, 2, 4, 4)
before = skip.clone()
blk = UnetSkipConnectionBlock(2, 4, innermost=True)
out = blk(skip)
print("inplace skip", tuple(out.shape), "changed", not torch.equal(skip, before), "is leaky",
      torch.allclose(skip, torch.where(before > 0, before, 0.2 * before)), torch.equal(out[:, :2], skip))
criterionGAN = GANLoss('vanilla')
criterionL1 = torch.nn.L1Loss()
optimizer_G = torch.optim.Adam(netG.parameters(), lr=2e-3, betas=(0.5, 0.999))
optimizer_D = torch.optim.Adam(netD.parameters(), lr=2e-3, betas=(0.5, 0.999))
for step in range(2):
    real_A, real_B = domain_A[:4], domain_B[:4]
    fake_B = netG(real_A)
    set_requires_grad(netD, True)
    optimizer_D.zero_grad()
    fake_AB = torch.cat((real_A, fake_B), 1)
    pred_fake = netD(fake_AB.detach())
    loss_D_fake = criterionGAN(pred_fake, False)
    real_AB = torch.cat((real_A, real_B), 1)
    pred_real = netD(real_AB)
    loss_D_real = criterionGAN(pred_real, True)
    loss_D = (loss_D_fake + loss_D_real) * 0.5
    loss_D.backward()
    optimizer_D.step()
    set_requires_grad(netD, False)
    optimizer_G.zero_grad()
    pred_fake = netD(torch.cat((real_A, fake_B), 1))
    loss_G_GAN = criterionGAN(pred_fake, True)
    loss_G_L1 = criterionL1(fake_B, real_B) * 100.0
    loss_G = loss_G_GAN + loss_G_L1
    loss_G.backward()
    optimizer_G.step()
    print("pix2pix", step, "G_GAN %.4f G_L1 %.4f D_real %.4f D_fake %.4f" % (
        loss_G_GAN.item(), loss_G_L1.item(), loss_D_real.item(), loss_D_fake.item()))
netG.eval()
with torch.no_grad():
    test = netG(domain_A[4:])
print("eval", tuple(test.shape), f"{test.abs().mean().item():.4f}", "bn tracked",
      int(netG.model.model[1].model[2].num_batches_tracked))
