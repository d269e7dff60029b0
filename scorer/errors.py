"""The one exception type the edges (CLI, web) turn into a clear message."""


class InputError(ValueError):
    """Bad input from a user: an unknown card code, a card in two piles, a bad option...

    The message is meant to be shown as is, on one line.
    """


class StateError(InputError):
    """The request does not fit the game's state (a confirmed round, a finished game)."""


class StalePile(StateError):
    """A pile write named a version that is not the pile's: someone changed it since
    (409, with the pile as it is now). ``current`` is that pile (None: not saved)."""

    def __init__(self, message: str, current: object = None) -> None:
        super().__init__(message)
        self.current = current


class Busy(Exception):
    """Work that cannot start in time (the web answers 503 with ``Retry-After``:
    ``retry_after`` seconds)."""

    def __init__(self, message: str, retry_after: int = 1) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class DetectorUnavailable(Exception):
    """No card detector could be loaded (the web answers 503, with the reason)."""
