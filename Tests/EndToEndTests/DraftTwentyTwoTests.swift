import Foundation
import SeamcheckTestSupport
import XCTest

/// Draft -22 details through the binary, with the asset lists served over HTTP: value types of
/// an asset list, its SKIP-CONTROL, dates without a time zone, variables in hexadecimal values.
final class DraftTwentyTwoTests: XCTestCase {
    var scratch: URL!
    var server: TestHTTPServer!

    override func setUpWithError() throws {
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: SeamcheckBinary.path), "build seamcheck first: \(SeamcheckBinary.path)")
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("seamcheck-draft22-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        for (name, seconds) in [("ad1", 30), ("ad2", 15), ("ad3", 15)] {
            try write("\(name).m3u8", "#EXTM3U\n#EXT-X-TARGETDURATION:\(seconds)\n#EXTINF:\(seconds),\nad.ts\n#EXT-X-ENDLIST\n")
        }
        // ORIGIN becomes http://127.0.0.1:PORT/files in what the server sends: the URIs are absolute.
        try write("strings.json", """
            {"ASSETS": [{"URI": "ORIGIN/ad1.m3u8", "DURATION": "30"}, {"URI": "ORIGIN/ad2.m3u8", "DURATION": -15},
                        {"URI": "ORIGIN/ad3.m3u8", "DURATION": 15}],
             "SKIP-CONTROL": {"OFFSET": 5, "LABEL-ID": "skip now"}}
            """)
        try write("object.json", "{\"ASSETS\": {\"URI\": \"ORIGIN/ad1.m3u8\", \"DURATION\": 30}}")
        try write("keys.json", "{\"ASSETS\": [{\"uri\": \"ORIGIN/ad1.m3u8\", \"DURATION\": 30}, {\"URI\": 7, \"DURATION\": 15}, {\"URI\": \"ORIGIN/ad3.m3u8\", \"DURATION\": 15}], \"SKIP-CONTROL\": {\"OFFSET\": \"soon\"}}")
        try write("primary.m3u8", """
            #EXTM3U
            #EXT-X-TARGETDURATION:6
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXT-X-DEFINE:NAME="beacon",VALUE="ab12"
            #EXT-X-DEFINE:NAME="bad",VALUE="ZZ"
            #EXT-X-PROGRAM-DATE-TIME:2020-01-02T21:55:40.000Z
            #EXTINF:6,
            main0.ts
            #EXTINF:6,
            main1.ts
            #EXTINF:6,
            main2.ts
            #EXT-X-DATERANGE:ID="ad1",CLASS="com.apple.hls.interstitial",START-DATE="2020-01-02T21:55:46",DURATION=45,X-ASSET-LIST="strings.json",X-SKIP-CONTROL-OFFSET=3,X-SKIP-CONTROL-DURATION=8,X-COM-EXAMPLE-BEACON=0x{$beacon}
            #EXT-X-DATERANGE:ID="ad2",CLASS="com.apple.hls.interstitial",START-DATE="2020-01-02T21:55:52.000+00:00",X-ASSET-LIST="object.json",X-COM-EXAMPLE-ID=0x{$bad}
            #EXT-X-DATERANGE:ID="ad3",CLASS="com.apple.hls.interstitial",START-DATE="2020-01-02t21:55:52.000000000z",DURATION=15,X-ASSET-LIST="keys.json",X-SKIP-CONTROL-OFFSET=2
            #EXT-X-ENDLIST

            """)
        server = try TestHTTPServer(root: scratch.path, substitute: "ORIGIN")
    }

    override func tearDownWithError() throws {
        server?.stop()
        try? FileManager.default.removeItem(at: scratch)
    }

    @discardableResult
    private func write(_ name: String, _ text: String) throws -> String {
        let path = scratch.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private func run(_ arguments: [String]) throws -> [String: Any] {
        let result = try SeamcheckBinary.run(arguments + [server.url("/files/primary.m3u8"), "--format", "json"])
        XCTAssertLessThanOrEqual(result.status, 1, result.stderr)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stderr)
    }

    func testLintNamesEachWrongValueWithItsKeyValueIndexAndURL() throws {
        let findings = try XCTUnwrap(try run(["lint"])["findings"] as? [[String: Any]])
        func messages(_ rule: String, _ id: String) -> [String] {
            findings.filter { $0["rule"] as? String == rule && ($0["subject"] as? String ?? "").contains("ID=\"\(id)\"") }
                .compactMap { $0["message"] as? String }
        }
        let origin = server.url("/files")
        XCTAssertEqual(messages("asset-list-invalid", "ad1"), [
            "the asset list \(origin)/strings.json: ASSETS[0] \"DURATION\": \"30\" is a string, not a number (read as 30 s, as hls.js and Shaka read it; Media3 drops the asset); Seamcheck schedules it with that value",
            "the asset list \(origin)/strings.json: ASSETS[1] \"DURATION\": -15 is negative; that asset is skipped (the others play) and Seamcheck schedules it so",
        ])
        XCTAssertEqual(messages("asset-list-invalid", "ad2"), [
            "the asset list \(origin)/object.json has \"ASSETS\": {\"DURATION\":30,\"URI\":\"\(origin)/ad1.m3u8\"}, which is not an array; the client skips the interstitial",
        ])
        XCTAssertEqual(messages("asset-list-invalid", "ad3"), [
            "the asset list \(origin)/keys.json: ASSETS[0] \"URI\" is missing (found \"uri\": keys are case-sensitive); that asset is skipped (the others play) and Seamcheck schedules it so",
            "the asset list \(origin)/keys.json: ASSETS[1] \"URI\": 7 is a number, not a string; that asset is skipped (the others play) and Seamcheck schedules it so",
            "the asset list \(origin)/keys.json: \"SKIP-CONTROL.OFFSET\": \"soon\" is a string, not a number of seconds; the value is ignored (the tag's X-SKIP-CONTROL-* value applies, if it has one) and Seamcheck schedules it so",
        ])
        XCTAssertEqual(messages("skip-control-label-invalid", "ad1").count, 1, "the asset list's LABEL-ID \"skip now\"")
        XCTAssertEqual(messages("date-without-time-zone", "ad1").count, 1)
        XCTAssertEqual(messages("date-without-time-zone", "ad2") + messages("date-without-time-zone", "ad3"), [], "+00:00 and a lower-case z are zones")
        XCTAssertEqual(findings.first { $0["rule"] as? String == "date-without-time-zone" }?["severity"] as? String, "warning")
        XCTAssertEqual(messages("daterange-hexadecimal-invalid", "ad2").count, 1, "0x{$bad} is 0xZZ")
        XCTAssertEqual(messages("daterange-hexadecimal-invalid", "ad1"), [], "0x{$beacon} is 0xab12")
        XCTAssertEqual(messages("interstitial-duration-mismatch", "ad1"), [], "30 (read from \"30\") + 15 = DURATION 45")
        XCTAssertEqual(Set(findings.compactMap { $0["rule"] as? String }),
                       ["asset-list-invalid", "skip-control-label-invalid", "date-without-time-zone", "daterange-hexadecimal-invalid"])
    }

    func testInspectSchedulesEachInterstitialTheWayThePlayersDo() throws {
        let schedule = try XCTUnwrap(try run(["inspect"])["schedule"] as? [String: Any])
        let entries = try XCTUnwrap(schedule["entries"] as? [[String: Any]])
        XCTAssertEqual(entries.map { $0["id"] as? String }, ["ad1", "ad2", "ad3"])
        let origin = server.url("/files")
        func assets(_ entry: [String: Any]) -> [String] {
            (entry["assets"] as? [[String: Any]] ?? []).map { "\($0["uri"] as? String ?? "") \($0["duration"] as? Double ?? -1)" }
        }
        // ad1: START-DATE without a zone read as UTC (6 s in); "30" read as 30 s; the negative entry skipped.
        XCTAssertEqual(entries[0]["offset"] as? Double, 6)
        XCTAssertEqual(assets(entries[0]), ["\(origin)/ad1.m3u8 30.0", "\(origin)/ad3.m3u8 15.0"])
        XCTAssertEqual(entries[0]["playedDuration"] as? Double, 45)
        XCTAssertEqual(entries[0]["skipControl"] as? NSDictionary, ["offset": 5, "duration": 8, "labelID": "skip now"] as NSDictionary,
                       "OFFSET and LABEL-ID from the asset list, DURATION from the tag")
        XCTAssertEqual(entries[0]["skipControlFromAssetList"] as? [String], ["OFFSET", "LABEL-ID"])
        XCTAssertEqual((entries[0]["assetListProblems"] as? [[String: Any]])?.map { $0["outcome"] as? String }, ["read-as-number", "asset-skipped"])
        // ad2: ASSETS is not an array: nothing plays.
        XCTAssertEqual(assets(entries[1]), [])
        // ad3: two entries skipped, the third plays; the list's OFFSET is ignored, the tag's 2 s applies.
        XCTAssertEqual(assets(entries[2]), ["\(origin)/ad3.m3u8 15.0"])
        XCTAssertEqual(entries[2]["skipControl"] as? NSDictionary, ["offset": 2] as NSDictionary)
        XCTAssertEqual(entries[2]["skipControlFromAssetList"] as? [String], [])

        let table = try SeamcheckBinary.run(["inspect", server.url("/files/primary.m3u8"), "--format", "table"])
        XCTAssertEqual(table.status, 0, table.stderr)
        XCTAssertTrue(table.stdout.contains("skip button after 5 s for 8 s \"skip now\" (asset list SKIP-CONTROL: OFFSET, LABEL-ID)"), table.stdout)
        XCTAssertTrue(table.stdout.contains("asset list problem: ASSETS[1] \"DURATION\": -15 is negative (asset-skipped)"), table.stdout)
        XCTAssertTrue(table.stdout.contains("00:00:06.000  mid-roll  (START-DATE 2020-01-02T21:55:46.000Z)"), table.stdout)
    }
}
