#!/usr/bin/env python3
"""A fake AirPlay receiver's `GET /info` endpoint on 127.0.0.1, for Seamcheck's tests (stdlib only).

Each --listen MODE opens one port that behaves as MODE:

  dolby-vision   a 4K TV: HDR10, HLG and Dolby Vision modes with codec strings, supportsInterstitials
  sdr            a 1080p TV without HDR modes, supportsInterstitials false
  rtsp-only      closes HTTP/1.1 requests unanswered; answers `GET /info RTSP/1.0` like `sdr`
                 (shairport-sync and UxPlay speak RTSP only)
  forbidden      403 Forbidden (a receiver that wants pairing first)
  garbage        200 with a body that is not a property list
  truncated-plist  200 with the first half of a binary plist (Content-Length says half)
  short-body     200 whose Content-Length promises more than is sent before closing
  huge           200 with a 10 MB body (Content-Length 10485760), sent in full if read
  silent         reads the request and never answers
  kodi           Kodi's AirPlay server: 501 Not Implemented to `GET /info`, the status line ended by a
                 bare LF and the other lines by CRLF ("HTTP/1.1 501 Not Implemented\nDate: ...\r\n")
  lf-only        like `sdr`, every header line ended by a bare LF (RFC 9112 2.2 lets a recipient accept it)

Bodies are binary plists (plistlib, FMT_BINARY), as real receivers send them. Prints
"PORT <mode> <n>" per listener, then "READY"; then one "REQUEST <mode> <request line> apv=<value of
X-Apple-ProtocolVersion>" line per request. Exits after --lifetime seconds, so a test that dies
never leaves it running for long.
"""
import argparse
import plistlib
import socketserver
import sys
import threading
import time

PRINT_LOCK = threading.Lock()


def say(line):
    with PRINT_LOCK:
        print(line, flush=True)


def info(mode):
    base = {
        "deviceID": "02:5E:A0:00:00:01",
        "name": "Fake TV",
        "model": "55FAKE",
        "manufacturer": "Seamcheck",
        "sourceVersion": "377.40.00",
        "features": 0x38BCF46007F8AD0,
        "featuresEx": "0Ip/AEbPiwM",
        "statusFlags": 0x244,
        "pk": b"\x00" * 32,
        "receiverHDRCapability": "4k60" if mode == "dolby-vision" else "none",
    }
    if mode == "dolby-vision":
        base["displays"] = [{
            "widthPixels": 3840, "heightPixels": 2160, "maxFPS": 60, "refreshRate": 1 / 60,
            "uuid": "e5f7a68d-7b0f-4305-984b-974f677a150b",
            "HDRSupportedModes": [
                {"HDRMode": "HDR10", "codecStrings": ["hvc1.2.4.L153.B0"], "type": 1},
                {"HDRMode": "HLG", "codecStrings": ["hvc1.2.4.L153.B0"], "type": 2},
                {"HDRMode": "DolbyVision", "codecStrings": ["dvh1.05.06", "dvh1.08.06"], "type": 3},
            ],
        }]
        base["playbackCapabilities"] = {"supportsInterstitials": True, "supportsFPSSecureStop": True}
    else:
        base["displays"] = [{"widthPixels": 1920, "heightPixels": 1080, "maxFPS": 60, "refreshRate": 1 / 60,
                             "HDRSupportedModes": []}]
        base["playbackCapabilities"] = {"supportsInterstitials": False, "supportsFPSSecureStop": False}
    return plistlib.dumps(base, fmt=plistlib.FMT_BINARY)


class Handler(socketserver.StreamRequestHandler):
    mode = "sdr"

    def handle(self):
        try:
            request_line = self.rfile.readline(4096).decode("latin-1").rstrip("\r\n")
            headers = {}
            while True:
                line = self.rfile.readline(4096).decode("latin-1").rstrip("\r\n")
                if not line:
                    break
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
            say(f"REQUEST {self.mode} {request_line} apv={headers.get('x-apple-protocolversion', '-')}")
            parts = request_line.split(" ")
            version = parts[2] if len(parts) == 3 else "HTTP/1.1"
            mode = self.mode
            if mode == "silent":
                time.sleep(30)
                return
            if mode == "rtsp-only":
                if version != "RTSP/1.0":
                    return  # close without a word, as an RTSP parser that rejects HTTP does
                mode = "sdr"
            if mode == "forbidden":
                return self.reply(version, 403, "Forbidden", b"", headers)
            if mode == "garbage":
                return self.reply(version, 200, "OK", b"<html>not a plist</html>", headers)
            if mode == "truncated-plist":
                whole = info("sdr")
                return self.reply(version, 200, "OK", whole[: len(whole) // 2], headers)
            if mode == "short-body":
                whole = info("sdr")
                head = f"{version} 200 OK\r\nContent-Length: {len(whole)}\r\n\r\n".encode()
                self.wfile.write(head + whole[:100])
                return self.wfile.flush()
            if mode == "kodi":
                date = time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime())
                self.wfile.write(f"{version} 501 Not Implemented\nDate: {date}\r\nContent-Length: 0\r\n\r\n".encode())
                return self.wfile.flush()
            if mode == "lf-only":
                whole = info("sdr")
                self.wfile.write(f"{version} 200 OK\nContent-Length: {len(whole)}\nContent-Type: "
                                 f"application/x-apple-binary-plist\n\n".encode() + whole)
                return self.wfile.flush()
            if mode == "huge":
                return self.reply(version, 200, "OK", b"\0" * (10 << 20), headers)
            if len(parts) != 3 or parts[0] != "GET" or parts[1] != "/info":
                return self.reply(version, 404, "Not Found", b"", headers)
            return self.reply(version, 200, "OK", info(mode), headers)
        except (BrokenPipeError, ConnectionResetError):
            return

    def reply(self, version, status, reason, body, headers):
        lines = [f"{version} {status} {reason}", f"Content-Length: {len(body)}", "Server: AirTunes/377.40.00"]
        if body:
            lines.append("Content-Type: application/x-apple-binary-plist")
        if "cseq" in headers:
            lines.append(f"CSeq: {headers['cseq']}")
        self.wfile.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        self.wfile.flush()


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--listen", action="append", required=True,
                        choices=["dolby-vision", "sdr", "rtsp-only", "forbidden", "garbage", "truncated-plist",
                                 "short-body", "huge", "silent", "kodi", "lf-only"])
    parser.add_argument("--lifetime", type=float, default=900)
    args = parser.parse_args()
    for mode in args.listen:
        handler = type(f"Handler_{mode}", (Handler,), {"mode": mode})
        server = Server(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        say(f"PORT {mode} {server.server_address[1]}")
    say("READY")
    time.sleep(args.lifetime)


if __name__ == "__main__":
    sys.exit(main())
