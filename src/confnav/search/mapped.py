"""Read-only arrays of search kept in files that every serving process maps instead of holding its own copy.

Each set of arrays lives in a folder named by what it was made from (the store's identity and the generation of
its papers or vectors), written once into a temporary folder and renamed into place: a folder never changes
once it exists, so a process that mapped it never reads a half-written or newer file. A new state of the store
is a new folder; old ones are removed, which a process still mapping them does not notice (POSIX keeps a removed
file's pages until the last mapping goes). A store's folders sit beside its file (SQLite) or in the cache folder
under a name made from its location (PostgreSQL), as fetch snapshots do (`files_home`).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np

from confnav.store.protocols import CacheStore

KEEP = 2  # folders of one kind kept (the newest); older ones are removed when a newer one is written
Arrays = dict[str, np.ndarray]


def home(store: CacheStore) -> Path:
    """The folder of the store's mapped arrays."""
    return Path(f"{store.files_home()}.search")


def name_of(kind: str, *parts: object) -> str:
    """A folder name: the kind, then the parts (hashed when they hold characters unsafe in a file name)."""
    text = "-".join(str(p) for p in parts)
    safe = text.replace("-", "").isalnum()
    return f"{kind}-{text if safe else hashlib.sha1(text.encode()).hexdigest()[:16]}"


def load(folder: Path, names: tuple[str, ...]) -> Arrays | None:
    """The arrays of a complete folder, mapped read-only; None when it is missing or any file is unreadable. They
    are plain arrays over the mapping: every result of a memmap would be a memmap too, with its bookkeeping."""
    try:
        return {name: np.asarray(np.load(folder / f"{name}.npy", mmap_mode="r", allow_pickle=False)) for name in names}
    except (OSError, ValueError):
        return None


def write(folder: Path, arrays: Mapping[str, np.ndarray]) -> bool:
    """Write the arrays as a new folder, whole or not at all (False when it cannot be written: a read-only disk,
    or another process wrote it first, which then holds the same arrays)."""
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        temporary = Path(tempfile.mkdtemp(prefix=".writing-", dir=folder.parent))
    except OSError:
        return False
    try:
        for name, array in arrays.items():
            with open(temporary / f"{name}.npy", "wb") as out:
                np.save(out, np.ascontiguousarray(array), allow_pickle=False)
                out.flush()
                os.fsync(out.fileno())
        os.rename(temporary, folder)  # atomic; fails when the folder exists
    except OSError:
        shutil.rmtree(temporary, ignore_errors=True)
        return False
    _prune(folder)
    return True


def mapped(folder: Path, names: tuple[str, ...], make: Callable[[], Mapping[str, np.ndarray]]) -> Arrays:
    """The arrays of `folder`, mapped; made (and written for the next process) when the folder is missing. When it
    cannot be written, the arrays made here are used from memory."""
    found = load(folder, names)
    if found is not None:
        return found
    made = make()
    write(folder, made)
    return load(folder, names) or {name: np.asarray(made[name]) for name in names}


def _prune(folder: Path) -> None:
    """Remove all but the KEEP newest folders of the same kind as `folder`."""
    kind = folder.name.split("-", 1)[0]
    siblings = [p for p in folder.parent.iterdir() if p.name.split("-", 1)[0] == kind and p.is_dir()]
    siblings.sort(key=lambda p: p.stat().st_mtime, reverse=True)
    for old in siblings[KEEP:]:
        if old != folder:
            with contextlib.suppress(OSError):
                shutil.rmtree(old)


def arrays(
    store: CacheStore,
    ident: str | None,
    kind: str,
    parts: tuple[object, ...],
    names: tuple[str, ...],
    make: Callable[[], Mapping[str, np.ndarray]],
) -> Arrays:
    """The arrays `make` gives for the store's state `parts`, mapped from the folder named by them and the stored
    keyword base's name `ident`; made in memory alone when there is no name (a store not indexed yet)."""
    if ident is None:
        return {name: np.asarray(array) for name, array in make().items()}
    return mapped(home(store) / name_of(kind, ident, *parts), names, make)
