#!/usr/bin/env python3
"""An AirPlay 1 video receiver on one loopback address, for `seamcheck lab run`'s fault tests (stdlib only).

Plays like Kodi as far as the run loop sees: /play 200 (and, like a real receiver, GETs the URL it
was given, so the lab server logs a request from this address), /playback-info an XML plist with
duration, position (advancing in wall time from --start-delay after /play) and rate; once the
position reaches the duration the item is dropped (an empty plist), as Kodi does. /stop 200.

  --mode play          as above
  --mode never-plays   /play 200, /playback-info: position 0, rate 0, no duration, forever
  --mode status-N      every request answers HTTP N (403: pairing wanted, 404: no URL playback)
  --mode garbage       /playback-info answers 200 with a body that is not a property list
  --vanish-on-play K   on the K-th /play: keep answering for --vanish-after s, then close every
                       connection and the listener (connection refused); listen again after
                       --return-after s (never, when absent)

Prints "PORT n" then "READY"; "PLAY <url>" per /play, "VANISHED" and "BACK" when it goes and
returns. Exits after --lifetime seconds.
"""
import argparse
import plistlib
import socket
import sys
import threading
import time
import urllib.request

LOCK = threading.Lock()
STATE = {"url": None, "started": None, "plays": 0, "gone": False, "connections": []}


def say(line):
    with LOCK:
        print(line, flush=True)


def response(status, reason, body=b"", content_type="text/x-apple-plist+xml"):
    head = "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n" % (status, reason, content_type, len(body))
    return head.encode() + body


def info(args):
    if args.mode == "never-plays":
        return {"position": 0.0, "rate": 0.0}
    started = STATE["started"]
    if started is None:
        return {}
    position = time.monotonic() - started - args.start_delay
    if position < 0:
        return {"duration": args.duration, "position": 0.0, "rate": 0.0}
    if position >= args.duration:
        return {}  # the item is over and dropped
    return {"duration": args.duration, "position": position, "rate": 1.0}


def fetch(url, source):
    try:
        host = source if source != "0.0.0.0" else None
        handler = urllib.request.HTTPHandler()
        if host:
            import http.client

            class Bound(http.client.HTTPConnection):
                def __init__(self, *a, **k):
                    k["source_address"] = (host, 0)
                    super().__init__(*a, **k)

            handler = type("H", (urllib.request.HTTPHandler,), {"http_open": lambda self, req: self.do_open(Bound, req)})()
        urllib.request.build_opener(handler).open(url, timeout=5).read(1 << 20)
    except Exception as error:  # the run loop's measurement copes with a receiver that fetched nothing
        say("FETCH-FAILED %s" % error)


def handle(conn, args):
    with LOCK:
        STATE["connections"].append(conn)
    buffer = b""
    try:
        while True:
            while b"\r\n\r\n" not in buffer:
                data = conn.recv(65536)
                if not data:
                    return
                buffer += data
            head, _, rest = buffer.partition(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            method, path, _ = lines[0].split(" ", 2)
            length = 0
            for line in lines[1:]:
                name, _, value = line.partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value.strip())
            while len(rest) < length:
                data = conn.recv(65536)
                if not data:
                    return
                rest += data
            body, buffer = rest[:length], rest[length:]
            route = path.split("?")[0]
            if args.mode.startswith("status-"):
                conn.sendall(response(int(args.mode[7:]), "Refused"))
                continue
            if route == "/play":
                url = None
                try:
                    url = plistlib.loads(body).get("Content-Location")
                except Exception:
                    for line in body.decode("utf-8", "replace").splitlines():
                        if line.lower().startswith("content-location:"):
                            url = line.split(":", 1)[1].strip()
                with LOCK:
                    STATE["plays"] += 1
                    STATE["url"] = url
                    STATE["started"] = time.monotonic()
                    plays = STATE["plays"]
                say("PLAY %s" % url)
                conn.sendall(response(200, "OK"))
                if url:
                    threading.Thread(target=fetch, args=(url, args.host), daemon=True).start()
                if args.vanish_on_play and plays == args.vanish_on_play:
                    threading.Timer(args.vanish_after, vanish, args=(args,)).start()
            elif route == "/playback-info":
                if args.mode == "garbage":
                    conn.sendall(response(200, "OK", b"\x00\x01 this is not a plist {"))
                else:
                    conn.sendall(response(200, "OK", plistlib.dumps(info(args), fmt=plistlib.FMT_XML)))
            elif route == "/stop":
                with LOCK:
                    STATE["started"] = None
                conn.sendall(response(200, "OK"))
            elif route == "/server-info":
                conn.sendall(response(200, "OK", plistlib.dumps({"deviceid": "02:00:00:00:00:99", "features": 119,
                                                                 "model": "Xbmc,1", "srcvers": "101.28"})))
            else:
                conn.sendall(response(200, "OK"))
    except OSError:
        return
    finally:
        conn.close()


LISTENER = {}


def listen(args, port):
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind((args.host, port))
    server.listen(16)
    LISTENER["socket"] = server

    def accept():
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            threading.Thread(target=handle, args=(conn, args), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    return server.getsockname()[1]


def vanish(args):
    port = LISTENER["socket"].getsockname()[1]
    # shutdown first: close() alone leaves a thread blocked in accept() accepting (Linux).
    try:
        LISTENER["socket"].shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    LISTENER["socket"].close()
    with LOCK:
        STATE["started"] = None
        for conn in STATE["connections"]:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            conn.close()
        STATE["connections"] = []
    say("VANISHED")
    if args.return_after is not None:
        time.sleep(args.return_after)
        listen(args, port)
        say("BACK")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--mode", default="play")
    parser.add_argument("--duration", type=float, default=4.0)
    parser.add_argument("--start-delay", type=float, default=0.3)
    parser.add_argument("--vanish-on-play", type=int, default=0)
    parser.add_argument("--vanish-after", type=float, default=1.0)
    parser.add_argument("--return-after", type=float, default=None)
    parser.add_argument("--lifetime", type=float, default=120)
    args = parser.parse_args()
    say("PORT %d" % listen(args, args.port))
    say("READY")
    time.sleep(args.lifetime)
    sys.exit(0)


if __name__ == "__main__":
    main()
