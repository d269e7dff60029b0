"""The scorekeeper web page and the server it runs on, in three rooms by job:

* ``webui.app``: the Flask app (``create_app``): its pages, the JSON API, decks, errors,
  the exports, the request bodies, the access token and security headers
  (``security``), the phone link (``connect``), and ``edge``: what the server asks of
  the app beside its WSGI entry.
* ``webui.net``: the server ``hanafuda serve`` runs: granian, with our thin layers
  before the app (limits on a request's work, fair turns per address, early refusal of
  uploads) and the HTTPS certificate.
* ``webui.images``: the image work: the scheduler and its queues, the detection
  service, thread priority, per-address shares, the decoder's own limits.

The arrows point one way (``tests/test_web_layout.py``): the app may use the image work;
the server uses the app only through its WSGI entry and ``webui.app.edge``; the image
work uses neither. ``webui.command`` (``hanafuda serve``) puts them together.
"""

from __future__ import annotations

from webui.images import decoder_limits  # noqa: F401  (first: OpenCV reads its limits as it loads)

from webui.app import DEFAULTS, create_app  # noqa: E402

__all__ = ["DEFAULTS", "create_app"]
