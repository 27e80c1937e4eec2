import Foundation

/// What every RTSP request of a sender's session carries, the same for the AirPlay 2 session and
/// the legacy video session (pyatv's sender and UxPlay's expectations agree): `CSeq` counted from
/// 0, the DACP id and `Active-Remote` a receiver may call back on, and the session URI
/// `rtsp://LOCAL-IP/N` when a request names no other. An answer carrying another `CSeq` is not
/// this request's answer.
struct RTSPSessionIdentity {
    /// The N of `rtsp://LOCAL-IP/N`.
    let session = UInt32.random(in: 1...UInt32.max)
    let dacpId = String(format: "%016llX", UInt64.random(in: 0...UInt64.max))
    let activeRemote = UInt32.random(in: 0...UInt32.max)
    /// The next request's `CSeq` (a pair-verify on the same connection advances it).
    var cseq = 0

    /// The next request, its `CSeq` taken, and the step errors name ("RTSP SETUP").
    mutating func request(_ method: String, uri: String?, localHost: String, userAgent: String, body: Data,
                          extra: [(String, String)] = []) -> (request: HTTPRequest, sequence: Int, step: String) {
        let sequence = cseq
        cseq += 1
        let target = uri ?? "rtsp://\(localHost.contains(":") ? "[\(localHost)]" : localHost)/\(session)"
        var headers = [("CSeq", String(sequence)), ("DACP-ID", dacpId), ("Active-Remote", String(activeRemote))]
        headers += extra
        headers.append(("User-Agent", userAgent))
        if !body.isEmpty { headers.append(("Content-Type", PropertyList.binaryContentType)) }
        let step = "RTSP \(method)\(uri.map { " \($0)" } ?? "")"
        return (HTTPRequest(method: method, path: target, headers: headers, body: body, version: "RTSP/1.0"), sequence, step)
    }

    /// `badResponse` when `response` answers another `CSeq` than `sequence` (none at all passes).
    static func checkSequence(_ response: HTTPResponse, sequence: Int, endpoint: String, step: String) throws(AirPlayError) {
        guard let answered = response.header("cseq"), Int(answered.trimmingCharacters(in: .whitespaces)) != sequence else { return }
        throw .badResponse(endpoint: endpoint, path: step, reason: "answered CSeq \(answered.prefix(20)) to CSeq \(sequence)")
    }

    /// Runs `tick` every `seconds` until the task is cancelled; nil when `seconds` is not positive.
    static func every(_ seconds: Double, _ tick: @escaping @Sendable () async -> Bool) -> Task<Void, Never>? {
        guard seconds > 0 else { return nil }
        let nanoseconds = UInt64(seconds * 1_000_000_000)
        return Task {
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: nanoseconds)
                guard !Task.isCancelled, await tick() else { return }
            }
        }
    }
}
