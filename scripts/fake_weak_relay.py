#!/usr/bin/env python3
"""A hostile relay for the end-to-end test: it answers `POST /v1/restore/parameters` with scrypt N = 2, r = 1 (a cost
that would make the restore credential guessable in milliseconds) and refuses everything else, recording every path
it was asked for. A client that keeps the floors of SECURITY.md asks for the parameters and nothing more.

    scripts/fake_weak_relay.py PORT_FILE LOG_FILE    # writes its port to PORT_FILE, one path per request to LOG_FILE
"""

import base64
import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def main():
    port_file, log_file = sys.argv[1], sys.argv[2]

    class Handler(BaseHTTPRequestHandler):
        def answer(self, status, body):
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def handle_any(self):
            length = int(self.headers.get("Content-Length") or 0)
            self.rfile.read(length)
            with open(log_file, "a") as log:
                log.write(f"{self.command} {self.path}\n")
            if self.path == "/v1/restore/parameters":
                salt = base64.b64encode(os.urandom(16)).decode()
                self.answer(200, {"keyDerivation": {"salt": salt, "n": 2, "r": 1, "p": 1}})
            else:
                self.answer(404, {"error": {"code": "not_found", "message": "nothing here"}})

        do_GET = do_POST = do_PUT = do_DELETE = handle_any

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(port_file + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.replace(port_file + ".tmp", port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
