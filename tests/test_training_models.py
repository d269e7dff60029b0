"""Growing a trained classifier: the grown network starts out as the one it grew from."""

from __future__ import annotations

import pytest
import torch

from training.nets.networks import build_classifier


@pytest.fixture(scope="module")
def truncated():
    torch.manual_seed(0)
    net = build_classifier("lite0-b8f").eval()
    with torch.no_grad():  # a "trained" head: not the fresh initialisation
        net.head[0].weight.normal_(0, 0.1)
        net.fc.weight.normal_(0, 0.1)
    return net


def test_grown_classifier_starts_as_the_truncated_one(truncated):
    grown = build_classifier("lite0-b8f-x3").eval()
    assert len(grown.extra) == 3
    grown.load_state_dict({**grown.state_dict(), **truncated.state_dict()})
    x = torch.rand(3, 3, 112, 72) * 255
    with torch.no_grad():
        assert torch.allclose(grown(x), truncated(x), atol=1e-5)


def test_the_grown_branch_learns(truncated):
    grown = build_classifier("lite0-b8f-x3")
    grown.load_state_dict({**grown.state_dict(), **truncated.state_dict()})
    loss = grown(torch.rand(4, 3, 112, 72) * 255).logsumexp(1).mean()
    loss.backward()
    assert grown.extra_proj.weight.grad.abs().sum() > 0
    assert all(p.requires_grad for p in grown.extra.parameters())
    assert not any(p.requires_grad for p in grown.stem.parameters())  # still frozen


def test_unknown_arch_is_refused():
    with pytest.raises(ValueError, match="unknown classifier arch"):
        build_classifier("resnet")
