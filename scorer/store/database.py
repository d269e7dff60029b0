"""One SQLite file shared by the game and deck stores: migrated once when it is opened,
a connection per unit of work, and the one write-transaction helper.

A caller that does several things in one request (confirm a round, then teach its deck,
then read the game back) wraps them in ``with db.connection():``: every store call inside
reuses that connection, so the request opens one. Each write is still its own
``BEGIN IMMEDIATE`` transaction.
"""

from __future__ import annotations

import sqlite3
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from scorer.store.schema import connect, migrate


class Database:
    """Access to one database file. Cheap to share; holds a connection only while a unit
    of work is open (per thread: the web server answers requests in threads)."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._local = threading.local()
        with self.connection() as conn:
            migrate(conn)

    @classmethod
    def of(cls, where: "Database | Path | str") -> "Database":
        """``where`` if it is a Database already, else the file opened (and migrated)."""
        return where if isinstance(where, Database) else cls(where)

    @contextmanager
    def connection(self) -> Iterator[sqlite3.Connection]:
        """The connection of the unit of work open in this thread, else a new one,
        closed when the block ends."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            yield conn
            return
        conn = connect(self.path)
        self._local.conn = conn
        try:
            yield conn
        finally:
            self._local.conn = None
            conn.close()

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: committed if the block ends normally, else rolled back."""
        with self.connection() as conn:
            if conn.in_transaction:
                raise RuntimeError("a write inside another write: one transaction each")
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
