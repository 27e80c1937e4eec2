import Foundation
import SeamcheckTestSupport
import XCTest

/// Every file a user names (project file, matrix, inventory, profile, playlist, lab manifest) is
/// read within a size limit and refused early when it is not text: NUL bytes (a 200 KB YAML file
/// of NULs took 9 s, 1 MB over 120 s), a 2 GB sparse file (4.5 GB RSS, killed), /dev/zero, a
/// directory ("NSCocoaErrorDomain error 256"), a 3 MB line. Each is exit 2 in well under a second
/// or two, with a message that says what is wrong and stays short whatever the file holds.
final class HostileFileTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("seamcheck-hostile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: dir)
    }

    /// The hostile files, each with the words its error must contain.
    func hostileFiles() throws -> [(name: String, path: String, words: String)] {
        let nul = dir.appendingPathComponent("nul.yaml")
        try Data(count: 200_000).write(to: nul)
        let control = dir.appendingPathComponent("control.yaml")
        try Data("name: x\n".utf8 + [UInt8](repeating: 0x01, count: 200_000)).write(to: control)
        let sparse = dir.appendingPathComponent("sparse.yaml")
        let truncate = try Command.run("truncate", ["-s", "2G", sparse.path])
        XCTAssertEqual(truncate.status, 0, truncate.stderr)
        let folder = dir.appendingPathComponent("folder.yaml")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let latin1 = dir.appendingPathComponent("latin1.yaml")
        try Data("name: caf\u{E9}\n".data(using: .isoLatin1)!).write(to: latin1)
        return [("NUL bytes", nul.path, "control character"), ("control bytes", control.path, "line 2"),
                ("2 GB sparse", sparse.path, "MiB, larger than the"), ("/dev/zero", "/dev/zero", "not a regular file"),
                ("a directory", folder.path, "is a directory"), ("Latin-1", latin1.path, "not UTF-8")]
    }

    /// Every command that reads a YAML file the user names, with the file at `path`.
    func yamlCommands(_ path: String) -> [(String, [String])] {
        [("config", ["config", "check", "--config", path]),
         ("matrix", ["matrix", "run", path, "--db", dir.appendingPathComponent("r.sqlite").path]),
         ("inventory", ["discover", "--inventory", path, "--format", "json"]),
         ("profile", ["profiles", "validate", path]),
         ("audit config", ["audit", "--config", path, "--primary", "a.mp4", "--interstitial", "b.mp4"])]
    }

    func check(_ label: String, _ arguments: [String], words: String, file: String) throws {
        let started = Date()
        let run = try SeamcheckBinary.run(arguments)
        let seconds = Date().timeIntervalSince(started)
        XCTAssertEqual(run.status, 2, "\(label): \(run.stderr.prefix(500))")
        // A hostile file parsed in full takes minutes; 10 s leaves a loaded CI machine room.
        XCTAssertLessThan(seconds, 10, "\(label): linear, refused early")
        XCTAssertLessThan(run.stderr.utf8.count, 3_000, "\(label): the message is bounded: \(run.stderr.prefix(500))")
        XCTAssertTrue(words.isEmpty || run.stderr.contains(words), "\(label): \(run.stderr.prefix(500))")
        XCTAssertTrue(run.stderr.contains(file), "\(label): names the file: \(run.stderr.prefix(500))")
        XCTAssertFalse(run.stderr.contains("NSCocoaErrorDomain") || run.stderr.contains("permission"), "\(label): \(run.stderr.prefix(500))")
    }

    func testEveryYAMLFileAUserNamesIsRefusedFastAndClearly() throws {
        for file in try hostileFiles() {
            // (`profiles validate` reads a directory as a folder of profiles.)
            for (command, arguments) in yamlCommands(file.path) where !(command == "profile" && file.name == "a directory") {
                try check("\(command), \(file.name)", arguments, words: file.words, file: file.path)
            }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("r.sqlite").path),
                       "no database is made for a matrix that cannot be read")
    }

    func testAHugeLineIsQuotedShortly() throws {
        // Under the size limit: parsed, and the error quotes the 3 MB key in a few hundred bytes.
        let key = String(repeating: "k", count: 3_000_000)
        let path = dir.appendingPathComponent("huge.yaml").path
        try "\(key): 1\n".write(toFile: path, atomically: true, encoding: .utf8)
        for (command, arguments) in yamlCommands(path) {
            try check("\(command), a 3 MB key", arguments, words: "bytes cut", file: path)
        }
        // Past the limit, refused before parsing.
        let bigger = dir.appendingPathComponent("bigger.yaml").path
        try "x: \(String(repeating: "v", count: 5_000_000))\n".write(toFile: bigger, atomically: true, encoding: .utf8)
        for (command, arguments) in yamlCommands(bigger) {
            try check("\(command), a 5 MB line", arguments, words: "larger than the 4 MiB limit", file: bigger)
        }
    }

    func testPlaylistsAndTheLabManifestAreReadTheSameWay() throws {
        for file in try hostileFiles() where file.name != "Latin-1" && file.name != "control bytes" {
            try check("lint, \(file.name)", ["lint", file.path, "--format", "json"], words: "", file: file.path)
        }
        for file in try hostileFiles() {
            let suite = dir.appendingPathComponent("suite-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: suite, withIntermediateDirectories: true)
            let manifest = suite.appendingPathComponent("lab.json").path
            if file.path == "/dev/zero" {
                try FileManager.default.createSymbolicLink(atPath: manifest, withDestinationPath: "/dev/zero")
            } else {
                try FileManager.default.moveItem(atPath: file.path, toPath: manifest)
            }
            try check("lab serve, \(file.name)", ["lab", "serve", "--streams", suite.path, "--bind", "127.0.0.1", "--port", "0",
                                                  "--no-browse", "--db", dir.appendingPathComponent("lab.sqlite").path],
                      words: file.words, file: manifest)
        }
    }
}
