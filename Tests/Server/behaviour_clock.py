"""The transport of one behaviour_receiver.py playback: its clock and the sender's commands.

Media advances `speed * rate` seconds per wall second while the player plays a span (a segment or
part of one) and stands still between spans (while it fetches). The sender's /scrub, /rate and
/stop (HTTP threads) reach the player thread as exceptions raised where it waits. Python standard
library only.
"""
import threading
import time

EPS = 1e-3


class Stopped(Exception):
    """/stop, or a new /play."""


class Seek(Exception):
    def __init__(self, target):
        super().__init__(target)
        self.target = target


class Transport:
    """Thread-safe: the HTTP threads read `info()` and send commands, the player thread plays spans."""

    def __init__(self, speed, allow_skip_rate, say):
        self.speed, self.allow_skip_rate, self.say = speed, allow_skip_rate, say
        self.cond = threading.Condition()
        self.state, self.started, self.duration, self.rate = "loading", False, None, 1.0
        self.clock = {"base": 0.0, "moving": False, "length": 0.0, "acc": 0.0, "t": 0.0, "running": False}
        self.seek_request, self.stop_requested, self.skip_ad = None, False, False

    def update(self, **fields):
        """Sets state, started, duration or skip_ad (a SKIP-restricted interstitial plays)."""
        with self.cond:
            for name, value in fields.items():
                setattr(self, name, value)

    def current(self):
        with self.cond:
            return self.position()

    def check(self):
        with self.cond:
            self.commands()

    # The sender's side (HTTP threads) ----------------------------------------------------------

    def info(self):
        with self.cond:
            if self.state == "ended":
                return {}  # the item is dropped, as Kodi answers
            position = self.position()
            info = {"position": round(position, 3), "rate": self.rate if self.started else 0.0,
                    "readyToPlay": self.started, "playbackBufferEmpty": not self.started,
                    "playbackBufferFull": False, "playbackLikelyToKeepUp": self.started}
            if self.duration:
                info["duration"] = round(self.duration, 3)
                info["seekableTimeRanges"] = [{"start": 0.0, "duration": round(self.duration, 3)}]
            return info

    def seek(self, target):
        with self.cond:
            self.seek_request = target
            self.cond.notify_all()

    def set_rate(self, rate):
        """False when refused: above 1 during an X-RESTRICT=SKIP interstitial (the rate stays)."""
        with self.cond:
            if rate > 1 + EPS and self.skip_ad and not self.allow_skip_rate:
                return False
            self.fold()
            self.rate = max(rate, 0.0)
            self.cond.notify_all()
            return True

    def stop(self):
        with self.cond:
            self.stop_requested = True
            self.cond.notify_all()

    # The clock (under self.cond) ----------------------------------------------------------------

    def done(self):
        c = self.clock
        extra = (time.monotonic() - c["t"]) * self.rate * self.speed if c["running"] else 0.0
        return min(c["acc"] + extra, c["length"])

    def fold(self):
        self.clock["acc"], self.clock["t"] = self.done(), time.monotonic()

    def position(self):
        c = self.clock
        return c["base"] + (self.done() if c["moving"] else 0.0)

    def hold(self, position):
        with self.cond:
            self.clock.update(base=position, moving=False, length=0.0, acc=0.0, running=False)

    def commands(self):
        """Raises what the sender asked for: Stopped, or Seek (a forward one is refused during a
        SKIP-restricted interstitial)."""
        if self.stop_requested:
            raise Stopped()
        if self.seek_request is not None:
            target, self.seek_request = self.seek_request, None
            if self.skip_ad and target > self.position() + EPS:
                self.say(f"SCRUB-REFUSED {target:g}")
            else:
                raise Seek(target)

    def span(self, length, base, moving):
        """Plays `length` media seconds; the reported position is `base` (plus the time played when
        `moving`). Interrupted by the sender's commands."""
        with self.cond:
            self.clock.update(base=base, moving=moving, length=length, acc=0.0, t=time.monotonic(), running=True)
            try:
                while True:
                    self.commands()
                    left = length - self.done()
                    if left <= 1e-9:
                        return
                    pace = self.rate * self.speed
                    self.cond.wait(min(left / pace, 0.5) if pace > 0 else 0.5)
            finally:
                self.fold()
                self.clock["running"] = False

    def pause_for(self, wall_seconds):
        """Waits without playing (a live edge not there yet), still taking commands."""
        deadline = time.monotonic() + wall_seconds
        with self.cond:
            while True:
                self.commands()
                left = deadline - time.monotonic()
                if left <= 0:
                    return
                self.cond.wait(min(left, 0.5))
