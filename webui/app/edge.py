"""What the server (``webui.net``) asks of the app beside its WSGI entry, in one place,
so that the server imports nothing else of the app:

* ``admits_for(app)``: whether a request (its WSGI environ, its body unread) carries
  the app's token (the turns of ``webui.net.shares``);
* ``judge_for(app)``: an upload the app would refuse or the scheduler would not take,
  judged from its first bytes as the app would (``webui.net.early``), with ``Judge`` and
  ``image_start``;
* ``security_headers(path)``: the headers every answer carries, the server's own too;
* ``too_large_message``: the 413's words, the app's and the server's.
"""

from __future__ import annotations

from typing import Any, Callable

from werkzeug.wrappers import Request

from scorer.errors import Busy, InputError
from scorer.vision import imageheader
from scorer.vision.image import Upload
from scorer.vision.imageheader import ImageTooLarge
from webui.app.errors import megabytes, too_large_message
from webui.app.security import Credentials, admitted, security_headers, token_verdict

__all__ = ["Judge", "admits_for", "image_start", "judge_for", "megabytes", "request_of",
           "security_headers", "too_large_message"]

Environ = dict[str, Any]

#: ``judge(address, environ, prefix)``: the refusal for a request whose head is read
#: and whose body starts with ``prefix`` (the scheduler's ``Busy``, or ``ImageTooLarge``),
#: or None to read it whole.
Judge = Callable[[str, Any, bytes], Busy | ImageTooLarge | None]


def image_start(content_type: str, prefix: bytes) -> bytes:
    """Where the image begins in a body: at once, or after its first part's headers for
    a form (``request.files["image"]``)."""
    if content_type.lower().startswith("multipart/form-data"):
        end = prefix.find(b"\r\n\r\n")
        return prefix[end + 4:] if end >= 0 else b""
    return prefix


def request_of(environ: Environ, request_class: type[Request] = Request) -> Request | None:
    """The request of a WSGI ``environ`` (its body unread), as the app will see it. None
    without a Host header: the app would read the server's name in its place."""
    if "HTTP_HOST" not in environ:
        return None
    return request_class(environ)


def admits_for(app: Any) -> Callable[[Environ], bool]:
    """Whether a request (its environ) carries this app's token (always, without one):
    the app's own ``token_verdict`` of it, ``ok`` or ``url``."""
    creds: Credentials | None = app.extensions.get("credentials")

    def admits(environ: Environ) -> bool:
        if creds is None:
            return True
        return token_verdict(app.request_class(environ), creds) in ("ok", "url")
    return admits


def judge_for(app: Any) -> Judge:
    """The judge of ``app``'s uploads: its token, Host and CSRF checks
    (``webui.app.security.admitted``), its detection service's limits, detector and
    scheduler (see the module)."""
    service = app.extensions["hanafuda"]["detection"]

    def judge(address: str, environ: Environ, prefix: bytes) -> Busy | ImageTooLarge | None:
        req = request_of(environ, app.request_class)
        if req is None or not admitted(req, app.extensions.get("credentials")):
            return None                         # the app's 401 or 403 (and its count of guesses)
        if not service.loaded:
            return None
        try:
            info = imageheader.check(image_start(req.headers.get("Content-Type", ""), prefix),
                                     service.limits.max_pixels, service.limits.max_side)
            service.limits.check(info)
        except ImageTooLarge as exc:
            return exc                          # the app's 413, from the same header
        except InputError:
            return None
        cost = Upload(b"", info).cost(service.detector().useful_side)
        return service.scheduler.refusal(address, cost)
    return judge
