"""The Python connector's test driver (tests/connectors/conformance.test.js, python.test.js):

    check.py vectors FILE                               the verdicts on the shared vectors, as JSON
    check.py wsgi|asgi ISSUER ROOM JWKS_URL LOGIN_URL   a shop on a loopback port, /shop/ protected
    check.py done FOYER_URL ROOM SITE_TOKEN JTI          reports the pass finished; prints Foyer's answer
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../../connectors/python"))
import foyer_pass  # noqa: E402


def vectors(path):
    with open(path, encoding="utf-8") as f:
        v = json.load(f)
    keys = {name: foyer_pass.load_keys(s) for name, s in v["keys"].items()}
    out = {"passes": {}, "destinations": {}, "refusals": {}}
    for p in v["passes"]:
        out["passes"][p["name"]] = foyer_pass.verify_pass(
            p["token"], keys[p["keys"]], v["issuer"], v["room"], v["leeway_seconds"], p["now"])
    for d in v["destinations"]:
        out["destinations"][d["target"]] = foyer_pass.entry_location(d["target"])
    for r in v["refusals"]:
        out["refusals"][r["name"]] = foyer_pass.refusal_location(v["login_url"], r["error"], r["target"])
    print(json.dumps(out))


def page(visitor):
    return json.dumps({"visitor": visitor}).encode()


def wsgi_app(environ, start_response):
    start_response("200 OK", [("Content-Type", "application/json")])
    return [page(environ["foyer.pass"]["visitor"])]


async def asgi_app(scope, receive, send):
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": page(scope["foyer.pass"]["visitor"])})


def serve(kind, issuer, room, jwks_url, login_url):
    checker = foyer_pass.PassChecker(issuer=issuer, room=room, jwks_url=jwks_url, login_url=login_url)
    if kind == "wsgi":
        from wsgiref.simple_server import WSGIRequestHandler, make_server

        class Quiet(WSGIRequestHandler):
            def log_message(self, *args):
                pass
        server = make_server("127.0.0.1", 0, foyer_pass.WsgiMiddleware(wsgi_app, checker), handler_class=Quiet)
        print(f"listening on http://127.0.0.1:{server.server_port}", flush=True)
        server.serve_forever()
    else:
        import socket
        import uvicorn
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        sock.listen(128)  # connections wait in the backlog until uvicorn serves them
        print(f"listening on http://127.0.0.1:{sock.getsockname()[1]}", flush=True)
        config = uvicorn.Config(foyer_pass.AsgiMiddleware(asgi_app, checker), log_level="warning", lifespan="off")
        uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    if sys.argv[1] == "vectors":
        vectors(sys.argv[2])
    elif sys.argv[1] == "done":
        foyer, room, token, jti = sys.argv[2:6]
        checker = foyer_pass.PassChecker(issuer="", room=room, login_url="", jwks_url=f"{foyer}/.well-known/jwks.json",
                                         foyer_url=foyer, site_token=token)
        print(json.dumps(checker.done([jti])))
    else:
        serve(*sys.argv[1:6])
