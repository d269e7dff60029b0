"""The hardened waitress server ``hanafuda serve`` runs (see ``webui.net.server``):
connections per address, fair request threads, early refusal, oversize bodies and
TLS. It reaches the app only through its WSGI entry and ``webui.app.edge``."""
