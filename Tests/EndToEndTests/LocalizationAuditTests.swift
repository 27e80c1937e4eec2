import Foundation
import SeamcheckTestSupport
import XCTest

/// The localization rules on real HLS served on 127.0.0.1: a primary with audio in three
/// languages and subtitles in two, scheduled with an English-only ad, with a matched ad, and
/// with the accessibility tracks (described video, SDH, forced subtitles, closed captions).
final class LocalizationAuditTests: ServedStreamTestCase {
    typealias Title = LocalizedTitle
    static let localizationRules: Set<String> = ["audio-language-missing", "subtitles-missing", "subtitle-language-missing",
                                                 "sdh-subtitles-missing", "forced-subtitles-missing", "caption-language-missing",
                                                 "audio-description-missing"]

    static let primaryAudio = [Title.Audio("en", "English", isDefault: true), Title.Audio("fr", "Français"), Title.Audio("de", "Deutsch")]
    static let primarySubtitles = [Title.Subtitle("en", "English"), Title.Subtitle("fr", "Français")]

    /// The primary (en, fr, de audio; en, fr subtitles) with one ad, itself a title in `ad/`.
    func writePrimary(ad: Title, audio: [Title.Audio] = primaryAudio, subtitles: [Title.Subtitle] = primarySubtitles,
                      captions: [Title.Caption] = []) throws -> String {
        try ad.write(into: root, port: server.port)
        let primary = Title(folder: "title", audio: audio, subtitles: subtitles, captions: captions,
                            ads: [InterstitialStream.Ad(id: "ad1", source: nil, rawPath: "/files/\(ad.folder)/main.m3u8", boundary: 1)])
        return try primary.write(into: root, port: server.port)
    }

    func localization(_ run: JSONRun) -> [[String: Any]] {
        run.findings.filter { Self.localizationRules.contains($0["rule"] as? String ?? "") }
    }

    func testAnEnglishOnlyAdWithoutSubtitlesNamesTheLanguagesAndSubtitlesEachClassLoses() throws {
        let path = try writePrimary(ad: Title(folder: "ad-en", audio: [Title.Audio("en", "English", isDefault: true)]))
        let audit = try run("audit", [server.url(path)])
        let fired = Set(localization(audit).map { "\($0["rule"] as? String ?? "")@\($0["deviceClass"] as? String ?? "*")" })
        XCTAssertEqual(fired, Set(Classes.all.map { "audio-language-missing@\($0)" } + Classes.video.map { "subtitles-missing@\($0)" }),
                       "audio for every class, the speaker included; subtitles only where there is a screen")
        for finding in audit.findings("audio-language-missing") {
            let message = finding["message"] as? String ?? ""
            XCTAssertTrue(message.contains("viewers listening in fr or de hear the interstitial in en \"English\" (its DEFAULT=YES rendition)"), message)
            XCTAssertEqual(finding["severity"] as? String, "warning")
            XCTAssertEqual(finding["expected"] as? String, "audio in en, fr, de (as the primary)")
            XCTAssertEqual(finding["actual"] as? String, "audio in en")
            XCTAssertTrue((finding["subject"] as? String ?? "").hasPrefix("interstitial 1 (http://127.0.0.1:"), "\(finding)")
        }
        for finding in audit.findings("subtitles-missing") {
            let message = finding["message"] as? String ?? ""
            XCTAssertTrue(message.contains("viewers with subtitles on in en or fr see none during the ad"), message)
            XCTAssertTrue(message.contains("Fix: add a SUBTITLES group with WebVTT renditions in en, fr"), message)
        }

        let lint = try run("lint", [server.url(path)])
        XCTAssertEqual(Set(localization(lint).map { "\($0["rule"] as? String ?? "")@\($0["deviceClass"] as? String ?? "*")" }),
                       ["audio-language-missing@*", "subtitles-missing@*"], "lint reads the same from the playlists alone, without a class")
        XCTAssertTrue(localization(lint).allSatisfy { ($0["subject"] as? String ?? "").hasPrefix("EXT-X-DATERANGE ID=\"ad1\"") }, "\(lint.findings)")
    }

    func testAnAdOfferingThePrimarysLanguagesAndSubtitlesGetsNoLocalizationFinding() throws {
        let path = try writePrimary(ad: Title(folder: "ad-matched", audio: [Title.Audio("fr", "Français"), Title.Audio("de", "Deutsch"),
                                                                             Title.Audio("en", "English", isDefault: true)],
                                              subtitles: [Title.Subtitle("fr", "Français"), Title.Subtitle("en", "English")]))
        let audit = try run("audit", [server.url(path)])
        XCTAssertTrue(localization(audit).isEmpty, "\(localization(audit))")
        let lint = try run("lint", [server.url(path)])
        XCTAssertTrue(localization(lint).isEmpty, "\(localization(lint))")
    }

    func testAnAdWithoutSubtitlesInOneLanguageShowsItsDefaultSubtitlesOrNone() throws {
        let path = try writePrimary(ad: Title(folder: "ad-subs-en", audio: Self.primaryAudio, subtitles: [Title.Subtitle("en", "English")]))
        let audit = try run("audit", [server.url(path)])
        XCTAssertEqual(Set(localization(audit).map { $0["rule"] as? String ?? "" }), ["subtitle-language-missing"])
        let message = audit.findings("subtitle-language-missing").first?["message"] as? String ?? ""
        XCTAssertTrue(message.contains("viewers with subtitles on in fr see no subtitles (none of its subtitles is DEFAULT=YES) during the interstitial"), message)
    }

    func testDescribedVideoSDHForcedSubtitlesAndClosedCaptionsTheAdLacksAreEachNamed() throws {
        let audio = Self.primaryAudio + [Title.Audio("en", "English (described)", described: true)]
        let subtitles = Self.primarySubtitles + [Title.Subtitle("en", "English SDH", sdh: true), Title.Subtitle("fr", "Français (forced)", forced: true)]
        let path = try writePrimary(ad: Title(folder: "ad-plain", audio: Self.primaryAudio, subtitles: Self.primarySubtitles),
                                    audio: audio, subtitles: subtitles, captions: [Title.Caption("en", "CC1")])
        let audit = try run("audit", [server.url(path)])
        let fired = Set(localization(audit).map { "\($0["rule"] as? String ?? "")@\($0["deviceClass"] as? String ?? "*")" })
        XCTAssertEqual(fired, Set(Classes.all.map { "audio-description-missing@\($0)" }
                                  + Classes.video.flatMap { ["sdh-subtitles-missing@\($0)", "caption-language-missing@\($0)", "forced-subtitles-missing@\($0)"] }),
                       "\(localization(audit).map { $0["message"] ?? "" })")
        func message(_ rule: String) -> String { audit.findings(rule).first?["message"] as? String ?? "" }
        XCTAssertTrue(message("audio-description-missing").contains("viewers who chose audio description hear, during the interstitial, en: en \"English\" without description"),
                      message("audio-description-missing"))
        XCTAssertTrue(message("sdh-subtitles-missing").contains("en: plain subtitles en \"English\", without sound descriptions"), message("sdh-subtitles-missing"))
        XCTAssertTrue(message("caption-language-missing").contains("lose en \"en captions\" CC1 during the interstitial, which offers none"),
                      message("caption-language-missing"))
        XCTAssertTrue(message("forced-subtitles-missing").contains("viewers in fr with subtitles off get no forced subtitles"), message("forced-subtitles-missing"))
        XCTAssertEqual(audit.findings("forced-subtitles-missing").first?["severity"] as? String, "info")
    }
}
