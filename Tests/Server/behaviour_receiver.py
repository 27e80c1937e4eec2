#!/usr/bin/env python3
"""A stand-in AirPlay 1 video receiver that plays HLS interstitials, for the lab's behaviour suite.

On one loopback address (--host) it answers what `seamcheck lab run` sends a receiver (/play,
/playback-info, /scrub, /rate, /stop, /server-info) in the shapes Kodi answers them, and on /play
PLAYS the URL as an interstitial-aware HLS client (draft-pantos-hls-rfc8216bis-22 Appendix D) in
real time times --speed: it fetches each playlist and segment (whole bodies) from --host when it
plays it, so that the lab server's request log shows what it did. /playback-info reports the
position on the PRIMARY timeline (during a POINT interstitial its START; during a RANGE one START
plus the time into it), the duration (absent for live until EXT-X-ENDLIST) and the rate (0 until
the first segment arrived). After the primary (and its post-rolls) the item is dropped: an empty
plist, as Kodi answers. It decodes nothing.

--behaviour NAME plays one deliberate deviation (behaviour_player.BEHAVIOURS): ignore-interstitials
(never fetches an asset or an asset list), ignore-resume-offset (resumes where it left the
primary), ignore-playout-limit (plays the whole ad), drop-primary-id (no _HLS_primary_id),
seek-past-jump (a seek past a JUMP-restricted ad lands at once), allow-skip-rate (rate 2 honoured
during a SKIP-restricted ad), ignore-cue (PRE, POST and ONCE read as a mid-roll at START, every time).

Prints "PORT n", "READY", then a line per event: PLAY url, SCRUB s, SCRUB-REFUSED s, RATE r
accepted|refused, STOP, INTERSTITIAL id at s [from s], ASSET-FAILED, ASSET-LIST-FAILED, RESUME s,
LAND s, FETCH-FAILED, ENDED ended|stopped|failed: why. With --trace, one JSON line per fetch on
stderr (at, path, query, status, bytes). Python standard library only.
"""
import argparse
import json
import os
import plistlib
import sys
import threading
import time
import traceback
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from behaviour_player import BEHAVIOURS, Playback  # noqa: E402

LOCK = threading.Lock()


def say(line):
    with LOCK:
        print(line, flush=True)


class Receiver:
    """The AirPlay side: at most one playback; a new /play stops the previous one."""

    def __init__(self, options):
        self.options, self.playback, self.lock = options, None, threading.Lock()

    def trace(self, entry):
        if self.options.trace:
            with LOCK:
                sys.stderr.write(json.dumps(entry) + "\n")
                sys.stderr.flush()

    def play(self, url, seconds, fraction):
        with self.lock:
            if self.playback:
                self.playback.stop()
            self.playback = Playback(url, seconds, fraction, self.options, say, self.trace)
            self.playback.start()

    def current(self):
        with self.lock:
            return self.playback

    def stop(self):
        with self.lock:
            if self.playback:
                self.playback.stop()


def play_request(body):
    """A /play body (binary or XML plist, or text/parameters) -> (URL, start seconds, start fraction)."""
    fields = {}
    try:
        fields = plistlib.loads(body)
        if not isinstance(fields, dict):
            fields = {}
    except Exception:  # not a plist: text/parameters, "Name: value" lines
        for line in body.decode("utf-8", "replace").splitlines():
            name, _, value = line.partition(":")
            fields[name.strip()] = value.strip()

    def number(key):
        try:
            value = float(fields.get(key))
            return value if value == value and value >= 0 else None  # NaN and negatives: absent
        except (TypeError, ValueError):
            return None

    url = fields.get("Content-Location")
    return (url if isinstance(url, str) and url else None), number("Start-Position-Seconds"), number("Start-Position")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 120  # an idle kept-alive sender connection is closed after this
    receiver = None

    def log_message(self, *args):
        pass

    def answer(self, status=200, body=b"", content_type="text/x-apple-plist+xml"):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self.route()

    def do_POST(self):
        self.route()

    def do_PUT(self):
        self.route()

    def route(self):
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if not 0 <= length <= 1 << 20:
            self.answer(400)
            self.close_connection = True
            return
        body = self.rfile.read(length) if length else b""
        parts = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qs(parts.query)
        value = lambda key: float(query[key][0]) if key in query else None  # noqa: E731
        receiver, playback = self.receiver, self.receiver.current()
        try:
            if parts.path == "/play" and self.command == "POST":
                url, seconds, fraction = play_request(body)
                if not url:
                    return self.answer(400)
                say(f"PLAY {url}")
                receiver.play(url, seconds, fraction)
                self.answer(200)
            elif parts.path == "/playback-info":
                info = playback.info() if playback else {}
                self.answer(200, plistlib.dumps(info, fmt=plistlib.FMT_XML))
            elif parts.path == "/scrub" and self.command == "POST":
                position = value("position")
                if position is None or position != position:
                    return self.answer(400)
                say(f"SCRUB {position:g}")
                if playback:
                    playback.seek(max(position, 0.0))
                self.answer(200)
            elif parts.path == "/scrub":
                info = playback.info() if playback else {}
                text = "duration: %f\nposition: %f\n" % (info.get("duration", 0.0), info.get("position", 0.0))
                self.answer(200, text.encode(), "text/parameters")
            elif parts.path == "/rate":
                rate = value("value")
                if rate is None or rate != rate:
                    return self.answer(400)
                accepted = playback.set_rate(rate) if playback else False
                say(f"RATE {rate:g} {'accepted' if accepted else 'refused'}")
                self.answer(200)
            elif parts.path == "/stop":
                say("STOP")
                receiver.stop()
                self.answer(200)
            elif parts.path == "/server-info":
                host = receiver.options.host.split(".")[-1]
                self.answer(200, plistlib.dumps({"deviceid": "02:00:00:00:01:%02x" % (int(host) % 256 if host.isdigit() else 1),
                                                 "features": 119, "model": "SeamcheckBehaviour,1", "srcvers": "101.28",
                                                 "protovers": "1.0"}, fmt=plistlib.FMT_XML))
            else:
                self.answer(200)
        except ValueError:
            self.answer(400)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1", help="listen on, and fetch from, this address (127.0.0.x)")
    parser.add_argument("--port", type=int, default=0, help="0: a free port")
    parser.add_argument("--behaviour", choices=BEHAVIOURS, default="conforming")
    parser.add_argument("--speed", type=float, default=1.0, help="media seconds played per wall second (> 0)")
    parser.add_argument("--timeout", type=float, default=5.0, help="seconds per socket operation of a fetch")
    parser.add_argument("--lifetime", type=float, default=3600, help="exit after this many seconds")
    parser.add_argument("--trace", action="store_true", help="one JSON line per fetch on stderr")
    options = parser.parse_args()
    if not options.speed > 0 or not options.timeout > 0:
        parser.error("--speed and --timeout must be above 0")
    Handler.receiver = Receiver(options)
    server = ThreadingHTTPServer((options.host, options.port), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    say(f"PORT {server.server_address[1]}")
    say("READY")
    try:
        time.sleep(options.lifetime)
    except KeyboardInterrupt:
        pass
    Handler.receiver.stop()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception:  # never a silent death: say why
        traceback.print_exc()
        sys.exit(1)
