"""Visitors for bench/run.sh notices: joins COUNT visitors to ROOM of a Foyer on loopback
(challenge, proof of work, join) and, with --push-port, opts every even one in to Web Push
at https://127.0.0.1:PORT/push/N and every odd one to email. Without it the visitors only
join, so that a server without [notifications] gets the same line.

usage: notice_setup.py HOST:PORT ROOM COUNT [--push-port PORT]
Prints one line of counts; exits 1 if a join or an opt-in failed.
"""
import argparse
import base64
import hashlib
import http.client
import json
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor

# A browser's subscription key is a P-256 point; the curve's generator is one, and the push
# sender encrypts to it as to any other (the push service is never reached anyway).
P256_GENERATOR = bytes.fromhex(
    "04"
    "6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296"
    "4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5")
CONNECTIONS = 16


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def solve(token):
    """The proof of src/core/gate/pow.hpp: per puzzle, the first nonce whose hash is at most
    the threshold."""
    raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    puzzles, threshold, mac = raw[1], int.from_bytes(raw[57:65], "big"), raw[81:113]
    proof = ""
    for i in range(puzzles):
        nonce = 0
        while int.from_bytes(hashlib.sha256(mac + i.to_bytes(4, "big") + nonce.to_bytes(8, "big")).digest()[:8], "big") > threshold:
            nonce += 1
        proof += "%016x" % nonce
    return proof


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("target")
    ap.add_argument("room")
    ap.add_argument("count", type=int)
    ap.add_argument("--push-port", type=int)
    args = ap.parse_args()
    host, port = args.target.rsplit(":", 1)
    local = threading.local()
    lock = threading.Lock()
    counts = {}

    def count(what):
        with lock:
            counts[what] = counts.get(what, 0) + 1

    def call(method, path, body=None, ticket=None):
        if not hasattr(local, "conn"):
            local.conn = http.client.HTTPConnection(host, int(port), timeout=30)
        headers = {"Content-Type": "application/json"}
        if ticket:
            headers["Authorization"] = "Bearer " + ticket
        local.conn.request(method, path, body=json.dumps(body) if body is not None else "", headers=headers)
        res = local.conn.getresponse()
        return res.status, res.read()

    def visitor(n):
        status, body = call("POST", "/api/v1/rooms/%s/challenge" % args.room)
        if status != 200:
            return count("challenge %d" % status)
        token = json.loads(body)["challenge"]
        status, body = call("POST", "/api/v1/rooms/%s/join" % args.room, {"challenge": token, "nonce": solve(token)})
        if status != 201:
            return count("join %d" % status)
        count("joined")
        if args.push_port is None:
            return
        if n % 2 == 0:
            contact = {"push": {"endpoint": "https://127.0.0.1:%d/push/%d" % (args.push_port, n),
                                "keys": {"p256dh": b64url(P256_GENERATOR), "auth": b64url(os.urandom(16))}}}
        else:
            contact = {"email": "visitor%d@example.org" % n}
        status, body = call("POST", "/api/v1/rooms/%s/notifications" % args.room, contact, json.loads(body)["ticket"])
        count(("opted in to " + next(iter(contact))) if status == 201 else "opt-in %d %s" % (status, body[:120]))

    t0 = time.monotonic()
    with ThreadPoolExecutor(CONNECTIONS) as pool:
        for f in [pool.submit(visitor, n) for n in range(args.count)]:
            f.result()
    print(", ".join("%s %d" % kv for kv in sorted(counts.items())) + " in %.1f s" % (time.monotonic() - t0))
    good = {"joined", "opted in to push", "opted in to email"}
    return 1 if set(counts) - good else 0


if __name__ == "__main__":
    raise SystemExit(main())
