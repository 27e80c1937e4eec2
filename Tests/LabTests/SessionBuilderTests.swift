import Compatibility
import Foundation
import XCTest
@testable import LabCore
@testable import LabRun
@testable import LabServer

final class SessionBuilderTests: XCTestCase {
    let tv = LabReceiverRecord(address: "127.0.0.21", name: "Living Room", deviceId: "AA:BB:CC:DD:EE:01",
                               deviceClass: "smart-tv-low-end", reason: "test", source: .avahi)

    func testAMidRollSessionShowsTheVariantTheAdAndWhereItResumed() throws {
        let builder = SessionBuilder(manifest: LabTestData.manifest, receivers: [tv])
        let sessions = builder.sessions(from: LabTestData.midRoll("127.0.0.21"))
        XCTAssertEqual(sessions.count, 1)
        let s = try XCTUnwrap(sessions.first)
        XCTAssertEqual(s.case, "video-codec-hevc")
        XCTAssertEqual(s.receiver, "Living Room")
        XCTAssertEqual(s.deviceClass, "smart-tv-low-end")
        XCTAssertEqual(s.variant, "cases/video-codec-hevc/media.m3u8")
        XCTAssertTrue(s.interstitialRequested)
        XCTAssertEqual(s.interstitialVariant, "cases/video-codec-hevc/ad/ad.m3u8")
        XCTAssertEqual(s.interstitialSegments, 2)
        XCTAssertEqual(s.resumedAt, 4, "the first primary segment after the ad is seg_002, which starts at 4 s")
        XCTAssertTrue(s.sentPrimaryId)
        XCTAssertTrue(s.sentStartOffset)
        XCTAssertEqual(s.requests, 11)
    }

    func testAClientThatIgnoresInterstitialsNeverResumesAndIsUnmapped() throws {
        let requests = LabTestData.midRoll("127.0.0.1").filter { !$0.path.contains("/ad/") }
        let s = try XCTUnwrap(SessionBuilder(manifest: LabTestData.manifest, receivers: [tv]).sessions(from: requests).first)
        XCTAssertFalse(s.interstitialRequested)
        XCTAssertNil(s.resumedAt)
        XCTAssertNil(s.receiver)
        XCTAssertNil(s.deviceClass)
        XCTAssertFalse(s.sentPrimaryId)
    }

    func testSessionsAreSplitPerClientPerCaseAndByALongPause() {
        var requests = LabTestData.midRoll("127.0.0.21") + LabTestData.midRoll("127.0.0.22")
            + LabTestData.midRoll("127.0.0.21", case: "control", from: 10)
        requests += LabTestData.midRoll("127.0.0.21", from: 10 + 600)  // the same case, ten minutes later
        requests.append(LabTestData.request("127.0.0.21", "/api/sessions", at: 5))  // the lab page: no session
        let sessions = SessionBuilder(manifest: LabTestData.manifest, receivers: []).sessions(from: requests.shuffled())
        XCTAssertEqual(sessions.map { "\($0.client) \($0.case)" },
                       ["127.0.0.21 video-codec-hevc", "127.0.0.22 video-codec-hevc", "127.0.0.21 control", "127.0.0.21 video-codec-hevc"])
    }

    func testFailedAndAbandonedRequestsAreCountedAndNotTakenAsFetched() throws {
        var requests = LabTestData.midRoll("127.0.0.21")
        requests[5] = LabTestData.request("127.0.0.21", "/cases/video-codec-hevc/ad/ad.m3u8", at: 0.5, status: 404)
        requests.removeSubrange(6...8)
        requests[4].completed = false
        let s = try XCTUnwrap(SessionBuilder(manifest: LabTestData.manifest, receivers: []).sessions(from: requests).first)
        XCTAssertFalse(s.interstitialRequested, "a 404 on the asset is not an ad that played")
        XCTAssertEqual(s.failedRequests, 1)
        XCTAssertEqual(s.abandonedRequests, 1)
    }

    func testTheVariantChosenFromTheLadderIsHeldAgainstTheClassProfile() throws {
        let profile = DeviceProfile(id: "smart-tv-low-end", name: "low", plays: Capabilities(
            video: true, videoCodecs: ["h264"], maxWidth: 1920, maxHeight: 1080, maxFrameRate: 60, dynamicRanges: ["SDR"],
            audioCodecs: ["aac"], maxChannels: 2, sampleRates: [48000]))
        let requests = [
            LabTestData.request("127.0.0.21", "/cases/capability-ladder/master.m3u8", at: 0),
            LabTestData.request("127.0.0.21", "/cases/capability-ladder/v_hevc_hdr10.m3u8", at: 0.1),
            LabTestData.request("127.0.0.21", "/cases/capability-ladder/a_eac3_51.m3u8", at: 0.1),
            LabTestData.request("127.0.0.21", "/cases/capability-ladder/v_hevc_hdr10_000.m4s", at: 0.2),
            LabTestData.request("127.0.0.21", "/cases/capability-ladder/v_hevc_hdr10_001.m4s", at: 0.3),
        ]
        let s = try XCTUnwrap(SessionBuilder(manifest: LabTestData.manifest, receivers: [tv], profiles: [profile])
            .sessions(from: requests).first)
        XCTAssertEqual(s.variant, "cases/capability-ladder/v_hevc_hdr10.m3u8")
        XCTAssertEqual(s.audioRendition, "cases/capability-ladder/a_eac3_51.m3u8")
        let observed = try XCTUnwrap(s.observedCapability)
        XCTAssertEqual(observed.videoCodec, "hevc")
        XCTAssertEqual(observed.dynamicRange, "HDR10")
        XCTAssertEqual(observed.channels, 6)
        XCTAssertEqual(observed.againstProfile.count, 4, "\(observed.againstProfile)")
        XCTAssertTrue(observed.againstProfile[0].contains("chose hevc; class smart-tv-low-end plays h264 only"), "\(observed.againstProfile)")
    }

    func testTheLadderChoiceIsHeldAgainstWhatTheReceiversInfoDeclares() throws {
        func choose(_ playlist: String, declared: [String]) throws -> [String] {
            var receiver = tv
            receiver.declaredHDRFormats = declared
            let requests = [LabTestData.request("127.0.0.21", "/cases/capability-ladder/master.m3u8", at: 0),
                            LabTestData.request("127.0.0.21", "/cases/capability-ladder/\(playlist).m3u8", at: 0.1)]
            let session = try XCTUnwrap(SessionBuilder(manifest: LabTestData.manifest, receivers: [receiver]).sessions(from: requests).first)
            return try XCTUnwrap(session.observedCapability).againstProfile
        }
        XCTAssertEqual(try choose("v_hevc_hdr10", declared: ["HDR10", "HLG"]), [])
        XCTAssertEqual(try choose("v_hevc_hdr10", declared: []), ["chose HDR10; its /info declares no HDR format"])
        XCTAssertEqual(try choose("v_h264_sdr", declared: ["HDR10", "DolbyVision"]),
                       ["chose SDR although the ladder offers, and its /info declares, HDR10"])
        XCTAssertEqual(try choose("v_h264_sdr", declared: ["DolbyVision"]), [], "the ladder offers no Dolby Vision")
    }

    func testSessionJSONCarriesInterfaceFieldsAsNullWhenUnknown() throws {
        let requests = LabTestData.midRoll("127.0.0.1").filter { !$0.path.contains("/ad/") }
        let s = try XCTUnwrap(SessionBuilder(manifest: LabTestData.manifest, receivers: []).sessions(from: requests).first)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: JSONEncoder().encode(s)) as? [String: Any])
        for key in ["client", "userAgent", "receiver", "deviceId", "deviceClass", "case", "started", "variant",
                    "interstitialRequested", "interstitialVariant", "resumedAt", "requests"] {
            XCTAssertTrue(object.keys.contains(key), "missing \(key)")
        }
        XCTAssertTrue(object["receiver"] is NSNull)
        XCTAssertTrue(object["resumedAt"] is NSNull)
    }
}
