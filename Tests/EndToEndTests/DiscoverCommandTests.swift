import Foundation
import SeamcheckTestSupport
import XCTest

/// `seamcheck discover` against the real avahi-daemon on loopback, with the TXT records of
/// reference/airplay-discovery.md published by avahi-publish (plus a deviceid, and a _raop._tcp
/// twin, as the real devices have).
final class DiscoverCommandTests: XCTestCase {
    struct Fixture: Sendable {
        var key: String
        var airplay: [String]
        var raop: [String]
        var expected: [String: String]
        var capabilities: [String: Bool]
        var deviceClass: String?
    }

    static let fixtures: [Fixture] = [
        Fixture(key: "ATV4K", airplay: ["features=0x4A7FFFF7,0x4155FDE", "flags=0x10644", "model=AppleTV6,2", "protovers=1.1",
                                        "srcvers=380.20.1", "osvers=12.2.1", "vv=2", "acl=0"],
                raop: raop(model: "AppleTV6,2", features: "0x4A7FFFF7,0x4155FDE", flags: "0x10644", version: "380.20.1"),
                expected: ["model": "AppleTV6,2", "manufacturer": "Apple", "product": "Apple TV 4K (1st gen)",
                           "features": "0x04155FDE4A7FFFF7", "flags": "0x10644", "sourceVersion": "380.20.1", "osVersion": "12.2.1"],
                capabilities: ["video": true, "audio": true, "airPlay2": true, "screenMirroring": true], deviceClass: "apple-tv-4k"),
        Fixture(key: "ATVHD", airplay: ["model=AppleTV5,3", "osvers=14.2", "srcvers=525.38.42", "flags=0x244",
                                        "features=0x5A7FDFD5,0x3C155FDE"],
                raop: raop(model: "AppleTV5,3", features: "0x5A7FDFD5,0x3C155FDE", flags: "0x244", version: "525.38.42"),
                expected: ["model": "AppleTV5,3", "manufacturer": "Apple", "product": "Apple TV HD",
                           "features": "0x3C155FDE5A7FDFD5", "flags": "0x244", "sourceVersion": "525.38.42", "osVersion": "14.2"],
                capabilities: ["video": true, "audio": true, "airPlay2": true, "screenMirroring": true], deviceClass: "apple-tv-hd"),
        Fixture(key: "HomePod", airplay: ["model=AudioAccessory1,1", "osvers=14.3", "srcvers=530.6", "flags=0x1a404",
                                          "features=0x4A7FCA00,0x3C356BD0"],
                raop: raop(model: "AudioAccessory1,1", features: "0x4A7FCA00,0x3C356BD0", flags: "0x1a404", version: "530.6"),
                expected: ["model": "AudioAccessory1,1", "manufacturer": "Apple", "product": "HomePod",
                           "features": "0x3C356BD04A7FCA00", "flags": "0x1A404", "sourceVersion": "530.6", "osVersion": "14.3"],
                capabilities: ["video": false, "audio": true, "airPlay2": true, "screenMirroring": false], deviceClass: "speaker-audio-only"),
        Fixture(key: "Roku", airplay: ["manufacturer=Roku", "model=3810X", "srcvers=377.28.01", "flags=0x644", "rsf=0x3",
                                       "features=0x7F8AD0,0x10BCF46"],
                raop: raop(model: "3810X", features: "0x7F8AD0,0x10BCF46", flags: "0x644", version: "377.28.01"),
                expected: ["model": "3810X", "manufacturer": "Roku", "features": "0x010BCF46007F8AD0", "flags": "0x644",
                           "sourceVersion": "377.28.01"],
                capabilities: ["video": true, "audio": true, "airPlay2": true, "screenMirroring": true], deviceClass: "smart-tv-low-end"),
        Fixture(key: "Samsung", airplay: ["manufacturer=Samsung", "model=UNU7090", "srcvers=377.17.24.6", "rsf=0x3",
                                          "features=0x7F8AD0,0x38BCB46"],
                raop: raop(model: "UNU7090", features: "0x7F8AD0,0x38BCB46", flags: nil, version: "377.17.24.6"),
                expected: ["model": "UNU7090", "manufacturer": "Samsung", "features": "0x038BCB46007F8AD0",
                           "sourceVersion": "377.17.24.6"],
                capabilities: ["video": true, "audio": true, "airPlay2": true, "screenMirroring": true], deviceClass: "smart-tv-low-end"),
        Fixture(key: "LG", airplay: ["manufacturer=LG", "integrator=LG Electronics", "model=55UQ80006LD", "srcvers=377.40.00",
                                     "rsf=0x3", "features=0x7F8AD0,0x38BCF46", "flags=0x244"],
                raop: raop(model: "55UQ80006LD", features: "0x7F8AD0,0x38BCF46", flags: "0x244", version: "377.40.00"),
                expected: ["model": "55UQ80006LD", "manufacturer": "LG", "features": "0x038BCF46007F8AD0", "flags": "0x244",
                           "sourceVersion": "377.40.00"],
                capabilities: ["video": true, "audio": true, "airPlay2": true, "screenMirroring": true], deviceClass: "smart-tv-low-end"),
        Fixture(key: "Sonos", airplay: ["manufacturer=Sonos", "model=Bookshelf", "srcvers=366.0", "flags=0x4", "rsf=0x0",
                                        "features=0x445F8A00,0x1C340"],
                raop: raop(model: "Bookshelf", features: "0x445F8A00,0x1C340", flags: "0x4", version: "366.0"),
                expected: ["model": "Bookshelf", "manufacturer": "Sonos", "features": "0x0001C340445F8A00", "flags": "0x4",
                           "sourceVersion": "366.0"],
                capabilities: ["video": false, "audio": true, "airPlay2": true, "screenMirroring": false], deviceClass: "speaker-audio-only"),
        Fixture(key: "Shairport", airplay: ["model=ShairportSync", "srcvers=366.0", "osvers=15.0", "features=0x405C4A00,0x18340"],
                raop: raop(model: "ShairportSync", features: "0x405C4A00,0x18340", flags: nil, version: "366.0"),
                expected: ["model": "ShairportSync", "features": "0x00018340405C4A00", "sourceVersion": "366.0", "osVersion": "15.0"],
                capabilities: ["video": false, "audio": true, "airPlay2": true, "screenMirroring": false], deviceClass: "speaker-audio-only"),
        // Malformed: bad hex, an empty and a bare key, a features word with a space.
        Fixture(key: "Broken", airplay: ["features=0xZZZ,0x1", "flags=0xQ", "model", "srcvers=", "fex=%%"],
                raop: ["am=", "ft=0x1, 0x2", "sf=banana"],
                expected: [:], capabilities: ["video": false, "audio": true, "airPlay2": false, "screenMirroring": false],
                deviceClass: nil),
    ]

    static func raop(model: String, features: String, flags: String?, version: String) -> [String] {
        ["txtvers=1", "ch=2", "cn=0,1,2,3", "da=true", "et=0,3,5", "md=0,1,2", "sr=44100", "ss=16", "tp=UDP", "vn=65537",
         "am=\(model)", "ft=\(features)", "vs=\(version)"] + (flags.map { ["sf=\($0)"] } ?? [])
    }

    nonisolated(unsafe) static var published: [String: FakeReceiver] = [:]  // set in class setUp, before any test
    nonisolated(unsafe) static var setUpError: Error?
    static let suffix = String(DiscoverEnvironment.randomDeviceId().plain.suffix(4))

    override class func setUp() {
        do {
            try DiscoverEnvironment.requireAvahi()
            for (index, fixture) in fixtures.enumerated() {
                published[fixture.key] = try FakeReceiver(name: "Seamcheck \(fixture.key) \(suffix)", airplay: fixture.airplay,
                                                          raop: fixture.raop, port: 7100 + index)
            }
            for receiver in published.values { try receiver.waitEstablished() }
        } catch {
            setUpError = error
        }
    }

    override class func tearDown() {
        published.values.forEach { $0.stop() }
        published = [:]
    }

    override func setUpWithError() throws {
        if let error = Self.setUpError { throw error }
    }

    private func receiver(_ key: String, in json: [String: Any]) throws -> [String: Any] {
        let id = try XCTUnwrap(Self.published[key]).deviceId.colons
        let receivers = json["receivers"] as? [[String: Any]] ?? []
        return try XCTUnwrap(receivers.first { $0["deviceId"] as? String == id }, "\(key) (\(id)) not in \(receivers.map { $0["name"] ?? "?" })")
    }

    func testJSONListsEveryPublishedReceiverMergedDecodedAndClassified() throws {
        let started = Date()
        let (status, json, stderr) = try DiscoverEnvironment.discoverJSON([])
        XCTAssertEqual(status, 0, stderr)
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "returns at ALL_FOR_NOW, not at the 10 s timeout")
        XCTAssertEqual(json["schemaVersion"] as? Int, 1)
        XCTAssertEqual(json["complete"] as? Bool, true)
        for fixture in Self.fixtures {
            let entry = try receiver(fixture.key, in: json)
            XCTAssertEqual(entry["name"] as? String, "Seamcheck \(fixture.key) \(Self.suffix)")
            XCTAssertEqual(entry["services"] as? [String], ["_airplay._tcp", "_raop._tcp"], fixture.key)
            XCTAssertTrue((entry["addresses"] as? [String] ?? []).contains("127.0.0.1"), fixture.key)
            XCTAssertNotNil(entry["port"] as? Int, fixture.key)
            for (key, value) in fixture.expected {
                XCTAssertEqual(entry[key] as? String, value, "\(fixture.key).\(key)")
            }
            XCTAssertEqual(entry["capabilities"] as? [String: Bool] ?? [:], fixture.capabilities.merging(
                ["passwordRequired": false, "pinRequired": false]) { a, _ in a }, fixture.key)
            XCTAssertEqual(entry["deviceClass"] as? String, fixture.deviceClass, fixture.key)
            if fixture.deviceClass != nil {
                XCTAssertEqual(entry["classifiedBy"] as? String, "profile", fixture.key)
                XCTAssertEqual(entry["warnings"] as? [String], [], fixture.key)
                XCTAssertFalse((entry["featureNames"] as? [String] ?? []).isEmpty, fixture.key)
            }
        }
        let appleTV = try receiver("ATV4K", in: json)
        XCTAssertTrue((appleTV["featureNames"] as? [String] ?? []).contains("SupportsAirPlayVideoV1"))
        XCTAssertEqual(appleTV["classificationReason"] as? String, "apple-tv-4k: _airplay._tcp model=AppleTV6,2 (score 100)")
        XCTAssertNil(try receiver("Shairport", in: json)["manufacturer"] as? String)
        XCTAssertNil(try receiver("Samsung", in: json)["flags"] as? String)
        // What each wants before playing: Apple TV 4K a code (flags 0x200), Samsung transient pairing (bit 48);
        // both AirPlay 2 by their features (bit 38 / bit 48), so paired sessions take the AirPlay 2 flow.
        XCTAssertEqual(appleTV["pairing"] as? NSDictionary, ["kind": "pin", "scheme": "hap", "reason": "flags 0x200", "airPlay2": true,
                                                                  "legacyPairingBit": true, "pw": false] as NSDictionary)
        XCTAssertEqual(try receiver("Samsung", in: json)["pairing"] as? NSDictionary,
                       ["kind": "transient", "scheme": "hap-transient", "reason": "features bit 48", "airPlay2": true,
                        "legacyPairingBit": false, "pw": false] as NSDictionary)
    }

    func testMalformedTXTReceiverIsListedUnclassifiedWithWarnings() throws {
        let (status, json, stderr) = try DiscoverEnvironment.discoverJSON([])
        XCTAssertEqual(status, 0, stderr)
        let broken = try receiver("Broken", in: json)
        XCTAssertTrue(broken["deviceClass"] is NSNull, "unclassified is null, never a guess")
        XCTAssertTrue(broken["classifiedBy"] is NSNull)
        XCTAssertNil(broken["features"] as? String)
        XCTAssertNil(broken["model"] as? String)
        XCTAssertEqual(broken["services"] as? [String], ["_airplay._tcp", "_raop._tcp"])
        let warnings = broken["warnings"] as? [String] ?? []
        for expected in ["no model key", "features '0xZZZ,0x1' is not 0xLOW or 0xLOW,0xHIGH hex", "fex '%%' is not base64",
                         "flags '0xQ' is not a hex number"] {
            XCTAssertTrue(warnings.contains(expected), "\(expected) not in \(warnings)")
        }
        XCTAssertTrue((broken["classificationReason"] as? String ?? "").contains("features unknown"))
        let pin = broken["inventoryPin"] as? String ?? ""
        XCTAssertTrue(pin.hasPrefix("- {deviceId: \"") || pin.hasPrefix("- {name: \"Seamcheck Broken"), pin)
        XCTAssertTrue(pin.hasSuffix(", deviceClass: CLASS}"), "what to add to an inventory, the class to choose: \(pin)")
    }

    func testTableShowsEachReceiverWithItsClass() throws {
        let result = try SeamcheckBinary.run(["discover", "--format", "table", "--interface", "lo"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.hasPrefix("NAME"), result.stdout)
        for fixture in Self.fixtures {
            let line = result.stdout.split(separator: "\n").first { $0.hasPrefix("Seamcheck \(fixture.key) \(Self.suffix) ") }
            XCTAssertNotNil(line, "\(fixture.key) missing:\n\(result.stdout)")
            XCTAssertTrue(line?.contains(fixture.deviceClass ?? "(unclassified)") ?? false, String(line ?? ""))
        }
        XCTAssertTrue(result.stdout.contains("initial browse complete in"), result.stdout)
        XCTAssertTrue(result.stdout.contains("warning: flags '0xQ' is not a hex number"), result.stdout)
        XCTAssertTrue(result.stdout.contains(", deviceClass: CLASS} under receivers: in an --inventory file"), "what to pin: \(result.stdout)")
        let samsung = result.stdout.split(separator: "\n").first { $0.hasPrefix("Seamcheck Samsung \(Self.suffix) ") }
        XCTAssertTrue(samsung?.contains("transient pairing (features bit 48)") ?? false, String(samsung ?? ""))
    }

    func testInventoryPinsReceiversByDeviceIdAndName() throws {
        let lg = try XCTUnwrap(Self.published["LG"])
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("seamcheck-lab-\(Self.suffix).yaml")
        try """
        receivers:
          - deviceId: "\(lg.deviceId.colons.lowercased())"
            deviceClass: smart-tv-dolby-vision
            note: OLED in rack 3
          - name: Seamcheck Broken \(Self.suffix)
            deviceClass: smart-tv-low-end
        """.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let (status, json, stderr) = try DiscoverEnvironment.discoverJSON(["--inventory", file.path])
        XCTAssertEqual(status, 0, stderr)
        let pinned = try receiver("LG", in: json)
        XCTAssertEqual(pinned["deviceClass"] as? String, "smart-tv-dolby-vision")
        XCTAssertEqual(pinned["classifiedBy"] as? String, "inventory")
        XCTAssertEqual(pinned["classificationReason"] as? String,
                       "pinned by receivers[0] of \(file.path) (deviceId \(lg.deviceId.colons)): OLED in rack 3")
        XCTAssertEqual(try receiver("Broken", in: json)["deviceClass"] as? String, "smart-tv-low-end")
        XCTAssertTrue(try receiver("Broken", in: json)["inventoryPin"] is NSNull, "pinned: nothing more to pin")
        XCTAssertEqual(try receiver("Roku", in: json)["classifiedBy"] as? String, "profile")
    }

    func testBadInventoryIsUsageErrorNamingTheField() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("seamcheck-bad-lab-\(Self.suffix).yaml")
        try "receivers:\n  - name: Den\n    deviceClass: apple-tv-5k\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try SeamcheckBinary.run(["discover", "--inventory", file.path, "--format", "json"])
        XCTAssertEqual(result.status, 2)
        XCTAssertEqual(result.stdout, "")
        XCTAssertTrue(result.stderr.contains("\(file.path): receivers[0].deviceClass: unknown device class 'apple-tv-5k' "
            + "(did you mean 'apple-tv-4k'?)"), result.stderr)
    }

    func testInterfaceRestrictsTheBrowseAndAnUnknownOneIsUsageError() throws {
        let (status, json, _) = try DiscoverEnvironment.discoverJSON(["--interface", "lo"])
        XCTAssertEqual(status, 0)
        XCTAssertEqual(json["interface"] as? String, "lo")
        XCTAssertEqual(try receiver("Roku", in: json)["interfaces"] as? [String], ["lo"])
        let bad = try SeamcheckBinary.run(["discover", "--interface", "seamcheck-none0"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("no network interface is named 'seamcheck-none0'"), bad.stderr)
    }

    func testTimeoutBeforeAllForNowReturnsAnIncompleteList() throws {
        XCTAssertEqual(try SeamcheckBinary.run(["discover", "--timeout", "0"]).status, 2)
        let started = Date()
        let (status, json, stderr) = try DiscoverEnvironment.discoverJSON(["--timeout", "0.2"])
        XCTAssertEqual(status, 0, stderr)
        // Well short of the 10 s default; that the browse was cut at 0.2 s, not at ALL_FOR_NOW
        // (1 s), is what `complete: false` and the warning say.
        XCTAssertLessThan(Date().timeIntervalSince(started), 3)
        // Avahi sends ALL_FOR_NOW 1 s after it starts querying a type, unless another client of the
        // same daemon browses these types already: then it comes at once and nothing is cut short.
        guard json["complete"] as? Bool == false else {
            throw XCTSkip("another client of this avahi-daemon browses the AirPlay types: the browse completed at once")
        }
        XCTAssertTrue(stderr.contains("the initial browse was not complete after 0.2 s"), stderr)
    }
}

/// No daemon at all: exit code 3 and how to start it. Needs no avahi-daemon.
final class DiscoverWithoutDaemonTests: XCTestCase {
    let missingBus = ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/seamcheck/dbus.sock"]

    func testMissingDaemonExitsThreeWithHowToStartIt() throws {
        for arguments in [["discover"], ["discover", "--watch"], ["discover", "--info", "--format", "table"]] {
            let started = Date()
            let result = try SeamcheckBinary.run(arguments, environment: missingBus)
            XCTAssertEqual(result.status, 3, "\(arguments): \(result.stderr)")
            XCTAssertEqual(result.stdout, "", "\(arguments)")
            XCTAssertTrue(result.stderr.contains("avahi-daemon is not running ("), result.stderr)
            XCTAssertTrue(result.stderr.contains("scripts/services.sh start"), result.stderr)
            // At once, not after the 10 s browse: a debug binary's start on a loaded CI machine has room.
            XCTAssertLessThan(Date().timeIntervalSince(started), 6, "a missing daemon fails at once")
        }
    }
}
