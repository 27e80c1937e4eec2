#!/usr/bin/env python3
"""A real HTTP server on 127.0.0.1 for Seamcheck's tests (stdlib only).

Serves files from a directory with byte-range support, plus routes that misbehave on purpose:

  /files/PATH                 the file, honouring Range (206) like a CDN
  /norange/PATH               the file, ignoring Range (always 200, whole body) like python's http.server
  /redirect/N/PATH            N chained 302s, then /files/PATH
  /loop                       302 to itself, forever
  /goto?to=URL[&wait=S]       302 to any URL (file:///etc/passwd, to test that remote inputs never read local files),
                              after S seconds; an empty `to` sends an empty Location
  /status/CODE                an empty response with that status
  /html                       200 with an HTML error page (a captive portal, a CDN error)
  /slow/SECONDS/PATH          waits, then serves /files/PATH
  /drip/SECONDS/PATH          sends headers, then the body one byte per SECONDS
  /huge/BYTES                 Content-Length BYTES of zeros, streamed until the client stops
  /endless                    a body without Content-Length that never ends (connection-delimited)
  /gzip/PATH                  the file gzip-compressed, with Content-Encoding: gzip, like a CDN
  /live/START/SIZE/PATH       a live window of the VOD media playlist PATH: SIZE segments from segment START, with
                              MEDIA-SEQUENCE START, PROGRAM-DATE-TIME moved to the window's first segment, no ENDLIST or
                              PLAYLIST-TYPE, and only the date ranges whose dates map into the window or before its end
                              (RFC 8216bis 6.2.1); `?drop=ID` leaves one out anyway (a packager that loses it). Other
                              files under the prefix (segments, init sections) are /files/PATH's
  /tick/SIZE/PATH             the window that advances one segment per request of this path (the first request is
                              /live/0/SIZE/PATH's, the next /live/1/SIZE/PATH's...; it stays on the last window)
  /flip/PATH                  a body that changes between fetches: odd requests of this path get the file PATH, even
                              ones PATH.next when it exists (a playlist rewritten between two fetches)
  /__fault?path=P&...         from now on, requests of exactly P (query ignored) misbehave: status=CODE (an empty
                              answer), delay=S (wait, then answer normally), redirect=URL (302), html=1 (an HTML page
                              with status 200); times=N: only the next N requests
  /__faults/clear             removes every fault
  /__log                      JSON list of the requests served so far: path, range, status, bytes
  /__reset                    clears the log and the /tick and /flip counters

With --delay SECONDS, every request waits that long before it is answered (a CDN far away; the
interstitial benchmark's 50 ms a request).

With --substitute TEXT, every TEXT in a served .m3u8 or .json body becomes this server's
http://127.0.0.1:PORT/files (as the lab server does with the suite's {LAB_ORIGIN}); Range is
not honoured on those files.

Prints "PORT <n>" on stdout once it listens (port 0 = any free port), then serves until killed
or until --lifetime seconds pass (a test that dies never leaves it running for long).
"""
import argparse
import gzip
import json
import os
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOG = []
LOG_LOCK = threading.Lock()
# Requests being handled (not /__ ones). A handler records its request after writing the answer,
# so a client can read the answer and ask /__log before it is recorded: /__log waits (up to 2 s)
# until no other request is in flight, and lists them in the order they arrived (ARRIVED numbers
# them), not the order their handlers recorded them.
IN_FLIGHT = 0
ARRIVED = 0
IDLE = threading.Condition(LOG_LOCK)
# path -> {"status"|"delay"|"redirect"|"html": value, "times": remaining or None}
FAULTS = {}
# path -> requests served, for /tick and /flip
COUNTERS = {}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    root = "."
    substitute = None
    delay = 0.0

    def log_message(self, fmt, *args):  # keep test output clean
        pass

    def record(self, status, sent):
        with LOG_LOCK:
            LOG.append((getattr(self, "arrival", 0), {"path": self.path, "range": self.headers.get("Range"), "status": status, "bytes": sent}))

    def do_HEAD(self):
        self.handle_request(head=True)

    def do_GET(self):
        self.handle_request(head=False)

    def handle_request(self, head):
        global IN_FLIGHT, ARRIVED
        if self.path.startswith("/__"):
            return self.handle_one(head)
        with IDLE:
            IN_FLIGHT += 1
            ARRIVED += 1
            self.arrival = ARRIVED
        try:
            return self.handle_one(head)
        finally:
            with IDLE:
                IN_FLIGHT -= 1
                IDLE.notify_all()

    def handle_one(self, head):
        path = self.path.split("?", 1)[0]
        if self.delay > 0 and not path.startswith("/__"):
            time.sleep(self.delay)
        try:
            if path == "/__log":
                with IDLE:
                    IDLE.wait_for(lambda: IN_FLIGHT == 0, timeout=2)
                    body = json.dumps([entry for _, entry in sorted(LOG, key=lambda item: item[0])]).encode()
                return self.send_body(200, body, "application/json", log=False)
            if path == "/__reset":
                with LOG_LOCK:
                    LOG.clear()
                    COUNTERS.clear()
                return self.send_body(200, b"ok\n", "text/plain", log=False)
            if path == "/__fault":
                return self.add_fault()
            if path == "/__faults/clear":
                with LOG_LOCK:
                    FAULTS.clear()
                return self.send_body(200, b"ok\n", "text/plain", log=False)
            if self.apply_fault(path):
                return
            m = re.match(r"^/live/(\d+)/(\d+)/(.*)$", path)
            if m:
                return self.live(int(m.group(1)), int(m.group(2)), m.group(3), head)
            m = re.match(r"^/tick/(\d+)/(.*)$", path)
            if m:
                start = self.count(path) if m.group(2).endswith(".m3u8") else 0
                return self.live(start, int(m.group(1)), m.group(2), head, clamp=True)
            if path.startswith("/flip/"):
                rel = path[len("/flip/"):]
                if self.count(path) % 2 == 1 and self.resolve(rel + ".next"):
                    rel += ".next"
                return self.serve_file(rel, ranges=True, head=head)
            if path.startswith("/files/"):
                return self.serve_file(path[len("/files/"):], ranges=True, head=head)
            if path.startswith("/norange/"):
                return self.serve_file(path[len("/norange/"):], ranges=False, head=head)
            m = re.match(r"^/redirect/(\d+)/(.*)$", path)
            if m:
                n = int(m.group(1))
                target = f"/redirect/{n - 1}/{m.group(2)}" if n > 1 else f"/files/{m.group(2)}"
                return self.redirect(target)
            if path == "/loop":
                return self.redirect("/loop")
            if path == "/goto":
                from urllib.parse import parse_qs, urlsplit
                query = parse_qs(urlsplit(self.path).query, keep_blank_values=True)
                time.sleep(float(query.get("wait", ["0"])[0]))
                return self.redirect(query.get("to", ["/"])[0])
            m = re.match(r"^/status/(\d{3})$", path)
            if m:
                return self.send_body(int(m.group(1)), b"", "text/plain")
            if path == "/html":
                return self.send_body(200, b"<!DOCTYPE html><html><body><h1>503 Service Unavailable</h1></body></html>",
                                      "text/html")
            m = re.match(r"^/slow/([0-9.]+)/(.*)$", path)
            if m:
                time.sleep(float(m.group(1)))
                return self.serve_file(m.group(2), ranges=True, head=head)
            m = re.match(r"^/drip/([0-9.]+)/(.*)$", path)
            if m:
                return self.drip(float(m.group(1)), m.group(2))
            m = re.match(r"^/huge/(\d+)$", path)
            if m:
                return self.huge(int(m.group(1)), head)
            if path == "/endless":
                return self.endless()
            m = re.match(r"^/gzip/(.*)$", path)
            if m:
                return self.gzipped(m.group(1))
            return self.send_body(404, b"not found\n", "text/plain")
        except (BrokenPipeError, ConnectionResetError):
            return

    def count(self, path):
        """How many requests of `path` came before this one."""
        with LOG_LOCK:
            n = COUNTERS.get(path, 0)
            COUNTERS[path] = n + 1
        return n

    def add_fault(self):
        from urllib.parse import parse_qs, urlsplit
        query = {k: v[0] for k, v in parse_qs(urlsplit(self.path).query, keep_blank_values=True).items()}
        target = query.pop("path", None)
        if not target:
            return self.send_body(400, b"path is required\n", "text/plain", log=False)
        times = int(query.pop("times")) if "times" in query else None
        kinds = [k for k in ("status", "delay", "redirect", "html") if k in query]
        if len(kinds) != 1:
            return self.send_body(400, b"exactly one of status, delay, redirect, html\n", "text/plain", log=False)
        with LOG_LOCK:
            FAULTS[target] = {kinds[0]: query[kinds[0]], "times": times}
        return self.send_body(200, b"ok\n", "text/plain", log=False)

    def apply_fault(self, path):
        """Answers a request that has a fault set; True when it was answered (a delay only waits)."""
        with LOG_LOCK:
            fault = FAULTS.get(path)
            if fault is None:
                return False
            if fault["times"] is not None:
                fault["times"] -= 1
                if fault["times"] <= 0:
                    del FAULTS[path]
        if "delay" in fault:
            time.sleep(float(fault["delay"]))
            return False
        if "status" in fault:
            self.send_body(int(fault["status"]), b"", "text/plain")
        elif "redirect" in fault:
            self.redirect(fault["redirect"])
        else:
            self.send_body(200, b"<!DOCTYPE html><html><body><h1>Access denied</h1></body></html>", "text/html")
        return True

    def live(self, start, size, rel, head, clamp=False):
        """A window of the VOD media playlist `rel` (see the module docstring); other files as /files/."""
        if not rel.endswith(".m3u8"):
            return self.serve_file(rel, ranges=True, head=head)
        full = self.resolve(rel)
        if full is None:
            return self.send_body(404, b"not found\n", "text/plain")
        from urllib.parse import parse_qs, urlsplit
        drop = parse_qs(urlsplit(self.path).query).get("drop", [])
        with open(full, encoding="utf-8") as f:
            body = live_window(f.read(), start, size, drop, clamp)
        if body is None:
            return self.send_body(416, b"the window is past the end of the playlist\n", "text/plain")
        data = body.encode()
        if head:
            self.send_response(200)
            self.send_header("Content-Type", "application/vnd.apple.mpegurl")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            return self.record(200, 0)
        return self.send_body(200, data, "application/vnd.apple.mpegurl")

    def send_body(self, status, body, content_type, log=True):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        if log:
            self.record(status, len(body))

    def redirect(self, target):
        self.send_response(302)
        self.send_header("Location", target)
        self.send_header("Content-Length", "0")
        self.end_headers()
        self.record(302, 0)

    def resolve(self, rel):
        full = os.path.realpath(os.path.join(self.root, rel))
        if not full.startswith(os.path.realpath(self.root) + os.sep) or not os.path.isfile(full):
            return None
        return full

    def content_type(self, full):
        if full.endswith(".m3u8"):
            return "application/vnd.apple.mpegurl"
        if full.endswith(".json"):
            return "application/json"
        if full.endswith(".ts"):
            return "video/mp2t"
        if full.endswith((".mp4", ".m4s", ".m4v")):
            return "video/mp4"
        return "application/octet-stream"

    def serve_file(self, rel, ranges, head):
        full = self.resolve(rel)
        if full is None:
            return self.send_body(404, b"not found\n", "text/plain")
        if self.substitute and full.endswith((".m3u8", ".json")):
            with open(full, "rb") as f:
                body = f.read()
            origin = f"http://127.0.0.1:{self.server.server_address[1]}/files".encode()
            body = body.replace(self.substitute.encode(), origin)
            if head:
                self.send_response(200)
                self.send_header("Content-Type", self.content_type(full))
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                return self.record(200, 0)
            return self.send_body(200, body, self.content_type(full))
        size = os.path.getsize(full)
        start, end, status = 0, size - 1, 200
        header = self.headers.get("Range") if ranges else None
        if header:
            m = re.match(r"^bytes=(\d*)-(\d*)$", header.strip())
            if m and (m.group(1) or m.group(2)):
                if m.group(1):
                    start = int(m.group(1))
                    end = int(m.group(2)) if m.group(2) else size - 1
                else:
                    start = max(0, size - int(m.group(2)))
                end = min(end, size - 1)
                if start >= size or start > end:
                    self.send_response(416)
                    self.send_header("Content-Range", f"bytes */{size}")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return self.record(416, 0)
                status = 206
        length = end - start + 1
        self.send_response(status)
        self.send_header("Content-Type", self.content_type(full))
        self.send_header("Content-Length", str(length))
        if ranges:
            self.send_header("Accept-Ranges", "bytes")
        if status == 206:
            self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
        self.end_headers()
        sent = 0
        if not head:
            with open(full, "rb") as f:
                f.seek(start)
                remaining = length
                try:
                    while remaining > 0:
                        chunk = f.read(min(65536, remaining))
                        if not chunk:
                            break
                        self.wfile.write(chunk)
                        sent += len(chunk)
                        remaining -= len(chunk)
                except (BrokenPipeError, ConnectionResetError):
                    pass
        self.record(status, sent)

    def drip(self, interval, rel):
        full = self.resolve(rel)
        if full is None:
            return self.send_body(404, b"not found\n", "text/plain")
        data = open(full, "rb").read()
        self.send_response(200)
        self.send_header("Content-Type", self.content_type(full))
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        sent = 0
        try:
            for i in range(len(data)):
                self.wfile.write(data[i:i + 1])
                self.wfile.flush()
                sent += 1
                time.sleep(interval)
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.record(200, sent)

    def huge(self, size, head):
        self.send_response(200)
        self.send_header("Content-Type", "application/vnd.apple.mpegurl")
        self.send_header("Content-Length", str(size))
        self.end_headers()
        sent = 0
        if not head:
            block = b"#EXTM3U\n" + b"#" * 65528
            try:
                while sent < size:
                    n = min(len(block), size - sent)
                    self.wfile.write(block[:n])
                    sent += n
            except (BrokenPipeError, ConnectionResetError):
                pass
        self.record(200, sent)

    def endless(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/vnd.apple.mpegurl")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        sent = 0
        block = b"#EXTM3U\n" + b"#" * 65528
        try:
            while True:
                self.wfile.write(block)
                sent += len(block)
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.record(200, sent)

    def gzipped(self, rel):
        full = self.resolve(rel)
        if full is None:
            return self.send_body(404, b"not found\n", "text/plain")
        with open(full, "rb") as f:
            body = gzip.compress(f.read())
        self.send_response(200)
        self.send_header("Content-Type", "application/vnd.apple.mpegurl")
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        self.record(200, len(body))


def parse_date(text):
    from datetime import datetime
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def format_date(date):
    from datetime import timezone
    return date.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + f"{date.microsecond // 1000:03d}Z"


def live_window(text, start, size, drop, clamp):
    """The live window of a VOD media playlist: SIZE segments from START (see /live)."""
    from datetime import timedelta
    header, dateranges, segments, pending = [], [], [], []
    first_date = None
    for line in text.splitlines():
        if not line.strip():
            continue
        if line.startswith("#EXT-X-PROGRAM-DATE-TIME:"):
            if first_date is None:
                first_date = parse_date(line.split(":", 1)[1]) - timedelta(seconds=sum(d for d, _ in segments))
            continue
        if line.startswith("#EXT-X-DATERANGE:"):
            dateranges.append(line)
        elif line.startswith(("#EXT-X-ENDLIST", "#EXT-X-PLAYLIST-TYPE", "#EXT-X-MEDIA-SEQUENCE")):
            continue
        elif line.startswith(("#EXTINF:", "#EXT-X-BYTERANGE", "#EXT-X-DISCONTINUITY")):
            pending.append(line)
        elif line.startswith("#"):
            (pending if segments or pending else header).append(line)
        else:
            duration = float(next(p for p in pending if p.startswith("#EXTINF:"))[8:].split(",")[0])
            segments.append((duration, pending + [line]))
            pending = []
    if clamp:
        start = max(0, min(start, len(segments) - size))
    if start >= len(segments):
        return None
    window = segments[start:start + size]
    offset = sum(d for d, _ in segments[:start])
    out = header + [f"#EXT-X-MEDIA-SEQUENCE:{start}"]
    if first_date is not None:
        window_start = first_date + timedelta(seconds=offset)
        window_end = window_start + timedelta(seconds=sum(d for d, _ in window))
        out.append(f"#EXT-X-PROGRAM-DATE-TIME:{format_date(window_start)}")
        for tag in dateranges:
            ident = re.search(r'ID="([^"]*)"', tag)
            if ident and ident.group(1) in drop:
                continue
            begin = re.search(r'START-DATE="([^"]*)"', tag)
            length = re.search(r"(?<![A-Z-])DURATION=([0-9.]+)", tag)
            if begin:
                date = parse_date(begin.group(1))
                end = date + timedelta(seconds=float(length.group(1)) if length else 0)
                if end < window_start or date > window_end:
                    continue
            out.append(tag)
    for _, lines in window:
        out += lines
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--lifetime", type=float, default=1800)
    parser.add_argument("--substitute", default=None)
    parser.add_argument("--delay", type=float, default=0.0)
    args = parser.parse_args()
    Handler.root = args.root
    Handler.substitute = args.substitute
    Handler.delay = args.delay
    # socketserver's listen backlog is 5: a client opening more connections at once has the rest of
    # its SYNs dropped and retried a second later, which looks like a slow client, not a slow server.
    ThreadingHTTPServer.request_queue_size = 128
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    print(f"PORT {server.server_address[1]}", flush=True)
    timer = threading.Timer(args.lifetime, server.shutdown)
    timer.daemon = True
    timer.start()
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
