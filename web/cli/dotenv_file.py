"""The development `.env`, made ready by `subsearch dev` (so `make run`) before anything
reads it: copied from `.env.sample` when there is none, and given a random SECRET_KEY
the first time, which it then keeps. Sessions are signed with that key, so signing in
survives a restart; an empty key would make a new one each start and sign everyone out.

A SECRET_KEY in the environment wins over the file (models/settings.py), so then the
file is left as it is. Two starts at once take turns on a lock beside the data
(`var/`), so both end with the one key written."""

from __future__ import annotations

import fcntl
import os
import secrets
import shutil
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from dotenv import dotenv_values, set_key

KEY = "SECRET_KEY"
LOCK = Path("var") / ".env.lock"


def prepare_dotenv(
    path: Path = Path(".env"),
    sample: Path = Path(".env.sample"),
    environ: Mapping[str, str] | None = None,
) -> list[str]:
    """Make `path` ready for development; returns what was done, in words for the
    terminal (nothing when it was ready)."""
    environ = os.environ if environ is None else environ
    done = []
    with _locked(path.parent / LOCK):
        if not path.exists():
            if sample.is_file():
                shutil.copyfile(sample, path)
                done.append(f"made {path} from {sample}")
            else:
                path.touch()
                done.append(f"made an empty {path}")
        if (environ.get(KEY) or "").strip():
            return done
        if not (dotenv_values(path).get(KEY) or "").strip():
            set_key(path, KEY, secrets.token_urlsafe(32), quote_mode="never")
            done.append(f"wrote a random {KEY} into {path} (kept from now on)")
    return done


@contextmanager
def _locked(lock: Path) -> Iterator[None]:
    lock.parent.mkdir(parents=True, exist_ok=True)
    with lock.open("a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(held, fcntl.LOCK_UN)
