import Foundation
import Processes
import SeamcheckTestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// What the lab end-to-end tests need beyond tools (`TestEnvironment.require`): `scripts/python-venv.sh lab`'s
/// Python, the stand-in receivers' scripts, scratch folders.
enum LabEnvironment {
    /// The Python of .build/lab-venv, with Selenium.
    static func seleniumPython() throws -> String {
        let python = MediaFixture.packageRoot + "/.build/lab-venv/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python),
              (try? Command.run(python, ["-c", "import selenium"], timeout: 30))?.status == 0 else {
            throw TestEnvironment.missing("\(python) has no Selenium (run scripts/python-venv.sh lab)")
        }
        return python
    }

    static func script(_ name: String) -> String { MediaFixture.packageRoot + "/Tests/Server/" + name }

    /// A fresh folder under the system's temporary directory.
    static func temporaryFolder(_ label: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("seamcheck-\(label)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}

/// The small lab suite, made by the built binary (`lab streams --scale small`) in the folder
/// LabStreamsCommandTests uses, so that one encode serves both and the generator's own cache
/// keeps later runs from re-encoding. SEAMCHECK_LAB_SUITE names a ready suite instead (development only).
enum LabSuiteFixture {
    /// The cases these tests play.
    static let cases = ["control", "frame-rate-25", "capability-ladder"]
    private static let made = Once { try generate() }

    static func small() throws -> String { try made.get() }

    private static func generate() throws -> String {
        if let ready = ProcessInfo.processInfo.environment["SEAMCHECK_LAB_SUITE"] { return ready }
        _ = try TestEnvironment.require("ffmpeg")
        let folder = MediaFixture.cacheDirectory + "/lab-small-e2e"
        let result = try SeamcheckBinary.run(["lab", "streams", "--scale", "small", "--output", folder])
        guard result.status == 0, FileManager.default.fileExists(atPath: folder + "/lab.json") else {
            throw CommandError.failed("seamcheck lab streams", result)
        }
        return folder
    }

    /// The suite's lab.json, decoded loosely.
    static func manifest(_ folder: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: folder + "/lab.json"))
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static func labCase(_ id: String, in manifest: [String: Any]) throws -> [String: Any] {
        let cases = manifest["cases"] as? [[String: Any]] ?? []
        return try XCTUnwrap(cases.first { $0["id"] as? String == id }, "the suite has no case \(id)")
    }
}

extension LabServerProcess {
    /// The lab's server for these tests, for the length of `body`: the inventory, and browsing
    /// unless `browse` is false.
    static func with<T>(suite: String, database: String, inventory: String?, browse: Bool = true,
                        _ body: (LabServerProcess) throws -> T) throws -> T {
        try with(streams: suite, database: database,
                 arguments: (inventory.map { ["--inventory", $0] } ?? []) + (browse ? [] : ["--no-browse"]), body)
    }

    var origin: String { url("") }

    /// GET `path` from the server with curl (from 127.0.0.1), decoded as JSON.
    func json(_ path: String) throws -> [String: Any] {
        let result = try Command.run("curl", ["-sf", "--max-time", "5", url(path)], timeout: 10)
        guard result.status == 0 else { throw CommandError.failed("curl \(path)", result) }
        return (try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]) ?? [:]
    }
}

/// A stand-in receiver published through the test avahi-daemon at its own loopback address:
/// `avahi-publish -a -R HOST ADDRESS` and `avahi-publish -s -H HOST NAME _airplay._tcp 7000 TXT...`.
final class PublishedReceiver {
    let name: String
    let address: String
    private var publishers: [RunningProcess] = []

    init(name: String, address: String, txt: [String], timeout: TimeInterval = 15) throws {
        self.name = name
        self.address = address
        let publish = try TestEnvironment.require("avahi-publish")
        let host = "seamcheck-lab-\(address.split(separator: ".").last ?? "x")-\(UInt32.random(in: 0...UInt32.max)).local"
        publishers.append(try RunningProcess(publish, ["-a", "-R", host, address]))
        publishers.append(try RunningProcess(publish, ["-s", "-H", host, name, "_airplay._tcp", "7000"] + txt))
        for publisher in publishers {
            DiscoverEnvironment.wait(timeout) {
                publisher.output.contains("Established under name") || publisher.output.contains("Failed") || publisher.exitCode != nil
            }
            guard publisher.output.contains("Established under name") else {
                stop()
                throw CommandError.notFound("avahi-publish did not establish \(name) at \(address): \(publisher.output)")
            }
        }
    }

    func stop() { publishers.forEach { $0.terminate() } }

    deinit { stop() }
}

/// Tests/Server/lab_receiver.py: what one stand-in receiver did, from its JSON summary.
struct EmulatorRun {
    let summary: [String: Any]
    let status: Int32
    let seconds: TimeInterval

    var requests: Int { summary["requests"] as? Int ?? -1 }
    var dropped: Bool { summary["dropped"] as? Bool ?? false }
    var errors: [String] { summary["errors"] as? [String] ?? ["no summary"] }
    var interstitials: [[String: Any]] { summary["interstitials"] as? [[String: Any]] ?? [] }
    /// Ad segments it fetched: every asset's played segments.
    var fetchedPaths: [String] { (summary["fetched"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String } }

    static func arguments(url: String, source: String, options: [String]) -> [String] {
        [LabEnvironment.script("lab_receiver.py"), url, "--source", source] + options
    }

    static func run(url: String, source: String, options: [String] = [], timeout: Double = 60) throws -> EmulatorRun {
        let started = Date()
        let result = try Command.run("python3", arguments(url: url, source: source, options: options), timeout: timeout)
        return try decode(result.stdout, status: result.status, seconds: Date().timeIntervalSince(started), stderr: result.stderr)
    }

    static func decode(_ stdout: String, status: Int32, seconds: TimeInterval, stderr: String = "") throws -> EmulatorRun {
        guard let start = stdout.firstIndex(of: "{"),
              let summary = try? JSONSerialization.jsonObject(with: Data(stdout[start...].utf8)) as? [String: Any] else {
            throw CommandError.notFound("lab_receiver.py printed no summary (exit \(status)): \(stdout) \(stderr)")
        }
        return EmulatorRun(summary: summary, status: status, seconds: seconds)
    }
}

/// `lab sessions --format json` of a database.
enum LabSessions {
    static func read(database: String) throws -> [[String: Any]] {
        let result = try SeamcheckBinary.run(["lab", "sessions", "--db", database, "--format", "json"])
        guard result.status == 0,
              let document = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] else {
            throw CommandError.failed("seamcheck lab sessions", result)
        }
        return document["sessions"] as? [[String: Any]] ?? []
    }
}

extension LabSuiteFixture {
    /// A copy of `suite` with one more case, `rolls`: the control's primary and ad, scheduled as a
    /// pre-roll through an asset list, the control's mid-roll, and a post-roll of the ad's media
    /// playlist. The generator makes mid-rolls only; receivers meet all three.
    static func withRolls(from suite: String, into folder: String) throws -> String {
        let fm = FileManager.default
        let root = folder + "/suite"
        for sub in ["primary", "cases/rolls/ad"] { try fm.createDirectory(atPath: root + "/" + sub, withIntermediateDirectories: true) }
        for file in try fm.contentsOfDirectory(atPath: suite + "/primary") {
            try fm.copyItem(atPath: suite + "/primary/" + file, toPath: root + "/primary/" + file)
        }
        let ad = suite + "/cases/control/ad/"
        for file in try fm.contentsOfDirectory(atPath: ad) { try fm.copyItem(atPath: ad + file, toPath: root + "/cases/rolls/ad/" + file) }
        try fm.createSymbolicLink(atPath: root + "/cases/rolls/primary", withDestinationPath: "../../primary")
        try fm.copyItem(atPath: suite + "/cases/control/master.m3u8", toPath: root + "/cases/rolls/master.m3u8")

        var manifest = try self.manifest(suite)
        let control = try labCase("control", in: manifest)
        let duration = try XCTUnwrap(control["interstitialDuration"] as? Double)
        let origin = manifest["originPlaceholder"] as? String ?? "{LAB_ORIGIN}"
        try #"{"ASSETS": [{"URI": "\#(origin)/cases/rolls/ad/master.m3u8", "DURATION": \#(duration)}]}"#
            .write(toFile: root + "/cases/rolls/ad/assets.json", atomically: true, encoding: .utf8)
        let playlist = try String(contentsOfFile: suite + "/cases/control/primary.m3u8", encoding: .utf8)
            .replacingOccurrences(of: "cases/control/", with: "cases/rolls/")
        var lines = playlist.components(separatedBy: "\n")
        let mid = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("#EXT-X-DATERANGE:") }, "the control has no date range")
        let start = try XCTUnwrap(lines.first { $0.hasPrefix("#EXT-X-PROGRAM-DATE-TIME:") }).dropFirst("#EXT-X-PROGRAM-DATE-TIME:".count)
        let tag = #"#EXT-X-DATERANGE:CLASS="com.apple.hls.interstitial",START-DATE="\#(start)","#
        lines.insert(tag + #"ID="pre",CUE="PRE",X-ASSET-LIST="\#(origin)/cases/rolls/ad/assets.json",X-RESUME-OFFSET=0"#, at: mid)
        lines.insert(tag + #"ID="post",CUE="POST",X-ASSET-URI="\#(origin)/cases/rolls/ad/ad.m3u8""#, at: mid + 2)
        try lines.joined(separator: "\n").write(toFile: root + "/cases/rolls/primary.m3u8", atomically: true, encoding: .utf8)

        let text = String(decoding: try JSONSerialization.data(withJSONObject: control), as: UTF8.self)
            .replacingOccurrences(of: "cases\\/control\\/", with: "cases\\/rolls\\/").replacingOccurrences(of: "cases/control/", with: "cases/rolls/")
        var rolls = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        rolls["id"] = "rolls"
        manifest["cases"] = [rolls]
        try JSONSerialization.data(withJSONObject: manifest).write(to: URL(fileURLWithPath: root + "/lab.json"))
        return root
    }
}
