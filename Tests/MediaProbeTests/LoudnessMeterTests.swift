import Foundation
@testable import MediaProbe
import SeamcheckTestSupport
import XCTest

/// The meter against ffmpeg's own ebur128 summary, on a file and on the same bytes in memory.
final class LoudnessMeterTests: XCTestCase {
    func ffmpegIntegrated(_ path: String) throws -> Double {
        let result = try Command.run("ffmpeg", ["-nostdin", "-hide_banner", "-i", path, "-map", "0:a:0", "-af", "ebur128", "-f", "null", "-"])
        let line = try XCTUnwrap(result.stderr.components(separatedBy: "\n").last { $0.trimmingCharacters(in: .whitespaces).hasPrefix("I:") })
        return try XCTUnwrap(Double(line.split(separator: " ").dropFirst().first.map(String.init) ?? ""), line)
    }

    func testIntegratedLoudnessAgreesWithFFmpegAndSeesTwelveDecibels() throws {
        let meter = LoudnessMeter()
        let quiet = try meter.measure(path: try Fixtures.primary.path())
        XCTAssertEqual(quiet.integrated, try ffmpegIntegrated(try Fixtures.primary.path()), accuracy: 0.2)
        XCTAssertEqual(quiet.seconds, 1, accuracy: 0.1)
        XCTAssertGreaterThan(quiet.bytesRead, 0)
        let loud = try meter.measure(path: try Fixtures.loud.path())
        XCTAssertEqual(loud.integrated - quiet.integrated, 12, accuracy: 0.5)
        let inMemory = try meter.measure(bytes: try Data(contentsOf: URL(fileURLWithPath: try Fixtures.loud.path())), label: "loud")
        XCTAssertEqual(inMemory.integrated, loud.integrated, accuracy: 0.01)
    }

    func testSilenceAndVideoOnlyHaveNoLoudness() throws {
        XCTAssertThrowsError(try LoudnessMeter().measure(path: try Fixtures.videoOnly.path()))
    }
}
