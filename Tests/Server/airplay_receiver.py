#!/usr/bin/env python3
"""An AirPlay 1 video receiver's HTTP side on 127.0.0.1, for Seamcheck's sender tests (stdlib only).

Each --listen MODE opens one port that behaves as MODE:

  receiver        plays like Kodi 20: /play 200, /playback-info an XML plist with only duration,
                  position (advancing in wall time while the rate is 1) and rate; /rate, /scrub,
                  /stop 200; /server-info Kodi's XML plist
  binary          as receiver, with binary plists
  error-dict      /playback-info: readyToPlay as the integer 0, no duration, an error dict
  status-401 status-403 status-453 status-470   every request answers that status
  digest          401 with a Digest WWW-Authenticate challenge (a password is set)
  no-url          /play answers 404 (no URL playback); the rest as receiver
  play-500        /play answers 500 every time
  play-500-twice  /play answers 500 to the first two requests, then 200
  huge            /playback-info: 200 with a 50 MB body (Content-Length 52428800), sent while read
  endless         /playback-info: 200, no Content-Length, bytes until the client goes
  endless-chunked /playback-info: 200, chunked, chunks until the client goes
  chunked         /playback-info: the receiver's XML plist in 7-byte chunks
  garbage         /playback-info and /server-info: 200 with a body that is not a property list
  silent          reads requests and never answers
  close-mid       answers the head and half the body, then closes the connection
  bare-lf         status lines end with a bare LF (as Kodi's 501 does); the rest as receiver
  stale           on each connection answers the first request, then closes on the second unanswered
                  (a keep-alive connection the receiver dropped as the sender wrote)
  idle-close      closes the connection after each answer, without `Connection: close`
  legacy-no-feedback  a legacy video receiver (UxPlay's RTSP side: SETUP, RECORD, TEARDOWN answered
                  RTSP/1.0 200 with the CSeq) that never asks for timing and never answers
                  POST /feedback; its HTTP side as receiver
  reverse-garbage-plists  /reverse: 101, then well-framed POST /event requests whose bodies are
                  garbage property lists (binary junk, a binary plist that holds itself, 15000
                  nested arrays, an array, wrong types); each answer awaited
  reverse-endless-event   /reverse: 101, then a POST /event that claims 200000 bytes and sends 100

Prints "PORT <mode> <n>" per listener, then "READY"; then "CONNECT <mode> <k>" per accepted
connection (k counts from 1 per mode), "REQUEST <json>" per request (mode, conn, method, path,
headers, body in base64), and "SENT <mode> <bytes> <complete>" when a streamed body ends. Exits
after --lifetime seconds, so a test that dies never leaves it running for long.
"""
import argparse
import base64
import json
import plistlib
import socket
import sys
import threading
import time

LOCK = threading.Lock()
COUNTS = {}
PLAY_COUNTS = {}
CSEQ = {}


def say(line):
    with LOCK:
        print(line, flush=True)


def response(status, reason, headers=(), body=b"", bare_lf=False):
    head = "HTTP/1.1 %d %s%s" % (status, reason, "\n" if bare_lf else "\r\n")
    for name, value in headers:
        head += "%s: %s\r\n" % (name, value)
    if not any(name.lower() in ("content-length", "transfer-encoding") for name, _ in headers):
        head += "Content-Length: %d\r\n" % len(body)
    return head.encode() + b"\r\n" + body


class Player:
    """What the receiver is playing, shared by the connections of one port."""

    def __init__(self):
        self.url = None
        self.started = None
        self.offset = 0.0
        self.rate = 0.0

    def position(self):
        if self.started is None:
            return 0.0
        return self.offset + (time.monotonic() - self.started if self.rate else 0.0)

    def set_rate(self, rate):
        self.offset = self.position()
        self.started = time.monotonic()
        self.rate = rate


def server_info():
    return {"deviceid": "02:5E:A0:00:00:02", "features": 119, "model": "Xbmc,1", "protovers": "1.0",
            "srcvers": "101.28", "macAddress": "02:5E:A0:00:00:02", "vv": 1}


def read_request(conn, pending):
    """One request: (method, path, headers, body, rest) or None when the peer closed."""
    while b"\r\n\r\n" not in pending:
        data = conn.recv(65536)
        if not data:
            return None
        pending += data
    head, _, rest = pending.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    method, path, _ = (lines[0].split(" ") + ["", ""])[:3]
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip()] = value.strip()
    length = int(headers.get("Content-Length", "0") or 0)
    while len(rest) < length:
        data = conn.recv(65536)
        if not data:
            return None
        rest += data
    return method, path, headers, rest[:length], rest[length:]


def stream(conn, mode, head, pieces, limit=None):
    sent = 0
    complete = False
    try:
        conn.sendall(head)
        for piece in pieces:
            conn.sendall(piece)
            sent += len(piece)
            if limit is not None and sent >= limit:
                complete = True
                break
    except OSError:
        pass
    say("SENT %s %d %s" % (mode, sent, "true" if complete else "false"))


def forever(piece):
    while True:
        yield piece


def answer(conn, mode, player, method, path, number_on_conn):
    """Sends the answer; returns False when the connection is to be closed."""
    route = path.split("?")[0]
    plist_format = plistlib.FMT_BINARY if mode == "binary" else plistlib.FMT_XML
    plist_type = "application/x-apple-binary-plist" if mode == "binary" else "text/x-apple-plist+xml"
    bare = mode == "bare-lf"
    if mode == "silent":
        return "silent"
    if mode == "stale" and number_on_conn > 1:
        return False
    if mode.startswith("status-"):
        status = int(mode.split("-")[1])
        conn.sendall(response(status, {401: "Unauthorized", 403: "Forbidden", 453: "Not Enough Bandwidth",
                                       470: "Connection Authorization Required", 409: "Conflict"}[status]))
        return True
    if mode == "redirect-301":
        conn.sendall(response(301, "Moved Permanently", [("Location", "http://10.9.8.7:7000" + path + "\x1b[2J")]))
        return True
    if mode == "digest":
        conn.sendall(response(401, "Unauthorized", [("WWW-Authenticate",
                                                     'Digest realm="AirPlay", nonce="0a1b2c3d4e5f"')]))
        return True
    if mode.startswith("legacy") and (method in ("SETUP", "RECORD", "TEARDOWN") or route == "/feedback"):
        if route == "/feedback":
            return "silent"
        conn.sendall(b"RTSP/1.0 200 OK\r\nCSeq: %s\r\nContent-Length: 0\r\n\r\n" % CSEQ.get(id(conn), "0").encode())
        return True
    if route == "/reverse":
        return reverse(conn, mode)
    if route == "/action":
        conn.sendall(response(200, "OK"))
        return True
    if route == "/play":
        with LOCK:
            PLAY_COUNTS[mode] = PLAY_COUNTS.get(mode, 0) + 1
            count = PLAY_COUNTS[mode]
        if mode == "no-url":
            conn.sendall(response(404, "Not Found"))
        elif mode == "play-500" or (mode == "play-500-twice" and count <= 2):
            conn.sendall(response(500, "Internal Server Error"))
        else:
            player.started = time.monotonic()
            player.offset = 0.0
            player.rate = 1.0
            conn.sendall(response(200, "OK", bare_lf=bare))
        return True
    if route == "/playback-info":
        if mode == "huge":
            size = 50 * 1024 * 1024
            head = response(200, "OK", [("Content-Type", plist_type), ("Content-Length", str(size))])
            stream(conn, mode, head, forever(b"\0" * 65536), limit=size)
            return True
        if mode == "endless":
            stream(conn, mode, response(200, "OK", [("Content-Type", plist_type), ("Connection", "close")])
                   .replace(b"Content-Length: 0\r\n", b""), forever(b"<plist>" * 9000))
            return False
        if mode == "endless-chunked":
            chunk = b"<key>position</key>" * 3000
            stream(conn, mode, response(200, "OK", [("Transfer-Encoding", "chunked")]),
                   forever(b"%x\r\n%s\r\n" % (len(chunk), chunk)))
            return False
        if mode == "garbage":
            conn.sendall(response(200, "OK", [("Content-Type", plist_type)], b"\x00\x01 this is not a plist {"))
            return True
        if mode == "error-dict":
            body = plistlib.dumps({"readyToPlay": 0, "rate": 0.0,
                                   "error": {"code": -11800, "domain": "AVFoundationErrorDomain"}}, fmt=plist_format)
            conn.sendall(response(200, "OK", [("Content-Type", plist_type)], body))
            return True
        info = {"duration": 20.0, "position": player.position(), "rate": player.rate} if player.started else {}
        body = plistlib.dumps(info, fmt=plist_format)
        if mode == "close-mid":
            conn.sendall(response(200, "OK", [("Content-Type", plist_type)], body)[:-len(body) // 2])
            return False
        if mode == "chunked":
            chunks = b"".join(b"%x\r\n%s\r\n" % (len(body[i:i + 7]), body[i:i + 7]) for i in range(0, len(body), 7))
            conn.sendall(response(200, "OK", [("Content-Type", plist_type), ("Transfer-Encoding", "chunked")],
                                  chunks + b"0\r\n\r\n"))
            return True
        conn.sendall(response(200, "OK", [("Content-Type", plist_type)], body, bare_lf=bare))
        return mode != "idle-close"
    if route == "/server-info":
        body = b"<html>not a plist" if mode == "garbage" else plistlib.dumps(server_info(), fmt=plist_format)
        conn.sendall(response(200, "OK", [("Content-Type", plist_type)], body, bare_lf=bare))
        return mode != "idle-close"
    if route == "/rate":
        value = float(path.partition("value=")[2] or 0)
        player.set_rate(value)
    elif route == "/scrub" and method == "POST":
        player.offset = float(path.partition("position=")[2] or 0)
        player.started = time.monotonic()
    elif route == "/stop":
        player.started = None
        player.rate = 0.0
    elif route not in ("/rate", "/scrub", "/stop"):
        conn.sendall(response(501, "Not Implemented", bare_lf=True))
        return True
    conn.sendall(response(200, "OK", bare_lf=bare))
    return mode != "idle-close"


FCUP_EVENT = plistlib.dumps({"sessionID": 1, "type": "unhandledURLRequest", "request": {
    "FCUP_Response_ClientInfo": 1, "FCUP_Response_ClientRef": 40030004, "FCUP_Response_RequestID": 7,
    "FCUP_Response_URL": "mlhls://127.0.0.1:9/cases/c/master.m3u8", "sessionID": 1,
    "FCUP_Response_Headers": {"X-Playback-Session-Id": "S", "User-Agent": "AppleCoreMedia/1.0.0.11B554a"}}},
    fmt=plistlib.FMT_XML)


# A binary plist's trailer: offset and reference sizes 1, one object, top object 0, offset table at `table`.
def bplist_one(obj, table):
    return b"bplist00" + obj + bytes([8]) + bytes(6) + bytes([1, 1]) + (1).to_bytes(8, "big") + bytes(8) + table.to_bytes(8, "big")


GARBAGE_PLISTS = [
    b"bplist00" + b"\xff" * 64,                                   # a binary plist header over junk
    bplist_one(b"\xa1\x00", 10),                                  # an array that holds itself
    bplist_one(b"\xd1\x00\x00", 11),                               # a dict keyed and valued by itself
    b"<plist>" + b"<array>" * 15000 + b"</array>" * 15000 + b"</plist>",  # nested past any parser's patience
    plistlib.dumps(["unhandledURLRequest"], fmt=plistlib.FMT_XML),   # an array, not a dict
    plistlib.dumps({"type": 5, "request": "x"}, fmt=plistlib.FMT_BINARY),
    plistlib.dumps({"type": "unhandledURLRequest", "request": {"FCUP_Response_URL": 7, "FCUP_Response_RequestID": "x"}},
                   fmt=plistlib.FMT_XML),
]


def event(body):
    return ("POST /event HTTP/1.1\r\nX-Apple-Session-ID: S\r\nContent-Type: text/x-apple-plist+xml\r\n"
            "Content-Length: %d\r\n\r\n" % len(body)).encode() + body


def await_answer(conn):
    got = b""
    while b"\r\n\r\n" not in got:
        data = conn.recv(4096)
        if not data:
            return
        got += data
    say("REVERSE-ANSWER " + got.split(b"\r\n")[0].decode("latin-1"))


def reverse(conn, mode):
    """Reverse modes: UxPlay's side of POST /reverse (101, then its own requests), and ways it can go wrong."""
    if mode == "reverse-silent":
        return "silent"
    if mode == "reverse-409":
        conn.sendall(response(409, "Conflict"))
        return True
    conn.sendall(b"HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: PTTH/1.0\r\n\r\n")
    if mode == "reverse-garbage":
        conn.sendall(b"\x00\x01\xffgarbage that is no request\r\n\r\n")
    elif mode == "reverse-garbage-plists":
        for body in GARBAGE_PLISTS:
            conn.sendall(event(body))
            await_answer(conn)
    elif mode == "reverse-endless-event":
        conn.sendall(b"POST /event HTTP/1.1\r\nContent-Length: 200000\r\n\r\n" + b"<" * 100)
    elif mode == "reverse-huge":
        conn.sendall(b"POST /event HTTP/1.1\r\nContent-Length: 1000000000\r\n\r\n")
        try:
            for _ in range(64):
                conn.sendall(b"\0" * 65536)
        except OSError:
            say("REVERSE-CUT")
    else:
        conn.sendall(event(b"<html>not a plist</html>"))
        await_answer(conn)
        conn.sendall(event(FCUP_EVENT))
        await_answer(conn)
    while conn.recv(65536):
        pass
    say("REVERSE-CLOSED")
    return False


def serve(conn, mode, player):
    with LOCK:
        COUNTS[mode] = COUNTS.get(mode, 0) + 1
        number = COUNTS[mode]
    say("CONNECT %s %d" % (mode, number))
    pending = b""
    on_conn = 0
    try:
        while True:
            request = read_request(conn, pending)
            if request is None:
                break
            method, path, headers, body, pending = request
            on_conn += 1
            CSEQ[id(conn)] = headers.get("CSeq", "0")
            say("REQUEST " + json.dumps({"mode": mode, "conn": number, "method": method, "path": path,
                                         "headers": headers, "body": base64.b64encode(body[:8192]).decode()}))
            result = answer(conn, mode, player, method, path, on_conn)
            if result == "silent":
                continue
            if not result:
                break
    except OSError:
        pass
    finally:
        try:
            conn.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        conn.close()


def listen(mode):
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    player = Player()

    def loop():
        while True:
            conn, _ = sock.accept()
            threading.Thread(target=serve, args=(conn, mode, player), daemon=True).start()

    threading.Thread(target=loop, daemon=True).start()
    return sock.getsockname()[1]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--listen", action="append", required=True)
    parser.add_argument("--lifetime", type=float, default=300)
    args = parser.parse_args()
    for mode in args.listen:
        say("PORT %s %d" % (mode, listen(mode)))
    say("READY")
    time.sleep(args.lifetime)


if __name__ == "__main__":
    main()
