"""The server ``hanafuda serve`` runs (see ``webui.net.server``): granian, with thin layers
before the app (``guard``: limits on a request's work, ``shares``: fair turns per client
address, ``early``: an upload refused from its header) and the HTTPS certificate
(``tls``). It reaches the app only through its WSGI entry and ``webui.app.edge``."""
