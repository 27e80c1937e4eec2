import Foundation
import HLS
import XCTest

/// The one reader of the files a user names, and the one truncation of quoted text.
final class TextFileTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("textfile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    func write(_ data: Data, _ name: String) throws -> String {
        let path = dir.appendingPathComponent(name).path
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    func problem(_ path: String, limit: Int = TextFile.defaultLimit) -> TextFileError.Problem? {
        do { _ = try TextFile.read(path, limit: limit); return nil } catch { return error.problem }
    }

    func testTextIsReadAndEverythingElseIsRefusedByKind() throws {
        XCTAssertEqual(try TextFile.read(try write(Data("a: caf\u{E9}\r\n\tb: 1\n".utf8), "ok.yaml")), "a: caf\u{E9}\r\n\tb: 1\n")
        XCTAssertEqual(problem(dir.appendingPathComponent("none.yaml").path), .notFound)
        XCTAssertEqual(problem(dir.path), .directory)
        XCTAssertEqual(problem("/dev/zero"), .notRegular)
        XCTAssertEqual(problem(try write(Data("a: 1\nb: \0\0".utf8), "nul.yaml")), .binary(byte: 0, offset: 8, line: 2))
        XCTAssertEqual(problem(try write(Data("\u{7F}".utf8), "del.yaml")), .binary(byte: 0x7F, offset: 0, line: 1))
        XCTAssertEqual(problem(try write(Data([0x61, 0xE9, 0x0A]), "latin1.yaml")), .notUTF8)
        XCTAssertEqual(problem(try write(Data(count: 11), "eleven.yaml"), limit: 10), .tooLarge(size: 11, limit: 10))
        XCTAssertNil(problem(try write(Data("0123456789".utf8), "ten.yaml"), limit: 10), "the limit itself is allowed")
    }

    func testASparseFileOfTwoGigabytesIsRefusedWithoutBeingRead() throws {
        let path = dir.appendingPathComponent("sparse.yaml").path
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: 2 << 30)
        try handle.close()
        let started = Date()
        XCTAssertEqual(problem(path), .tooLarge(size: 2 << 30, limit: TextFile.defaultLimit))
        // Reading 2 GiB takes seconds; a stat does not, even on a loaded CI machine.
        XCTAssertLessThan(Date().timeIntervalSince(started), 3)
        let error = TextFileError(path: path, problem: .tooLarge(size: 2 << 30, limit: TextFile.defaultLimit))
        XCTAssertEqual(error.description, "\(path): 2048 MiB, larger than the 4 MiB limit; is this the right file?")
    }

    func testEveryReasonSaysWhatToDo() {
        XCTAssertEqual(TextFileError(path: "d", problem: .directory).reason, "it is a directory; give the file itself")
        XCTAssertTrue(TextFileError(path: "z", problem: .notRegular).reason.contains("give a file"))
        XCTAssertEqual(TextFileError(path: "n", problem: .binary(byte: 0, offset: 3, line: 1)).reason,
                       "byte 0x00 at offset 3 (line 1) is a control character: a binary file, not text")
    }

    func testClipKeepsBothEndsWithinTheBoundAndNeverSplitsAScalar() {
        XCTAssertEqual(BoundedText.clip("short"), "short")
        let long = String(repeating: "é", count: 100_000) + "END"
        let clipped = BoundedText.clip(long, maxBytes: 301)
        XCTAssertLessThan(clipped.utf8.count, 360)
        XCTAssertTrue(clipped.hasPrefix("éé") && clipped.hasSuffix("éEND"), clipped)
        XCTAssertTrue(clipped.contains("bytes cut"))
        XCTAssertFalse(clipped.unicodeScalars.contains("\u{FFFD}"), "cut between scalars")
    }
}
