"""kornia: color conversions, filters (gaussian blur, sobel, canny), geometry (rotate, warp_affine, warp_perspective
with a homography from four points, resize), losses (SSIM, PSNR), and seeded augmentation pipelines
(AugmentationSequential with flips, affine and color jitter, then its inverse) on tensors, plus a gradient through
a differentiable warp.  Prints one line per measurement; run the same script with real torch and under
``python -m torchlike run`` and compare.
"""
import numpy as np
import torch
import kornia
import kornia.augmentation as K

rng = np.random.default_rng(0)
img = torch.from_numpy(rng.random((2, 3, 16, 16)).astype(np.float32))


def show(name, x):
    x = x.float()
    print(f"{name} {tuple(x.shape)} {x.sum().item():.4f} {x.abs().sum().item():.4f}")


show("rgb_to_grayscale", kornia.color.rgb_to_grayscale(img))
show("rgb_to_hsv", kornia.color.rgb_to_hsv(img))
show("rgb_to_lab", kornia.color.rgb_to_lab(img))
print("hsv roundtrip below 1e-5", (kornia.color.hsv_to_rgb(kornia.color.rgb_to_hsv(img)) - img).abs().max().item() < 1e-5)
show("gaussian_blur2d", kornia.filters.gaussian_blur2d(img, (5, 5), (1.5, 1.5)))
show("sobel", kornia.filters.sobel(img))
show("median_blur", kornia.filters.median_blur(img, (3, 3)))
mag, edges = kornia.filters.canny(img)
show("canny magnitude", mag)
show("canny edges", edges)
show("rotate", kornia.geometry.transform.rotate(img, torch.tensor([30.0, -45.0])))
show("resize", kornia.geometry.transform.resize(img, (8, 12), antialias=True))
src = torch.tensor([[[0.0, 0.0], [15.0, 0.0], [15.0, 15.0], [0.0, 15.0]]]).repeat(2, 1, 1)
dst = src + torch.tensor([[[1.0, 2.0], [-2.0, 1.0], [-1.0, -2.0], [2.0, -1.0]]])
H = kornia.geometry.transform.get_perspective_transform(src, dst)
show("homography", H)
show("warp_perspective", kornia.geometry.transform.warp_perspective(img, H, (16, 16)))
M = kornia.geometry.transform.get_rotation_matrix2d(torch.tensor([[8.0, 8.0]]).repeat(2, 1),
                                                    torch.tensor([15.0, 60.0]), torch.ones(2, 2))
show("warp_affine", kornia.geometry.transform.warp_affine(img, M, (16, 16)))
other = kornia.filters.gaussian_blur2d(img, (3, 3), (1.0, 1.0))
print(f"ssim loss {kornia.losses.ssim_loss(img, other, 5).item():.6f}")
print(f"psnr {kornia.metrics.psnr(img, other, 1.0).item():.5f}")

torch.manual_seed(0)
aug = K.AugmentationSequential(K.RandomHorizontalFlip(p=0.5), K.RandomAffine(degrees=20.0, translate=(0.1, 0.1), p=1.0),
                               K.ColorJitter(0.2, 0.2, 0.2, 0.05, p=1.0), data_keys=["input"])
out = aug(img)
show("augmented", out)
show("augmentation affine params", aug._params[1].data["angle"] if hasattr(aug._params[1], "data") else out)
show("inverse", aug.inverse(out))
torch.manual_seed(1)
crop = K.RandomResizedCrop((8, 8), scale=(0.5, 1.0), p=1.0)
show("random resized crop", crop(img))
show("normalize", K.Normalize(mean=torch.tensor([0.5, 0.5, 0.5]), std=torch.tensor([0.2, 0.2, 0.2]))(img))

angle = torch.tensor([10.0, 20.0], requires_grad=True)
warped = kornia.geometry.transform.rotate(img, angle)
(warped * img).sum().backward()
print(f"d/dangle {angle.grad.tolist()}")
