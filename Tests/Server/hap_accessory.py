"""A real HAP accessory (HAP-python from PyPI) on 127.0.0.1, for the AirPlay pairing tests.

Serves pair-setup, pair-verify and the encrypted channel exactly as HAP-python does; mDNS
advertising is off (AccessoryDriver(advertise=False)), so nothing leaves loopback. Prints
"PORT accessory N" and "READY", then "PAIRED <client-uuid>" lines as pairings happen.
Usage: hap_accessory.py --pin 031-45-154 --state DIR [--lifetime S]
"""
import argparse
import asyncio
import logging
import os
import signal
import socket
import sys
import threading

from pyhap.accessory import Accessory
from pyhap.accessory_driver import AccessoryDriver
from pyhap.const import CATEGORY_TELEVISION


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pin", required=True)
    parser.add_argument("--state", required=True)
    parser.add_argument("--lifetime", type=float, default=300)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    port = free_port()
    driver = AccessoryDriver(address="127.0.0.1", port=port, pincode=args.pin.encode(),
                             persist_file=os.path.join(args.state, "accessory.state"),
                             advertise=False)
    accessory = Accessory(driver, "Seamcheck Test TV")
    accessory.category = CATEGORY_TELEVISION
    driver.add_accessory(accessory)

    original_pair = driver.pair

    def pair(client_username_bytes, client_public, client_permissions):
        result = original_pair(client_username_bytes, client_public, client_permissions)
        print("PAIRED " + client_username_bytes.decode(), flush=True)
        return result

    driver.pair = pair
    threading.Timer(args.lifetime, lambda: os.kill(os.getpid(), signal.SIGTERM)).start()
    driver.add_job(announce, port)
    driver.start()


async def announce(port):
    for _ in range(500):  # the HTTP server starts beside this job: wait until it accepts
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.close()
            break
        except OSError:
            await asyncio.sleep(0.01)
    print("PORT accessory %d" % port, flush=True)
    print("READY", flush=True)


if __name__ == "__main__":
    main()
