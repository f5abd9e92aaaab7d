"""One run at a time in a folder that a long job writes and resumes from (a fine-tuning run's, an evaluation's results).

A second run started on the same folder (another terminal, a page while the command works there) would rewrite the
files the first is reading or appending to; a fine-tuning plan of its own would even delete the first's checkpoint.
So each such run holds an OS lock on the folder's ``.lock`` for as long as it works there, and a second one is refused
in words before it touches anything. The system lets go of the lock when the process ends, however it ends, so the
same command resumes after a crash or a kill as before.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from react_core.base.errors import ConfigError

__all__ = ["LOCK", "only_run"]

LOCK = ".lock"


@contextmanager
def only_run(folder: Path, what: str) -> Iterator[None]:
    """Hold ``folder`` for this run (``what`` it is, for the refusal), or raise ConfigError if another run holds it."""
    import fcntl

    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / LOCK, "w", encoding="utf-8") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise ConfigError(
                f"Another run is using {folder} now ({what}): wait for it to end or stop it; a stopped run keeps what "
                "it finished, and starting it again resumes."
            ) from None
        yield
