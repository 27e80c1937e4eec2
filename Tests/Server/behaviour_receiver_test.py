#!/usr/bin/env python3
"""behaviour_receiver.py against hand-written playlists on a real HTTP server on 127.0.0.1
(behaviour_test_support.py): for each feature of the behaviour suite, what a conforming receiver
fetches, in what order, with what query, where it resumes; and that each deliberate deviation
(--behaviour) shows what it is named for. Segments are named p0..p5 (primary, 2 s each) and
ad-N.0, ad-N.1 (ad-N's two 2 s segments). Python standard library only:
`python3 Tests/Server/behaviour_receiver_test.py` (about 40 s).
"""
import os
import plistlib
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from behaviour_test_support import ReceiverTestCase, daterange  # noqa: E402

PRIMARY = ["p0", "p1", "p2", "p3", "p4", "p5"]
AD1 = ["ad-1.0", "ad-1.1"]


class ResumeTests(ReceiverTestCase):
    def test_resume_offset_absent_resumes_after_the_played_duration(self):
        url = self.case("resume-absent", [daterange("ad", 4, f'DURATION=4.000,X-ASSET-URI="{self.asset("ad-1", "ad")}"')])
        conforming = self.play(url)
        self.assertEqual(self.fetched(conforming), ["p0", "p1"] + AD1 + ["p4", "p5"])
        self.assertIn("RESUME 8.000", conforming.lines)
        self.assertEqual(self.fetched(self.play(url, "ignore-resume-offset")), ["p0", "p1"] + AD1 + PRIMARY[2:])
        ignoring = self.play(url, "ignore-interstitials")
        self.assertEqual(self.fetched(ignoring), PRIMARY)
        self.assertEqual(self.interstitial_requests(ignoring), [])

    def test_resume_offset_zero_resumes_at_start(self):
        url = self.case("resume-zero", [daterange("ad", 4, f'DURATION=4.000,X-ASSET-URI="{self.asset("ad-1", "ad")}",'
                                                         "X-RESUME-OFFSET=0")])
        receiver = self.play(url)
        self.assertEqual(self.fetched(receiver), ["p0", "p1"] + AD1 + PRIMARY[2:])
        self.assertIn("RESUME 4.000", receiver.lines)
        self.assertEqual(receiver.info(), {}, "the item is dropped after the primary ended")

    def test_resume_offset_positive(self):
        url = self.case("resume-positive", [daterange("ad", 4, f'DURATION=4.000,X-ASSET-URI="{self.asset("ad-1", "ad")}",'
                                                             "X-RESUME-OFFSET=2.000")])
        conforming = self.play(url)
        self.assertEqual(self.fetched(conforming), ["p0", "p1"] + AD1 + ["p3", "p4", "p5"])
        self.assertIn("RESUME 6.000", conforming.lines)
        ignoring = self.play(url, "ignore-resume-offset")
        self.assertEqual(self.fetched(ignoring), ["p0", "p1"] + AD1 + PRIMARY[2:])
        self.assertIn("RESUME 4.000", ignoring.lines)

    def test_resume_offset_live_jumps_ahead_by_the_ad(self):
        dr = daterange("ad", 6, f'DURATION=4.000,X-ASSET-URI="{self.asset("ad-1", "ad")}"')
        url = self.case("resume-live", [dr], live={"joinEdge": 4, "startOffset": -2})
        receiver = self.receiver()
        receiver.play(url)
        self.wait_until(receiver, lambda fetched: "p1" in fetched)
        self.assertNotIn("duration", receiver.info(), "no duration for live before EXT-X-ENDLIST")
        receiver.wait_for("ENDED", timeout=15)
        self.assertEqual(self.fetched(receiver), ["p1", "p2"] + AD1 + ["p5"])
        self.assertIn("RESUME 10.000", receiver.lines)
        reloads = [e for e in self.origin.requests(receiver.host) if e["path"] == "/resume-live/primary.m3u8"]
        self.assertGreater(len(reloads), 3, "a live playlist is reloaded")
        self.assertEqual(self.fetched(self.play(url, "ignore-resume-offset"))[:5], ["p1", "p2"] + AD1 + ["p3"])

    def test_playout_limit_ends_the_ad(self):
        url = self.case("limit", [daterange("ad", 4, f'DURATION=4.000,X-ASSET-URI="{self.asset("ad-1", "ad")}",'
                                                     "X-PLAYOUT-LIMIT=2.000")])
        conforming = self.play(url)
        self.assertEqual(self.fetched(conforming), ["p0", "p1", "ad-1.0", "p3", "p4", "p5"])
        self.assertIn("RESUME 6.000", conforming.lines)
        self.assertEqual(self.fetched(self.play(url, "ignore-playout-limit")), ["p0", "p1"] + AD1 + ["p4", "p5"])

    def test_timeline_range_resumes_after_duration_and_reports_start_plus_time_into_the_ad(self):
        asset = self.asset("ad-1", "ad")
        ranged = self.case("range", [daterange("ad", 4, f'DURATION=4.000,X-ASSET-URI="{asset}",X-TIMELINE-OCCUPIES="RANGE"')])
        point = self.case("point", [daterange("ad", 4, f'DURATION=4.000,X-ASSET-URI="{asset}"')])
        for url, moves in ((ranged, True), (point, False)):
            receiver = self.receiver(speed=8)
            receiver.play(url)
            self.wait_until(receiver, lambda fetched: "ad-1.0" in fetched)
            positions = []
            while self.fetched(receiver)[-1].startswith("ad-"):
                position = receiver.info()["position"]
                if self.fetched(receiver)[-1].startswith("ad-"):  # still in the ad after the answer
                    positions.append(position)
                time.sleep(0.02)
            receiver.wait_for("ENDED", timeout=15)
            self.assertEqual(self.fetched(receiver), ["p0", "p1"] + AD1 + ["p4", "p5"])
            self.assertIn("RESUME 8.000", receiver.lines)
            self.assertGreater(len(positions), 5)
            self.assertTrue(all(4.0 <= p <= 8.0 for p in positions), positions)
            if moves:
                self.assertGreater(positions[-1] - positions[0], 2.0, f"RANGE: START + time into the ad {positions}")
            else:  # (8.0 only in the instant between the resume and the next fetch)
                self.assertLessEqual(set(positions), {4.0, 8.0}, "POINT: the position stays at START")
                self.assertGreater(positions.count(4.0), 5, positions)


class CueTests(ReceiverTestCase):
    def test_cue_pre_plays_before_the_primary(self):
        url = self.case("pre", [daterange("ad", 4, f'DURATION=4.000,X-ASSET-URI="{self.asset("ad-1", "ad")}",'
                                                   'CUE="PRE",X-RESUME-OFFSET=0')])
        self.assertEqual(self.fetched(self.play(url)), AD1 + PRIMARY)
        self.assertEqual(self.fetched(self.play(url, "ignore-cue")), ["p0", "p1"] + AD1 + PRIMARY[2:])

    def test_cue_post_plays_after_the_primary(self):
        url = self.case("post", [daterange("ad", 4, f'DURATION=4.000,X-ASSET-URI="{self.asset("ad-1", "ad")}",CUE="POST"')])
        self.assertEqual(self.fetched(self.play(url)), PRIMARY + AD1)
        self.assertEqual(self.fetched(self.play(url, "ignore-cue")), ["p0", "p1"] + AD1 + ["p4", "p5"])

    def test_cue_once_is_not_played_again_after_a_seek_back(self):
        url = self.case("once", [daterange("ad", 4, f'DURATION=4.000,X-ASSET-URI="{self.asset("ad-1", "ad")}",'
                                                    'CUE="ONCE",X-RESUME-OFFSET=0')])
        for behaviour, plays in (("conforming", 1), ("ignore-cue", 2)):
            receiver = self.receiver(behaviour, speed=10)
            receiver.play(url)
            self.wait_until(receiver, lambda fetched: "p3" in fetched)
            self.assertEqual(receiver.request("POST", "/scrub?position=2.000000")[0], 200)
            receiver.wait_for("ENDED", timeout=15)
            fetched = self.fetched(receiver)
            self.assertEqual(fetched[:5], ["p0", "p1"] + AD1 + ["p2"], behaviour)
            again = fetched.index("p1", 5)  # the seek back landed
            self.assertEqual(fetched[again:again + 2], ["p1", "ad-1.0" if plays == 2 else "p2"], f"{behaviour}: {fetched}")
            self.assertEqual(fetched.count("ad-1.0"), plays, f"{behaviour}: {fetched}")

    def test_live_preroll_plays_before_the_primary_on_a_join(self):
        dr = daterange("ad", 2, f'DURATION=4.000,X-ASSET-URI="{self.asset("ad-1", "ad")}",CUE="PRE",X-RESUME-OFFSET=0')
        url = self.case("live-pre", [dr], live={"joinEdge": 6, "startOffset": -2})
        self.assertEqual(self.fetched(self.play(url)), AD1 + ["p2", "p3", "p4", "p5"])


class AssetListTests(ReceiverTestCase):
    def test_asset_list_with_several_assets_plays_them_in_order(self):
        listed = self.asset_list("two", ["ad-1", "ad-2"])
        url = self.case("list-two", [daterange("break", 4, f'DURATION=8.000,X-ASSET-LIST="{listed}",X-RESUME-OFFSET=0')])
        self.assertEqual(self.fetched(self.play(url)), ["p0", "p1"] + AD1 + ["ad-2.0", "ad-2.1"] + PRIMARY[2:])
        ignoring = self.play(url, "ignore-interstitials")
        self.assertEqual(self.interstitial_requests(ignoring), [])

    def test_empty_asset_list_applies_the_resume_offset(self):
        empty = self.asset_list("empty", [])
        absent = self.case("list-empty", [daterange("break", 4, f'DURATION=4.000,X-ASSET-LIST="{empty}"')])
        receiver = self.play(absent)
        self.assertEqual(self.fetched(receiver), PRIMARY, "no offset: 0")
        self.assertEqual([e["path"] for e in self.interstitial_requests(receiver)], ["/lists/empty.json"])
        given = self.case("list-empty-2", [daterange("break", 4, f'DURATION=4.000,X-ASSET-LIST="{empty}",X-RESUME-OFFSET=2')])
        self.assertEqual(self.fetched(self.play(given)), ["p0", "p1", "p3", "p4", "p5"])

    def test_a_failing_asset_is_skipped_and_the_rest_play(self):
        listed = self.asset_list("failing-asset", ["ad-1", "missing", "ad-3"])
        url = self.case("list-failing-asset", [daterange("break", 4, f'DURATION=12.000,X-ASSET-LIST="{listed}",'
                                                                     "X-RESUME-OFFSET=0")])
        receiver = self.play(url)
        self.assertEqual(self.fetched(receiver), ["p0", "p1"] + AD1 + ["ad-3.0", "ad-3.1"] + PRIMARY[2:])
        self.assertIn("/missing/master.m3u8", [e["path"] for e in self.interstitial_requests(receiver)])

    def test_a_failing_asset_list_cancels_the_break(self):
        url = self.case("list-failing", [daterange("break", 4, f'DURATION=4.000,X-ASSET-LIST="{self.base}/lists/none.json"')])
        receiver = self.play(url)
        self.assertEqual(self.fetched(receiver), PRIMARY, "cancelled: resume offset 0")
        self.assertEqual([e["path"] for e in self.interstitial_requests(receiver)], ["/lists/none.json"])

    def test_primary_id_is_one_value_per_session_on_every_interstitial_request(self):
        listed = self.asset_list("second", ["ad-2"], ident="second")
        url = self.case("primary-id", [
            daterange("first", 2, f'DURATION=4.000,X-ASSET-URI="{self.asset("ad-1", "first")}",X-RESUME-OFFSET=0'),
            daterange("second", 6, f'DURATION=4.000,X-ASSET-LIST="{listed}",X-RESUME-OFFSET=0')])
        receiver = self.play(url)
        requests = self.interstitial_requests(receiver)
        self.assertEqual([e["path"] for e in requests], ["/ad-1/master.m3u8", "/lists/second.json", "/ad-2/master.m3u8"])
        ids = {tuple(e["query"].get("_HLS_primary_id", [])) for e in requests}
        self.assertEqual(len(ids), 1, ids)
        self.assertEqual(len(ids.pop()[0]), 36, "a UUID")
        self.assertEqual(requests[0]["query"]["_HLS_interstitial_id"], ["first"], "the packager's query is kept")
        receiver.play(url)  # a new session: a new id
        receiver.wait_for("ENDED", count=2)
        again = {e["query"]["_HLS_primary_id"][0] for e in self.interstitial_requests(receiver)}
        self.assertEqual(len(again), 2, again)
        dropping = self.play(url, "drop-primary-id")
        self.assertEqual(self.fetched(dropping), ["p0"] + AD1 + ["p1", "p2"] + ["ad-2.0", "ad-2.1"] + PRIMARY[3:])
        self.assertEqual([e for e in self.interstitial_requests(dropping) if "_HLS_primary_id" in e["query"]], [])

    def test_live_join_mid_break_asks_the_list_with_the_start_offset(self):
        listed = self.asset_list("mid-break", ["ad-1"])
        dr = daterange("break", 4, f'DURATION=4.000,X-ASSET-LIST="{listed}"')
        url = self.case("live-mid-break", [dr], live={"joinEdge": 8, "startOffset": -3})
        receiver = self.play(url)
        lists = [e for e in self.interstitial_requests(receiver) if e["path"].endswith(".json")]
        self.assertEqual(len(lists), 1)
        self.assertAlmostEqual(float(lists[0]["query"]["_HLS_start_offset"][0]), 1.0, delta=0.25)
        self.assertEqual(self.fetched(receiver), AD1 + ["p4", "p5"], "1 s into the break, then START + A = 8")
        self.assertIn("RESUME 8.000", receiver.lines)


class NavigationTests(ReceiverTestCase):
    def scrub_after_first_segment(self, url, behaviour):
        receiver = self.receiver(behaviour, speed=10)
        receiver.play(url)
        self.wait_until(receiver, lambda fetched: "p0" in fetched)
        self.assertEqual(receiver.request("POST", "/scrub?position=9.000000")[0], 200)
        receiver.wait_for("ENDED", timeout=15)
        fetched = self.fetched(receiver)
        return [f for f in fetched if f != "p1"]  # p1 too when the machine is slow: the seek lands before 6 anyway

    def test_restrict_jump_plays_the_ad_before_the_seek_lands(self):
        asset = self.asset("ad-1", "ad")
        jump = self.case("jump", [daterange("ad", 6, f'DURATION=4.000,X-ASSET-URI="{asset}",X-RESTRICT="JUMP",X-RESUME-OFFSET=0')])
        free = self.case("no-jump", [daterange("ad", 6, f'DURATION=4.000,X-ASSET-URI="{asset}",X-RESUME-OFFSET=0')])
        self.assertEqual(self.scrub_after_first_segment(jump, "conforming"), ["p0"] + AD1 + ["p4", "p5"])
        self.assertEqual(self.scrub_after_first_segment(jump, "seek-past-jump"), ["p0", "p4", "p5"])
        self.assertEqual(self.scrub_after_first_segment(free, "conforming"), ["p0", "p4", "p5"], "no JUMP: skipped")

    def test_restrict_skip_holds_the_rate_and_refuses_forward_seeks(self):
        url = self.case("skip", [daterange("ad", 4, f'DURATION=4.000,X-ASSET-URI="{self.asset("ad-1", "ad")}",'
                                                    'X-RESTRICT="SKIP",X-RESUME-OFFSET=0')])
        for behaviour, rate in (("conforming", 1.0), ("allow-skip-rate", 2.0)):
            receiver = self.receiver(behaviour, speed=10)
            receiver.play(url)
            self.wait_until(receiver, lambda fetched: "ad-1.0" in fetched)
            self.assertEqual(receiver.request("POST", "/rate?value=2.000000")[0], 200, "answered 200 either way")
            self.assertEqual(receiver.info()["rate"], rate, behaviour)
            self.assertEqual(receiver.request("POST", "/scrub?position=10.000000")[0], 200)
            receiver.wait_for("ENDED", timeout=15)
            self.assertEqual(self.fetched(receiver), ["p0", "p1"] + AD1 + PRIMARY[2:], behaviour)
            self.assertIn("SCRUB-REFUSED 10", receiver.lines)

    def test_snap_on_live_leaves_and_returns_at_segment_boundaries(self):
        asset = self.asset("ad-1", "ad")
        snap = self.case("snap", [daterange("ad", 4.6, f'DURATION=4.000,X-ASSET-URI="{asset}",X-SNAP="OUT,IN"')],
                         live={"joinEdge": 4, "startOffset": -2})
        snapping = self.play(snap)
        self.assertEqual(self.fetched(snapping), ["p1"] + AD1 + ["p4", "p5"], "leaves at 4, back at 8")
        self.assertIn("RESUME 8.000", snapping.lines)
        plain = self.case("no-snap", [daterange("ad", 4.6, f'DURATION=4.000,X-ASSET-URI="{asset}"')],
                          live={"joinEdge": 4, "startOffset": -2})
        plainly = self.play(plain)
        self.assertEqual(self.fetched(plainly), ["p1", "p2"] + AD1 + ["p4", "p5"], "leaves at 4.6, back at 8.6")
        self.assertIn("RESUME 8.600", plainly.lines)


class AirPlayTests(ReceiverTestCase):
    def test_commands_and_reports(self):
        url = self.case("airplay", [])
        receiver = self.receiver(speed=4)
        status, body = receiver.request("GET", "/server-info")
        self.assertEqual((status, plistlib.loads(body)["model"]), (200, "SeamcheckBehaviour,1"))
        self.assertEqual(receiver.info(), {}, "nothing to report before /play")
        self.origin.delays["/airplay/primary.m3u8"] = 0.4
        body = f"Content-Location: {url}\nStart-Position: 0.5\n".encode()
        self.assertEqual(receiver.request("POST", "/play", body, "text/parameters")[0], 200)
        first = receiver.info()
        self.assertEqual((first["rate"], first["position"]), (0.0, 0.0), "rate 0 before the first segment")
        self.wait_until(receiver, lambda fetched: fetched)
        self.assertEqual(self.fetched(receiver)[0], "p3", "Start-Position 0.5 of 12 s: 6 s")
        self.assertEqual(receiver.info()["duration"], 12.0)
        self.assertEqual(receiver.request("POST", "/rate?value=0.000000")[0], 200)
        paused = receiver.info()
        time.sleep(0.3)
        self.assertEqual((receiver.info()["position"], receiver.info()["rate"]), (paused["position"], 0.0))
        receiver.request("POST", "/rate?value=1.000000")
        time.sleep(0.3)
        self.assertGreater(receiver.info()["position"], paused["position"] + 0.5)
        self.assertIn(b"duration: 12", receiver.request("GET", "/scrub")[1])
        self.origin.delays.clear()
        before = len(self.fetched(receiver))
        receiver.play(url, start=8.0)  # a new /play replaces the playback
        receiver.wait_for("ENDED stopped")
        self.wait_until(receiver, lambda fetched: len(fetched) > before)
        self.assertEqual(self.fetched(receiver)[before], "p4", "Start-Position-Seconds 8")
        self.assertEqual(receiver.request("POST", "/stop")[0], 200)
        receiver.wait_for("ENDED", count=2)
        self.assertEqual(receiver.info(), {}, "stopped: the item is dropped")

    def test_bad_input_never_kills_it(self):
        receiver = self.receiver()
        for url in (f"{self.base}/nowhere/master.m3u8", "http://127.0.0.1:1/master.m3u8", "ftp://127.0.0.1/x.m3u8",
                    f"{self.base}/lists/none.json"):
            receiver.play(url)
            self.assertIn("ENDED failed", receiver.wait_for("ENDED", count=len([l for l in receiver.lines if l.startswith("PLAY")])))
            self.assertEqual(receiver.info(), {})
        self.assertEqual(receiver.request("POST", "/play", b"\x00garbage", "application/x-apple-binary-plist")[0], 400)
        self.assertEqual(receiver.request("POST", "/scrub?position=abc")[0], 400)
        self.assertEqual(receiver.request("POST", "/rate")[0], 400)
        frozen = self.case("frozen", [], live={"joinEdge": 4, "startOffset": -2, "frozen": True})
        receiver.play(frozen)
        self.assertIn("no new segment", receiver.wait_for("ENDED", count=5, timeout=15), "a live stream that stops growing")
        url = self.case("after-bad", [])
        receiver.play(url)
        receiver.wait_for("ENDED ended")
        self.assertEqual(self.fetched(receiver), ["p1"] + PRIMARY, "the frozen stream's one segment, then the VOD")


if __name__ == "__main__":
    unittest.main(verbosity=2)
