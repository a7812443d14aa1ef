"""DPoP (RFC 9449): proofs checked with jwcrypto, tokens bound to their key's JWK thumbprint.

Thread-safe, in-process state like testhooks.state: which access and refresh tokens are bound to
which thumbprint (RFC 7638), the jti values already seen, the current nonce, and counters.
"""

import base64
import hashlib
import json
import os
import secrets
import threading
import time

from jwcrypto import jwk, jws
from jwcrypto.common import JWException

PROOF_TYPE = "dpop+jwt"
# Asymmetric algorithms only (RFC 9449 §4.3: no MAC, no "none").
ALGORITHMS = ("EdDSA", "ES256", "RS256", "PS256")
# How far a proof's iat may be from the server's clock, either way, in seconds.
IAT_WINDOW = 60

_lock = threading.Lock()
_bindings = {}  # access or refresh token -> thumbprint
_seen_jti = {}  # jti -> time seen, pruned after twice the iat window
_require_nonce = os.environ.get("TVAUTH_DPOP_NONCE", "0") == "1"
_enabled = True  # off: DPoP headers are ignored, as by a server without DPoP support
_refuse_nonce = 0  # challenge the next N proofs even with the current nonce (a new nonce each time)
_nonce = secrets.token_urlsafe(16)
_counters = {"proofs_accepted": 0, "nonce_challenges": 0, "tokens_bound": 0, "resource_requests": 0}
_rejections = {}  # reason -> count


class ProofError(Exception):
    """A proof that is missing, malformed or does not match the request; ``reason`` says why."""

    def __init__(self, reason):
        super().__init__(reason)
        self.reason = reason


class NonceRequired(Exception):
    """The proof lacks the server's current nonce (use_dpop_nonce)."""


def _b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def access_token_hash(access_token):
    """The ``ath`` of an access token: base64url(SHA-256(token))."""
    return _b64url(hashlib.sha256(access_token.encode("ascii")).digest())


def current_nonce():
    with _lock:
        return _nonce


def _count(name):
    with _lock:
        _counters[name] += 1


def reject(reason):
    with _lock:
        _rejections[reason] = _rejections.get(reason, 0) + 1
    return ProofError(reason)


def verify(proof, method, url, access_token=None):
    """Checks a proof for a request to ``url`` with ``method``; returns its key's thumbprint.

    Raises ProofError (with a reason) or NonceRequired.
    """
    if not proof or "," in proof:
        raise reject("missing proof")
    token = jws.JWS()
    try:
        token.deserialize(proof)
        header = token.jose_header
    except (JWException, ValueError, TypeError):
        raise reject("malformed proof")
    if not isinstance(header, dict) or header.get("typ") != PROOF_TYPE:
        raise reject("typ is not dpop+jwt")
    alg = header.get("alg")
    if alg not in ALGORITHMS:
        raise reject("unsupported alg")
    try:
        key = jwk.JWK(**header["jwk"])
    except (KeyError, TypeError, ValueError, JWException):
        raise reject("no usable jwk")
    if key.has_private:
        raise reject("jwk holds a private key")
    try:
        token.verify(key, alg=alg)
        claims = json.loads(token.payload)
    except (JWException, ValueError, TypeError):
        raise reject("bad signature")
    if not isinstance(claims, dict):
        raise reject("claims are not an object")
    if claims.get("htm") != method:
        raise reject("wrong htm")
    if claims.get("htu") != url:
        raise reject("wrong htu")
    iat = claims.get("iat")
    now = time.time()
    if not isinstance(iat, (int, float)) or abs(now - iat) > IAT_WINDOW:
        raise reject("stale iat")
    if access_token is not None and claims.get("ath") != access_token_hash(access_token):
        raise reject("wrong ath")
    jti = claims.get("jti")
    if not isinstance(jti, str) or not jti:
        raise reject("no jti")
    global _refuse_nonce, _nonce
    with _lock:
        if _refuse_nonce > 0 or (_require_nonce and claims.get("nonce") != _nonce):
            if _refuse_nonce > 0:
                _refuse_nonce -= 1
                _nonce = secrets.token_urlsafe(16)
            _counters["nonce_challenges"] += 1
            raise NonceRequired()
        for seen, at in list(_seen_jti.items()):
            if now - at > 2 * IAT_WINDOW:
                del _seen_jti[seen]
        if jti in _seen_jti:
            _rejections["replayed jti"] = _rejections.get("replayed jti", 0) + 1
            raise ProofError("replayed jti")
        _seen_jti[jti] = now
        _counters["proofs_accepted"] += 1
    return key.thumbprint()


def bind(token, thumbprint):
    with _lock:
        _bindings[token] = thumbprint
        _counters["tokens_bound"] += 1


def binding(token):
    """The thumbprint ``token`` is bound to, or None for a token that is not DPoP-bound."""
    with _lock:
        return _bindings.get(token)


def nonce_required():
    with _lock:
        return _require_nonce or _refuse_nonce > 0


def enabled():
    with _lock:
        return _enabled


def configure(require_nonce=None, refuse_nonce=None, enable=None):
    global _require_nonce, _refuse_nonce, _enabled
    with _lock:
        if enable is not None:
            _enabled = bool(enable)
        if require_nonce is not None:
            _require_nonce = bool(require_nonce)
        if refuse_nonce is not None:
            _refuse_nonce = max(0, int(refuse_nonce))
        return {"enabled": _enabled, "require_nonce": _require_nonce, "refuse_nonce": _refuse_nonce}


def count_resource_request():
    _count("resource_requests")


def snapshot():
    with _lock:
        return {**_counters, "rejections": dict(_rejections), "require_nonce": _require_nonce, "enabled": _enabled}


def reset_counters():
    with _lock:
        for name in _counters:
            _counters[name] = 0
        _rejections.clear()
