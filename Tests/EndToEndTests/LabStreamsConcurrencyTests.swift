import Foundation
import SeamcheckTestSupport
import XCTest

/// Two `seamcheck lab streams` into one folder at once, as the three test processes of
/// scripts/test-shards.sh do with `.build/test-media/lab-small-e2e` on a cold cache: both succeed,
/// and a folder one of them published stays (another process may be serving it already).
final class LabStreamsConcurrencyTests: XCTestCase {
    /// A case, its stitched twin (links) and the encrypted one (a second ffmpeg job over the first's output).
    static let cases = ["control", "encryption-aes-128", "control-stitched"]

    func testTwoRunsIntoOneFolderAtOnceBothSucceedAndKeepTheFirstPublishedFolder() throws {
        _ = try TestEnvironment.require("ffmpeg")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("seamcheck-streams-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let arguments = ["lab", "streams", "--scale", "small", "--output", folder] + Self.cases.flatMap { ["--case", $0] }

        // The primary's folder, watched while both runs go: each inode it has had.
        let watcher = FolderWatcher(path: folder + "/primary")
        let results = LabStreamsCommandTests.concurrently(["first", "second"], width: 2) { _ in
            Result { try SeamcheckBinary.run(arguments) }
        }
        watcher.stop()
        for result in results {
            let run = try result.get()
            XCTAssertEqual(run.status, 0, run.stderr)
            XCTAssertTrue(run.stdout.contains("3 cases in"), run.stdout)
        }
        XCTAssertEqual(watcher.inodes.count, 1, "the primary's folder was replaced after it was published: \(watcher.inodes)")
        XCTAssertEqual(watcher.inodes.first, FolderWatcher.inode(folder + "/primary"))

        // Every encode complete, every playlist's segments there, no scratch left behind.
        let manifest = try LabSuiteFixture.manifest(folder)
        XCTAssertEqual(((manifest["cases"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }, Self.cases)
        for encode in ["primary", "cases/control/ad", "cases/encryption-aes-128/ad-clear", "cases/encryption-aes-128/ad"] {
            let playlist = try String(contentsOfFile: folder + "/" + encode + "/encoded.m3u8", encoding: .utf8)
            XCTAssertTrue(FileManager.default.fileExists(atPath: folder + "/" + encode + "/recipe.txt"), encode)
            let segments = playlist.split(separator: "\n").filter { !$0.hasPrefix("#") }
            XCTAssertFalse(segments.isEmpty, encode)
            for segment in segments {
                XCTAssertTrue(FileManager.default.fileExists(atPath: folder + "/" + encode + "/" + segment), "\(encode)/\(segment)")
            }
        }
        let left = (FileManager.default.enumerator(atPath: folder)?.allObjects as? [String] ?? [])
            .filter { $0.contains(".partial-") || $0.contains(".stale-") || $0.contains(".link-") }
        XCTAssertEqual(left, [], "scratch left in the suite")
        XCTAssertEqual((try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/cases/control-stitched/ad")), "../control/ad")
        for playlist in ["cases/encryption-aes-128/ad/ad.m3u8", "cases/encryption-aes-128/ad/key.bin", "cases/control/master.m3u8"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: folder + "/" + playlist), playlist)
        }
        let encrypted = FolderWatcher.inode(folder + "/cases/encryption-aes-128/ad")

        // A third run finds it all cached and replaces nothing.
        let again = try SeamcheckBinary.run(arguments)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stdout.contains("(0 encoded"), again.stdout)
        XCTAssertEqual(FolderWatcher.inode(folder + "/primary"), watcher.inodes.first)
        XCTAssertEqual(FolderWatcher.inode(folder + "/cases/encryption-aes-128/ad"), encrypted, "the encryption was made again")
    }
}

/// Polls a path's inode every 10 ms on a thread of its own until stopped.
final class FolderWatcher: @unchecked Sendable {
    private let path: String
    private let lock = NSLock()
    private var seen: [UInt64] = []
    private var stopped = false
    private let done = DispatchSemaphore(value: 0)

    init(path: String) {
        self.path = path
        Thread.detachNewThread { [self] in
            while !isStopped {
                if let inode = FolderWatcher.inode(self.path) { note(inode) }
                Thread.sleep(forTimeInterval: 0.01)
            }
            done.signal()
        }
    }

    var inodes: [UInt64] { lock.withLock { seen } }
    private var isStopped: Bool { lock.withLock { stopped } }
    private func note(_ inode: UInt64) { lock.withLock { if seen.last != inode { seen.append(inode) } } }

    func stop() {
        lock.withLock { stopped = true }
        done.wait()
    }

    static func inode(_ path: String) -> UInt64? {
        var info = stat()
        return lstat(path, &info) == 0 ? UInt64(info.st_ino) : nil
    }
}
