import Compatibility
import Foundation
import HLS
import XCTest
@testable import LabCore

/// The types whose JSON is "every key, null when unknown" (`encodeEveryKey(of:)`): each writes
/// exactly its stored properties (a new property reaches the JSON, or is named here as left out),
/// nil as null, and the bytes are what the hand-written `encode(to:)` wrote (golden).
final class EveryKeyEncodingTests: XCTestCase {
    /// The JSON keys `value` writes (the tool's encoder) against its stored properties.
    func assertEveryStoredPropertyIsAKey<T: Encodable>(_ value: T, leftOut: Set<String> = [], file: StaticString = #filePath, line: UInt = #line) throws {
        let data = try JSONDocument.encoder(pretty: false).encode(value)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any], file: file, line: line)
        let stored = Set(Mirror(reflecting: value).children.compactMap(\.label))
        XCTAssertEqual(Set(object.keys), stored.subtracting(leftOut),
                       "\(T.self): its JSON keys are its stored properties; add a new property to its CodingKeys (and docs/interface.md), or to leftOut here",
                       file: file, line: line)
    }

    func testFindingWritesEveryKeyWithNullsAndTheSameBytes() throws {
        let finding = Finding(rule: "video-codec-mismatch", severity: .error, deviceClass: nil, subject: "ad.mp4", expected: "h264",
                              actual: "hevc", message: "m", remediation: nil)
        try assertEveryStoredPropertyIsAKey(finding)
        XCTAssertEqual(String(decoding: try JSONDocument.encoder(pretty: false).encode(finding), as: UTF8.self),
                       #"{"accepted":null,"actual":"hevc","deviceClass":null,"expected":"h264","location":null,"message":"m","#
                       + #""remediation":null,"rule":"video-codec-mismatch","severity":"error","subject":"ad.mp4"}"#)
    }

    func testLoudnessCostAndBehaviourJudgementWriteEveryKey() throws {
        let cost = LoudnessCost(measured: false, reason: "off")
        try assertEveryStoredPropertyIsAKey(cost)
        XCTAssertEqual(String(decoding: try JSONDocument.encoder(pretty: false).encode(cost), as: UTF8.self),
                       #"{"bytesRead":0,"measured":false,"measurements":0,"milliseconds":0,"notMeasured":0,"programmeSeconds":null,"#
                       + #""reason":"off","segments":0}"#)
        let judgement = BehaviourJudgement(caseId: "c", feature: "f", outcome: .conforms, checks: [], why: nil, evidence: [], requests: 3)
        try assertEveryStoredPropertyIsAKey(judgement)
        XCTAssertEqual(String(decoding: try JSONDocument.encoder(pretty: false).encode(judgement), as: UTF8.self),
                       #"{"caseId":"c","checks":[],"evidence":[],"feature":"f","outcome":"conforms","requests":3,"why":null}"#)
    }
}
