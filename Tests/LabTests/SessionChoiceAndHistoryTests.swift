import Compatibility
import Foundation
import XCTest
@testable import LabCore
@testable import LabRun
@testable import LabServer

/// Issue 20, item 8: a session names the variant a client chose only when its fetches show one
/// (Kodi reads every variant of a ladder), and shows the class its receiver had while it played.
final class SessionChoiceAndHistoryTests: XCTestCase {
    let ladder = "/cases/capability-ladder/"

    /// A ladder session: each variant's playlist, then `segments[i]` segments of variant i, interleaved.
    func ladderSession(_ segments: [String: Int], client: String = "127.0.0.21", at start: Double = 0) -> [LabRequestRecord] {
        var requests = [LabTestData.request(client, ladder + "master.m3u8", at: start)]
        var t = start + 0.1
        for variant in segments.keys.sorted() {
            requests.append(LabTestData.request(client, ladder + variant + ".m3u8", at: t)); t += 0.01
        }
        for index in 0..<(segments.values.max() ?? 0) {
            for (variant, count) in segments.sorted(by: { $0.key < $1.key }) where index < count {
                requests.append(LabTestData.request(client, ladder + variant + String(format: "_%03d.m4s", index), at: t)); t += 0.01
            }
        }
        return requests
    }

    func session(_ requests: [LabRequestRecord], receivers: [LabReceiverRecord] = [], history: [LabReceiverRecord] = []) throws -> LabSession {
        try XCTUnwrap(SessionBuilder(manifest: LabTestData.manifest, receivers: receivers, history: history).sessions(from: requests).first)
    }

    func testAClientThatFetchesEveryVariantEquallyChoseNoneAndSaysWhy() throws {
        let kodi = try session(ladderSession(["v_h264_sdr": 6, "v_hevc_hdr10": 6]))
        XCTAssertNil(kodi.variant, "no variant is named as chosen")
        XCTAssertNil(kodi.observedCapability, "nothing observed from a choice it did not make")
        XCTAssertEqual(kodi.variantUndetermined, "undetermined: fetched segments of 2 variants about equally "
                       + "(cases/capability-ladder/v_h264_sdr.m3u8 6, cases/capability-ladder/v_hevc_hdr10.m3u8 6), as a client that reads every variant does")
        XCTAssertEqual(kodi.variantsFetched.count, 2)

        let jitter = try session(ladderSession(["v_h264_sdr": 20, "v_hevc_hdr10": 19]))
        XCTAssertNil(jitter.variant, "one segment apart: still equal")
        XCTAssertTrue(jitter.variantUndetermined?.hasPrefix("undetermined: fetched segments of 2 variants") == true)

        let none = try session(ladderSession(["v_h264_sdr": 0, "v_hevc_hdr10": 0]))
        XCTAssertNil(none.variant, "the last playlist fetched is not a choice")
        XCTAssertEqual(none.variantUndetermined, "undetermined: fetched 2 variant playlists and no segment of any")
    }

    func testAClientThatMeasuresThenPlaysOneHasChosenIt() throws {
        let chosen = try session(ladderSession(["v_h264_sdr": 1, "v_hevc_hdr10": 8]))
        XCTAssertEqual(chosen.variant, "cases/capability-ladder/v_hevc_hdr10.m3u8")
        XCTAssertNil(chosen.variantUndetermined)
        XCTAssertEqual(chosen.observedCapability?.dynamicRange, "HDR10")
        let single = try session(ladderSession(["v_h264_sdr": 3]))
        XCTAssertEqual(single.variant, "cases/capability-ladder/v_h264_sdr.m3u8")
        XCTAssertNil(single.variantUndetermined)
    }

    func testASessionShowsTheClassItsReceiverHadWhileItPlayed() throws {
        let at = { (offset: Double) in LabTestData.start.addingTimeInterval(offset) }
        let before = LabReceiverRecord(address: "127.0.0.21", name: "Den", deviceClass: "apple-tv-hd", reason: "model", source: .avahi, seenAt: at(-60))
        let later = LabReceiverRecord(address: "127.0.0.21", name: "Den", deviceClass: "speaker-audio-only", reason: "raop only",
                                      source: .avahi, seenAt: at(600))
        let early = try session(LabTestData.midRoll("127.0.0.21"), receivers: [later], history: [later, before])
        XCTAssertEqual(early.deviceClass, "apple-tv-hd", "classified speaker-audio-only ten minutes after the session")
        let afterwards = try session(LabTestData.midRoll("127.0.0.21", from: 700), receivers: [later], history: [before, later])
        XCTAssertEqual(afterwards.deviceClass, "speaker-audio-only")
        let firstFoundLater = try session(LabTestData.midRoll("127.0.0.21", from: -300), receivers: [later], history: [before, later])
        XCTAssertEqual(firstFoundLater.deviceClass, "apple-tv-hd", "mapped after the session: its first known class")
        let noHistory = try session(LabTestData.midRoll("127.0.0.21"), receivers: [later])
        XCTAssertEqual(noHistory.deviceClass, "speaker-audio-only", "a database without history: the current record")
    }

    func testTheStoreKeepsEachChangeOfClassAndMarksRemovedReceiversGone() throws {
        let path = LabTestData.temporaryDatabase()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try LabStore(path: path)
        let at = { (offset: Double) in LabTestData.start.addingTimeInterval(offset) }
        var record = LabReceiverRecord(address: "127.0.0.21", name: "Den", deviceClass: "apple-tv-hd", reason: "model", source: .avahi, seenAt: at(0))
        try store.upsert(record)
        record.seenAt = at(10)
        try store.upsert(record)  // seen again, same class: no new history entry
        record.deviceClass = "apple-tv-4k"
        record.seenAt = at(20)
        try store.upsert(record)
        XCTAssertEqual(try store.receiverHistory().map(\.deviceClass), ["apple-tv-hd", "apple-tv-4k"])
        XCTAssertEqual(try store.receiverHistory().map(\.seenAt), [at(0), at(20)])

        try store.markGone(addresses: ["127.0.0.21"], at: at(30))
        XCTAssertEqual(try store.receivers().first?.goneAt, at(30))
        record.seenAt = at(40)
        try store.upsert(record)
        XCTAssertNil(try store.receivers().first?.goneAt, "announced again")
        let pinned = LabReceiverRecord(address: "10.0.0.9", name: "Pinned", deviceClass: "mac", reason: "pin", source: .inventory)
        try store.upsert(pinned)
        try store.markGone(addresses: ["10.0.0.9"])
        XCTAssertNil(try store.receivers().first { $0.address == "10.0.0.9" }?.goneAt, "an inventory pin is never gone")
    }
}
