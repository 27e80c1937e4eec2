#!/usr/bin/env python3
"""A stand-in AirPlay receiver for the lab: plays an HLS stream the way an interstitial-aware
receiver fetches it, without decoding anything.

It chooses a variant by its declared capabilities (the best it can play: HDR over SDR, HEVC over
H.264, more channels), plays the primary's segments in timeline order, and at each interstitial
(EXT-X-DATERANGE CLASS="com.apple.hls.interstitial") fetches the asset or the asset list with
_HLS_primary_id (and _HLS_start_offset on asset-list requests, draft-pantos-hls-rfc8216bis
Appendix D), then resumes the primary at START + X-RESUME-OFFSET. Pre-rolls (CUE="PRE") play
before the first segment, post-rolls (CUE="POST") after the last. It connects from --source, so
that the lab server tells several receivers apart by address. Prints a JSON summary on stdout.
It cannot tell whether a real decoder would accept the media: only which bytes a receiver fetches.
Python standard library only.
"""
import argparse
import http.client
import json
import os
import socket
import sys
import time
import urllib.parse
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hls_client import APPLE_TV_UA, Playlist, choose_variant  # noqa: E402  (shared with behaviour_receiver.py)


class Dropped(Exception):
    """The client closed a connection mid-body on purpose (--drop-mid-segment)."""


class SmallWindowConnection(http.client.HTTPConnection):
    """A connection with a small receive buffer, set before connecting (it sets the TCP window):
    a stalled or dropped read then holds the server's write too, as a real receiver's would,
    instead of the kernel taking the whole segment."""

    def connect(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        self.sock.settimeout(self.timeout)
        if self.source_address:
            self.sock.bind(self.source_address)
        self.sock.connect((self.host, self.port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class Receiver:
    def __init__(self, options):
        self.o = options
        self.primary_id = str(uuid.uuid4()).upper()
        self.connections = {}
        self.requests = self.bytes = self.segments_seen = 0
        self.log, self.errors, self.dropped = [], [], False

    # HTTP --------------------------------------------------------------------------------

    def connection(self, netloc):
        conn = self.connections.get(netloc)
        if conn is None:
            host, _, port = netloc.rpartition(":")
            conn = SmallWindowConnection(host, int(port or 80), timeout=self.o.timeout,
                                         source_address=(self.o.source, 0) if self.o.source else None)
            conn.connect()
            self.connections[netloc] = conn
        return conn

    def get(self, url, query=None, segment=False):
        """GETs `url` (plus `query`) over a kept-alive connection; returns the body, or None on 4xx/5xx."""
        parts = urllib.parse.urlsplit(url)
        path = parts.path + ("?" + parts.query if parts.query else "")
        if query:
            path += ("&" if parts.query else "?") + urllib.parse.urlencode(query)
        if segment:
            self.segments_seen += 1
        for attempt in (1, 2):  # once more on a fresh connection when the server closed an idle one
            conn = self.connection(parts.netloc)
            try:
                conn.request("GET", path, headers={"User-Agent": self.o.user_agent})
                response = conn.getresponse()
                self.requests += 1
                body = self.read_body(response, conn, segment)
                break
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                self.close(parts.netloc)
                if attempt == 2:
                    raise
        self.bytes += len(body)
        self.log.append({"path": path, "status": response.status, "bytes": len(body)})
        if response.status >= 400:
            self.errors.append(f"{path}: HTTP {response.status}")
            return None
        if response.getheader("Connection", "").lower() == "close":
            self.close(parts.netloc)
        return body

    def read_body(self, response, conn, segment):
        fault = segment and self.segments_seen == self.o.fault_segment
        if fault and self.o.drop_mid_segment:
            response.read(min(4096, max(1, (response.length or 2) // 2)))
            conn.sock.shutdown(socket.SHUT_RDWR)
            self.close_all()
            raise Dropped()
        if fault and self.o.stall_seconds:
            head = response.read(4096)
            print("STALLED", file=sys.stderr, flush=True)
            deadline = time.time() + self.o.stall_seconds
            while time.time() < deadline and not (self.o.stall_until and os.path.exists(self.o.stall_until)):
                time.sleep(0.05)
            return head + response.read()
        return response.read()

    def close(self, netloc):
        conn = self.connections.pop(netloc, None)
        if conn:
            conn.close()

    def close_all(self):
        for netloc in list(self.connections):
            self.close(netloc)

    def playlist(self, url, query=None):
        body = self.get(url, query)
        return Playlist(url, body.decode("utf-8", "replace")) if body is not None else None

    # Choosing ------------------------------------------------------------------------------

    def choose(self, master):
        """The best variant it can play: the Apple ordering of HDR, codec, channels, bandwidth."""
        return choose_variant(master, self.o.video_codecs, self.o.ranges, self.o.audio_codecs, self.o.max_channels)

    def open_media(self, url, query=None):
        """A multivariant or media playlist URL -> (media playlist, audio playlist, variant)."""
        first = self.playlist(url, query)
        if first is None or not first.variants:
            return first, None, None
        variant, audio_url = self.choose(first)
        if variant is None:
            self.errors.append(f"{url}: no variant this receiver can play")
            return None, None, None
        media = self.playlist(variant["URI"])
        audio = self.playlist(audio_url) if audio_url else None
        return media, audio, variant

    # Playing -------------------------------------------------------------------------------

    def play_range(self, media, audio, start, end, fetched_init=None):
        """Fetches the segments of `media` (and `audio`) that cover [start, end); returns seconds played."""
        played = 0.0
        for playlist in filter(None, (media, audio)):
            if playlist.init and playlist.init not in (fetched_init or set()):
                self.get(playlist.init)
                if fetched_init is not None:
                    fetched_init.add(playlist.init)
        audio_segments = list(audio.segments) if audio else []
        for url, seg_start, duration in media.segments:
            if seg_start + duration <= start + 1e-6 or seg_start >= end - 1e-6:
                continue
            self.get(url, segment=True)
            while audio_segments and audio_segments[0][1] < seg_start + duration - 1e-6:
                a_url, a_start, a_duration = audio_segments.pop(0)
                if a_start + a_duration > start + 1e-6 and a_start < end - 1e-6:
                    self.get(a_url, segment=True)
            played += min(end, seg_start + duration) - max(start, seg_start)
            if self.o.speed:
                time.sleep(duration / self.o.speed)
        return played

    def play_interstitial(self, dr, start_offset=0.0):
        """Plays one interstitial's assets; returns what the summary says of it."""
        played = {"id": dr.get("ID"), "start": round(dr.get("start", 0.0), 3), "cue": dr["cues"], "assets": []}
        query = {"_HLS_primary_id": self.primary_id}
        if "X-ASSET-LIST" in dr:
            body = self.get(dr["X-ASSET-LIST"], dict(query, _HLS_start_offset=f"{start_offset:g}"))
            try:
                assets = json.loads(body)["ASSETS"] if body is not None else None
            except (ValueError, KeyError, TypeError):
                assets = None
            if assets is None:  # a failed list skips the interstitial with resume offset 0
                played.update(skipped="asset list unavailable", resumeOffset=0.0)
                return played
        else:
            assets = [{"URI": dr["X-ASSET-URI"], "DURATION": None}]
        limit = float(dr["X-PLAYOUT-LIMIT"]) if "X-PLAYOUT-LIMIT" in dr else None
        total = 0.0
        for asset in assets:
            if limit is not None and total >= limit - 1e-6:
                break
            media, audio, variant = self.open_media(asset["URI"], query)
            if media is None:  # a failed asset is skipped, the rest still play
                played["assets"].append({"uri": asset["URI"], "skipped": True})
                continue
            end = media.duration if limit is None else min(media.duration, limit - total)
            seconds = self.play_range(media, audio, 0.0, end)
            total += seconds
            played["assets"].append({"uri": asset["URI"], "variant": variant and variant["URI"],
                                     "media": media.url, "segments": len(media.segments), "played": round(seconds, 3)})
        resume = float(dr["X-RESUME-OFFSET"]) if "X-RESUME-OFFSET" in dr else total
        played.update(played=round(total, 3), resumeOffset=resume)
        return played

    def run(self, url):
        summary = {"client": self.o.source, "userAgent": self.o.user_agent, "primaryId": self.primary_id, "url": url,
                   "variant": None, "audio": None, "interstitials": [], "resumedAt": []}
        try:
            media, audio, variant = self.open_media(url)
            if media is None:
                raise RuntimeError(f"{url}: no playable media playlist")
            summary.update(variant=variant, media=media.url, audio=audio.url if audio else None)
            schedule = sorted(media.interstitials, key=lambda dr: (dr.get("start", 0.0), "POST" in dr["cues"]))
            position, fetched_init = 0.0, set()
            for dr in [d for d in schedule if "PRE" in d["cues"]]:
                played = self.play_interstitial(dr)
                summary["interstitials"].append(played)
                position += played["resumeOffset"]
            if position:
                summary["resumedAt"].append(round(position, 3))
            mids = [d for d in schedule if not {"PRE", "POST"} & set(d["cues"]) and "start" in d]
            while position < media.duration - 1e-6:
                upcoming = [d for d in mids if position - 1e-6 <= d["start"] < media.duration]
                stop = upcoming[0]["start"] if upcoming else media.duration
                self.play_range(media, audio, position, stop, fetched_init=fetched_init)
                if not upcoming:
                    break
                offset = 0.0
                for dr in [d for d in upcoming if abs(d["start"] - stop) < 1e-6]:  # a pod plays in tag order
                    mids.remove(dr)
                    played = self.play_interstitial(dr)
                    summary["interstitials"].append(played)
                    offset += played["resumeOffset"]
                position = stop + offset
                summary["resumedAt"].append(round(position, 3))
            for dr in [d for d in schedule if "POST" in d["cues"]]:
                summary["interstitials"].append(self.play_interstitial(dr))
        except Dropped:
            self.dropped = True
        except (OSError, http.client.HTTPException, RuntimeError) as error:
            self.errors.append(str(error))
        finally:
            self.close_all()
        summary.update(requests=self.requests, bytes=self.bytes, dropped=self.dropped, errors=self.errors,
                       fetched=self.log)
        return summary


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("url", help="the multivariant (or media) playlist a sender AirPlays")
    parser.add_argument("--source", help="connect from this local address (127.0.0.x)")
    parser.add_argument("--user-agent", default=APPLE_TV_UA)
    split = lambda text: [t.strip() for t in text.split(",") if t.strip()]
    parser.add_argument("--video-codecs", type=split, default=["h264", "hevc"], help="h264,hevc")
    parser.add_argument("--ranges", type=split, default=["SDR", "HDR10", "HLG"], help="SDR,HDR10,HLG")
    parser.add_argument("--audio-codecs", type=split, default=["aac", "ac3", "eac3"], help="aac,ac3,eac3")
    parser.add_argument("--max-channels", type=int, default=8)
    parser.add_argument("--speed", type=float, default=0, help="play in real time times this (0: no waiting)")
    parser.add_argument("--timeout", type=float, default=10, help="seconds per socket operation")
    parser.add_argument("--drop-mid-segment", type=int, metavar="N", default=0,
                        help="close the connection after part of the Nth segment's body, and stop")
    parser.add_argument("--stall-seconds", type=float, default=0, help="stop reading mid-body of a segment this long")
    parser.add_argument("--stall-segment", type=int, default=1, metavar="N", help="the segment --stall-seconds stalls in")
    parser.add_argument("--stall-until", metavar="FILE", help="end the stall early once FILE exists (STALLED on stderr when it begins)")
    options = parser.parse_args()
    options.fault_segment = options.drop_mid_segment or options.stall_segment
    summary = Receiver(options).run(options.url)
    json.dump(summary, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 1 if summary["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
