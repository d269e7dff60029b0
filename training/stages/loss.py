"""The localiser's loss on its training targets (``training.data.targets``): the focal
loss on the centre heat map, L1 on the box regression."""

from __future__ import annotations
import torch
import torch.nn.functional as F


def focal_loss(logit, hm, ign, pos_weight=None):
    p = torch.sigmoid(logit).clamp(1e-4, 1 - 1e-4)
    pos = (hm >= 0.999).float()
    neg = (1 - pos) * (1 - ign)
    pl = -torch.log(p) * (1 - p) ** 2 * pos * (1 if pos_weight is None else pos_weight)
    nl = -torch.log(1 - p) * p ** 2 * (1 - hm) ** 4 * neg
    npos = pos.sum().clamp(min=1)
    return (pl.sum() + nl.sum()) / npos


def loc_loss(out, hm, ign, reg, regm, angle_weight=1.0, weights=None):
    """The localiser's loss; ``weights`` (per output cell) scales the positive and
    regression terms (e.g. up on half-hidden cards, ``band_mask``)."""
    l_hm = focal_loss(out[:, 0], hm, ign, weights)
    if weights is not None:
        regm = regm * weights
    m = regm[:, None]
    den = regm.sum().clamp(min=1)
    l_wh = (F.l1_loss(out[:, 1:3], reg[:, 0:2], reduction="none") * m).sum() / den
    l_an = (F.l1_loss(out[:, 3:5], reg[:, 2:4], reduction="none") * m).sum() / den
    l_of = (F.l1_loss(out[:, 5:7], reg[:, 4:6], reduction="none") * m).sum() / den
    return l_hm + l_wh + angle_weight * l_an + 0.5 * l_of, \
        (l_hm.item(), l_wh.item(), l_an.item(), l_of.item())
