import Foundation
import HLS
@testable import MediaProbe
import SeamcheckTestSupport
import XCTest

final class ProbeErrorTests: XCTestCase {
    var scratch: URL!

    override func setUpWithError() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("seamcheck-probe-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: scratch)
    }

    func probeError(_ path: String) -> ProbeError? {
        do {
            _ = try MediaProber().probe(path)
            return nil
        } catch {
            return error
        }
    }

    func testMissingFileIsNamed() {
        let path = scratch.appendingPathComponent("nope.mp4").path
        XCTAssertEqual(probeError(path), .fileNotFound(path))
    }

    func testEmptyFileIsRefusedBeforeFFmpeg() throws {
        let path = scratch.appendingPathComponent("empty.mp4").path
        _ = FileManager.default.createFile(atPath: path, contents: Data())
        XCTAssertEqual(probeError(path), .emptyFile(path))
    }

    func testDirectoryIsNotMedia() {
        XCTAssertEqual(probeError(scratch.path), .notARegularFile(scratch.path))
    }

    func testRandomBytesAreNotProbedAsSomeTextFormat() throws {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<5 {
            let bytes = (0..<65536).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let path = scratch.appendingPathComponent("random-\(round).mp4").path
            _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
            guard case .notMedia(let input, _) = probeError(path) else {
                return XCTFail("random bytes must be refused as not media: \(String(describing: probeError(path)))")
            }
            XCTAssertEqual(input, path)
        }
    }

    func testTextFileIsNotMedia() throws {
        let path = scratch.appendingPathComponent("subtitles.srt").path
        try "1\n00:00:01,000 --> 00:00:02,000\nHello\n".write(toFile: path, atomically: true, encoding: .utf8)
        guard case .notMedia = probeError(path) else { return XCTFail("an SRT file is not a media asset") }
    }

    func testTruncatedMP4WithMoovAtEndIsTruncated() throws {
        let path = try truncatedCopy(of: Fixtures.primary.path(), keeping: 0.5)
        guard case .truncated(let input, let reason) = probeError(path) else {
            return XCTFail("expected truncated, got \(String(describing: probeError(path)))")
        }
        XCTAssertEqual(input, path)
        XCTAssertTrue(reason.contains("moov atom not found"), reason)
    }

    func testTruncatedFaststartMP4IsCaughtByItsIndex() throws {
        let faststart = MediaFixture.clip("h264-faststart", extra: ["-movflags", "+faststart"])
        let path = try truncatedCopy(of: faststart.path(), keeping: 0.6)
        guard case .truncated(_, let reason) = probeError(path) else {
            return XCTFail("expected truncated, got \(String(describing: probeError(path)))")
        }
        XCTAssertTrue(reason.contains("file has"), reason)
    }

    func testUnsupportedSchemeIsAnInputError() {
        guard case .invalidInput(.unsupportedScheme("ftp", _)) = probeError("ftp://example.invalid/a.mp4") else {
            return XCTFail("ftp must be refused before FFmpeg sees it")
        }
    }

    func testErrorMessagesNameTheInputAndTheFix() {
        XCTAssertEqual(ProbeError.emptyFile("/x/a.mp4").description,
                       "/x/a.mp4: file is empty (0 bytes); re-export or re-download it")
        XCTAssertTrue(ProbeError.timedOut("http://127.0.0.1:1/a.mp4", seconds: 15).description.contains("--timeout"))
    }

    func testCancelledProbeStopsWithCancelled() throws {
        let cancellation = ProbeCancellation()
        cancellation.cancel()
        let path = try Fixtures.primary.path()
        XCTAssertThrowsError(try MediaProber().probe(.file(path: path), cancellation: cancellation)) { error in
            XCTAssertEqual(error as? ProbeError, .cancelled(path))
        }
    }

    private func truncatedCopy(of path: String, keeping fraction: Double) throws -> String {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let target = scratch.appendingPathComponent("truncated-\(UUID().uuidString).mp4").path
        _ = FileManager.default.createFile(atPath: target, contents: data.prefix(Int(Double(data.count) * fraction)))
        return target
    }
}

final class ProbeSessionTests: XCTestCase {
    func testEachDistinctInputIsProbedOnce() async throws {
        let session = ProbeSession(maxConcurrent: 2)
        let a = InputLocation.file(path: try Fixtures.primary.path())
        let b = InputLocation.file(path: try Fixtures.fps25.path())
        try await withThrowingTaskGroup(of: MediaDescription.self) { group in
            for location in [a, b, a, a, b, a] {
                group.addTask { try await session.describe(location) }
            }
            var count = 0
            for try await _ in group { count += 1 }
            XCTAssertEqual(count, 6)
        }
        let performed = await session.probesPerformed
        XCTAssertEqual(performed, 2)
    }
}
