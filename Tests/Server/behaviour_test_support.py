"""The harness of behaviour_receiver_test.py: an origin server and the receiver in a child process.

The origin serves a 12 s primary (6 segments of 2 s), three 4 s ads (2 segments) and asset lists
from a temporary folder, logs every request with the client's address, and makes live windows of
the primary from a clock that runs SPEED times wall time (as `lab serve` does at 1x). Each test
starts the receiver on its own 127.0.0.x address, drives it over AirPlay HTTP (/play, /scrub,
/rate, /playback-info) and checks what it fetched, in what order, with what query, where it
resumed: the conforming behaviour of each feature of the behaviour suite, and that each
deliberate deviation shows what it is named for. Python standard library only.
"""
import datetime
import json
import os
import plistlib
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HERE = os.path.dirname(os.path.abspath(__file__))
SPEED = 20.0
D, SEGMENTS, A = 2.0, 6, 4.0  # primary segment duration and count; ad duration (2 segments)
EPOCH = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)


def date(seconds):
    return (EPOCH + datetime.timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def daterange(ident, start, attributes):
    """An interstitial EXT-X-DATERANGE at `start` s of the primary; `attributes` as written."""
    return f'#EXT-X-DATERANGE:ID="{ident}",CLASS="com.apple.hls.interstitial",START-DATE="{date(start)}",{attributes}'


class Origin(ThreadingHTTPServer):
    """Files under `root`; live windows of the primary for the cases in `live`; a request log."""
    daemon_threads = True

    def __init__(self, root):
        super().__init__(("127.0.0.1", 0), OriginHandler)
        self.root, self.live, self.joins, self.log, self.lock = root, {}, {}, [], threading.Lock()
        self.delays = {}  # path -> seconds to wait before answering

    def handle_error(self, request, client_address):
        pass  # a receiver killed mid-body (a test's end) is no error of the origin's

    def requests(self, client):
        with self.lock:
            return [entry for entry in self.log if entry["client"] == client]


class OriginHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass

    def do_GET(self):
        server, parts = self.server, urllib.parse.urlsplit(self.path)
        client, path = self.client_address[0], parts.path
        with server.lock:
            server.log.append({"client": client, "path": path, "query": urllib.parse.parse_qs(parts.query),
                               "at": time.monotonic()})
        time.sleep(server.delays.get(path, 0))
        case = path.split("/")[1] if path.count("/") >= 2 else None
        if case in server.live and path.endswith("/master.m3u8"):
            with server.lock:
                server.joins[(client, case)] = time.monotonic()
        if case in server.live and path.endswith("/primary.m3u8"):
            with server.lock:
                joined = server.joins.setdefault((client, case), time.monotonic())
            elapsed = 0.0 if server.live[case].get("frozen") else (time.monotonic() - joined) * SPEED
            return self.send(200, live_window(server.live[case], elapsed).encode())
        file = os.path.normpath(os.path.join(server.root, path.lstrip("/")))
        if not file.startswith(server.root) or not os.path.isfile(file):
            return self.send(404, b"not found")
        with open(file, "rb") as handle:
            self.send(200, handle.read())

    def send(self, status, body):
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        self.wfile.write(body)


def live_window(case, elapsed):
    """The primary as a live stream `elapsed` media seconds after the join (LabLiveWindow's rules)."""
    edge = case["joinEdge"] + elapsed
    ends = [index for index in range(SEGMENTS) if (index + 1) * D <= edge + 1e-6]
    window = ends[-case.get("window", 3):] or [0]
    lines = ["#EXTM3U", "#EXT-X-VERSION:7", f"#EXT-X-TARGETDURATION:{D:g}", f"#EXT-X-MEDIA-SEQUENCE:{window[0]}",
             f"#EXT-X-START:TIME-OFFSET={case['startOffset']:g},PRECISE=YES", '#EXT-X-MAP:URI="/primary/init.mp4"',
             f"#EXT-X-PROGRAM-DATE-TIME:{date(window[0] * D)}"] + case["dateranges"]
    for index in window:
        lines += [f"#EXTINF:{D:.3f},", f"/primary/seg_{index:03d}.m4s"]
    if edge >= SEGMENTS * D - 1e-6:
        lines.append("#EXT-X-ENDLIST")
    return "\n".join(lines) + "\n"


MASTER = """#EXTM3U
#EXT-X-STREAM-INF:BANDWIDTH=400000,CODECS="avc1.640028,mp4a.40.2",RESOLUTION=320x180
{media}
"""


def vod(dateranges):
    lines = ["#EXTM3U", "#EXT-X-VERSION:7", f"#EXT-X-TARGETDURATION:{D:g}", "#EXT-X-PLAYLIST-TYPE:VOD",
             '#EXT-X-MAP:URI="/primary/init.mp4"', f"#EXT-X-PROGRAM-DATE-TIME:{date(0)}"] + dateranges
    for index in range(SEGMENTS):
        lines += [f"#EXTINF:{D:.3f},", f"/primary/seg_{index:03d}.m4s"]
    return "\n".join(lines + ["#EXT-X-ENDLIST"]) + "\n"


class Receiver:
    """behaviour_receiver.py in a child process on `host`; its stdout lines collected."""

    def __init__(self, host, behaviour, speed):
        self.host, self.lines = host, []
        self.process = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "behaviour_receiver.py"), "--host", host, "--behaviour", behaviour,
             "--speed", str(speed), "--timeout", "3", "--lifetime", "120"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        threading.Thread(target=self.read, daemon=True).start()
        self.port = int(self.wait_for("PORT").split()[1])

    def read(self):
        for line in self.process.stdout:
            self.lines.append(line.strip())

    def wait_for(self, prefix, timeout=10.0, count=1):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = [line for line in self.lines if line.startswith(prefix)]
            if len(found) >= count:
                return found[count - 1]
            if self.process.poll() is not None:
                raise AssertionError(f"the receiver exited: {self.process.stderr.read()}")
            time.sleep(0.01)
        raise AssertionError(f"no '{prefix}' from the receiver within {timeout} s: {self.lines}")

    def request(self, method, path, body=b"", content_type=None):
        request = urllib.request.Request(f"http://{self.host}:{self.port}{path}", data=body if method == "POST" else None,
                                         method=method, headers={"Content-Type": content_type} if content_type else {})
        try:
            with urllib.request.urlopen(request, timeout=5) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()

    def play(self, url, start=None):
        fields = {"Content-Location": url, "Start-Position": 0.0}
        if start is not None:
            fields["Start-Position-Seconds"] = start
        status, _ = self.request("POST", "/play", plistlib.dumps(fields, fmt=plistlib.FMT_BINARY),
                                 "application/x-apple-binary-plist")
        assert status == 200, status

    def info(self):
        status, body = self.request("GET", "/playback-info")
        assert status == 200, status
        return plistlib.loads(body)

    def close(self):
        self.process.kill()
        self.process.wait()
        self.process.stdout.close()
        self.process.stderr.close()


class ReceiverTestCase(unittest.TestCase):
    hosts = iter(range(101, 250))

    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.TemporaryDirectory()
        root = cls.root = os.path.realpath(cls.folder.name)
        cls.origin = Origin(root)
        threading.Thread(target=cls.origin.serve_forever, daemon=True).start()
        cls.base = f"http://127.0.0.1:{cls.origin.server_address[1]}"
        write(root, "primary/init.mp4", b"init")
        for index in range(SEGMENTS):
            write(root, f"primary/seg_{index:03d}.m4s", b"P" * 1000)
        for ad in ("ad-1", "ad-2", "ad-3"):
            write(root, f"{ad}/master.m3u8", MASTER.format(media="media.m3u8").encode())
            write(root, f"{ad}/media.m3u8", ("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:VOD\n"
                                             '#EXT-X-MAP:URI="init.mp4"\n#EXTINF:2.000,\nseg_000.m4s\n'
                                             "#EXTINF:2.000,\nseg_001.m4s\n#EXT-X-ENDLIST\n").encode())
            write(root, f"{ad}/init.mp4", b"init")
            for index in range(2):
                write(root, f"{ad}/seg_{index:03d}.m4s", b"A" * 500)

    @classmethod
    def tearDownClass(cls):
        cls.origin.shutdown()
        cls.origin.server_close()
        cls.folder.cleanup()

    def asset(self, ad, ident):
        return f"{self.base}/{ad}/master.m3u8?_HLS_interstitial_id={ident}"

    def asset_list(self, name, ads, ident="break"):
        """Writes /lists/NAME.json with `ads` ("missing" = an asset that answers 404); its URL."""
        assets = [{"URI": self.asset(ad, ident), "DURATION": A} for ad in ads]
        write(self.root, f"lists/{name}.json", json.dumps({"ASSETS": assets}).encode())
        return f"{self.base}/lists/{name}.json"

    def case(self, name, dateranges, live=None):
        """Writes the case's playlists (live: the origin makes its primary.m3u8); its master URL."""
        write(self.root, f"{name}/master.m3u8", MASTER.format(media="primary.m3u8").encode())
        if live:
            self.origin.live[name] = dict(live, dateranges=dateranges)
        else:
            write(self.root, f"{name}/primary.m3u8", vod(dateranges).encode())
        return f"{self.base}/{name}/master.m3u8"

    def receiver(self, behaviour="conforming", speed=SPEED):
        host = f"127.0.0.{next(self.hosts)}"
        receiver = Receiver(host, behaviour, speed)
        self.addCleanup(receiver.close)
        return receiver

    def play(self, url, behaviour="conforming", speed=SPEED, start=None):
        """Plays `url` to its end; the receiver."""
        receiver = self.receiver(behaviour, speed)
        receiver.play(url, start)
        receiver.wait_for("ENDED", timeout=15)
        return receiver

    def fetched(self, receiver):
        """The segments it fetched, in order: p0..p5 (primary), "ad-1.0" (ad-1's first segment)..."""
        sequence = []
        for entry in self.origin.requests(receiver.host):
            folder, _, file = entry["path"].strip("/").rpartition("/")
            if file.startswith("seg_"):
                number = int(file[4:7])
                sequence.append(f"p{number}" if folder == "primary" else f"{folder}.{number}")
        return sequence

    def interstitial_requests(self, receiver):
        return [entry for entry in self.origin.requests(receiver.host)
                if entry["path"].startswith(("/ad-", "/lists/", "/missing/")) and entry["path"].endswith((".json", "master.m3u8"))]

    def wait_until(self, receiver, condition, timeout=10.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if condition(self.fetched(receiver)):
                return
            time.sleep(0.002)
        self.fail(f"not reached within {timeout} s; fetched {self.fetched(receiver)}")


def write(root, relative, data):
    path = os.path.join(root, relative)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as handle:
        handle.write(data)

