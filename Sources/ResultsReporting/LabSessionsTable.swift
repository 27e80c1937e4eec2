import Reporting
import Foundation
import LabCore

/// `seamcheck lab sessions` as a table: one row per (station, client, case) session; the STATION
/// column only when the sessions come from more than one station.
public enum LabSessionsTable {
    public static func render(_ sessions: [LabSession]) -> String {
        guard !sessions.isEmpty else {
            return "no sessions: no client has fetched a case yet (play one from the lab page, or check the --db path)\n"
        }
        let clock = DateFormatter()
        clock.dateFormat = "yyyy-MM-dd HH:mm:ss"
        let stations = Set(sessions.map(\.station)).count > 1
        var rows: [[String]] = [(stations ? ["STATION"] : []) + ["STARTED", "CLIENT", "RECEIVER", "CLASS", "CASE", "VARIANT", "AD", "AD VARIANT", "RESUMED AT", "QUERY", "REQUESTS"]]
        for s in sessions {
            let query = [s.sentPrimaryId ? "primary_id" : nil, s.sentStartOffset ? "start_offset" : nil].compactMap { $0 }
            let station: [String] = stations ? [s.station ?? "-"] : []
            let row: [String] = [clock.string(from: s.started), s.client, s.receiver ?? "-", s.deviceClass ?? "-", s.case,
                         s.variant.map { inCase($0, s.case) } ?? "-",
                         s.interstitialRequested ? "fetched (\(s.interstitialSegments) seg)" : "not fetched",
                         s.interstitialVariant.map(lastComponent) ?? "-",
                         s.resumedAt.map { formatSeconds($0) } ?? "-", query.isEmpty ? "-" : query.joined(separator: ","),
                         s.failedRequests + s.abandonedRequests > 0
                             ? "\(s.requests) (\(s.failedRequests) failed, \(s.abandonedRequests) cut)" : String(s.requests)]
            rows.append(station + row)
        }
        var text = table(rows)
        for s in sessions {
            guard let observed = s.observedCapability else { continue }
            let chose = [observed.videoCodec, observed.dynamicRange, observed.audioCodec, observed.channels.map { "\($0) ch" }]
                .compactMap { $0 }.joined(separator: " ")
            text += "\(s.receiver ?? s.client)" + (stations ? " at \(s.station ?? "unknown station")" : "") + " on \(s.case): chose \(chose)"
                + (s.deviceClass == nil ? "; no class to compare with\n"
                   : observed.againstProfile.isEmpty ? "; as its class expects\n" : "; " + observed.againstProfile.joined(separator: "; ") + "\n")
        }
        return text
    }

    /// A suite path without its `cases/<id>/` folder: a ladder's tiers all name their playlist media.m3u8.
    static func inCase(_ path: String, _ caseId: String) -> String {
        path.hasPrefix("cases/\(caseId)/") ? String(path.dropFirst("cases/\(caseId)/".count)) : path
    }

    /// The file name of a suite path, without Foundation's path APIs (paths come from clients).
    static func lastComponent(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }
}
