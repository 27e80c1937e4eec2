"""A loopback HAP peer that sends one bad message on purpose, for the pairing failure tests.

One port per --listen MODE (prints "PORT MODE N", then "READY"). The good parts use HAP-python's
own SRP server (pyhap.hsrp) and framing (pyhap.hap_crypto) and the cryptography package, so each
mode is a correct accessory up to the one message it spoils:
  malformed-m2          pair-setup M2 is truncated TLV8
  bad-proof             pair-setup M4 carries a proof that is not H(A, M, K)
  bad-signature-m6      pair-setup M6's signature is made with another key than the one it sends
  verify-bad-signature  pair-verify M2 is signed with another key than the stored one
  garbage-after-verify  pair-verify succeeds; the answer to the first encrypted request is plain HTTP
  silent                reads pair-setup M1 and never answers
The SRP code is --pin (default 1234); the long-term key is Ed25519 from a seed of 32 bytes 0x42,
its pairing identifier "BAD-ACCESSORY".
"""
import argparse
import asyncio
import hashlib
import os
import sys

from cryptography.hazmat.primitives.asymmetric import ed25519, x25519
from cryptography.hazmat.primitives import serialization
from pyhap import tlv
from pyhap.hap_crypto import HAPCrypto, hap_hkdf, pad_tls_nonce
from pyhap.hsrp import Server
from pyhap.params import get_srp_context
from pyhap.util import long_to_bytes
from chacha20poly1305_reuseable import ChaCha20Poly1305Reusable as ChaCha

SEED = bytes([0x42]) * 32
IDENTIFIER = b"BAD-ACCESSORY"
RAW = serialization.Encoding.Raw, serialization.PublicFormat.Raw


def tlv8(*pairs):
    return tlv.encode(*pairs)


class Peer:
    def __init__(self, mode, pin):
        self.mode = mode
        self.pin = pin
        self.key = ed25519.Ed25519PrivateKey.from_private_bytes(SEED)
        self.srp = None
        self.verify = None
        self.crypto = None

    def pair_setup(self, body):
        items = tlv.decode(body)
        state = items[b"\x06"]
        if state == b"\x01":
            if self.mode == "malformed-m2":
                return b"\x06\x01\x02\x02\x10\xaa"
            self.srp = Server(get_srp_context(3072, hashlib.sha512, 16), b"Pair-Setup", self.pin.encode())
            salt, b_public = self.srp.get_challenge()
            return tlv8(b"\x06", b"\x02", b"\x02", salt, b"\x03", long_to_bytes(b_public))
        if state == b"\x03":
            self.srp.set_A(items[b"\x03"])
            proof = self.srp.verify(items[b"\x04"])
            if proof is None:
                return tlv8(b"\x06", b"\x04", b"\x07", b"\x02")
            if self.mode == "bad-proof":
                proof = os.urandom(64)
            return tlv8(b"\x06", b"\x04", b"\x04", proof)
        if state == b"\x05":
            k = long_to_bytes(self.srp.get_session_key())
            encrypt = hap_hkdf(k, b"Pair-Setup-Encrypt-Salt", b"Pair-Setup-Encrypt-Info")
            x = hap_hkdf(k, b"Pair-Setup-Accessory-Sign-Salt", b"Pair-Setup-Accessory-Sign-Info")
            public = self.key.public_key().public_bytes(*RAW)
            signer = ed25519.Ed25519PrivateKey.generate() if self.mode == "bad-signature-m6" else self.key
            signature = signer.sign(x + IDENTIFIER + public)
            inner = tlv8(b"\x01", IDENTIFIER, b"\x03", public, b"\x0a", signature)
            sealed = ChaCha(encrypt).encrypt(pad_tls_nonce(b"PS-Msg06"), inner, b"")
            return tlv8(b"\x06", b"\x06", b"\x05", sealed)
        return tlv8(b"\x06", b"\x02", b"\x07", b"\x01")

    def pair_verify(self, body):
        items = tlv.decode(body)
        state = items[b"\x06"]
        if state == b"\x01":
            client = items[b"\x03"]
            ours = x25519.X25519PrivateKey.generate()
            public = ours.public_key().public_bytes(*RAW)
            shared = ours.exchange(x25519.X25519PublicKey.from_public_bytes(client))
            signer = ed25519.Ed25519PrivateKey.generate() if self.mode == "verify-bad-signature" else self.key
            signature = signer.sign(public + IDENTIFIER + client)
            key = hap_hkdf(shared, b"Pair-Verify-Encrypt-Salt", b"Pair-Verify-Encrypt-Info")
            sealed = ChaCha(key).encrypt(pad_tls_nonce(b"PV-Msg02"), tlv8(b"\x01", IDENTIFIER, b"\x0a", signature), b"")
            self.verify = shared
            return tlv8(b"\x06", b"\x02", b"\x05", sealed, b"\x03", public)
        if state == b"\x03":
            self.crypto = HAPCrypto(self.verify)
            return tlv8(b"\x06", b"\x04")
        return tlv8(b"\x06", b"\x02", b"\x07", b"\x01")


def response(body, content_type="application/octet-stream"):
    head = "HTTP/1.1 200 OK\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n" % (content_type, len(body))
    return head.encode() + body


async def read_request(reader):
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    method, path, _ = lines[0].split(" ", 2)
    length = 0
    for line in lines[1:]:
        if line.lower().startswith("content-length:"):
            length = int(line.split(":", 1)[1])
    body = await reader.readexactly(length) if length else b""
    return method, path, body


def serve(mode, pin):
    async def handle(reader, writer):
        peer = Peer(mode, pin)
        try:
            while True:
                if peer.crypto is not None:
                    await reader.read(65536)  # the first encrypted request
                    writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")  # plain: garbage here
                    await writer.drain()
                    peer.crypto = None
                    continue
                method, path, body = await read_request(reader)
                if mode == "silent":
                    print("REQUEST %s %s %s" % (mode, method, path), flush=True)
                    await asyncio.sleep(3600)
                if path == "/pair-setup":
                    writer.write(response(peer.pair_setup(body)))
                elif path == "/pair-verify":
                    writer.write(response(peer.pair_verify(body)))
                else:
                    writer.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
                await writer.drain()
                print("REQUEST %s %s %s" % (mode, method, path), flush=True)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()
    return handle


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--listen", action="append", default=[])
    parser.add_argument("--pin", default="1234")
    parser.add_argument("--lifetime", type=float, default=300)
    args = parser.parse_args()
    servers = []
    for mode in args.listen:
        server = await asyncio.start_server(serve(mode, args.pin), "127.0.0.1", 0)
        servers.append(server)
        print("PORT %s %d" % (mode, server.sockets[0].getsockname()[1]), flush=True)
    print("READY", flush=True)
    await asyncio.sleep(args.lifetime)


if __name__ == "__main__":
    asyncio.run(main())
