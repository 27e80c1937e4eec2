"""HLS parsing, variant choice and fetching shared by the lab's stand-in receivers
(lab_receiver.py, behaviour_receiver.py). Python standard library only.

It reads what a receiver needs to schedule interstitials (draft-pantos-hls-rfc8216bis-22): variants
and audio renditions, segments with their times, EXT-X-DATERANGE CLASS="com.apple.hls.interstitial"
with their attributes, and what makes a playlist live (no EXT-X-ENDLIST, EXT-X-MEDIA-SEQUENCE,
EXT-X-TARGETDURATION, EXT-X-START). It does not validate: a line it cannot read is skipped.
"""
import datetime
import http.client
import urllib.parse

INTERSTITIAL = "com.apple.hls.interstitial"
APPLE_TV_UA = "AppleCoreMedia/1.0.0.21K69 (Apple TV; U; CPU OS 17_2 like Mac OS X; en_us)"
RANGE_RANK = {"SDR": 0, "HLG": 1, "HDR10": 2}
CODEC_RANK = {"h264": 0, "hevc": 1}
AUDIO_RANK = {"aac": 0, "ac3": 1, "eac3": 2}


def attributes(text):
    """EXT-X attribute list -> dict; quoted values lose their quotes."""
    result, key, value, quoted, reading_key = {}, "", "", False, True
    for char in text + ",":
        if reading_key:
            if char == "=":
                reading_key = False
            elif char != ",":
                key += char
        elif char == '"':
            quoted = not quoted
        elif char == "," and not quoted:
            result[key.strip()] = value
            key, value, reading_key = "", "", True
        else:
            value += char
    return result


def parse_date(text):
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))


def number(text, default=None):
    """A decimal attribute, or `default` when absent or unreadable."""
    try:
        return float(text)
    except (TypeError, ValueError):
        return default


def tokens(text):
    """An enumerated-string-list ("PRE,ONCE") -> ["PRE", "ONCE"]."""
    return [t.strip().upper() for t in (text or "").split(",") if t.strip()]


def codec_family(codecs):
    """CODECS -> (video codec, audio codec) in FFmpeg's names."""
    video = audio = None
    for codec in (c.strip().lower() for c in codecs.split(",") if c.strip()):
        if codec.startswith(("avc1", "avc3")):
            video = "h264"
        elif codec.startswith(("hvc1", "hev1", "dvh1", "dvhe")):
            video = "hevc"
        elif codec.startswith("mp4a"):
            audio = "aac"
        elif codec == "ac-3":
            audio = "ac3"
        elif codec == "ec-3":
            audio = "eac3"
    return video, audio


class Playlist:
    """A parsed playlist: variants and audio renditions, or segments and interstitials.

    `segments`: (url, seconds from the first segment, duration). `anchor`: (date, seconds) of the
    first EXT-X-PROGRAM-DATE-TIME. Each interstitial is its attribute dict plus `cues` (CUE tokens),
    `start` (seconds on this playlist's timeline: 0 for PRE, the end for POST, else START-DATE),
    `date` (START-DATE parsed, or None) and `length` (DURATION, END-DATE - START-DATE or
    PLANNED-DURATION; None when none is given)."""

    def __init__(self, url, text):
        self.url, self.variants, self.audio, self.segments = url, [], {}, []
        self.init, self.interstitials, self.anchor = None, [], None
        self.media_sequence, self.target_duration, self.ended, self.kind = 0, None, False, None
        self.start_offset, self.start_precise = None, False
        position, pending, stream = 0.0, None, None
        for line in (l.strip() for l in text.splitlines()):
            tag, _, value = line.partition(":")
            if tag == "#EXT-X-STREAM-INF":
                stream = attributes(value)
            elif tag == "#EXT-X-MEDIA":
                media = attributes(value)
                if media.get("TYPE") == "AUDIO" and "URI" in media:
                    self.audio.setdefault(media.get("GROUP-ID"), []).append(media)
            elif tag == "#EXT-X-MAP":
                uri = attributes(value).get("URI")
                self.init = self.resolve(uri) if uri else None
            elif tag == "#EXT-X-PROGRAM-DATE-TIME" and self.anchor is None:
                try:
                    self.anchor = (parse_date(value), position)
                except ValueError:
                    pass
            elif tag == "#EXT-X-DATERANGE":
                dr = attributes(value)
                if dr.get("CLASS") == INTERSTITIAL:
                    self.interstitials.append(dr)
            elif tag == "#EXT-X-MEDIA-SEQUENCE":
                self.media_sequence = int(number(value, 0))
            elif tag == "#EXT-X-TARGETDURATION":
                self.target_duration = number(value)
            elif tag == "#EXT-X-PLAYLIST-TYPE":
                self.kind = value.strip()
            elif tag == "#EXT-X-ENDLIST":
                self.ended = True
            elif tag == "#EXT-X-START":
                start = attributes(value)
                self.start_offset = number(start.get("TIME-OFFSET"))
                self.start_precise = start.get("PRECISE") == "YES"
            elif tag == "#EXTINF":
                pending = number(value.split(",")[0], 0.0)
            elif line and not line.startswith("#"):
                if stream is not None:
                    self.variants.append(dict(stream, URI=self.resolve(line)))
                    stream = None
                elif pending is not None:
                    self.segments.append((self.resolve(line), position, pending))
                    position += pending
                    pending = None
        self.duration = position
        for dr in self.interstitials:
            dr["cues"] = tokens(dr.get("CUE"))
            dr["date"] = self.date(dr.get("START-DATE"))
            dr["length"] = number(dr.get("DURATION"), number(dr.get("PLANNED-DURATION")))
            end = self.date(dr.get("END-DATE"))
            if dr["length"] is None and end and dr["date"]:
                dr["length"] = (end - dr["date"]).total_seconds()
            if "PRE" in dr["cues"]:
                dr["start"] = 0.0
            elif "POST" in dr["cues"]:
                dr["start"] = self.duration
            elif self.anchor and dr["date"]:
                dr["start"] = self.anchor[1] + (dr["date"] - self.anchor[0]).total_seconds()

    @staticmethod
    def date(text):
        try:
            return parse_date(text) if text else None
        except ValueError:
            return None

    @property
    def live(self):
        """No EXT-X-ENDLIST and not PLAYLIST-TYPE VOD: it is reloaded and grows."""
        return not self.ended and self.kind != "VOD"

    def resolve(self, uri):
        return urllib.parse.urljoin(self.url, uri)


def choose_variant(master, video_codecs=("h264", "hevc"), ranges=("SDR", "HDR10", "HLG"),
                   audio_codecs=("aac", "ac3", "eac3"), max_channels=8):
    """The best variant of `master` a receiver with these capabilities can play (the Apple ordering
    of HDR, codec, channels, bandwidth) and its default audio rendition's URL; (None, None) when
    none fits."""
    playable = []
    for v in master.variants:
        video, audio = codec_family(v.get("CODECS", ""))
        video_range = {"PQ": "HDR10", "HLG": "HLG"}.get(v.get("VIDEO-RANGE", "SDR"), "SDR")
        renditions = master.audio.get(v.get("AUDIO"), [])
        channels = max([int(number(r.get("CHANNELS", "2").split("/")[0], 2)) for r in renditions] or [2])
        if video and (video not in video_codecs or video_range not in ranges):
            continue
        if audio and (audio not in audio_codecs or channels > max_channels):
            continue
        rank = (RANGE_RANK.get(video_range, 0), CODEC_RANK.get(video, 0), channels,
                AUDIO_RANK.get(audio, 0), int(number(v.get("BANDWIDTH"), 0)))
        playable.append((rank, v, renditions))
    if not playable:
        return None, None
    _, variant, renditions = max(playable, key=lambda entry: entry[0])
    audio = next((r for r in renditions if r.get("DEFAULT") == "YES"), renditions[0] if renditions else None)
    return variant, (master.resolve(audio["URI"]) if audio else None)


class FetchError(Exception):
    """A request that got no answer (refused, reset, timed out) or a body over the limit."""


class Fetcher:
    """GETs over kept-alive connections from one local address, whole bodies, bounded: every socket
    operation times out after `timeout` s and a body over `max_bytes` is an error. `record` (if
    given) is called with each request's path, query, status and bytes."""

    def __init__(self, source=None, timeout=5.0, user_agent=APPLE_TV_UA, max_bytes=64 << 20, record=None):
        self.source, self.timeout, self.user_agent = source, timeout, user_agent
        self.max_bytes, self.record, self.connections = max_bytes, record, {}

    def get(self, url, query=None):
        """(status, body) for `url` plus `query`; raises FetchError when no answer came."""
        parts = urllib.parse.urlsplit(url)
        if parts.scheme != "http" or not parts.hostname:
            raise FetchError(f"{url}: not an http:// URL")
        path = (parts.path or "/") + ("?" + parts.query if parts.query else "")
        if query:
            path += ("&" if parts.query else "?") + urllib.parse.urlencode(query)
        for attempt in (1, 2):  # once more on a fresh connection when the server closed an idle one
            try:
                conn = self.connection(parts)
                conn.request("GET", path, headers={"User-Agent": self.user_agent})
                response = conn.getresponse()
                length = response.getheader("Content-Length")
                if length and length.isdigit() and int(length) > self.max_bytes:
                    raise FetchError(f"{url}: {length} bytes, over the {self.max_bytes} limit")
                body = response.read(self.max_bytes + 1)
                if len(body) > self.max_bytes:
                    raise FetchError(f"{url}: body over the {self.max_bytes} limit")
                if response.will_close:
                    self.close(parts.netloc)
                break
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError) as error:
                self.close(parts.netloc)
                if attempt == 2:
                    raise FetchError(f"{url}: {error}") from error
            except FetchError:
                self.close(parts.netloc)
                raise
            except (OSError, http.client.HTTPException, ValueError) as error:
                self.close(parts.netloc)
                raise FetchError(f"{url}: {error or type(error).__name__}") from error
        if self.record:
            self.record(parts.path, parts.query if not query else urllib.parse.urlsplit(path).query,
                        response.status, len(body))
        return response.status, body

    def connection(self, parts):
        conn = self.connections.get(parts.netloc)
        if conn is None:
            conn = http.client.HTTPConnection(parts.hostname, parts.port or 80, timeout=self.timeout,
                                              source_address=(self.source, 0) if self.source else None)
            self.connections[parts.netloc] = conn
        return conn

    def close(self, netloc):
        conn = self.connections.pop(netloc, None)
        if conn:
            conn.close()

    def close_all(self):
        for netloc in list(self.connections):
            self.close(netloc)


class Track:
    """One media playlist on a stable timeline, across reloads of a live one: a segment keeps the
    start it got when first seen (by media sequence number), and a later window is placed by its
    EXT-X-PROGRAM-DATE-TIME (or, without one, by the segments it shares with the last window).
    Timeline 0 is the start of media sequence 0 when segments are of equal length (so that a live
    window cut from a VOD playlist keeps the VOD times), else the first window's first segment."""

    def __init__(self, playlist):
        self.url, self.origin, self.segments, self.interstitials = playlist.url, None, {}, {}
        self.live, self.ended, self.init = playlist.live, playlist.ended, playlist.init
        self.start_offset, self.start_precise = playlist.start_offset, playlist.start_precise
        durations = [d for _, _, d in playlist.segments]
        self.target = playlist.target_duration or max(durations or [6.0])
        self.absorb(playlist)

    def absorb(self, playlist):
        """Takes in a (re)loaded playlist: new segments, new interstitials, EXT-X-ENDLIST."""
        first = playlist.media_sequence
        if not self.live:
            base = 0.0
        elif first in self.segments:
            base = self.segments[first][1]
        elif self.origin is not None and playlist.anchor:
            base = (playlist.anchor[0] - self.origin).total_seconds() - playlist.anchor[1]
        elif self.segments:
            last = max(self.segments)
            _, start, duration = self.segments[last]
            base = start + duration + (first - last - 1) * (playlist.segments[0][2] if playlist.segments else 0)
        else:
            durations = {round(d, 6) for _, _, d in playlist.segments}
            base = first * playlist.segments[0][2] if len(durations) == 1 else 0.0
        if self.origin is None and playlist.anchor:
            self.origin = playlist.anchor[0] - datetime.timedelta(seconds=base + playlist.anchor[1])
        for index, (url, position, duration) in enumerate(playlist.segments):
            self.segments.setdefault(first + index, (url, base + position, duration))
        for dr in playlist.interstitials:
            if "ID" in dr and dr["ID"] not in self.interstitials:
                dr["at"] = (dr["date"] - self.origin).total_seconds() if dr["date"] and self.origin else None
                self.interstitials[dr["ID"]] = dr
        self.ended = self.ended or playlist.ended
        self.init = playlist.init or self.init
        self.window_start = base
        self.window_end = base + playlist.duration

    def resolve(self, uri):
        return urllib.parse.urljoin(self.url, uri)

    def ordered(self):
        return [self.segments[n] for n in sorted(self.segments)]

    def find(self, position, epsilon=1e-3):
        """The known segment (url, start, duration) holding `position`, or None."""
        for segment in self.ordered():
            if segment[1] - epsilon <= position < segment[1] + segment[2] - epsilon:
                return segment
        return None

    @property
    def start(self):
        return min((s[1] for s in self.segments.values()), default=0.0)

    @property
    def end(self):
        return max((s[1] + s[2] for s in self.segments.values()), default=0.0)

    def nearest_boundary(self, position):
        """The segment boundary nearest `position`; past the known end, on the last segment's grid."""
        boundaries = sorted({s[1] for s in self.segments.values()} | {self.end})
        if boundaries and position > boundaries[-1]:
            step = self.segments[max(self.segments)][2] or 1.0
            return boundaries[-1] + round((position - boundaries[-1]) / step) * step
        return min(boundaries, key=lambda b: abs(b - position), default=position)
