#!/usr/bin/env python3
"""Writes a sample HLS primary with interstitials for the demo (and for anyone trying seamcheck).

  scripts/sample_stream.py OUT_DIR BASE_URL

OUT_DIR/primary/main.m3u8 is a multivariant playlist whose media playlist schedules one
EXT-X-DATERANGE interstitial per ad (X-ASSET-URI = BASE_URL/<ad>/index.m3u8, on segment
boundaries): one ad matches the primary, the others differ in one parameter each. Media is
made with the ffmpeg command (fMP4 HLS, a keyframe every second) and reused on later runs.
"""
import datetime
import os
import subprocess
import sys

PRIMARY = dict(size="1280x720", rate="30000/1001", vcodec="libx264", acodec="aac", ar=48000, layout="stereo", seconds=12)
ADS = [  # id, what differs, overrides
    ("ad-matching", "nothing", {}),
    ("ad-hevc-25fps", "HEVC at 25 fps", dict(vcodec="libx265", rate="25")),
    ("ad-ac3-51", "AC-3 5.1 audio", dict(acodec="ac3", layout="5.1")),
    ("ad-44k", "44.1 kHz audio", dict(ar=44100)),
]
START = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)


def render(folder, spec):
    if os.path.exists(os.path.join(folder, "index.m3u8")):
        return
    os.makedirs(folder, exist_ok=True)
    video = ["-c:v", spec["vcodec"], "-preset", "veryfast" if spec["vcodec"] == "libx264" else "ultrafast",
             "-pix_fmt", "yuv420p", "-g", "30", "-keyint_min", "30"]
    if spec["vcodec"] == "libx265":
        video += ["-tag:v", "hvc1", "-x265-params", "log-level=error:keyint=30:min-keyint=30"]
    subprocess.run([
        "ffmpeg", "-nostdin", "-v", "error", "-y",
        "-f", "lavfi", "-i", f"testsrc2=size={spec['size']}:rate={spec['rate']}:duration={spec['seconds']}",
        "-f", "lavfi", "-i", f"sine=frequency=440:sample_rate={spec['ar']}:duration={spec['seconds']},aformat=channel_layouts={spec['layout']}",
        *video, "-c:a", spec["acodec"], "-ar", str(spec["ar"]), "-shortest",
        "-f", "hls", "-hls_time", "1", "-hls_playlist_type", "vod", "-hls_segment_type", "fmp4",
        "-hls_fmp4_init_filename", "init.mp4", "-hls_segment_filename", os.path.join(folder, "seg%d.m4s"),
        os.path.join(folder, "index.m3u8")], check=True)


def extinfs(path):
    with open(path) as f:
        return [float(line[8:].split(",")[0]) for line in f if line.startswith("#EXTINF:")]


def main():
    out, base = sys.argv[1], sys.argv[2].rstrip("/")
    primary_dir = os.path.join(out, "primary")
    render(primary_dir, PRIMARY)
    boundaries = [0.0]
    for d in extinfs(os.path.join(primary_dir, "index.m3u8")):
        boundaries.append(boundaries[-1] + d)
    tags = ["#EXT-X-PROGRAM-DATE-TIME:" + START.isoformat(timespec="milliseconds").replace("+00:00", "Z")]
    for number, (ad_id, _, overrides) in enumerate(ADS, start=1):
        spec = dict(PRIMARY, seconds=4, **overrides)
        render(os.path.join(out, ad_id), spec)
        duration = sum(extinfs(os.path.join(out, ad_id, "index.m3u8")))
        at = START + datetime.timedelta(seconds=boundaries[min(number * 2, len(boundaries) - 1)])
        tags.append(f'#EXT-X-DATERANGE:ID="{ad_id}",CLASS="com.apple.hls.interstitial",'
                    f'START-DATE="{at.isoformat(timespec="milliseconds").replace("+00:00", "Z")}",DURATION={duration:.3f},'
                    f'X-ASSET-URI="{base}/{ad_id}/index.m3u8",X-RESUME-OFFSET=0')
    media = os.path.join(primary_dir, "index.m3u8")
    with open(media) as f:
        lines = [line for line in f.read().split("\n") if not line.startswith(("#EXT-X-PROGRAM-DATE-TIME", "#EXT-X-DATERANGE"))]
    first = next(i for i, line in enumerate(lines) if line.startswith("#EXTINF:"))
    with open(media, "w") as f:
        f.write("\n".join(lines[:first] + tags + lines[first:]))
    with open(os.path.join(primary_dir, "main.m3u8"), "w") as f:
        f.write('#EXTM3U\n#EXT-X-INDEPENDENT-SEGMENTS\n'
                '#EXT-X-STREAM-INF:BANDWIDTH=3000000,CODECS="avc1.64001f,mp4a.40.2",RESOLUTION=1280x720,'
                'FRAME-RATE=29.970,VIDEO-RANGE=SDR\nindex.m3u8\n')
    for ad_id, what, _ in ADS:
        print(f"{ad_id}: differs from the primary in {what}")


if __name__ == "__main__":
    main()
