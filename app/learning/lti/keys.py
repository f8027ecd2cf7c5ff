"""gradlab's own key pair for LTI: made on first use, kept in the database, rotatable, and
published at /lti/jwks. The newest active key signs; retired keys stay published until removed,
so a platform that cached the old set still verifies what was signed just before a rotation."""

from __future__ import annotations

import secrets
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

from app.progress.lti_store import LtiRecords, StoredKey

KEY_BITS = 2048


def _new_pem() -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=KEY_BITS)
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()


def private_key(stored: StoredKey) -> rsa.RSAPrivateKey:
    key = serialization.load_pem_private_key(stored.private_pem.encode(), password=None)
    if not isinstance(key, rsa.RSAPrivateKey):
        raise TypeError(f"LTI key {stored.kid} is not an RSA key")
    return key


def signing_key(store: LtiRecords) -> StoredKey:
    """The key that signs, made if there is none."""
    active = [key for key in store.lti_keys() if key.active]
    if not active:
        store.add_lti_key(secrets.token_hex(8), _new_pem(), retire_others=False)
        active = [key for key in store.lti_keys() if key.active]
    return active[0]


def sign(store: LtiRecords, claims: dict[str, object]) -> str:
    """`claims` as a JWT signed (RS256) with the current signing key, its id in the header."""
    key = signing_key(store)
    return jwt.encode(claims, private_key(key), algorithm="RS256", headers={"kid": key.kid})


def rotate(store: LtiRecords) -> str:
    """A new signing key; the others stay published, retired. Returns the new key's id."""
    kid = secrets.token_hex(8)
    store.add_lti_key(kid, _new_pem(), retire_others=True)
    return kid


def jwks(store: LtiRecords) -> dict[str, list[dict[str, Any]]]:
    """The public half of every key, as a JSON Web Key Set (empty until a platform is
    registered: `gradlab lti add-platform` makes the first key)."""
    keys = []
    for stored in store.lti_keys():
        public = RSAAlgorithm.to_jwk(private_key(stored).public_key(), as_dict=True)
        public.update({"kid": stored.kid, "alg": "RS256", "use": "sig"})
        keys.append(public)
    return {"keys": keys}
