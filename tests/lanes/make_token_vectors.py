#!/usr/bin/env python3
"""Adds invite tokens signed by hand with Python's cryptography to
tests/data/invite-token-vectors.json, after tests/lanes/make-token-vectors.mjs wrote it.

A second, independent JWS writer: the header, claims and signature bytes are laid out here,
not by a JWT library, so the C++ checker is held to the RFCs rather than to jose's habits.

    node tests/lanes/make-token-vectors.mjs && python3 tests/lanes/make_token_vectors.py
"""

import base64
import json
import pathlib

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

VECTORS = pathlib.Path(__file__).resolve().parent.parent / "data" / "invite-token-vectors.json"
FAR_EXP = 4102444800  # 2100-01-01T00:00:00Z


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def segment(obj) -> str:
    return b64url(json.dumps(obj, separators=(",", ":")).encode())


def ed25519_key(kid):
    private = ed25519.Ed25519PrivateKey.generate()
    x = private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return private, {"kty": "OKP", "crv": "Ed25519", "x": b64url(x), "kid": kid}


def p256_key(kid):
    private = ec.generate_private_key(ec.SECP256R1())
    numbers = private.public_key().public_numbers()
    return private, {
        "kty": "EC",
        "crv": "P-256",
        "x": b64url(numbers.x.to_bytes(32, "big")),
        "y": b64url(numbers.y.to_bytes(32, "big")),
        "kid": kid,
    }


def sign_eddsa(private, kid, claims):
    signing_input = f"{segment({'alg': 'EdDSA', 'kid': kid})}.{segment(claims)}"
    return f"{signing_input}.{b64url(private.sign(signing_input.encode()))}"


def es256_input(kid, claims):
    return f"{segment({'typ': 'JWT', 'alg': 'ES256', 'kid': kid})}.{segment(claims)}"


def sign_es256(private, kid, claims):
    signing_input = es256_input(kid, claims)
    der = private.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256()))
    r, s = decode_dss_signature(der)
    # RFC 7518 §3.4: r and s as 32-byte big-endian integers, not the DER that OpenSSL writes.
    return f"{signing_input}.{b64url(r.to_bytes(32, 'big') + s.to_bytes(32, 'big'))}"


def main():
    vectors = json.loads(VECTORS.read_text())
    room = vectors["room"]
    # Rerunning replaces what an earlier run added.
    vectors["cases"] = [c for c in vectors["cases"] if c["by"] != "python"]
    vectors["jwks"]["keys"] = [k for k in vectors["jwks"]["keys"] if not k["kid"].startswith("py-")]

    ed_private, ed_jwk = ed25519_key("py-ed")
    ec_private, ec_jwk = p256_key("py-ec")
    vectors["jwks"]["keys"] += [ed_jwk, ec_jwk]

    def claims(jti, **extra):
        return {"sub": "acct-7", "room": room, "jti": jti, "exp": FAR_EXP, **extra}

    def expected(c, lane=None, agent=False):
        out = {"account": c["sub"], "room": room, "exp_ms": c["exp"] * 1000, "jti": c["jti"], "agent": agent}
        if lane is not None:
            out["lane"] = lane
        return out

    cases = []

    def add(name, token, expect, expected_claims=None):
        case = {"name": name, "by": "python", "token": token, "expect": expect}
        if expected_claims:
            case["claims"] = expected_claims
        cases.append(case)

    c = claims("py-ed-1", lane="press", agent=True)
    add("EdDSA by hand accepted", sign_eddsa(ed_private, "py-ed", c), "ok", expected(c, lane="press", agent=True))
    c = claims("py-ec-1", iat=vectors["now_ms"] // 1000)
    add("ES256 by hand accepted", sign_es256(ec_private, "py-ec", c), "ok", expected(c))

    c = claims("py-ec-der")
    signing_input = es256_input("py-ec", c)
    der = ec_private.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256()))
    add("ES256 with a DER signature", f"{signing_input}.{b64url(der)}", "malformed")

    c = claims("py-ec-swap")
    r_s = sign_es256(ec_private, "py-ec", c).rsplit(".", 1)
    raw = base64.urlsafe_b64decode(r_s[1] + "==")
    add("ES256 with r and s swapped", f"{r_s[0]}.{b64url(raw[32:] + raw[:32])}", "bad_signature")

    c = claims("py-ed-wrong")
    add("EdDSA signed with the P-256 key's kid", sign_eddsa(ed_private, "py-ec", c), "unsupported_alg")

    vectors["cases"] += cases
    VECTORS.write_text(json.dumps(vectors, indent=2) + "\n")
    print(f"added {len(cases)} tokens to {VECTORS}")


if __name__ == "__main__":
    main()
