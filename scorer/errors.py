"""The one exception type the edges (CLI, web) turn into a clear message."""


class InputError(ValueError):
    """Bad input from a user: an unknown card code, a card in two piles, a bad option...

    The message is meant to be shown as is, on one line.
    """


class StateError(InputError):
    """The request does not fit the game's state (a confirmed round, a finished game)."""
