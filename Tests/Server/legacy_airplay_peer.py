"""A loopback peer speaking legacy AirPlay pairing as UxPlay 1.74 does (read from its
lib/raop_handlers.h, lib/pairing.c, lib/srp.c), written here in Python with the `cryptography`
package (the hap venv has it) and Python integers: an implementation apart from Seamcheck's Swift,
for the pairing tests. Not a receiver: no SETUP, no /play.

RTSP/1.0 requests with a CSeq only (UxPlay ignores the rest). Modes (one port each, --listen MODE):
  pin          /pair-pin-start, three /pair-setup-pin rounds with --pin, pair-verify only for keys
               registered by a PIN pairing (an empty 200 otherwise, as UxPlay answers)
  nopin        /pair-setup with the sender's key, then pair-verify on the same connection
  badsig       as nopin, but its pair-verify signature is spoiled
  pinstart404  as pin, but /pair-pin-start answers 404
  pinstart500  as pin, but /pair-pin-start answers 500 and closes the connection
  pinstartdrop as pin, but /pair-pin-start closes the connection without an answer
Prints "PORT mode n", "READY", then "REQUEST mode method path" per request and "PAIRED mode user"
or "VERIFIED mode" when a step succeeds.
"""
import argparse
import asyncio
import hashlib
import os
import plistlib

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.exceptions import InvalidSignature, InvalidTag

# RFC 5054 Appendix A, 2048-bit group.
N = int(
    "AC6BDB41324A9A9BF166DE5E1389582FAF72B6651987EE07FC3192943DB56050A37329CBB4A099ED8193E0757767A13DD52312AB4B03310D"
    "CD7F48A9DA04FD50E8083969EDB767B0CF6095179A163AB3661A05FBD5FAAAE82918A9962F0B93B855F97993EC975EEAA80D740ADBF4FF74"
    "7359D041D5C33EA71D281E446B14773BCA97B43A23FB801676BD207A436C6481F1D2B9078717461A5B9D32E688F87748544523B524B0D57D"
    "5EA77A2775D2ECFA032CFBDBF52FB3786160279004E57AE6AF874E7303CE53299CCC041C7BC308D82A5698F3A8D0C38271AE35F8E9DBFBB6"
    "94B5C803D89F7AE435DE236D525F54759B65E372FCD68EF20FA7111F9E4AFF73", 16)
G = 2
WIDTH = 256
FEATURES = 0x5A7FFEF7
SERVER_KEY = Ed25519PrivateKey.generate()
REGISTERED = set()  # client Ed25519 keys a PIN pairing registered


def H(*parts):
    return hashlib.sha1(b"".join(parts)).digest()


def num(n):
    return n.to_bytes((n.bit_length() + 7) // 8 or 1, "big")


def pad(n):
    return n.to_bytes(WIDTH, "big")


def raw(public):
    return public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def sha512_16(label, secret):
    return hashlib.sha512(label + secret).digest()[:16]


def ctr(shared):
    key = sha512_16(b"Pair-Verify-AES-Key", shared)
    iv = sha512_16(b"Pair-Verify-AES-IV", shared)
    return Cipher(algorithms.AES(key), modes.CTR(iv)).encryptor()


class Session:
    def __init__(self, mode, pin):
        self.mode, self.pin = mode, pin
        self.setup = False  # a /pair-setup on this connection
        self.srp = None
        self.verify = None

    def pin_round(self, body):
        request = plistlib.loads(body)
        if "method" in request and "user" in request:
            user = request["user"]
            salt = b"\x80" + os.urandom(15)
            x = int.from_bytes(H(salt, H(user.encode() + b":" + self.pin.encode())), "big")
            v = pow(G, x, N)
            b = int.from_bytes(os.urandom(32), "big")
            k = int.from_bytes(H(pad(N), pad(G)), "big")
            B = (k * v + pow(G, b, N)) % N
            self.srp = dict(user=user, salt=salt, v=v, b=b, B=B)
            return 200, plistlib.dumps({"pk": num(B), "salt": salt}, fmt=plistlib.FMT_BINARY)
        if "pk" in request and "proof" in request and self.srp:
            s = self.srp
            A = int.from_bytes(request["pk"], "big")
            u = int.from_bytes(H(pad(A), pad(s["B"])), "big")
            S = pow(A * pow(s["v"], u, N), s["b"], N)
            K = H(num(S), b"\0\0\0\0") + H(num(S), b"\0\0\0\1")
            group = bytes(a ^ b for a, b in zip(H(num(N)), H(num(G))))
            M = H(group, H(s["user"].encode()), s["salt"], num(A), num(s["B"]), K)
            if M != request["proof"]:
                self.srp = None
                return 470, b""
            s["K"] = K
            return 200, plistlib.dumps({"proof": H(num(A), M, K)}, fmt=plistlib.FMT_BINARY)
        if "epk" in request and "authTag" in request and self.srp and "K" in self.srp:
            K = self.srp["K"]
            key = sha512_16(b"Pair-Setup-AES-Key", K)
            iv = bytearray(sha512_16(b"Pair-Setup-AES-IV", K))
            iv[15] = (iv[15] + 1) % 256
            try:
                client = AESGCM(key).decrypt(bytes(iv), request["epk"] + request["authTag"], None)
            except InvalidTag:
                return 470, b""
            REGISTERED.add(client)
            iv[15] = (iv[15] + 1) % 256
            sealed = AESGCM(key).encrypt(bytes(iv), raw(SERVER_KEY.public_key()), None)
            print("PAIRED %s %s" % (self.mode, self.srp["user"]), flush=True)
            return 200, plistlib.dumps({"epk": sealed[:32], "authTag": sealed[32:]}, fmt=plistlib.FMT_BINARY)
        return 470, b""

    def pair_verify(self, body):
        if body[:1] == b"\x01" and len(body) == 68:
            client_x, client_ed = body[4:36], body[36:68]
            if not self.setup and client_ed not in REGISTERED:
                return b""  # UxPlay: an unregistered key gets an empty answer
            ours = X25519PrivateKey.generate()
            shared = ours.exchange(X25519PublicKey.from_public_bytes(client_x))
            server_x = raw(ours.public_key())
            signature = SERVER_KEY.sign(server_x + client_x)
            if self.mode == "badsig":
                signature = bytes(64)
            stream = ctr(shared)
            self.verify = dict(client_x=client_x, client_ed=client_ed, server_x=server_x, stream=stream)
            return server_x + stream.update(signature)
        if body[:1] == b"\x00" and len(body) == 68 and self.verify:
            v = self.verify
            signature = v["stream"].update(body[4:68])
            try:
                Ed25519PublicKey.from_public_bytes(v["client_ed"]).verify(signature, v["client_x"] + v["server_x"])
            except InvalidSignature:
                return None
            print("VERIFIED %s" % self.mode, flush=True)
            return b""
        return None


def answer(status, cseq, body=b"", content_type="application/octet-stream"):
    reason = {200: "OK", 404: "Not Found", 470: "Client Authentication Failure", 500: "Internal Server Error"}[status]
    head = "RTSP/1.0 %d %s\r\nCSeq: %s\r\nServer: AirTunes/220.68\r\n" % (status, reason, cseq)
    if body:
        head += "Content-Type: %s\r\n" % content_type
    head += "Content-Length: %d\r\n\r\n" % len(body)
    return head.encode() + body


def serve(mode, pin):
    async def handle(reader, writer):
        session = Session(mode, pin)
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, path, protocol = lines[0].split(" ", 2)
                headers = {}
                for line in lines[1:]:
                    if ":" in line:
                        name, value = line.split(":", 1)
                        headers[name.strip().lower()] = value.strip()
                length = int(headers.get("content-length", "0"))
                body = await reader.readexactly(length) if length else b""
                print("REQUEST %s %s %s" % (mode, method, path), flush=True)
                cseq = headers.get("cseq")
                if protocol != "RTSP/1.0" or cseq is None or "x-apple-session-id" in headers:
                    continue  # UxPlay: no answer (and an assert on a session id in RTSP)
                if path == "/pair-pin-start":
                    if mode == "pinstart404":
                        writer.write(answer(404, cseq))
                    elif mode == "pinstart500":
                        writer.write(answer(500, cseq))
                        await writer.drain()
                        return
                    elif mode == "pinstartdrop":
                        return
                    else:
                        writer.write(answer(200, cseq))
                elif path == "/pair-setup-pin":
                    status, data = session.pin_round(body)
                    writer.write(answer(status, cseq, data, "application/x-apple-binary-plist"))
                elif path == "/pair-setup" and len(body) == 32:
                    session.setup = True
                    writer.write(answer(200, cseq, raw(SERVER_KEY.public_key())))
                elif path == "/pair-verify":
                    data = session.pair_verify(body)
                    writer.write(answer(200, cseq, data or b""))
                    if data is None:
                        await writer.drain()
                        return  # UxPlay: a signature it does not accept ends the connection
                elif method == "GET" and path.startswith("/info"):
                    txt_airplay = b"".join(bytes([len(t)]) + t for t in [
                        b"features=0x5A7FFEE6,0x0", b"flags=0x4", b"model=AppleTV3,2",
                        b"pw=" + (b"true" if mode.startswith("pin") else b"false")])
                    txt_raop = b"".join(bytes([len(t)]) + t for t in [
                        b"ft=0x5A7FFEE6,0x0", b"sf=" + (b"0x8c" if mode.startswith("pin") else b"0x4"), b"am=AppleTV3,2"])
                    info = {"features": FEATURES, "statusFlags": 68, "model": "AppleTV3,2"}
                    # UxPlay: with a CSeq, one qualifier from a binary plist body; the URL's are not read.
                    qualifier = plistlib.loads(body).get("qualifier", [None])[0] if body else None
                    if qualifier == "txtAirPlay":
                        info["txtAirPlay"] = txt_airplay
                    elif qualifier == "txtRAOP":
                        info["txtRAOP"] = txt_raop
                    writer.write(answer(200, cseq, plistlib.dumps(info, fmt=plistlib.FMT_BINARY), "application/x-apple-binary-plist"))
                else:
                    writer.write(answer(404, cseq))
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, ValueError):
            pass
        finally:
            writer.close()
    return handle


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--listen", action="append", default=[])
    parser.add_argument("--pin", default="4321")
    parser.add_argument("--lifetime", type=float, default=300)
    args = parser.parse_args()
    for mode in args.listen:
        server = await asyncio.start_server(serve(mode, args.pin), "127.0.0.1", 0)
        print("PORT %s %d" % (mode, server.sockets[0].getsockname()[1]), flush=True)
    print("READY", flush=True)
    await asyncio.sleep(args.lifetime)


if __name__ == "__main__":
    asyncio.run(main())
