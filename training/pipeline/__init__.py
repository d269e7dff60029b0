"""The recipe's commands over one run (``context.Run``): the first stages on cached
scenes (``chain``), the later ones on streamed scenes (``campaign``), judging a model
(``judge``; the campaign's curve, ``curve``) and shipping it (``shipping``). ``COMMANDS``
is what ``python -m training`` offers; ``ALL`` the order ``all`` runs them in."""
