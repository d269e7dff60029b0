"""``python -m webui``: the ``hanafuda`` command with the web's own commands (``serve``)
registered directly, whether or not the installed package's entry points list them."""

from __future__ import annotations

import sys

from scorer.cli import main
from webui import command

if __name__ == "__main__":
    sys.exit(main(extra=[command]))
