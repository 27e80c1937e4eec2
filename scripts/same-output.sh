#!/usr/bin/env bash
# Whether two seamcheck binaries write the same lint and inspect output, byte for byte, for a
# corpus of playlists: what a speed change must keep (issue 36).
#
#   scripts/same-output.sh OLD_BINARY NEW_BINARY [PLAYLIST...]
#
# Without PLAYLISTs the corpus is the bench's 50,000-segment playlist (.build/bench, made by
# scripts/bench.sh hls-parse), Fuzz/Corpus/parser/*.m3u8, the multivariant and date-range playlists
# the tests generated under .build/test-media, and a multivariant playlist made here around a
# 5,000-segment cut of the bench playlist (two variants, an audio rendition whose date ranges
# differ, one rendition missing). For each: lint --offline as table, json and sarif, inspect
# --offline as table and json, and (playlists naming no URL only: nothing leaves the machine) lint
# without --offline; stdout, stderr and the exit code are compared. Exit 0 when all are the same.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
[ "$#" -ge 2 ] || { echo "usage: scripts/same-output.sh OLD_BINARY NEW_BINARY [PLAYLIST...]" >&2; exit 2; }
old=$(realpath "$1") new=$(realpath "$2"); shift 2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

corpus=("$@")
if [ "${#corpus[@]}" -eq 0 ]; then
  bench=$PWD/.build/bench/hls-parse-50000.m3u8
  [ -f "$bench" ] && corpus+=("$bench")
  corpus+=("$PWD"/Fuzz/Corpus/parser/*.m3u8)
  if [ -d .build/test-media ]; then
    while IFS= read -r file; do corpus+=("$file"); done < <(find "$PWD/.build/test-media" -name '*.m3u8' -print0 \
      | xargs -0 -r grep -l 'EXT-X-DATERANGE\|EXT-X-STREAM-INF' | sort)
  fi
  if [ -f "$bench" ]; then
    mkdir -p "$work/cut"
    awk '/^segment_005000/{print; print "#EXT-X-ENDLIST"; exit} {print}' "$bench" > "$work/cut/video.m3u8"
    grep -v 'X-SNAP' "$work/cut/video.m3u8" | sed 's/DURATION=15.0,/DURATION=15.0,END-ON-NEXT=YES,/; 0~7s/ID="ad1/ID="ad2/' > "$work/cut/audio.m3u8"
    printf '%s\n' '#EXTM3U' '#EXT-X-VERSION:7' \
      '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="en",LANGUAGE="en",DEFAULT=YES,URI="audio.m3u8"' \
      '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="fr",LANGUAGE="fr",URI="missing.m3u8"' \
      '#EXT-X-STREAM-INF:BANDWIDTH=2000000,CODECS="avc1.64001f,mp4a.40.2",RESOLUTION=1280x720,AUDIO="aac"' 'video.m3u8' \
      '#EXT-X-STREAM-INF:BANDWIDTH=900000,CODECS="avc1.64001f,mp4a.40.2",RESOLUTION=640x360,AUDIO="aac"' 'video.m3u8' \
      > "$work/cut/master.m3u8"
    corpus+=("$work/cut/master.m3u8" "$work/cut/audio.m3u8")
  fi
fi

run_all() { # BINARY OUTDIR
  local bin=$1 out=$2 n=0 file dir key
  mkdir -p "$out"
  for file in "${corpus[@]}"; do
    n=$((n + 1)); key=$(printf '%04d' "$n"); dir=$(dirname "$file")
    echo "$key $file" >>"$out/index"
    run() {
      local name=$1 status=0; shift
      (cd "$dir" && "$bin" "$@") >"$out/$key.$name" 2>"$out/$key.$name.err" || status=$?
      echo "exit $status" >>"$out/$key.$name.err"
    }
    for format in table json sarif; do run "lint-offline.$format" lint "$file" --offline --format "$format" --fail-on never; done
    for format in table json; do run "inspect-offline.$format" inspect "$file" --offline --format "$format"; done
    grep -q '://' "$file" || run lint.json lint "$file" --format json --timeout 2
  done
}
run_all "$old" "$work/old"
run_all "$new" "$work/new"
if diff -rq "$work/old" "$work/new" >"$work/diff"; then
  echo "same output: ${#corpus[@]} playlists, $(ls "$work/new" | grep -vc '\.err$') outputs each"
else
  echo "DIFFERENT output ($(wc -l <"$work/diff") files):" >&2
  sed "s|$work/||g" "$work/diff" | head -20 >&2
  grep -o '/[0-9]\{4\}\.' "$work/diff" | tr -d '/.' | sort -u | head -10 | while read -r key; do grep "^$key " "$work/new/index"; done >&2
  exit 1
fi
