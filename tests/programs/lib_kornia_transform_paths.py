"""kornia's functions that ask ``torch._C._are_functorch_transforms_active()`` on every call (blurs, brightness and
contrast, focal/dice losses with their custom backward, morphology, ssim, one_hot, distance_transform), called
plainly, with gradients, and under ``torch.func.vmap``/``grad``; augmentations on that path with
``same_on_batch`` True and False."""
import kornia
import kornia.augmentation as K
import torch


def show(name, t):
    t = t.detach()
    flat = " ".join(f"{v:.4f}" for v in t.double().flatten()[::29][:6].tolist())
    print(name, tuple(t.shape), str(t.dtype).split(".")[-1], f"{t.double().abs().sum().item():.3f}", flat)


torch.manual_seed(0)
img = torch.rand(2, 3, 12, 12)
show("box_blur", kornia.filters.box_blur(img, (3, 3)))
show("gaussian_blur2d", kornia.filters.gaussian_blur2d(img, (5, 5), (1.5, 1.5)))
show("adjust_brightness", kornia.enhance.adjust_brightness(img, torch.tensor([0.1, -0.2])))
show("adjust_contrast", kornia.enhance.adjust_contrast(img, 0.5))
kernel = torch.ones(3, 3)
show("dilation", kornia.morphology.dilation(img, kernel))
show("erosion", kornia.morphology.erosion(img, kernel))
show("ssim", kornia.metrics.ssim(img, img.flip(-1), 5))
labels = torch.randint(0, 4, (2, 6, 6))
show("one_hot", kornia.losses.one_hot(labels, 4, device=torch.device("cpu"), dtype=torch.float32))
show("distance_transform", kornia.contrib.distance_transform((img[:, :1] > 0.8).float()))
logits = torch.randn(2, 4, 6, 6, requires_grad=True)
for name, fn in (("focal", lambda: kornia.losses.focal_loss(logits, labels, alpha=0.25, gamma=2.0, reduction="mean")),
                 ("dice", lambda: kornia.losses.dice_loss(logits, labels))):
    logits.grad = None
    loss = fn()
    loss.backward()
    print(name, f"{loss.item():.5f}")
    show(f"{name}_grad", logits.grad)
x = torch.rand(3, 3, 8, 8)
show("vmap_box_blur", torch.func.vmap(lambda t: kornia.filters.box_blur(t[None], (3, 3))[0])(x))
show("vmap_brightness", torch.func.vmap(lambda t: kornia.enhance.adjust_brightness(t, 0.2))(x))
show("grad_focal", torch.func.grad(lambda z: kornia.losses.focal_loss(z, labels, 0.5, reduction="sum"))(logits.detach()))
for name, make in (("RandomBrightness", lambda s: K.RandomBrightness((0.5, 1.5), p=1.0, same_on_batch=s)),
                   ("RandomContrast", lambda s: K.RandomContrast((0.5, 1.5), p=1.0, same_on_batch=s)),
                   ("RandomBoxBlur", lambda s: K.RandomBoxBlur((3, 3), p=1.0, same_on_batch=s)),
                   ("RandomRotation", lambda s: K.RandomRotation(30.0, p=1.0, same_on_batch=s))):
    for same in (True, False):
        torch.manual_seed(1)
        show(f"{name} same={same}", make(same)(img))
