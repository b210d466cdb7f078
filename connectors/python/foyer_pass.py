"""Foyer pass connector for Python: ASGI and WSGI middleware that checks the visitor's pass
offline with PyJWT and cryptography (Debian: python3-jwt, python3-cryptography), with the
rules of `foyer guard`: the pass moves from the URL into a cookie, visitors without a good
pass go to the waiting room.

    from foyer_pass import PassChecker, WsgiMiddleware, AsgiMiddleware
    checker = PassChecker(issuer="https://queue.example.com", room="spring-sale",
                          jwks_url="https://queue.example.com/.well-known/jwks.json",
                          login_url="https://queue.example.com/r/spring-sale")
    app = WsgiMiddleware(app, checker)      # Flask, Django (WSGI)
    app = AsgiMiddleware(app, checker)      # Starlette, FastAPI, Django (ASGI)

An admitted request carries environ["foyer.pass"] (WSGI) or scope["foyer.pass"] (ASGI):
{"visitor", "jti", "exp"}.
"""

import asyncio
import base64
import binascii
import http.client
import json
import re
import socket
import sys
import threading
import time
import urllib.parse

import jwt
from jwt.algorithms import get_default_algorithms

MAX_TOKEN_SIZE = 8 * 1024
MAX_JWKS_SIZE = 64 * 1024
MAX_DONE_ANSWER_SIZE = 4096
MAX_NEXT_SIZE = 2048
MAX_DECODE_ROUNDS = 3
MAX_PASS_COOKIES = 4
MAX_DATE = 253402300799
# A stream of made-up kids must not become a stream of requests to Foyer.
MIN_EARLY_REFRESH_SECONDS = 10
PASS_COOKIE = "foyer_pass"
FORBIDDEN_HEADERS = ("jwk", "jku", "x5u", "x5c", "crit")
# The key pins the algorithm: a token never chooses it.
KINDS = {("OKP", "Ed25519"): "EdDSA", ("EC", "P-256"): "ES256"}
ALGORITHMS = {name: get_default_algorithms()[name] for name in KINDS.values()}
B64URL = re.compile(r"^[A-Za-z0-9_-]*$")


def load_keys(jwks):
    """kid -> (alg, key) from a JWKS (text or dict)."""
    text = jwks if isinstance(jwks, (str, bytes)) else json.dumps(jwks)
    if len(text) > MAX_JWKS_SIZE:
        raise ValueError("JWKS: larger than 64 KiB")
    keys = {}
    for jwk in json.loads(text).get("keys", []):
        if "d" in jwk:
            raise ValueError("JWKS: contains a private key")
        alg = KINDS.get((jwk.get("kty"), jwk.get("crv")))
        if alg is None or jwk.get("use", "sig") != "sig" or jwk.get("alg", alg) != alg:
            continue
        kid = jwk.get("kid")
        if not isinstance(kid, str) or kid in keys:
            raise ValueError("JWKS: a key without kid, or a duplicate kid")
        keys[kid] = (alg, jwt.PyJWK(jwk, algorithm=alg).key)
    if not keys:
        raise ValueError("JWKS: no Ed25519 or P-256 key")
    return keys


def _segment(text):
    if not B64URL.match(text) or len(text) % 4 == 1:
        return None
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        return None


def _object(data):
    if data is None:
        return None
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def _date(value):
    ok = isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_DATE
    return value if ok else None


def verify_pass(token, keys, issuer, room, leeway, now):
    """The verdict on a pass: {"ok": True, "sub", "jti", "exp"} or {"ok": False, "error"}."""
    def refuse(code):
        return {"ok": False, "error": code}
    if len(token) > MAX_TOKEN_SIZE:
        return refuse("too_large")
    parts = token.split(".")
    if len(parts) != 3:
        return refuse("malformed")
    header = _object(_segment(parts[0]))
    if header is None:
        return refuse("malformed")
    if any(name in header for name in FORBIDDEN_HEADERS):
        return refuse("forbidden_header")
    alg = header.get("alg")
    if not isinstance(alg, str) or alg not in ALGORITHMS:
        return refuse("unsupported_alg")
    kid = header.get("kid")
    key = keys.get(kid) if isinstance(kid, str) else None
    if key is None:
        return refuse("unknown_kid")
    if alg != key[0]:
        return refuse("unsupported_alg")
    payload, signature = _segment(parts[1]), _segment(parts[2])
    if payload is None or signature is None or len(signature) != 64:
        return refuse("malformed")
    if not ALGORITHMS[alg].verify(f"{parts[0]}.{parts[1]}".encode(), key[1], signature):
        return refuse("bad_signature")
    # The claims are read only once the signature vouches for them.
    c = _object(payload)
    if c is None:
        return refuse("malformed")
    exp = _date(c.get("exp"))
    if (not isinstance(c.get("iss"), str) or "aud" not in c or not isinstance(c.get("sub"), str)
            or not isinstance(c.get("jti"), str) or exp is None
            or ("nbf" in c and _date(c["nbf"]) is None) or ("iat" in c and _date(c["iat"]) is None)):
        return refuse("invalid_claims")
    if c["iss"] != issuer:
        return refuse("wrong_issuer")
    aud = c["aud"]
    if isinstance(aud, str):
        if aud != room:
            return refuse("wrong_audience")
    elif isinstance(aud, list):
        if not all(isinstance(a, str) for a in aud):
            return refuse("invalid_claims")
        if room not in aud:
            return refuse("wrong_audience")
    else:
        return refuse("invalid_claims")
    if now >= exp + leeway:
        return refuse("expired")
    if "nbf" in c and now < c["nbf"] - leeway:
        return refuse("not_yet_valid")
    return {"ok": True, "sub": c["sub"], "jti": c["jti"], "exp": exp}


# --- Where visitors go: the guard's same-site rules. Targets are latin1 text, a byte each.

def _pairs(target):
    q = target.find("?")
    if q < 0:
        return []
    out = []
    for raw in target[q + 1:].split("&"):
        key, _, value = raw.partition("=")
        out.append((key, value, raw))
    return out


def query_param(target, name):
    return next((value for key, value, _ in _pairs(target) if key == name), None)


def _without_query_param(target, name):
    path = target.split("?", 1)[0]
    rest = [raw for key, _, raw in _pairs(target) if key != name and raw]
    return f"{path}?{'&'.join(rest)}" if rest else path


HEX2 = re.compile(r"[0-9A-Fa-f]{2}")


def percent_decode(text):
    """Strict decoding of a query value ('+' is a space); None for a bad escape."""
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c == "+":
            out.append(" ")
        elif c != "%":
            out.append(c)
        elif HEX2.fullmatch(text[i + 1:i + 3]):
            out.append(chr(int(text[i + 1:i + 3], 16)))
            i += 2
        else:
            return None
        i += 1
    return "".join(out)


def _decode_escapes(text):
    return re.sub(r"%([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), text)


def _names_host(path):
    rest = path.replace("\t", "").replace("\n", "").replace("\r", "").replace("\\", "/")
    while rest.startswith("/./") or rest.startswith("/../"):
        rest = rest[2:] if rest[2] == "/" else rest[3:]
    return rest.startswith("//")


def same_site_path(target):
    """The target itself if it is a path of this site however a browser or the site reads it."""
    if not target or len(target) > MAX_NEXT_SIZE or target[0] != "/":
        return None
    if any(ord(c) <= 0x20 or ord(c) >= 0x7F or c == "\\" for c in target):
        return None
    if _names_host(target):
        return None
    path = re.split(r"[?#]", target, maxsplit=1)[0]
    rounds = 1
    while "%" in path:
        decoded = _decode_escapes(path)
        if decoded == path:
            break
        if rounds > MAX_DECODE_ROUNDS or _names_host(decoded):
            return None
        path, rounds = decoded, rounds + 1
    return target


def _wanted_page(target):
    """The page asked for at `target`: its same-site `next`, else the target without the pass."""
    nxt = query_param(target, "next")
    decoded = None if nxt is None else percent_decode(nxt)
    return ((decoded is not None and same_site_path(decoded))
            or same_site_path(_without_query_param(target, PASS_COOKIE)))


def entry_location(target):
    """Where a visitor with a good pass in the URL goes: `next`, the URL without the pass, or /."""
    return _wanted_page(target) or "/"


def _with_query_param(url, name, value):
    base, hash_, fragment = url.partition("#")
    sep = "?" if "?" not in base else "" if base.endswith(("?", "&")) else "&"
    return f"{base}{sep}{name}={value}{hash_}{fragment}"


def refusal_location(login_url, error, target):
    """The waiting room, with the refusal's code when a pass was refused, and in `next` the
    page asked for at `target` (every byte but the unreserved ones escaped, as the guard does)."""
    refused = _with_query_param(login_url, "foyer_refused", error) if error else login_url
    wanted = _wanted_page(target)
    return _with_query_param(refused, "next", urllib.parse.quote(wanted, safe="")) if wanted else refused


def _cookie_values(header, name):
    out = []
    for part in (header or "").split(";"):
        key, eq, value = part.lstrip(" ").partition("=")
        if eq and key == name and len(out) < MAX_PASS_COOKIES:
            out.append(value)
    return out


def fetch_capped(url, max_size, method="GET", body=None, headers=None, seconds=5):
    """The answer's body, read within `seconds` in all (a watch hangs up when they are over,
    however slowly the headers or the body come) and never past `max_size` + 1 bytes,
    whatever the answer's size. No redirect is followed: the answer comes from `url` itself."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{url}: not an http(s) URL")
    kind = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    conn = kind(parts.hostname, parts.port, timeout=seconds)
    over = threading.Event()

    def hang_up():
        over.set()
        sock = conn.sock
        if sock is not None:
            try:
                socket.socket.shutdown(sock, socket.SHUT_RDWR)
            except OSError:
                pass

    watch = threading.Timer(seconds, hang_up)
    watch.daemon = True
    watch.start()
    try:
        conn.request(method, (parts.path or "/") + (f"?{parts.query}" if parts.query else ""), body=body,
                     headers={"Accept-Encoding": "identity", **(headers or {})})
        res = conn.getresponse()
        answer = res.read(max_size + 1)
    finally:
        watch.cancel()
        conn.close()
    if over.is_set():
        raise TimeoutError(f"{url}: not read within {seconds} s")
    if res.status != 200:
        raise OSError(f"{url}: HTTP {res.status}")
    if len(answer) > max_size:
        raise OSError(f"{url}: larger than {max_size} bytes")
    return answer


class PassChecker:
    """The keys, fetched from Foyer and kept fresh: every `refresh_seconds`, and early (at most
    every 10 s) when a pass names an unknown kid. A failed fetch keeps the last good keys."""

    def __init__(self, issuer, room, login_url, jwks_url=None, jwks=None, leeway=5, refresh_seconds=300,
                 secure_cookie=False, foyer_url=None, site_token=None, now=lambda: int(time.time())):
        self.issuer, self.room, self.login_url, self.jwks_url = issuer, room, login_url, jwks_url
        self.leeway, self.refresh_seconds, self.secure_cookie = leeway, refresh_seconds, secure_cookie
        self.foyer_url, self.site_token, self.now = foyer_url, site_token, now
        self.keys = load_keys(jwks) if jwks is not None else {}
        self.last_fetch = 0.0
        self._lock = threading.Lock()
        if jwks_url:
            self.refresh()
            if not self.keys:
                raise RuntimeError(f"no keys from {jwks_url}")

    def refresh(self):
        self.last_fetch = time.monotonic()
        try:
            self.keys = load_keys(fetch_capped(self.jwks_url, MAX_JWKS_SIZE))
        except Exception as e:  # the network or a bad JWKS: keep the last good keys
            print(f"foyer_pass: cannot refresh the keys from {self.jwks_url}, keeping the last: {e}", file=sys.stderr)

    def verify(self, token):
        """The verdict on a pass; one under an unknown kid waits for one bounded refresh."""
        if self.jwks_url and time.monotonic() - self.last_fetch >= self.refresh_seconds:
            self.refresh()
        result = verify_pass(token, self.keys, self.issuer, self.room, self.leeway, self.now())
        if result.get("error") == "unknown_kid" and self.jwks_url:
            with self._lock:
                if time.monotonic() - self.last_fetch >= MIN_EARLY_REFRESH_SECONDS:
                    self.refresh()
            result = verify_pass(token, self.keys, self.issuer, self.room, self.leeway, self.now())
        return result

    def decide(self, target, cookie, authorization):
        """(pass, None) to serve the request, or (None, [(name, value), ...]) for a 302."""
        raw = query_param(target, PASS_COOKIE)
        if raw is not None:
            token = percent_decode(raw)
            result = self.verify(token) if token is not None else {"ok": False, "error": "malformed"}
            if not result["ok"]:
                return None, self._to_waiting_room(result["error"], target)
            max_age = max(1, result["exp"] - self.now())
            secure = "; Secure" if self.secure_cookie else ""
            return None, [("Location", entry_location(target)), ("Cache-Control", "no-store"),
                          ("Set-Cookie", f"{PASS_COOKIE}={token}; Path=/; Max-Age={max_age}; HttpOnly; SameSite=Lax{secure}")]
        presented = _cookie_values(cookie, PASS_COOKIE)
        if authorization and authorization.startswith("Bearer ") and len(authorization) > 7:
            presented.append(authorization[7:])
        refusal = None
        for token in presented:
            result = self.verify(token)
            if result["ok"]:
                return {"visitor": result["sub"], "jti": result["jti"], "exp": result["exp"]}, None
            refusal = refusal or result["error"]
        return None, self._to_waiting_room(refusal, target)

    def _to_waiting_room(self, error, target):
        return [("Location", refusal_location(self.login_url, error, target)), ("Cache-Control", "no-store")]

    def done(self, jtis):
        """Reports finished passes (their jti) so that their slots free at once: {"done", "active"}."""
        return json.loads(fetch_capped(
            f"{self.foyer_url}/api/v1/rooms/{self.room}/passes/done", MAX_DONE_ANSWER_SIZE, method="POST",
            body=json.dumps({"passes": list(jtis)}).encode(),
            headers={"Authorization": f"Bearer {self.site_token}", "Content-Type": "application/json"}))


class WsgiMiddleware:
    def __init__(self, app, checker):
        self.app, self.checker = app, checker

    def __call__(self, environ, start_response):
        # PEP 3333: the path is latin1 text, one character a byte, as sent.
        target = environ.get("RAW_URI") or environ.get("REQUEST_URI") or (
            environ.get("SCRIPT_NAME", "") + environ.get("PATH_INFO", "")
            + ("?" + environ["QUERY_STRING"] if environ.get("QUERY_STRING") else ""))
        admitted, headers = self.checker.decide(target, environ.get("HTTP_COOKIE"), environ.get("HTTP_AUTHORIZATION"))
        if admitted is None:
            start_response("302 Found", headers + [("Content-Length", "0")])
            return [b""]
        environ["foyer.pass"] = admitted
        return self.app(environ, start_response)


class AsgiMiddleware:
    def __init__(self, app, checker):
        self.app, self.checker = app, checker

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        path = scope.get("raw_path") or scope["path"].encode("utf-8")
        target = path.decode("latin1") + ("?" + scope["query_string"].decode("latin1") if scope.get("query_string") else "")
        cookie = "; ".join(v.decode("latin1") for k, v in scope["headers"] if k == b"cookie")
        authorization = next((v.decode("latin1") for k, v in scope["headers"] if k == b"authorization"), None)
        # The check may fetch keys: it runs off the event loop.
        admitted, headers = await asyncio.get_running_loop().run_in_executor(
            None, self.checker.decide, target, cookie, authorization)
        if admitted is None:
            await send({"type": "http.response.start", "status": 302,
                        "headers": [(k.lower().encode(), v.encode("latin1")) for k, v in headers] + [(b"content-length", b"0")]})
            await send({"type": "http.response.body", "body": b""})
            return
        scope["foyer.pass"] = admitted
        await self.app(scope, receive, send)
