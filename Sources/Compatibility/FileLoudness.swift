import Foundation
import HLS
import MediaProbe

/// Loudness of file audits (`audit --primary FILE --interstitial FILE`, a matrix's explicit-input
/// cases): each local input's first audio track decoded whole, off the cooperative pool. A remote
/// or unreadable input keeps no value, so loudness-mismatch skips it, and counts as not measured.
public enum FileLoudness {
    public static func measure(_ media: [MediaDescription], locations: [InputLocation], timeout: Double)
        async -> ([MediaDescription], LoudnessCost) {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let meter = LoudnessMeter(timeout: max(timeout, 60))
                var measured = media
                var cost = LoudnessCost(measured: true)
                for (index, location) in locations.enumerated() where !measured[index].audio.isEmpty {
                    guard case .file(let path) = location, let result = try? meter.measure(path: path) else { cost.notMeasured += 1; continue }
                    measured[index].audio[0].integratedLoudness = result.integrated
                    cost.measurements += 1
                    cost.bytesRead += result.bytesRead
                    cost.milliseconds += Int((result.elapsed * 1000).rounded())
                }
                continuation.resume(returning: (measured, cost))
            }
        }
    }
}
