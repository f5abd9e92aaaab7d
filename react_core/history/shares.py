"""Read-only share links: a person makes a link to one of their runs, and anyone holding it can read that run (and
nothing else) until the person revokes it or deletes the run.

A link is an unguessable token (``secrets.token_urlsafe``, 32 bytes: 256 bits) stored with its owner and run. It is
the only key: ``resolve`` reads the run of whichever owner made it, and only while that owner still has the run.
Creating, listing and revoking are the owner's (each query filters by owner, as every other one in the store).
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass

TOKEN_BYTES = 32
# What a token looks like (token_urlsafe's alphabet, its length for TOKEN_BYTES); anything else is refused unread.
TOKEN_SHAPE = re.compile(r"[A-Za-z0-9_-]{43}")


@dataclass(frozen=True)
class Share:
    token: str
    run_id: int
    created_at: str


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def well_formed(token: object) -> bool:
    return isinstance(token, str) and TOKEN_SHAPE.fullmatch(token) is not None
