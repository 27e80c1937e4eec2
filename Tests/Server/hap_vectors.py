"""HAP-python's own SRP server and channel framing, driven with fixed inputs, for the Swift tests.

  hap_vectors.py srp A_HEX B_HEX SALT_HEX PIN   -> JSON {B, M, HAMK, K} (hex) from pyhap.hsrp.Server
  hap_vectors.py seal SHARED_HEX PLAIN_HEX      -> hex frames HAP-python's accessory side writes
  hap_vectors.py open SHARED_HEX FRAMES_HEX     -> hex plaintext HAP-python's accessory side reads
"""
import hashlib
import json
import sys

from pyhap.hap_crypto import HAPCrypto
from pyhap.hsrp import Server
from pyhap.params import get_srp_context
from pyhap.util import long_to_bytes


def srp(a_hex, b_hex, salt_hex, pin):
    ctx = get_srp_context(3072, hashlib.sha512, 16)
    server = Server(ctx, b"Pair-Setup", pin.encode(), s=bytes.fromhex(salt_hex), b=int(b_hex, 16))
    a = int(a_hex, 16)
    client_public = long_to_bytes(pow(ctx["g"], a, ctx["N"]))
    server.set_A(client_public)
    print(json.dumps({"A": client_public.hex(), "B": server.Bb.hex(), "M": server.M.hex(),
                      "HAMK": server.HAMK.hex(), "K": long_to_bytes(server.K).hex()}))


def main():
    command = sys.argv[1]
    if command == "srp":
        srp(*sys.argv[2:6])
    elif command == "seal":
        crypto = HAPCrypto(bytes.fromhex(sys.argv[2]))
        print(b"".join(crypto.encrypt(bytes.fromhex(sys.argv[3]))).hex())
    elif command == "open":
        crypto = HAPCrypto(bytes.fromhex(sys.argv[2]))
        crypto.receive_data(bytes.fromhex(sys.argv[3]))
        print(crypto.decrypt().hex())


if __name__ == "__main__":
    main()
