import Foundation

/// Where on a case's media timeline a receiver switches decoders: the ad's start and end (stitched:
/// on the stitched playlist's own timeline) and, for interstitial cases, also the resume point on
/// the primary (`interstitialStart + (resumeOffset ?? duration)`).
public struct TransitionPoint: Codable, Sendable, Equatable {
    /// "ad start", "ad end", "resume".
    public var name: String
    /// Seconds on the media timeline.
    public var position: Double

    public init(name: String, position: Double) {
        self.name = name
        self.position = position
    }

    /// "ad start 6 s".
    public var label: String { "\(name) \(MeasureText.seconds(position))" }

    public static func of(_ labCase: LabCase) -> [TransitionPoint] {
        guard let start = labCase.interstitialStart else { return [] }
        let duration = labCase.interstitialDuration ?? 0
        var points = [TransitionPoint(name: "ad start", position: start), TransitionPoint(name: "ad end", position: start + duration)]
        if labCase.delivery != .stitched {
            let resume = start + (labCase.resumeOffset ?? duration)
            if !points.contains(where: { abs($0.position - resume) < 0.001 }) {
                points.append(TransitionPoint(name: "resume", position: resume))
            }
        }
        return points
    }

    /// Whether the receiver fetched (or tried to fetch) anything under an interstitial case's
    /// `interstitialPrefix`: false means it never switched to the ad (Kodi ignores EXT-X-DATERANGE),
    /// so the case's transition points were never met. nil for a case with no interstitial to fetch.
    public static func interstitialFetched(_ labCase: LabCase, requests: [LabRequestRecord]) -> Bool? {
        guard labCase.delivery == .interstitial, labCase.interstitialStart != nil,
              let prefix = labCase.interstitialPrefix, !prefix.isEmpty else { return nil }
        let path = "/" + prefix
        return requests.contains { $0.path.hasPrefix(path) }
    }

    /// The window on the media timeline the ad occupies (shaded in the timeline picture).
    public static func window(of labCase: LabCase) -> ClosedRange<Double>? {
        guard let start = labCase.interstitialStart else { return nil }
        return start...(start + max(0, labCase.interstitialDuration ?? 0))
    }
}

/// Numbers as the measurement's reasons write them.
enum MeasureText {
    /// "6 s", "1.25 s".
    static func seconds(_ value: Double) -> String {
        String(format: "%.2f", value).replacingOccurrences(of: #"\.?0+$"#, with: "", options: .regularExpression) + " s"
    }

    /// "1240 ms".
    static func ms(_ value: Double) -> String {
        value.isFinite && abs(value) < 1e15 ? "\(String(format: "%.0f", value)) ms" : "? ms"
    }
}
