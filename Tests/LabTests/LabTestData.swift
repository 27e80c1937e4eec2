import Foundation
@testable import LabCore
@testable import LabRun
@testable import LabServer

/// A small manifest and request logs written out by hand: two transition cases on the shared
/// primary (2 s segments) and a capability ladder, as `lab streams` lays them out.
enum LabTestData {
    static let primaryTimeline = (0..<6).map { LabSegment(file: String(format: "seg_%03d.m4s", $0), start: Double($0) * 2, duration: 2) }

    static func transition(_ id: String, rules: [String]) -> LabCase {
        LabCase(id: id, kind: .transition, varies: rules.isEmpty ? "none" : rules[0], title: id, rules: rules,
                playlist: "cases/\(id)/master.m3u8", interstitialPrefix: "cases/\(id)/ad/", interstitialStart: 4,
                interstitialDuration: 4, resumeOffset: 0, primary: LabMedia(videoCodec: "h264", duration: 12),
                interstitial: LabMedia(videoCodec: "hevc", duration: 4),
                variants: [LabVariant(path: "cases/\(id)/media.m3u8", role: .primary, videoCodec: "h264", audioCodec: "aac"),
                           LabVariant(path: "cases/\(id)/ad/ad.m3u8", role: .interstitial, videoCodec: "hevc", audioCodec: "aac")])
    }

    static let ladder = LabCase(
        id: "capability-ladder", kind: .capability, varies: "variant choice", title: "ladder", rules: [],
        playlist: "cases/capability-ladder/master.m3u8", primary: LabMedia(duration: 12),
        variants: [LabVariant(path: "cases/capability-ladder/v_h264_sdr.m3u8", role: .primary, videoCodec: "h264", dynamicRange: "SDR"),
                   LabVariant(path: "cases/capability-ladder/v_hevc_hdr10.m3u8", role: .primary, videoCodec: "hevc", dynamicRange: "HDR10"),
                   LabVariant(path: "cases/capability-ladder/a_eac3_51.m3u8", role: .primary, audioCodec: "eac3", channels: 6)])

    static let manifest = LabManifest(generator: "test", primaryTimeline: primaryTimeline,
                                      cases: [transition("control", rules: []), transition("video-codec-hevc", rules: ["video-codec-mismatch"]), ladder])

    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// A request `offset` seconds after `start`.
    static func request(_ client: String, _ path: String, at offset: Double, query: String? = nil, status: Int = 200,
                        completed: Bool = true, agent: String = "AppleCoreMedia/1.0") -> LabRequestRecord {
        LabRequestRecord(at: start.addingTimeInterval(offset), client: client, method: "GET", path: path, query: query,
                         status: status, bytes: status < 400 ? 1000 : 0, durationMs: 1, userAgent: agent,
                         caseId: SuiteFiles.caseId(of: path), completed: completed)
    }

    /// What an interstitial-aware receiver fetches for a mid-roll at 4 s: two primary segments,
    /// the asset with the draft's query parameters, then the primary again from 4 s.
    static func midRoll(_ client: String, case id: String = "video-codec-hevc", from t: Double = 0) -> [LabRequestRecord] {
        [request(client, "/cases/\(id)/master.m3u8", at: t),
         request(client, "/cases/\(id)/media.m3u8", at: t + 0.1),
         request(client, "/cases/\(id)/primary/init.mp4", at: t + 0.2),
         request(client, "/cases/\(id)/primary/seg_000.m4s", at: t + 0.3),
         request(client, "/cases/\(id)/primary/seg_001.m4s", at: t + 0.4),
         request(client, "/cases/\(id)/ad/ad.m3u8", at: t + 0.5, query: "_HLS_primary_id=abc&_HLS_start_offset=0"),
         request(client, "/cases/\(id)/ad/init.mp4", at: t + 0.6),
         request(client, "/cases/\(id)/ad/seg_000.m4s", at: t + 0.7),
         request(client, "/cases/\(id)/ad/seg_001.m4s", at: t + 0.8),
         request(client, "/cases/\(id)/primary/seg_002.m4s", at: t + 0.9),
         request(client, "/cases/\(id)/primary/seg_003.m4s", at: t + 1.0)]
    }

    static func temporaryDatabase() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("lab-\(UUID().uuidString).sqlite").path
    }
}
