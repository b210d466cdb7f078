#!/usr/bin/env python3
"""Mints ES256 invite tokens with Python's cryptography for the invite tests: reads
{"kid": ..., "claims": [{...}, ...]} on stdin, writes {"jwk": ..., "tokens": [...]} with a
fresh P-256 key."""

import json
import sys

from make_token_vectors import p256_key, sign_es256


def main():
    request = json.load(sys.stdin)
    private, jwk = p256_key(request["kid"])
    jwk["alg"] = "ES256"
    tokens = [sign_es256(private, request["kid"], claims) for claims in request["claims"]]
    json.dump({"jwk": jwk, "tokens": tokens}, sys.stdout)


if __name__ == "__main__":
    main()
