# SPDX-License-Identifier: ISC
#
# A loopback HTTP server for tests/integration/faults.sh: /big sends 64
# KiB every 10 ms for up to 1 GiB, writing the bytes sent to DIR/sent
# and "closed" to DIR/big.end when its peer goes away (the connection
# through the proxy closed); anything else answers "ok".  Writes its
# port to DIR/port.   usage: faults_srv.py DIR
import http.server
import os
import socketserver
import sys
import time

DIR = sys.argv[1]


class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if not self.path.startswith("/big"):
            self.send_response(200)
            self.send_header("Content-Length", "3")
            self.end_headers()
            self.wfile.write(b"ok\n")
            return
        self.send_response(200)
        self.send_header("Content-Length", str(1 << 30))
        self.end_headers()
        chunk = b"x" * 65536
        sent = 0
        try:
            while sent < (1 << 30):
                self.wfile.write(chunk)
                self.wfile.flush()
                sent += len(chunk)
                # A rename, so a reader never sees the file emptied.
                with open(os.path.join(DIR, "sent.new"), "w") as f:
                    f.write("%d\n" % sent)
                os.rename(os.path.join(DIR, "sent.new"),
                          os.path.join(DIR, "sent"))
                time.sleep(0.01)
            end = "complete"
        except OSError:
            end = "closed"
        with open(os.path.join(DIR, "big.end"), "a") as f:
            f.write(end + "\n")

    def log_message(self, *a):
        pass


class S(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


s = S(("127.0.0.1", 0), H)
with open(os.path.join(DIR, "port.tmp"), "w") as f:
    f.write(str(s.server_address[1]))
os.rename(os.path.join(DIR, "port.tmp"), os.path.join(DIR, "port"))
s.serve_forever()
