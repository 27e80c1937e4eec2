import Foundation
import SeamcheckTestSupport
import XCTest

/// Numbers and addresses that make no sense are refused before anything runs (exit 2), naming
/// the option, the range and the value: `--loudness-tolerance nan` used to turn the rule off,
/// `audit PLAYLIST --jobs 0` passed, `lab streams --jobs 0` ran one job, `lab serve --bind garbage`
/// was a raw SocketAddressError after the suite loaded, `lab record --db typo.sqlite` left an
/// empty database behind.
final class OptionValidationTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("seamcheck-options-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    func refused(_ arguments: [String], _ words: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let run = try SeamcheckBinary.run(arguments)
        XCTAssertEqual(run.status, 2, "\(arguments): \(run.stderr)", file: file, line: line)
        XCTAssertTrue(run.stderr.contains(words), "\(arguments): \(run.stderr)", file: file, line: line)
    }

    /// `lab run --delivery [RECEIVER=]plain|pushed`: another value, or a receiver not in the run, is exit 2 before anything plays.
    func testADeliveryThatIsNoneOrForNoReceiverOfTheRunIsRefused() throws {
        let run = ["lab", "run", "--receiver", "127.0.0.1:9", "--case", "control", "--streams", try LabSuiteFixture.small(),
                   "--db", dir.appendingPathComponent("run.sqlite").path]
        try refused(run + ["--delivery", "fcup"], "--delivery fcup: give plain or pushed")
        try refused(run + ["--delivery", "127.0.0.1=bogus"], "--delivery 127.0.0.1=bogus: give plain or pushed")
        try refused(run + ["--delivery", "Den=pushed"], "--delivery Den=pushed: no receiver 'Den' in this run (127.0.0.1:9)")
    }

    /// (A negative value is given as `--option=-1`: ArgumentParser reads `-1` after a space as an option.)
    func testNonFiniteAndNegativeNumbersAreRefusedWhereverTheyAreGiven() throws {
        let playlist = ["audit", "https://example.invalid/main.m3u8"]
        for value in ["nan", "inf", "-1", "61"] {
            try refused(playlist + ["--loudness-tolerance=\(value)"], "--loudness-tolerance must be a number from 0 to 60 LU (given")
        }
        for value in ["nan", "-inf", "5"] {
            try refused(playlist + ["--loudness-target=\(value)"], "--loudness-target must be a number from -70 to 0 LUFS")
        }
        for value in ["0", "-3", "100000"] {
            try refused(playlist + ["--jobs=\(value)"], "--jobs must be 1 to 1024 (given \(value))")
            try refused(["audit", "--primary", "a.mp4", "--interstitial", "b.mp4", "--jobs=\(value)"], "--jobs must be 1 to 1024")
            try refused(["matrix", "run", "m.yaml", "--jobs=\(value)"], "--jobs must be 1 to 1024")
            try refused(["lab", "streams", "--output", dir.path, "--jobs=\(value)"], "--jobs must be 1 to 1024")
        }
        for value in ["nan", "-1", "0", "inf"] { try refused(playlist + ["--timeout=\(value)"], "--timeout must be a positive number") }
        for value in ["0", "-1"] { try refused(["matrix", "history", "--limit=\(value)"], "--limit must be 1 to") }
        for value in ["nan", "-1", "1e9"] {
            try refused(["lab", "record", "--receiver", "r", "--case", "c", "--verdict", "glitch", "--seconds=\(value)",
                         "--db", dir.appendingPathComponent("none.sqlite").path], "--seconds must be a number from 0 to 86400 s")
        }
        for value in ["nan", "inf", "-1", "0", "1e300"] {
            try refused(["lab", "run", "--discover-timeout=\(value)", "--db", dir.appendingPathComponent("run.sqlite").path],
                        "--discover-timeout must be a number from 0.1 to 3600 s")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), [], "lab streams and lab run made nothing")
    }

    func testABindAddressThatIsNotOneOfThisHostsIsExitTwoSayingWhatToGive() throws {
        for bind in ["garbage", "256.1.1.1", "127.0.0.1:8080", "", "10.254.254.254"] {
            try refused(["lab", "serve", "--bind", bind, "--port", "0", "--no-browse", "--streams", dir.path,
                         "--db", dir.appendingPathComponent("lab.sqlite").path], "give an IP address of this host")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("lab.sqlite").path))
    }

    /// `URL(string:)!` in `airplay play` used to be the only check of URL after the scheme: a URL
    /// with no host, or text no URL parser takes, is refused before any receiver is contacted.
    func testAirPlayPlayRefusesAURLItCannotSendSayingWhatToGive() throws {
        for url in ["not a url", "ftp://127.0.0.1/a.m3u8", "http://", "http:///a.m3u8", "https://[::1/a.m3u8", ""] {
            let run = try SeamcheckBinary.run(["airplay", "play", "127.0.0.1:9", url])
            XCTAssertEqual(run.status, 2, "\(url): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains("URL must be an http:// or https:// URL the receiver can fetch"), "\(url): \(run.stderr)")
            XCTAssertFalse(run.stderr.contains("127.0.0.1:9"), "refused before the receiver is contacted: \(run.stderr)")
        }
    }

    func testLabRecordIntoADatabaseThatDoesNotExistCreatesNothing() throws {
        let typo = dir.appendingPathComponent("typo.sqlite").path
        for extra in [[String](), ["--streams", dir.path]] {
            let run = try SeamcheckBinary.run(["lab", "record", "--db", typo, "--receiver", "Rack TV", "--case", "frame-rate-25",
                                               "--verdict", "glitch"] + extra)
            XCTAssertEqual(run.status, 2, run.stderr)
            XCTAssertTrue(run.stderr.contains(typo), run.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: typo), "\(extra): no database left behind")
        }
    }
}
