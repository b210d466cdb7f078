"""A real SMTP relay on loopback for the email tests: Debian's python3-aiosmtpd.

    python3 tests/support/smtp_server.py --out DIR [--cert PEM --key PEM]
        [--user NAME --password SECRET] [--exclude-auth PLAIN] [--refuse-rcpt]
        [--delay-data SECONDS] [--answer-data 'CODE TEXT']

Prints its port on the first line, then serves until its stdin closes. With --cert it
offers STARTTLS and requires it before anything else; with --user it requires AUTH (PLAIN
or LOGIN, over TLS). Every message accepted is written to DIR as N.eml (the bytes as
received), with N.json: the envelope, whether it came over TLS, who logged in, and the
message as Python's own mail parser reads it (headers decoded, body decoded, defects).
--refuse-rcpt answers every RCPT TO with a 550 that quotes the address, as relays do.
--delay-data waits that long before it answers a message (N.json's accepted_at_ms is when
it answered 250). --answer-data answers every message with that reply instead, keeping
nothing but an empty N.refused for each.
"""
import argparse
import asyncio
import email
import email.policy
import json
import os
import ssl
import sys
import time

from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword


class Handler:
    def __init__(self, out, refuse_rcpt, delay_data, answer_data):
        self.out = out
        self.refuse_rcpt = refuse_rcpt
        self.delay_data = delay_data
        self.answer_data = answer_data
        self.count = 0

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if self.refuse_rcpt:
            return f'550 5.1.1 <{address}>: Recipient address rejected: User unknown'
        envelope.rcpt_tos.append(address)
        return '250 OK'

    async def handle_DATA(self, server, session, envelope):
        self.count += 1
        base = os.path.join(self.out, str(self.count))
        if self.answer_data:
            open(base + '.refused', 'wb').close()
            return self.answer_data
        await asyncio.sleep(self.delay_data)
        with open(base + '.eml.part', 'wb') as f:
            f.write(envelope.original_content)
        content = envelope.original_content
        msg = email.message_from_bytes(content, policy=email.policy.default)
        parsed = {name: str(msg[name]) for name in ('from', 'to', 'subject', 'date', 'message-id', 'mime-version',
                                                    'content-transfer-encoding', 'auto-submitted')}
        parsed.update({'content_type': msg.get_content_type(), 'charset': msg.get_content_charset(),
                       'body': msg.get_content(), 'defects': [repr(d) for d in msg.defects],
                       'longest_line': max(len(line) for line in content.split(b'\r\n')),
                       'date_valid': msg['date'].datetime is not None})
        with open(base + '.json', 'w') as f:
            json.dump({'mail_from': envelope.mail_from, 'rcpt_tos': envelope.rcpt_tos,
                       'tls': session.ssl is not None, 'accepted_at_ms': int(time.time() * 1000),
                       'login': session.login_data.decode() if session.login_data else None,
                       'message': parsed}, f)
        # The message appears whole or not at all, for a test polling the directory.
        os.rename(base + '.eml.part', base + '.eml')
        return '250 2.0.0 OK'


def main():
    p = argparse.ArgumentParser()
    p.add_argument('--out', required=True)
    p.add_argument('--cert')
    p.add_argument('--key')
    p.add_argument('--user')
    p.add_argument('--password')
    p.add_argument('--exclude-auth', action='append', default=[])
    p.add_argument('--refuse-rcpt', action='store_true')
    p.add_argument('--delay-data', type=float, default=0)
    p.add_argument('--answer-data')
    args = p.parse_args()

    tls = None
    if args.cert:
        tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        tls.load_cert_chain(args.cert, args.key)

    def authenticator(server, session, envelope, mechanism, auth_data):
        ok = (isinstance(auth_data, LoginPassword) and auth_data.login == args.user.encode()
              and auth_data.password == args.password.encode())
        # handled=False: the server itself answers a refusal (535).
        return AuthResult(success=ok, handled=False, auth_data=auth_data)

    handler = Handler(args.out, args.refuse_rcpt, args.delay_data, args.answer_data)
    loop = asyncio.new_event_loop()

    def session():
        return SMTP(handler, hostname='relay.test', tls_context=tls, require_starttls=tls is not None,
                    auth_required=args.user is not None, auth_require_tls=tls is not None,
                    authenticator=authenticator if args.user else None,
                    auth_exclude_mechanism=args.exclude_auth, loop=loop)

    server = loop.run_until_complete(loop.create_server(session, '127.0.0.1', 0))
    print(server.sockets[0].getsockname()[1], flush=True)
    stdin_closed = loop.run_in_executor(None, sys.stdin.buffer.read)
    loop.run_until_complete(stdin_closed)
    server.close()


if __name__ == '__main__':
    main()
