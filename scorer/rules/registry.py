"""Every variant of hanafuda the engine plays (Sakura, Koi-Koi, Hana-Awase, Go-Stop,
Hachi-Hachi), by name, as python-chess lists its ``VARIANTS``. A new variant is one module of
``scorer.rules`` with a ``VARIANT`` object (see ``scorer.rules.base.Variant``), imported
here and listed in ``VARIANTS``."""

from __future__ import annotations

from scorer.errors import InputError
from scorer.rules import gostop, hachihachi, hanaawase, koikoi, sakura
from scorer.rules.base import Variant

#: The variants, in the order they are listed.
VARIANTS: dict[str, Variant] = {variant.name: variant for variant in (
    sakura.VARIANT, koikoi.VARIANT, hanaawase.VARIANT, gostop.VARIANT, hachihachi.VARIANT)}


def get_variant(name: str) -> Variant:
    """The variant called ``name``; InputError listing the variants otherwise."""
    if name not in VARIANTS:
        raise InputError(f"unknown game {name!r} (games: {', '.join(VARIANTS)})")
    return VARIANTS[name]
