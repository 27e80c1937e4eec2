"""One playback of behaviour_receiver.py: an HLS client that plays interstitials as
draft-pantos-hls-rfc8216bis-22 Appendix D says (or, with a behaviour, deviates on purpose), in real
time times `speed` (behaviour_clock.Transport), interrupted by the sender's seek, rate and stop.
It fetches each segment just before it plays it, so the order of its requests is the order of
playback. Python standard library only.
"""
import json
import threading
import time
import traceback
import uuid

from behaviour_clock import EPS, Seek, Stopped, Transport
from hls_client import Fetcher, FetchError, Playlist, Track, choose_variant, number, tokens

BEHAVIOURS = ("conforming", "ignore-interstitials", "ignore-resume-offset", "ignore-playout-limit",
              "drop-primary-id", "seek-past-jump", "allow-skip-rate", "ignore-cue")
RELOAD_FAILURES = 5  # a live playlist failing this many reloads in a row ends the playback
STALE_RELOADS = 12  # nor growing for this many half-target-duration waits (6 target durations)


class Failed(Exception):
    """The playback cannot go on (a live playlist that stopped answering or growing)."""


class Playback(threading.Thread):
    """The player thread of one /play; `info`, `seek`, `set_rate` and `stop` are for the HTTP threads."""

    def __init__(self, url, seconds, fraction, options, say, trace):
        super().__init__(daemon=True)
        self.url, self.start_seconds, self.start_fraction = url, seconds, fraction
        self.o, self.say, self.trace = options, say, trace
        self.behaviour = options.behaviour
        self.primary_id = str(uuid.uuid4()).upper()
        self.t = Transport(options.speed, self.behaviour == "allow-skip-rate", say)
        self.info, self.seek, self.set_rate, self.stop = self.t.info, self.t.seek, self.t.set_rate, self.t.stop
        self.once_played, self.consumed, self.audio_fetched, self.inits = set(), set(), set(), set()
        self.main = self.audio = None
        self.began = time.monotonic()
        self.fetcher = Fetcher(options.host, options.timeout, record=self.record)

    # Fetching ----------------------------------------------------------------------------------

    def record(self, path, query, status, size):
        self.trace({"at": round(time.monotonic() - self.began, 3), "path": path, "query": query,
                    "status": status, "bytes": size})

    def get(self, url, query=None):
        """The body, or None (HTTP error, no answer, bad URL); commands are taken first."""
        self.t.check()
        try:
            status, body = self.fetcher.get(url, query)
        except FetchError as error:
            self.say(f"FETCH-FAILED {error}")
            return None
        return body if status < 400 else None

    def playlist(self, url, query=None):
        body = self.get(url, query)
        return Playlist(url, body.decode("utf-8", "replace")) if body is not None else None

    def open_media(self, url, query=None):
        """A multivariant or media playlist URL -> (media playlist, audio playlist or None); (None, None)
        when it fails or has nothing to play."""
        first = self.playlist(url, query)
        if first is None or not first.variants:
            return (first, None) if first is not None and (first.segments or first.live) else (None, None)
        variant, audio_url = choose_variant(first)
        media = self.playlist(variant["URI"]) if variant else None
        audio = self.playlist(audio_url) if audio_url and media else None
        return (media, audio) if media is not None and (media.segments or media.live) else (None, None)

    def segment(self, url, audio, start, end, fetched):
        """Fetches a segment and the audio segments (of `audio`, a Track) overlapping [start, end)."""
        if self.get(url) is None:
            return False
        self.t.update(started=True)
        for a_url, a_start, a_duration in audio.ordered() if audio else []:
            if a_url not in fetched and a_start < end - EPS and a_start + a_duration > start + EPS:
                fetched.add(a_url)
                self.get(a_url)
        return True

    # Interstitials -----------------------------------------------------------------------------

    def cues(self, dr):
        return [] if self.behaviour == "ignore-cue" else dr["cues"]

    def is_mid(self, dr):
        return not {"PRE", "POST"} & set(self.cues(dr)) and dr.get("at") is not None

    def eligible(self, dr):
        return "ONCE" not in self.cues(dr) or dr["ID"] not in self.once_played

    def interstitials(self):
        if self.behaviour == "ignore-interstitials":
            return []
        return [dr for dr in self.main.interstitials.values() if self.eligible(dr)]

    def trigger(self, dr):
        """Where the primary is left for `dr`: START, or with X-SNAP=OUT on live the segment
        boundary nearest START."""
        if self.main.live and "OUT" in tokens(dr.get("X-SNAP")):
            holding = self.main.find(dr["at"])
            if holding:
                return holding[1] if dr["at"] - holding[1] <= holding[1] + holding[2] - dr["at"] else holding[1] + holding[2]
        return dr["at"]

    def play_pod(self, pod, base, leave=None, start_offset=0.0):
        """Plays interstitials back to back (tag order); returns where the primary resumes: `base` plus
        their resume offsets (cumulative). The position reads `leave` (default `base`) meanwhile."""
        leave = base if leave is None else leave
        offset = 0.0
        for index, dr in enumerate(pod):
            offset += self.play_interstitial(dr, leave, start_offset if index == 0 else 0.0)
            self.consumed.add(dr["ID"])
            if "ONCE" in self.cues(dr):
                self.once_played.add(dr["ID"])
        resume = base + offset
        if self.main.live and "IN" in tokens(pod[-1].get("X-SNAP")):
            resume = self.main.nearest_boundary(resume)
        self.t.hold(resume)
        self.say(f"RESUME {resume:.3f}")
        return resume

    def play_interstitial(self, dr, leave, start_offset):
        """Plays one interstitial from `start_offset` seconds into it; returns its resume offset."""
        self.say(f"INTERSTITIAL {dr['ID']} at {leave:g}" + (f" from {start_offset:g}" if start_offset else ""))
        query = {} if self.behaviour == "drop-primary-id" else {"_HLS_primary_id": self.primary_id}
        occupies_range = (dr.get("X-TIMELINE-OCCUPIES") or "POINT").upper() == "RANGE"
        limit = None if self.behaviour == "ignore-playout-limit" else number(dr.get("X-PLAYOUT-LIMIT"))
        resume = number(dr.get("X-RESUME-OFFSET"))
        if self.behaviour == "ignore-resume-offset":
            resume = 0.0
        self.t.update(skip_ad="SKIP" in tokens(dr.get("X-RESTRICT")))
        try:
            if "X-ASSET-LIST" in dr:
                list_query = dict(query, _HLS_start_offset="%.3f" % start_offset) if start_offset > EPS else query
                assets = self.asset_list(self.main.resolve(dr["X-ASSET-LIST"]), list_query)
                if assets is None:
                    self.say(f"ASSET-LIST-FAILED {dr['ID']}: the break is skipped (resume offset 0)")
                    return 0.0
                if not assets:
                    return resume or 0.0
            elif "X-ASSET-URI" in dr:
                assets = [{"URI": self.main.resolve(dr["X-ASSET-URI"])}]
            else:
                return 0.0
            into = skip = start_offset  # seconds into the interstitial; still to skip in the next asset
            for asset in assets:
                if limit is not None and into >= limit - EPS:
                    break
                listed = number(asset.get("DURATION"))
                if skip > EPS and listed is not None and skip >= listed - EPS:
                    skip -= listed
                    continue
                media, audio = self.open_media(asset["URI"], query)
                if media is None:
                    self.say(f"ASSET-FAILED {asset['URI']}: skipped")
                    continue
                end = media.duration if limit is None else min(media.duration, skip + limit - into)
                into += self.play_asset(media, audio, skip, end, leave, into, occupies_range)
                skip = 0.0
            if resume is not None:
                return resume
            length = number(dr.get("DURATION"), dr.get("length"))
            return length if occupies_range and length is not None else into
        finally:
            self.t.update(skip_ad=False)

    def asset_list(self, url, query):
        body = self.get(url, query)
        try:
            assets = json.loads(body)["ASSETS"] if body is not None else None
        except (ValueError, KeyError, TypeError):
            return None
        if not isinstance(assets, list):
            return None
        return [a for a in assets if isinstance(a, dict) and isinstance(a.get("URI"), str)]

    def play_asset(self, media, audio, start, end, leave, into, occupies_range):
        """Plays [start, end) of an asset; returns the seconds played."""
        track, audio_track, fetched, played = Track(media), Track(audio) if audio else None, set(), 0.0
        for t in filter(None, (track, audio_track)):
            if t.init:
                self.get(t.init)
        for url, seg_start, duration in track.ordered():
            a, b = max(start, seg_start), min(end, seg_start + duration)
            if b <= a + EPS or seg_start >= end - EPS:
                continue
            if not self.segment(url, audio_track, a, b, fetched):
                break  # a failing segment ends the asset
            self.t.span(b - a, leave + (into + played if occupies_range else 0.0), occupies_range)
            played += b - a
        return played

    # The primary -------------------------------------------------------------------------------

    def run(self):
        reason = "ended"
        try:
            reason = self.session()
        except Stopped:
            reason = "stopped"
        except Failed as error:
            reason = f"failed: {error}"
        except Exception as error:  # never kills the receiver: the item is dropped, the reason said
            reason = f"failed: {error}"
            traceback.print_exc()
        finally:
            self.fetcher.close_all()
            self.t.update(state="ended")
            self.say(f"ENDED {reason}")

    def session(self):
        media, audio = self.open_media(self.url)
        if media is None:
            return f"failed: {self.url}: no playable media playlist"
        self.main, self.audio = Track(media), Track(audio) if audio else None
        self.last_reload, self.reload_failures, self.stale = time.monotonic(), 0, 0
        self.t.update(duration=None if self.main.live else self.main.end, state="playing")
        position = self.start_position()
        self.t.hold(position)
        target = from_position = None
        while True:
            try:
                if target is not None:
                    position = self.land(from_position, target)
                    target = None
                else:
                    position = self.join(position)
                position = self.primary(position)
                self.post_rolls(position)
                return "ended"
            except Seek as seek:
                from_position = self.t.current()
                target = seek.target

    def start_position(self):
        if not self.main.live:
            seconds = self.start_seconds
            if seconds is None and self.start_fraction:
                seconds = self.start_fraction * self.main.end
            return min(seconds or 0.0, self.main.end)
        offset = self.main.start_offset
        offset = -3 * self.main.target if offset is None else offset
        start, end = self.main.window_start, self.main.window_end
        position = max(start, min(end, end + offset if offset < 0 else start + offset))
        if not self.main.start_precise:
            holding = self.main.find(position)
            position = holding[1] if holding else position
        return position

    def join(self, position):
        """Pre-rolls (CUE=PRE, also on a live join), then an interstitial the start position lies in
        (joining mid-break: from that offset, _HLS_start_offset on its asset list)."""
        pre = [dr for dr in self.interstitials() if "PRE" in self.cues(dr) and dr["ID"] not in self.consumed]
        if pre:
            position = self.play_pod(pre, position)
        for dr in self.interstitials():
            length = number(dr.get("DURATION"), dr.get("length"))
            if (self.is_mid(dr) and length and dr["ID"] not in self.consumed
                    and dr["at"] + EPS < position < dr["at"] + length - EPS):
                return self.play_pod([dr], dr["at"], start_offset=position - dr["at"])
        return position

    def land(self, origin, target):
        """A seek from `origin` to `target`: a JUMP-restricted interstitial in between plays first
        (the one nearest the target, with those at its START), then the playhead lands on target."""
        jumps = [dr for dr in self.interstitials() if self.is_mid(dr) and dr["ID"] not in self.consumed
                 and "JUMP" in tokens(dr.get("X-RESTRICT"))
                 and origin - EPS <= self.trigger(dr) < target - EPS]
        self.consumed = set()
        self.audio_fetched = set()
        if jumps and self.behaviour != "seek-past-jump" and target > origin + EPS:
            point = max(self.trigger(dr) for dr in jumps)
            self.play_pod([dr for dr in jumps if abs(self.trigger(dr) - point) < EPS], point)
        self.t.hold(target)
        self.say(f"LAND {target:.3f}")
        return target

    def primary(self, position):
        """Plays the primary from `position` to its end, leaving it for each interstitial met."""
        while True:
            self.reload(due_only=True)
            holding = self.next_segment(position)
            if holding is None:
                return position
            url, seg_start, duration = holding
            position = max(position, seg_start)
            seg_end = seg_start + duration
            pods = [(self.trigger(dr), dr) for dr in self.interstitials() if self.is_mid(dr) and dr["ID"] not in self.consumed]
            pods = [(point, dr) for point, dr in pods if position - EPS <= point < seg_end - EPS]
            point = min((p for p, _ in pods), default=None)
            stop = seg_end if point is None else max(point, position)
            if stop > position + EPS:
                for init in {t.init for t in (self.main, self.audio) if t and t.init} - self.inits:
                    self.inits.add(init)
                    self.get(init)
                if not self.segment(url, self.audio, position, stop, self.audio_fetched):
                    return position  # a primary segment that fails ends the playback
                self.t.span(stop - position, position, True)
            position = stop
            if point is not None:
                pod = [dr for p, dr in pods if abs(p - point) < EPS]
                position = self.play_pod(pod, pod[0]["at"], leave=position)

    def next_segment(self, position):
        """The segment holding `position`; on live, waits for it (reloading) until EXT-X-ENDLIST."""
        while True:
            holding = self.main.find(position)
            if holding:
                return holding
            if position < self.main.start - EPS:
                return self.main.ordered()[0]
            if not self.main.live or self.main.ended:
                return None
            if self.stale >= STALE_RELOADS:
                raise Failed(f"{self.main.url}: no new segment in {STALE_RELOADS} reloads")
            self.t.pause_for(self.main.target / 2 / self.o.speed)
            self.reload()

    def reload(self, due_only=False):
        if not self.main.live or self.main.ended:
            return
        if due_only and time.monotonic() - self.last_reload < self.main.target / self.o.speed:
            return
        self.last_reload, known = time.monotonic(), len(self.main.segments)
        for track in filter(None, (self.main, self.audio)):
            playlist = self.playlist(track.url)
            if playlist is None:
                self.reload_failures += 1
                if self.reload_failures >= RELOAD_FAILURES:
                    raise Failed(f"{track.url}: {RELOAD_FAILURES} reloads failed in a row")
                return
            self.reload_failures = 0
            track.absorb(playlist)
        self.stale = 0 if len(self.main.segments) > known or self.main.ended else self.stale + 1
        if self.main.ended:
            self.t.update(duration=self.main.end)

    def post_rolls(self, position):
        post = [dr for dr in self.interstitials() if "POST" in self.cues(dr)]
        if post:
            self.play_pod(post, position)
