#!/usr/bin/env python3
"""Run one isolated instance of the TokenVault test authorization server.

    .venv/bin/python Tests/AuthorizationServer/serve.py --state STATE_DIR [options]

Copies STATE_DIR/template.sqlite3 (made by setup.sh) to a per-run database,
binds 127.0.0.1 on an ephemeral port, and prints exactly one line

    READY http://127.0.0.1:PORT

to stdout once the socket is listening. SIGTERM/SIGINT stop it cleanly and
delete the per-run database. Nothing else is written to stdout; errors go to
stderr (request logging only with --verbose).
"""

import argparse
import glob
import os
import re
import shutil
import signal
import sqlite3
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TEMPLATE_NAME = "template.sqlite3"
KEY_NAME = "oidc_rsa_private_key.pem"
RUN_DB_PATTERN = re.compile(r"^run-(\d+)-[^/]*\.sqlite3$")


def fail(message, code=2):
    sys.stderr.write("auth-server: %s\n" % message)
    sys.stderr.flush()
    sys.exit(code)


def yes_no(value):
    value = value.strip().lower()
    if value in ("yes", "y", "true", "1", "on"):
        return "1"
    if value in ("no", "n", "false", "0", "off"):
        return "0"
    raise argparse.ArgumentTypeError("expected yes or no, got %r" % value)


def non_negative_int(value):
    number = int(value)
    if number < 0:
        raise argparse.ArgumentTypeError("must be >= 0")
    return number


def parse_args(argv):
    p = argparse.ArgumentParser(description="TokenVault test OAuth 2.0 / OIDC authorization server")
    p.add_argument("--state", required=True, help="state directory prepared by setup.sh")
    p.add_argument("--access-token-lifetime", type=non_negative_int, metavar="SECONDS",
                   help="ACCESS_TOKEN_EXPIRE_SECONDS (default 36000)")
    p.add_argument("--id-token-lifetime", type=non_negative_int, metavar="SECONDS",
                   help="ID_TOKEN_EXPIRE_SECONDS (default 36000)")
    p.add_argument("--refresh-token-lifetime", type=non_negative_int, metavar="SECONDS",
                   help="REFRESH_TOKEN_EXPIRE_SECONDS, counted from the access token's expiry "
                        "(default: never)")
    p.add_argument("--rotate-refresh-tokens", type=yes_no, metavar="yes|no",
                   help="ROTATE_REFRESH_TOKEN (default yes)")
    p.add_argument("--reuse-protection", type=yes_no, metavar="yes|no",
                   help="REFRESH_TOKEN_REUSE_PROTECTION (default no)")
    p.add_argument("--grace-period", type=non_negative_int, metavar="SECONDS",
                   help="REFRESH_TOKEN_GRACE_PERIOD_SECONDS (default 0)")
    p.add_argument("--device-interval", type=non_negative_int, metavar="SECONDS",
                   help="DEVICE_FLOW_INTERVAL advertised by /device-authorization/ (default 1)")
    p.add_argument("--dpop-nonce", type=yes_no, metavar="yes|no",
                   help="require a server nonce in every DPoP proof (default no)")
    p.add_argument("--api-audiences", metavar="'URI ...'",
                   help="APIs a refresh_token grant may name in `audience` (Auth0's multi-resource "
                        "refresh token); space-separated (default: none, `audience` is ignored)")
    p.add_argument("--device-id-token", type=yes_no, metavar="yes|no",
                   help="the device grant returns an ID token when openid is in scope (default no)")
    p.add_argument("--parent-pid", type=int, metavar="PID",
                   help="exit when this process no longer exists")
    p.add_argument("--exit-on-stdin-eof", action="store_true",
                   help="exit when stdin reaches EOF (give the server a pipe it never writes to)")
    p.add_argument("--verbose", action="store_true", help="log every request to stderr")
    return p.parse_args(argv)


def pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_db_files(path):
    for suffix in ("", "-wal", "-shm", "-journal"):
        try:
            os.unlink(path + suffix)
        except FileNotFoundError:
            pass


def sweep_stale_run_dbs(state_dir):
    """Delete per-run databases left behind by servers that were SIGKILLed."""
    for path in glob.glob(os.path.join(state_dir, "run-*.sqlite3")):
        match = RUN_DB_PATTERN.match(os.path.basename(path))
        if match and not pid_alive(int(match.group(1))):
            remove_db_files(path)


def main(argv):
    args = parse_args(argv)
    state_dir = os.path.abspath(args.state)
    template = os.path.join(state_dir, TEMPLATE_NAME)
    if not os.path.isfile(template) or not os.path.isfile(os.path.join(state_dir, KEY_NAME)):
        fail("%s is not set up; run Tests/AuthorizationServer/setup.sh %s" % (state_dir, args.state))

    sweep_stale_run_dbs(state_dir)
    fd, run_db = tempfile.mkstemp(prefix="run-%d-" % os.getpid(), suffix=".sqlite3", dir=state_dir)
    os.close(fd)
    try:
        shutil.copyfile(template, run_db)
        # The template is in rollback-journal mode. Switching to WAL needs the file to itself, and
        # a switch attempted by two of the server's first connections at once (the two discovery
        # documents are fetched together) fails one with "database is locked" at once, without
        # waiting. So switch here, before any request.
        db = sqlite3.connect(run_db)
        try:
            db.execute("PRAGMA journal_mode=WAL")
        finally:
            db.close()
        return serve(args, state_dir, run_db)
    finally:
        remove_db_files(run_db)


def serve(args, state_dir, run_db):
    # Bind first: the port must be known before settings are read, and binding
    # before printing READY means there is no window in which the URL is wrong.
    from django.core.servers.basehttp import ThreadedWSGIServer, WSGIRequestHandler

    class Server(ThreadedWSGIServer):
        request_queue_size = 128

    httpd = Server(("127.0.0.1", 0), WSGIRequestHandler, allow_reuse_address=False)
    origin = "http://127.0.0.1:%d" % httpd.server_address[1]

    env = {
        "DJANGO_SETTINGS_MODULE": "authserver.settings",
        "TVAUTH_STATE_DIR": state_dir,
        "TVAUTH_DB": run_db,
        "TVAUTH_ISSUER": origin,
        "TVAUTH_VERBOSE": "1" if args.verbose else "0",
    }
    optional = {
        "TVAUTH_ACCESS_TOKEN_LIFETIME": args.access_token_lifetime,
        "TVAUTH_ID_TOKEN_LIFETIME": args.id_token_lifetime,
        "TVAUTH_REFRESH_TOKEN_LIFETIME": args.refresh_token_lifetime,
        "TVAUTH_ROTATE_REFRESH_TOKENS": args.rotate_refresh_tokens,
        "TVAUTH_REUSE_PROTECTION": args.reuse_protection,
        "TVAUTH_GRACE_PERIOD": args.grace_period,
        "TVAUTH_DEVICE_INTERVAL": args.device_interval,
        "TVAUTH_DPOP_NONCE": args.dpop_nonce,
        "TVAUTH_API_AUDIENCES": args.api_audiences,
        "TVAUTH_DEVICE_ID_TOKEN": args.device_id_token,
    }
    env.update({key: str(value) for key, value in optional.items() if value is not None})
    os.environ.update(env)
    sys.path.insert(0, HERE)

    from django.core.wsgi import get_wsgi_application
    from django.db import connections
    from django.urls import get_resolver

    application = get_wsgi_application()  # runs django.setup()
    get_resolver().url_patterns  # import every view now, not on the first request
    httpd.set_app(application)

    stop = threading.Event()

    def on_signal(signum, frame):
        stop.set()

    # A parent that spawned us from a thread with these signals blocked (Foundation's Process
    # does) passes its mask on: unblock them, or SIGTERM would stay pending forever.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT, signal.SIGHUP})
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGHUP, on_signal)

    if args.parent_pid:
        def watch_parent():
            while not stop.wait(0.5):
                if not pid_alive(args.parent_pid):
                    stop.set()
        threading.Thread(target=watch_parent, name="parent-watch", daemon=True).start()

    if args.exit_on_stdin_eof:
        def watch_stdin():
            try:
                while sys.stdin.buffer.read(65536):
                    pass
            except (OSError, ValueError):
                pass
            stop.set()
        threading.Thread(target=watch_stdin, name="stdin-watch", daemon=True).start()

    server_thread = threading.Thread(
        target=httpd.serve_forever, kwargs={"poll_interval": 0.1}, name="http", daemon=True
    )
    server_thread.start()

    sys.stdout.write("READY %s\n" % origin)
    sys.stdout.flush()

    while not stop.wait(1.0):
        pass

    httpd.shutdown()  # stop accepting; in-flight daemon request threads are abandoned
    httpd.server_close()
    connections.close_all()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        sys.exit(0)
