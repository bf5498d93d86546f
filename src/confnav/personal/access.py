"""A profile's secret on a shared server: issued once, kept only as a hash, checked in constant time.

A secret is 32 random bytes (URL-safe text); the store keeps "sha256:" and its hex digest. Such a secret
cannot be guessed, so one fast hash is enough (a slow one such as scrypt protects guessable passwords). The
HTTP side (which request may read or change which profile) is `confnav.web.access`.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from typing import Protocol

from confnav.errors import ConfnavError, NotFoundError, excerpt

SECRET_BYTES = 32
SECRET_SHAPE = re.compile(r"[A-Za-z0-9_-]{43}")  # what `new_secret` gives: 32 bytes in URL-safe base64, unpadded
_NOTHING = "sha256:" + "0" * 64  # compared against when a profile has no key, so that both cases take as long


class KeyStore(Protocol):
    """What the secrets need of a store."""

    def profile_key(self, name: str) -> str | None: ...

    def set_profile_key(self, name: str, key_hash: str | None, new: bool = False) -> bool: ...


def hash_secret(secret: str) -> str:
    """How a secret is kept: never the secret itself."""
    return "sha256:" + hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def new_secret() -> str:
    return secrets.token_urlsafe(SECRET_BYTES)


def secret_shaped(text: str) -> bool:
    """Whether `text` has the form of a secret `new_secret` gives; any other text opens nothing, and only this form
    may go into a cookie (a header carries Latin-1 text alone)."""
    return SECRET_SHAPE.fullmatch(text) is not None


def verify_secret(store: KeyStore, name: str, secret: str | None) -> bool:
    """Whether `secret` opens the profile `name`: False for a wrong or missing secret, an unknown profile and a
    profile without a secret alike (one constant-time comparison in every case)."""
    kept = store.profile_key(name) if name else None
    given = hash_secret(secret) if secret and secret_shaped(secret) else "sha256:"
    return hmac.compare_digest(kept or _NOTHING, given) and kept is not None


def create_with_secret(store: KeyStore, name: str | None = None) -> tuple[str, str]:
    """A new profile (named `name`, else a random name) with its own secret: (name, secret). The secret is shown
    only this once; a name already taken is refused."""
    chosen = name.strip() if name and name.strip() else f"p-{secrets.token_hex(5)}"
    secret = new_secret()
    if not store.set_profile_key(chosen, hash_secret(secret), new=True):
        raise ConfnavError(
            f"profile name {excerpt(chosen)} is taken: choose another (or leave it out for a random one)"
        )
    return chosen, secret


def rotate_secret(store: KeyStore, name: str, old: str | None = None, check: bool = True) -> str:
    """A new secret for the profile; the old one (which `check` requires) stops working at once. From a shell
    (`confnav profile secret NAME --rotate`) no old secret is needed: whoever holds the store owns it."""
    if check and not verify_secret(store, name, old):
        raise NotFoundError(f"no profile named {excerpt(name)} opens with this key")
    secret = new_secret()
    store.set_profile_key(name, hash_secret(secret))
    return secret


def revoke_secret(store: KeyStore, name: str) -> None:
    """No secret opens the profile any more (on a shared server it is then unreachable until rotated)."""
    store.set_profile_key(name, None)
