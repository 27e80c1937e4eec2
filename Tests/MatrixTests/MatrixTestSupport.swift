import Compatibility
import Foundation
import HLS
@testable import Matrix
import MediaProbe
import SeamcheckTestSupport

/// The bundled device profiles of the checkout.
func bundledProfiles() throws -> [DeviceProfile] {
    try ProfileLoader.loadDirectory(MediaFixture.packageRoot + "/DeviceProfiles")
}

func temporaryDirectory(_ name: String) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Results kept in memory, in the order they were recorded.
final class MemoryRecorder: CaseRecorder, @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [CaseResult] = []
    var results: [CaseResult] { lock.withLock { stored } }
    func record(_ result: CaseResult) throws { lock.withLock { stored.append(result) } }
}

/// Counts how many audits run at once.
actor Gauge {
    private(set) var current = 0
    private(set) var peak = 0
    private(set) var started = 0
    func enter() { current += 1; started += 1; peak = max(peak, current) }
    func leave() { current -= 1 }
}

/// Synthetic media: H.264 29.97 fps 16:9 + AAC stereo, or with the changes given.
func media(_ name: String, codec: String = "h264", rate: Rational = Rational(30000, 1001), layout: String = "stereo",
           duration: Double = 30) -> MediaDescription {
    MediaDescription(input: name, container: "mov,mp4,m4a,3gp,3g2,mj2", duration: duration,
                     video: [VideoTrack(codec: codec, profile: "High", width: 1920, height: 1080, frameRate: rate)],
                     audio: [AudioTrack(codec: "aac", profile: "LC", sampleRate: 48000, channels: layout == "stereo" ? 2 : 6, channelLayout: layout)])
}

/// An auditor that takes `seconds` per case without probing, recording concurrency.
struct SleepyAuditor: CaseAuditor {
    let gauge: Gauge
    let seconds: Double

    func accepts(_ source: CaseSource) -> Bool { true }

    func audit(_ matrixCase: MatrixCase, profiles: [DeviceProfile], probes: SharedProbes) async throws(CaseFailure) -> CaseAudit {
        await gauge.enter()
        let slept: Void? = try? await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
        await gauge.leave()
        if slept == nil { throw CaseFailure(kind: .cancelled, input: nil, reason: "cancelled") }
        let primary = AuditedAsset(role: "primary", input: "p.mp4", media: media("p.mp4"))
        let ad = AuditedAsset(role: "interstitial 1", input: "ad.mp4", media: media("ad.mp4", rate: Rational(25, 1)))
        return CaseAudit(result: TransitionAuditor().audit(primary: primary, interstitials: [ad], profiles: profiles),
                         placements: InterstitialPlacement.preRollPod(durations: [30]))
    }
}

func explicitCase(_ id: String, _ primary: String, _ interstitials: [String], tags: [String] = []) throws -> MatrixCase {
    MatrixCase(id: id, source: .explicit(primary: try InputLocation(parsing: primary),
                                         interstitials: try interstitials.map { try InputLocation(parsing: $0) }), tags: tags)
}
