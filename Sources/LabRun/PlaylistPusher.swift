import AirPlay
import Foundation
import LabServer

/// How a receiver gets a case's playlists: it fetches them itself from the lab server (`plain`),
/// or it asks the sender for them over the reverse connection and the sender pushes them (`pushed`,
/// FCUP, as the YouTube app does with Apple TVs). Segments are always fetched by the receiver.
public enum LabDelivery: String, Sendable, Equatable, Codable, CaseIterable {
    case plain
    case pushed
}

/// Bounds of pushing one case's playlists.
public struct PushLimits: Sendable, Equatable {
    /// One playlist fetched from the lab server: past this the receiver is answered 504.
    public var fetchTimeout: Double
    public var maxPlaylistBytes: Int
    /// How long `/play` waits for the receiver to ask for the playlists it names.
    public var pushTimeout: Double
    /// After the multivariant playlist, the push is over once every playlist it names was answered,
    /// or no request came for this long (a receiver asks only for the renditions it picks).
    public var quiet: Double
    public var reverse: ReverseLimits

    public init(fetchTimeout: Double = 5, maxPlaylistBytes: Int = 4 << 20, pushTimeout: Double = 12, quiet: Double = 1,
                reverse: ReverseLimits = .init()) {
        self.fetchTimeout = fetchTimeout
        self.maxPlaylistBytes = maxPlaylistBytes
        self.pushTimeout = pushTimeout
        self.quiet = quiet
        self.reverse = reverse
    }
}

/// Who the pushed fetches are for: the lab server logs them as `receiver`'s when they carry its token.
public struct PushAttribution: Sendable, Equatable {
    public var receiver: String
    public var token: String

    public init(receiver: String, token: String) {
        self.receiver = receiver
        self.token = token
    }
}

/// Answers the receiver's playlist requests: each URL checked against the case's folder (outside
/// it: 404 and a finding), fetched from the lab server on the receiver's behalf within the limits
/// (a fetch that does not end: 504 and a finding), its URIs made absolute, sent back in
/// `POST /action`. Every answer it sent and every finding is kept for the cell.
actor PlaylistPusher {
    struct Answered: Sendable, Equatable {
        var url: String
        var status: Int
    }

    let playlists: PushedPlaylists
    let limits: PushLimits
    let attribution: PushAttribution
    private(set) var answered: [Answered] = []
    private(set) var findings: [PushFinding] = []
    /// The playlists the multivariant playlist names (as pushed URLs), once it was answered.
    private(set) var named: Set<String>?
    private(set) var lastAnswer: ContinuousClock.Instant?

    init(playlists: PushedPlaylists, limits: PushLimits, attribution: PushAttribution) {
        self.playlists = playlists
        self.limits = limits
        self.attribution = attribution
    }

    /// Handles the reverse connection's items until it closes or the task is cancelled.
    func serve(_ items: AsyncStream<ReverseItem>, send: @Sendable (Data) async throws(AirPlayError) -> Void) async {
        for await item in items {
            if Task.isCancelled { return }
            switch item {
            case .finding(let finding): findings.append(finding)
            case .event(.other): continue
            case .event(.urlRequest(let request)):
                let (status, data) = await answer(request)
                let body = FCUPMessages.action(url: request.url, data: data, requestId: request.requestId, status: status)
                do { try await send(body) } catch {
                    findings.append(PushFinding("POST /action for \(request.url.prefix(200)): \(error)"))
                }
                answered.append(Answered(url: request.url, status: status))
                lastAnswer = .now
            }
        }
    }

    /// The status and body for one request; a finding for anything but a playlist served 200.
    func answer(_ request: FCUPRequest) async -> (Int, Data) {
        let source: URL
        switch playlists.resolve(request.url) {
        case .failure(let finding):
            findings.append(PushFinding("refused (404): the receiver \(finding.description)"))
            return (404, Data())
        case .success(let url): source = url
        }
        var headers: [(String, String)] = [(LabAccess.pushedForHeader, attribution.receiver),
                                           (LabAccess.tokenHeader, attribution.token)]
        for name in ["User-Agent", "X-Playback-Session-Id"] {
            if let value = request.headers[name] { headers.append((name, value)) }
        }
        switch await HTTPGet.fetch(source, headers: headers, timeout: limits.fetchTimeout, maxBytes: limits.maxPlaylistBytes) {
        case .failure(let finding):
            findings.append(PushFinding("the sender's fetch for the receiver failed (answered 504): \(finding.description)"))
            return (504, Data())
        case .success(let fetched):
            guard fetched.status == 200 else {
                findings.append(PushFinding("the lab server answered \(fetched.status) to \(source.path.prefix(200)) (passed on to the receiver)"))
                return (fetched.status, fetched.body)
            }
            let multivariant = request.url == playlists.pushedURL
            let text = playlists.rewrite(String(decoding: fetched.body, as: UTF8.self), from: source, multivariant: multivariant)
            if multivariant { named = Self.pushedReferences(in: text) }
            return (200, Data(text.utf8))
        }
    }

    /// Whether `/play` may return: the multivariant playlist and every playlist it names were
    /// answered, or the receiver went quiet after asking for some.
    func pushSettled(now: ContinuousClock.Instant) -> Bool {
        guard let named else { return false }
        let done = Set(answered.map(\.url))
        if named.isSubset(of: done) { return true }
        guard let lastAnswer else { return false }
        return lastAnswer.duration(to: now) >= .milliseconds(Int64(limits.quiet * 1000))
    }

    static func pushedReferences(in text: String) -> Set<String> {
        var found: Set<String> = []
        for line in text.components(separatedBy: "\n") {
            if line.hasPrefix(PushedPlaylists.scheme + "://") { found.insert(line.trimmingCharacters(in: .whitespaces)) }
            var rest = Substring(line)
            while let start = rest.range(of: "\"" + PushedPlaylists.scheme + "://") {
                let value = rest[rest.index(after: start.lowerBound)...]
                guard let end = value.firstIndex(of: "\"") else { break }
                found.insert(String(value[..<end]))
                rest = value[end...]
            }
        }
        return found
    }
}
