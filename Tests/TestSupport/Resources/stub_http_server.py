#!/usr/bin/env python3
"""A scripted HTTP server for tests that need answers no real authorization server gives.

    python3 stub_http_server.py [--parent-pid PID] [--exit-on-stdin-eof]

Binds 127.0.0.1 on an ephemeral port and prints exactly one line, READY http://127.0.0.1:PORT,
once it listens. Only the Python standard library is used, so it runs without the Django setup.

Control endpoints (never recorded):
    POST /_stub/route     {"path": "/token", "status": 200, "headers": {...}, "body": "..."}
                          sets the answer to every method on that path (query ignored)
    GET  /_stub/requests  every other request so far: [{"method", "path", "headers", "body"}]

Any other path without a route answers 404 with an OAuth-style JSON error.
"""

import argparse
import http.server
import json
import os
import signal
import sys
import threading
import time

ROUTES = {}
REQUESTS = []
LOCK = threading.Lock()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def _answer(self, status, headers, body):
        data = body.encode("utf-8")
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _handle(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        path = self.path.split("?", 1)[0]
        if path == "/_stub/route" and self.command == "POST":
            route = json.loads(body)
            with LOCK:
                ROUTES[route["path"]] = route
            return self._answer(200, {"Content-Type": "application/json"}, "{}")
        if path == "/_stub/requests":
            with LOCK:
                text = json.dumps(REQUESTS)
            return self._answer(200, {"Content-Type": "application/json"}, text)
        with LOCK:
            REQUESTS.append({
                "method": self.command,
                "path": self.path,
                "headers": {name: value for name, value in self.headers.items()},
                "body": body.decode("utf-8", "replace"),
            })
            route = ROUTES.get(path)
        if route is None:
            return self._answer(404, {"Content-Type": "application/json"}, '{"error": "not_found"}')
        if route.get("drop"):
            # A network failure as the client sees it: the connection closes with no answer.
            self.close_connection = True
            return
        self._answer(route.get("status", 200), route.get("headers", {}), route.get("body", ""))

    do_GET = do_POST = do_PUT = do_DELETE = _handle

    def log_message(self, format, *args):
        pass


def watch_parent(pid):
    while True:
        try:
            os.kill(pid, 0)
        except OSError:
            os._exit(0)
        time.sleep(0.5)


def watch_stdin():
    while sys.stdin.buffer.read(1024):
        pass
    os._exit(0)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--parent-pid", type=int)
    parser.add_argument("--exit-on-stdin-eof", action="store_true")
    arguments = parser.parse_args()
    # The test stops the server with SIGTERM, which the launching thread may have blocked or
    # ignored (both are inherited).
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    if arguments.parent_pid:
        threading.Thread(target=watch_parent, args=(arguments.parent_pid,), daemon=True).start()
    if arguments.exit_on_stdin_eof:
        threading.Thread(target=watch_stdin, daemon=True).start()
    sys.stdout.write("READY http://127.0.0.1:%d\n" % server.server_address[1])
    sys.stdout.flush()
    server.serve_forever()


if __name__ == "__main__":
    main()
