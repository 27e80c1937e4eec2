"""A loopback peer for the AirPlay 2 play-flow tests. NOT a receiver: it answers what the tests
need and records what the sender sent; nothing about real AirPlay 2 receivers is learnt from it.

One port per --listen MODE (prints "PORT MODE N", then "READY"). Each connection: pair-verify M1-M4
as the accessory (long-term Ed25519 key from a seed of 32 bytes 0x43, identifier "AP2-PEER"; M3 is
not checked), then HAP-python's own framing (pyhap.hap_crypto.HAPCrypto, Control-Salt keys) and
HTTP/RTSP requests inside it. Every request is printed as one line "REQUEST MODE {json}" with its
method, target, version, headers and (binary plist) body, after its answer was written.
SETUP answers a binary plist with "eventPort": a listener whose connection is framed with keys
derived here from the pair-verify secret with salt "Events-Salt" (the peer writes with
"Events-Write-Encryption-Key", reads with "Events-Read-Encryption-Key"); on connect it sends one
request (CSeq 7) and prints "EVENT MODE <the sender's decrypted answer head>" or "EVENT-ERROR MODE why".
Before answering SETUP it sends one NTP-style timing request (32 bytes, type 0xD2) to the SETUP
plist's timingPort on 127.0.0.1 and prints "TIMING MODE {json}" describing the reply.
Modes:
  ok              every request answered 200 (RTSP/1.0 with its CSeq, or HTTP/1.1)
  setup-500       SETUP answered RTSP/1.0 500 Internal Server Error
  setup-badplist  SETUP answered 200 with a body that is not a plist
  event-refused   SETUP names an event port nobody listens on
  setup-noport    SETUP answers a plist without "eventPort"
  wrong-cseq      RECORD is answered with CSeq 99
"""
import argparse
import asyncio
import json
import os
import plistlib
import socket
import struct
import time

from cryptography.hazmat.primitives.asymmetric import ed25519, x25519
from cryptography.hazmat.primitives import serialization
from pyhap import tlv
from pyhap.hap_crypto import HAPCrypto, hap_hkdf, pad_tls_nonce
from chacha20poly1305_reuseable import ChaCha20Poly1305Reusable as ChaCha

SEED = bytes([0x43]) * 32
IDENTIFIER = b"AP2-PEER"
RAW = serialization.Encoding.Raw, serialization.PublicFormat.Raw


class EventCrypto(HAPCrypto):
    """HAP-python's framing with the event channel's salt and names (the peer's side)."""
    CIPHER_SALT = b"Events-Salt"
    OUT_CIPHER_INFO = b"Events-Write-Encryption-Key"
    IN_CIPHER_INFO = b"Events-Read-Encryption-Key"


def plain(value):
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, bytes):
        return {"bytes": value.hex()}
    return value


def parse(buffer):
    """One complete request from buffer: (request dict, rest) or (None, buffer)."""
    end = buffer.find(b"\r\n\r\n")
    if end < 0:
        return None, buffer
    lines = buffer[:end].decode("latin-1").split("\r\n")
    method, target, version = lines[0].split(" ", 2)
    headers = []
    length = 0
    for line in lines[1:]:
        name, value = line.split(":", 1)
        headers.append([name.strip(), value.strip()])
        if name.strip().lower() == "content-length":
            length = int(value)
    if len(buffer) < end + 4 + length:
        return None, buffer
    body = bytes(buffer[end + 4:end + 4 + length])
    try:
        decoded = plain(plistlib.loads(body)) if body else None
    except Exception:
        decoded = {"undecodable": body.hex()}
    return {"method": method, "target": target, "version": version, "headers": headers, "body": decoded}, buffer[end + 4 + length:]


def answer(request, status=200, reason="OK", body=b"", content_type=None, cseq=None):
    head = "%s %d %s\r\n" % ("RTSP/1.0" if request["version"].startswith("RTSP") else "HTTP/1.1", status, reason)
    for name, value in request["headers"]:
        if name.lower() == "cseq":
            head += "CSeq: %s\r\n" % (cseq or value)
    head += "Server: AirTunes/loopback-peer\r\n"
    if content_type:
        head += "Content-Type: %s\r\n" % content_type
    head += "Content-Length: %d\r\n\r\n" % len(body)
    return head.encode() + body


class Peer:
    def __init__(self, mode):
        self.mode = mode
        self.key = ed25519.Ed25519PrivateKey.from_private_bytes(SEED)
        self.shared = None
        self.event_server = None

    def pair_verify(self, body):
        items = tlv.decode(body)
        if items[b"\x06"] == b"\x01":
            client = items[b"\x03"]
            ours = x25519.X25519PrivateKey.generate()
            public = ours.public_key().public_bytes(*RAW)
            self.pending = ours.exchange(x25519.X25519PublicKey.from_public_bytes(client))
            signature = self.key.sign(public + IDENTIFIER + client)
            key = hap_hkdf(self.pending, b"Pair-Verify-Encrypt-Salt", b"Pair-Verify-Encrypt-Info")
            sealed = ChaCha(key).encrypt(pad_tls_nonce(b"PV-Msg02"), tlv.encode(b"\x01", IDENTIFIER, b"\x0a", signature), b"")
            return tlv.encode(b"\x06", b"\x02", b"\x05", sealed, b"\x03", public)
        self.shared = self.pending
        return tlv.encode(b"\x06", b"\x04")

    async def event_port(self):
        if self.mode == "event-refused":
            probe = socket.socket()
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
            probe.close()
            return port
        shared = self.shared

        async def events(reader, writer):
            crypto = EventCrypto(shared)
            writer.write(b"".join(crypto.encrypt(b"POST /command RTSP/1.0\r\nCSeq: 7\r\nServer: AirTunes/loopback-peer\r\nContent-Length: 0\r\n\r\n")))
            await writer.drain()
            try:
                data = await asyncio.wait_for(reader.read(65536), 5)
                crypto.receive_data(data)
                text = crypto.decrypt().decode("latin-1")
                print("EVENT %s %s" % (self.mode, json.dumps(text.split("\r\n\r\n")[0].split("\r\n"))), flush=True)
            except Exception as error:  # wrong keys: the tag does not verify
                print("EVENT-ERROR %s %r" % (self.mode, error), flush=True)
            await reader.read(65536)  # until the sender closes it
            writer.close()

        self.event_server = await asyncio.start_server(events, "127.0.0.1", 0)
        return self.event_server.sockets[0].getsockname()[1]

    def timing(self, port):
        """One timing exchange with the sender's responder (blocking, at most 5 s: a loaded CI machine)."""
        probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        probe.settimeout(5)
        now = time.time()
        sent = (int(now) + 0x83AA7E80, int((now % 1) * 2**32))
        probe.sendto(struct.pack(">BBHIIIIIII", 0x80, 0xD2, 0x0007, 0, 0, 0, 0, 0, *sent), ("127.0.0.1", port))
        try:
            data, _ = probe.recvfrom(1024)
        except socket.timeout:
            return {"error": "no reply within 5 s"}
        finally:
            probe.close()
        if len(data) != 32:
            return {"error": "reply of %d bytes" % len(data)}
        fields = struct.unpack(">BBHIIIIIII", data)
        receive = fields[6] - 0x83AA7E80 + fields[7] / 2**32
        return {"proto": fields[0], "type": fields[1], "seqno": fields[2], "reference_is_our_send_time": [fields[4], fields[5]] == list(sent),
                "receive_equals_send": fields[6:8] == fields[8:10], "receive_minus_now": round(receive - time.time(), 3),
                "receive_minus_sent": round(receive - now, 3)}

    async def respond(self, request):
        method, target = request["method"], request["target"]
        if method == "SETUP" and isinstance(request["body"], dict) and isinstance(request["body"].get("timingPort"), int):
            print("TIMING %s %s" % (self.mode, json.dumps(self.timing(request["body"]["timingPort"]))), flush=True)
        if method == "SETUP":
            if self.mode == "setup-500":
                return answer(request, 500, "Internal Server Error")
            if self.mode == "setup-badplist":
                return answer(request, body=b"<html>no plist</html>", content_type="application/x-apple-binary-plist")
            if self.mode == "setup-noport":
                return answer(request, body=plistlib.dumps({"timingPort": 0}, fmt=plistlib.FMT_BINARY))
            body = plistlib.dumps({"eventPort": await self.event_port(), "timingPort": 0}, fmt=plistlib.FMT_BINARY)
            return answer(request, body=body, content_type="application/x-apple-binary-plist")
        if method == "RECORD" and self.mode == "wrong-cseq":
            return answer(request, cseq="99")
        if target == "/playback-info":
            body = plistlib.dumps({"duration": 20.0, "position": 1.5, "rate": 1.0, "readyToPlay": True}, fmt=plistlib.FMT_BINARY)
            return answer(request, body=body, content_type="application/x-apple-binary-plist")
        return answer(request)


def serve(mode):
    async def handle(reader, writer):
        peer = Peer(mode)
        try:
            while peer.shared is None:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.decode("latin-1").split("\r\n"):
                    if line.lower().startswith("content-length:"):
                        length = int(line.split(":", 1)[1])
                body = await reader.readexactly(length) if length else b""
                reply = peer.pair_verify(body)
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: %d\r\n\r\n" % len(reply) + reply)
                await writer.drain()
            crypto = HAPCrypto(peer.shared)
            buffer = b""
            while True:
                data = await reader.read(65536)
                if not data:
                    break
                crypto.receive_data(data)
                buffer += crypto.decrypt()
                while True:
                    request, buffer = parse(buffer)
                    if request is None:
                        break
                    writer.write(b"".join(crypto.encrypt(await peer.respond(request))))
                    await writer.drain()
                    print("REQUEST %s %s" % (mode, json.dumps(request)), flush=True)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            if peer.event_server:
                peer.event_server.close()
            writer.close()
    return handle


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--listen", action="append", default=[])
    parser.add_argument("--lifetime", type=float, default=300)
    args = parser.parse_args()
    servers = []
    for mode in args.listen:
        server = await asyncio.start_server(serve(mode), "127.0.0.1", 0)
        servers.append(server)
        print("PORT %s %d" % (mode, server.sockets[0].getsockname()[1]), flush=True)
    print("READY", flush=True)
    await asyncio.sleep(args.lifetime)


if __name__ == "__main__":
    asyncio.run(main())
