"""Augmentations on batched tensors, shared by the streamed stages (realistic, lite
localiser, leave-one-deck-out): colour, half turns, random windows."""

from __future__ import annotations

import torch


def to_input(x: torch.Tensor, device) -> torch.Tensor:
    """(N,H,W,3) uint8 BGR -> (N,3,H,W) float RGB 0..255 on ``device``."""
    return x.to(device, non_blocking=True).permute(0, 3, 1, 2).flip(1).float()


def colour_jitter(x: torch.Tensor, gen: torch.Generator, gain: float = 0.2,
            bright: float = 20.0) -> torch.Tensor:
    """Each image's colour channels scaled by 1 +- ``gain``, its brightness moved by
    +- ``bright`` (0..255 scale)."""
    n = x.shape[0]
    g = 1 - gain + 2 * gain * torch.rand(n, 3, 1, 1, generator=gen, device=x.device)
    b = 2 * bright * torch.rand(n, 1, 1, 1, generator=gen, device=x.device) - bright
    return (x * g + b).clamp(0, 255)


def turn_half(x: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """Half the crops turned 180 degrees: the classifier reads cards either way up."""
    turn = torch.rand(x.shape[0], generator=gen, device=x.device) < 0.5
    return torch.where(turn[:, None, None, None], x.flip(2, 3), x)


def camera_jitter(x: torch.Tensor, gen: torch.Generator, share: float) -> torch.Tensor:
    """A ``share`` of the crops (N,3,H,W, 0..255) seen through another camera: detail lost
    (down to 40-90% of the size and back), contrast bent (gamma 0.7-1.4), colour
    washed out or pushed (saturation 0.6-1.3), sensor noise (sigma up to 8)."""
    import torch.nn.functional as F
    n, _, h, w = x.shape
    hit = torch.rand(n, generator=gen) < share
    if not hit.any():
        return x
    y = x[hit]
    m = y.shape[0]
    s = float(0.4 + 0.5 * torch.rand(1, generator=gen))
    small = F.interpolate(y, size=(max(8, int(h * s)), max(8, int(w * s))), mode="area")
    y = F.interpolate(small, size=(h, w), mode="bilinear", align_corners=False)
    gamma = 0.7 + 0.7 * torch.rand(m, 1, 1, 1, generator=gen)
    y = 255.0 * (y.clamp(0, 255) / 255.0) ** gamma
    grey = y.mean(1, keepdim=True)
    sat = 0.6 + 0.7 * torch.rand(m, 1, 1, 1, generator=gen)
    y = grey + (y - grey) * sat
    y = y + torch.randn(y.shape, generator=gen) * 8.0 * torch.rand(m, 1, 1, 1, generator=gen)
    out = x.clone()
    out[hit] = y.clamp(0, 255)
    return out


def cover_edge(x: torch.Tensor, gen: torch.Generator, share: float,
               depth: tuple[float, float] = (0.2, 0.45)) -> torch.Tensor:
    """A ``share`` of the crops (N,3,H,W) with a band along one edge, ``depth`` of the
    crop deep, replaced by the same band of another crop in the batch: a card lying over
    part of this one, as in a pile. Labels stay: most of the card is still seen."""
    n, _, h, w = x.shape
    out = x.clone()
    hit = torch.nonzero(torch.rand(n, generator=gen) < share).flatten().tolist()
    for i in hit:
        j = (i + 1 + int(torch.randint(n - 1, (1,), generator=gen))) % n if n > 1 else i
        edge = int(torch.randint(4, (1,), generator=gen))
        d = depth[0] + (depth[1] - depth[0]) * float(torch.rand(1, generator=gen))
        if edge < 2:
            k = max(1, int(round(h * d)))
            rows = slice(0, k) if edge == 0 else slice(h - k, h)
            out[i, :, rows] = x[j, :, rows]
        else:
            k = max(1, int(round(w * d)))
            cols = slice(0, k) if edge == 2 else slice(w - k, w)
            out[i, :, :, cols] = x[j, :, :, cols]
    return out


def random_window(x: torch.Tensor, maps: list[torch.Tensor], w: int, h: int, gen,
            align: int = 4):
    """The same random window (its corner on multiples of ``align``, at least the
    output stride 4) of the frames and of their target maps."""
    H, W = x.shape[2:]
    if not w or not h or (w >= W and h >= H):
        return x, maps
    x0 = int(torch.randint((W - w) // align + 1, (1,), generator=gen, device=gen.device)) * align
    y0 = int(torch.randint((H - h) // align + 1, (1,), generator=gen, device=gen.device)) * align
    x = x[:, :, y0:y0 + h, x0:x0 + w]
    return x, [m[..., y0 // 4:(y0 + h) // 4, x0 // 4:(x0 + w) // 4] for m in maps]
