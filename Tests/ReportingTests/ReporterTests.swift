import Compatibility
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import MediaProbe
@testable import Reporting
@testable import ResultsReporting
import XCTest

final class ReporterTests: XCTestCase {
    /// A primary and two interstitials: one matching, one with a <script> in its name and a codec switch.
    func sampleResult() -> AuditResult {
        let video = VideoTrack(codec: "h264", profile: "High", width: 1920, height: 1080, frameRate: Rational(30000, 1001))
        let audio = AudioTrack(codec: "aac", profile: "LC", sampleRate: 48000, channels: 2, channelLayout: "stereo")
        let primary = MediaDescription(input: "/m/main.mp4", container: "mp4", duration: 60, video: [video], audio: [audio])
        var hevcVideo = video
        hevcVideo.codec = "hevc"
        let ad = MediaDescription(input: "/m/<script>ad.mp4", container: "mp4", duration: 15, video: [hevcVideo], audio: [audio])
        let matching = MediaDescription(input: "/m/ok.mp4", container: "mp4", duration: 15, video: [video], audio: [audio])
        let profiles = [
            DeviceProfile(id: "smart-tv-low-end", name: "Low", plays: Capabilities(
                video: true, videoCodecs: ["h264"], maxWidth: 1920, maxHeight: 1080, maxFrameRate: 60, dynamicRanges: ["SDR"],
                audioCodecs: ["aac"], maxChannels: 2, sampleRates: [48000]), rules: ["video-codec-mismatch": .severity(.error)]),
            DeviceProfile(id: "apple-tv-4k", name: "ATV", plays: Capabilities(
                video: true, videoCodecs: ["h264", "hevc"], maxWidth: 3840, maxHeight: 2160, maxFrameRate: 60, dynamicRanges: ["SDR"],
                audioCodecs: ["aac"], maxChannels: 8, sampleRates: [48000]), rules: ["video-codec-mismatch": .severity(.info)]),
        ]
        return TransitionAuditor(capabilityRules: []).audit(
            primary: AuditedAsset(role: "primary", input: primary.input, media: primary),
            interstitials: [AuditedAsset(role: "interstitial 1", input: matching.input, media: matching),
                            AuditedAsset(role: "interstitial 2", input: ad.input, media: ad)],
            profiles: profiles)
    }

    func testJSONHasInterfaceShapeAndNulls() throws {
        let text = JSONReporter().render(sampleResult())
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        XCTAssertEqual(json["schemaVersion"] as? Int, 1)
        XCTAssertEqual(json["input"] as? String, "/m/main.mp4")
        XCTAssertEqual(json["deviceClasses"] as? [String], ["smart-tv-low-end", "apple-tv-4k"])
        XCTAssertEqual(json["summary"] as? [String: Int], ["error": 1, "warning": 0, "info": 1, "accepted": 0])
        let findings = try XCTUnwrap(json["findings"] as? [[String: Any]])
        XCTAssertEqual(findings.count, 2)
        XCTAssertEqual(findings[0]["remediation"] as? String, "-c:v libx264 -profile:v high -pix_fmt yuv420p -c:a copy")
        let assets = try XCTUnwrap(json["assets"] as? [[String: Any]])
        XCTAssertTrue(assets[1]["remediation"] is NSNull, "the matching interstitial needs no change")
    }

    func testJUnitIsWellFormedWithASuitePerClassAndFailuresForErrors() throws {
        let xml = JUnitReporter().render(sampleResult())
        let document = try XMLDocumentProbe(xml)
        XCTAssertEqual(document.suites, ["smart-tv-low-end", "apple-tv-4k"])
        XCTAssertEqual(document.testcases, 4)
        XCTAssertEqual(document.failures, ["video-codec-mismatch"], "only the low-end TV's error fails")
        XCTAssertTrue(xml.contains("&lt;script&gt;"))
    }

    func testHTMLEscapesInputNamesAndShowsTheGrid() {
        let html = HTMLReporter().render(sampleResult())
        XCTAssertFalse(html.contains("<script>ad.mp4"))
        XCTAssertTrue(html.contains("&lt;script&gt;ad.mp4"))
        XCTAssertEqual(html.components(separatedBy: "<td class=\"fail\">").count - 1, 1)
        XCTAssertEqual(html.components(separatedBy: "<td class=\"pass\">").count - 1, 2)
        XCTAssertEqual(html.components(separatedBy: "<td class=\"info\">").count - 1, 1)
    }

    func testMarkdownGroupsMustFixAndGivesTheCommand() {
        let md = MarkdownReporter().render(sampleResult())
        XCTAssertTrue(md.contains("### Must fix"))
        XCTAssertTrue(md.contains("### Good to know"))
        XCTAssertTrue(md.contains("ffmpeg -i '/m/<script>ad.mp4' -c:v libx264 -profile:v high -pix_fmt yuv420p -c:a copy ./_script_ad-matched.mp4"), md)
        XCTAssertTrue(md.contains("| interstitial 1: `ok.mp4` | pass | pass |"), md)
    }

    func testFixCommandKeepsTheInputAndSanitisesTheOutputName() {
        var asset = AuditedAsset(role: "interstitial 1", input: "/ads/ad 25.mp4",
                                 media: MediaDescription(input: "/ads/ad 25.mp4", container: "mp4", duration: 1),
                                 remediation: Remediation(arguments: ["-r", "25"]))
        XCTAssertEqual(remediationCommand(for: asset), "ffmpeg -i '/ads/ad 25.mp4' -r 25 -c:a copy ./ad_25-matched.mp4")
        asset.input = "http://127.0.0.1:8/ads/ad%2025/index.m3u8"
        asset.placement = Placement(id: "../-x", line: 3, kind: "mid-roll", offset: 2, pod: 0, positionInPod: 0, duration: 1)
        XCTAssertEqual(remediationCommand(for: asset),
                       "ffmpeg -i http://127.0.0.1:8/ads/ad%2025/index.m3u8 -r 25 -c:a copy ./_-x-matched.mp4")
    }

    /// Fuzzing found `audit --format markdown` (and html) dying with SIGILL on an X-ASSET-URI of
    /// `http://host/a///b//`: Foundation's path API traps on it (issue 14). Every format renders it.
    func testEveryFormatRendersInputsWithRepeatedSlashes() {
        let inputs = ["http://host/a///b//", "/a///b//", "file:///a///b//", "http://host/", "///", ""]
        for input in inputs {
            var result = sampleResult()
            for index in result.interstitials.indices {
                result.interstitials[index].input = input
                result.interstitials[index].media.input = input
                result.interstitials[index].remediation = Remediation(arguments: ["-r", "25"])
            }
            for format in ReportFormat.allCases {
                XCTAssertFalse(format.reporter.render(result).isEmpty, "\(format) of \(input)")
            }
            let asset = result.interstitials[0]
            if input.hasSuffix("/a///b//") { XCTAssertEqual(MediaText.shortName(asset), "b") }
            XCTAssertNotNil(remediationCommand(for: asset))
        }
        var asset = sampleResult().interstitials[0]
        asset.input = "http://host/a///b.mp4//"
        asset.remediation = Remediation(arguments: ["-r", "25"])
        XCTAssertEqual(remediationCommand(for: asset), "ffmpeg -i http://host/a///b.mp4// -r 25 -c:a copy ./b-matched.mp4")
    }

    func testAssetsOfOneAssetListAndClassGroupsGetTheirOwnOutputNames() {
        let placement = Placement(id: "pod", line: 3, kind: "mid-roll", offset: 2, pod: 0, positionInPod: 0, duration: 1)
        let media = MediaDescription(input: "a.mp4", container: "mp4", duration: 1)
        let fix = Remediation(arguments: ["-c:v", "libx264", "-r", "25"])
        let first = AuditedAsset(role: "interstitial 1", input: "/ads/a.mp4", media: media, remediation: fix, placement: placement)
        var second = AuditedAsset(role: "interstitial 2", input: "/ads/b.mp4", media: media, placement: placement)
        second.setRemediations([ClassRemediation(deviceClasses: ["smart-tv-low-end"], remediation: fix),
                                ClassRemediation(deviceClasses: ["apple-tv-4k", "mac"], remediation: Remediation(arguments: ["-c:v", "libx265"]))])
        let result = AuditResult(input: "x", deviceClasses: [], primary: first, interstitials: [first, second], findings: [])
        XCTAssertEqual(remediationCommands(for: first, in: result).map(\.text),
                       ["ffmpeg -i /ads/a.mp4 -c:v libx264 -r 25 -c:a copy ./pod-1-matched.mp4"])
        let commands = remediationCommands(for: second, in: result)
        XCTAssertEqual(commands.map(\.text), ["ffmpeg -i /ads/b.mp4 -c:v libx264 -r 25 -c:a copy ./pod-2-smart-tv-low-end-matched.mp4",
                                               "ffmpeg -i /ads/b.mp4 -c:v libx265 -c:a copy ./pod-2-apple-tv-4k-matched.mp4"])
        XCTAssertEqual(commands.map(\.deviceClasses), [["smart-tv-low-end"], ["apple-tv-4k", "mac"]])
        XCTAssertTrue(commands[1].label.hasPrefix("fix for apple-tv-4k, mac (no single encode serves every class"), commands[1].label)
        XCTAssertNil(second.remediation, "no single encode serves every class")
    }

    func testTableShowsGridAndSummaryWithoutColorCodes() {
        let table = TableReporter(color: false).render(sampleResult())
        XCTAssertFalse(table.contains("\u{1B}["))
        XCTAssertTrue(table.contains("no findings"))
        XCTAssertTrue(table.contains("1 error(s), 0 warning(s), 1 info across 2 device class(es)"))
        let colored = TableReporter(color: true).render(sampleResult())
        XCTAssertTrue(colored.contains("\u{1B}[31merror"))
    }
}

extension ReporterTests {
    /// The sample with control characters in what came from the inputs: a DATERANGE ID and a path.
    func hostileResult() -> AuditResult {
        var result = sampleResult()
        result.interstitials[1].placement = Placement(id: "ad\u{1B}[31m\u{9B}2J\u{07}", line: 7, kind: "mid-roll", offset: 5,
                                                      pod: 0, positionInPod: 0, duration: 15)
        result.interstitials[1].input = "/m/ad\u{1B}]0;title\u{07}.mp4"
        return result
    }

    func testVisibleTextEscapesC0DELAndC1AndLeavesTheRestAlone() {
        XCTAssertEqual(VisibleText.escape("a\u{1B}[31mb\u{0}\t\n\u{7F}\u{85}\u{9F}é ✓"), #"a\u{1B}[31mb\u{00}\u{09}\u{0A}\u{7F}\u{85}\u{9F}é ✓"#)
        XCTAssertEqual(VisibleText.escape("plain \\ text"), "plain \\ text")
        XCTAssertEqual(VisibleText.escape("\r\n"), #"\u{0D}\u{0A}"#)
    }

    func testTableAndMarkdownShowInputControlCharactersEscapedAndKeepTheirOwnColours() {
        let result = hostileResult()
        for (name, text, colours) in [("table", TableReporter(color: false).render(result), false),
                                      ("coloured table", TableReporter(color: true).render(result), true),
                                      ("markdown", MarkdownReporter().render(result), false)] {
            XCTAssertTrue(text.contains(#"ad\u{1B}[31m\u{9B}2J\u{07}"#), "\(name):\n\(text)")
            XCTAssertTrue(text.contains(#"/m/ad\u{1B}]0;title\u{07}.mp4"#), "\(name):\n\(text)")
            XCTAssertFalse(text.unicodeScalars.contains { $0 == "\u{07}" || $0 == "\u{9B}" }, name)
            // The only ESC left is the reporter's own colour codes.
            let withoutColours = text.replacingOccurrences(of: #"\u{1B}\[[0-9;]*m"#, with: "", options: .regularExpression)
            XCTAssertFalse(withoutColours.contains("\u{1B}"), name)
            XCTAssertEqual(text.contains("\u{1B}[1m"), colours, name)
        }
    }

    func testJUnitAndHTMLStayWellFormedWithControlCharactersInInputs() throws {
        let xml = JUnitReporter().render(hostileResult())
        XCTAssertNoThrow(try XMLDocumentProbe(xml), xml)
        XCTAssertFalse(xml.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" && $0 != "\t" && $0 != "\r" }, xml)
        let html = HTMLReporter().render(hostileResult())
        XCTAssertFalse(html.contains("\u{1B}"))
        XCTAssertTrue(html.contains(#"ad\u{1B}[31m"#), html)
    }
}

/// Reads the parts of a JUnit document the tests check, with Foundation's XML parser.
final class XMLDocumentProbe: NSObject, XMLParserDelegate {
    var suites: [String] = []
    var testcases = 0
    var failures: [String] = []

    init(_ xml: String) throws {
        super.init()
        let parser = XMLParser(data: Data(xml.utf8))
        parser.delegate = self
        guard parser.parse() else { throw parser.parserError ?? NSError(domain: "xml", code: 1) }
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        switch name {
        case "testsuite": suites.append(attributes["name"] ?? "")
        case "testcase": testcases += 1
        case "failure": failures.append(attributes["type"] ?? "")
        default: break
        }
    }
}
