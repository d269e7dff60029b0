"""The waitress server ``hanafuda serve`` runs, with its connection settings chosen for a
LAN of phones and laptops, and its own error answers (400 for a malformed request, 413,
431 for a huge header, 500) carrying the page's security headers.

Why each number (waitress's defaults in brackets):

* ``connection_limit`` 1000 [100]: at the limit waitress stops accepting until a
  connection closes; 101 idle sockets (no byte needed, so no token) stopped everyone for
  two minutes. A connection costs a file descriptor and a few kB, so the limit is high
  and the process's descriptor limit is raised to fit it.
* ``channel_timeout`` 15 s [120] and ``cleanup_interval`` 2 s [30]: an idle connection
  is closed 15-17 s after its last byte. A camera posts every 250 ms and a page polls
  never, so only idle and stalled sockets are closed; a browser reconnects by itself.
* ``asyncore_use_poll`` [off]: select() cannot watch more than 1024 descriptors.
* ``threads`` 16 [4]: the request threads mostly wait for the image workers
  (``webui.scheduler``, one a core) or SQLite; every camera's request should be in
  the scheduler's fair queue, not in waitress's first-come queue before it.
* ``max_request_header_size`` 64 kB [256 kB]: the page's headers are under 2 kB.
* ``max_request_body_size``: the app's upload cap and a little: waitress buffers a body
  before the app sees it, so it refuses the larger ones itself [1 GB]: it reads a body
  up to ``webui.oversize.DRAIN_MAX`` into nothing and answers the API's JSON 413, so
  the client reads the status instead of a connection reset.
"""

from __future__ import annotations

import logging
import resource
from typing import Any

import waitress
from waitress.channel import HTTPChannel
from waitress.task import ErrorTask

from webui.oversize import DRAIN_MAX, parser_for
from webui.security import security_headers

SETTINGS: dict[str, Any] = {
    "connection_limit": 1000,
    "channel_timeout": 15,
    "cleanup_interval": 2,
    "asyncore_use_poll": True,
    "max_request_header_size": 64 * 1024,
    "ident": "hanafuda-scorer",
    "clear_untrusted_proxy_headers": True,
}
THREADS = 16


class HeaderedErrorTask(ErrorTask):
    """waitress's own error answer, with the security headers every answer carries."""

    def execute(self) -> None:
        # ErrorTask.execute, with the headers added before the body is written (the
        # first write sends the header)
        status, headers, body = self.request.error.to_response(self.channel.server.adj.ident)
        self.status = status
        self.response_headers.extend(headers)
        self.response_headers.extend(security_headers("/api/"))
        self.set_close_on_finish()
        self.content_length = len(body)
        self.write(body)


class Channel(HTTPChannel):
    error_task_class = HeaderedErrorTask


def _raise_fd_limit(connections: int) -> None:
    """Room for ``connections`` sockets and the files beside them (SQLite, models)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = connections + 256
    if soft != resource.RLIM_INFINITY and soft < want:
        new = want if hard == resource.RLIM_INFINITY else min(want, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (new, hard))


def make_server(app: Any, host: str, port: int, threads: int = THREADS,
                **overrides: Any) -> Any:
    """A waitress server for ``app`` on ``host:port`` with ``SETTINGS`` (``overrides``
    win; the tests shorten the timeouts). OSError when the address cannot be bound."""
    settings = {**SETTINGS, **overrides}
    app_cap = int(app.config.get("MAX_CONTENT_LENGTH") or 8 * 1024 * 1024)
    cap = int(settings.pop("max_request_body_size", 0) or app_cap + 65536)
    settings["max_request_body_size"] = max(cap + 1, DRAIN_MAX)
    _raise_fd_limit(int(settings["connection_limit"]))
    # waitress warns "Task queue depth is N" whenever a request waits for a thread (a page
    # load fetches a few files at once): ordinary here, and alarming to read
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)
    server = waitress.create_server(app, host=host, port=port, threads=threads, **settings)
    server.channel_class = type("Channel", (Channel,), {"parser_class": parser_for(cap, app_cap)})
    return server
