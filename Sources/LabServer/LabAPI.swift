import Compatibility
import Foundation
import LabCore
import Store
import HLS
import Hummingbird
import NIOCore

/// The lab page and its JSON API: cases, receivers, live sessions, verdicts.
struct LabAPI: Sendable {
    let store: LabStore
    let manifest: LabManifest
    let profiles: [DeviceProfile]
    let access: LabAccess

    /// What the page posts to record a verdict.
    struct VerdictRequest: Decodable, Sendable {
        var receiver: String
        var `case`: String
        var verdict: String
        var seconds: Double?
        var note: String?
    }

    struct ErrorDocument: Encodable {
        var error: String
    }

    func register(on router: Router<LabRequestContext>) {
        router.get("/") { request, _ in
            var headers = HTTPFields()
            headers[.contentType] = "text/html; charset=utf-8"
            headers[.cacheControl] = "no-store"
            // The token only to a page at one of this server's own names (not to a rebound DNS name).
            let token = access.isOwn(authority: request.head.authority) ? access.token : ""
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: LabPage.html(token: token))))
        }
        router.get("/api/cases") { _, _ in
            try Self.json(manifest)
        }
        router.get("/api/receivers") { _, _ in
            let store = self.store
            return try Self.json(ReceiversDocument(receivers: try await StoreThreads.shared.call { () throws(StoreError) in
                try store.receivers(station: store.station)
            }))
        }
        router.get("/api/sessions") { _, _ in
            try Self.json(SessionsDocument(sessions: try await StoreThreads.shared.run { try sessions() }))
        }
        router.get("/api/verdicts") { _, _ in
            let store = self.store
            return try Self.json(VerdictsDocument(verdicts: try await StoreThreads.shared.call { () throws(StoreError) in
                try store.verdicts(station: store.station)
            }))
        }
        router.post("/api/verdicts") { request, _ in
            if let refused = access.refusal(for: request) {
                return try Self.json(ErrorDocument(error: refused.message), status: refused.status)
            }
            let body = try await request.body.collect(upTo: 64 << 10)
            let posted: VerdictRequest
            do { posted = try JSONDecoder().decode(VerdictRequest.self, from: Data(buffer: body)) } catch {
                return try Self.json(ErrorDocument(error: "expected JSON {receiver, case, verdict, seconds?, note?}: \(error)"), status: .badRequest)
            }
            do {
                let desk = VerdictDesk(store: store, manifest: manifest)
                let recorded = try await StoreThreads.shared.run {
                    try desk.record(receiver: posted.receiver, caseId: posted.case, verdict: posted.verdict, seconds: posted.seconds,
                                    note: posted.note, source: "page")
                }
                return try Self.json(recorded, status: .created)
            } catch let error as LabInputError {
                return try Self.json(ErrorDocument(error: error.description), status: .badRequest)
            }
        }
    }

    /// This station's sessions (the page is one station's; others sharing the database have their own).
    func sessions() throws -> [LabSession] {
        let station = store.station
        return SessionBuilder(manifest: manifest, receivers: try store.receivers(station: station),
                              history: try store.receiverHistory(station: station), profiles: profiles)
            .sessions(from: try store.requests(station: station))
    }

    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        let data = try JSONDocument.encoder(pretty: false, dates: .iso8601Milliseconds).encode(value)
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "no-cache"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// `lab sessions --format json` and `/api/sessions`.
public struct SessionsDocument: Codable, Sendable {
    public var schemaVersion = 1
    public var sessions: [LabSession]

    public init(sessions: [LabSession]) { self.sessions = sessions }
}

public struct ReceiversDocument: Codable, Sendable {
    public var schemaVersion = 1
    public var receivers: [LabReceiverRecord]

    public init(receivers: [LabReceiverRecord]) { self.receivers = receivers }
}

public struct VerdictsDocument: Codable, Sendable {
    public var schemaVersion = 1
    public var verdicts: [LabVerdictRecord]

    public init(verdicts: [LabVerdictRecord]) { self.verdicts = verdicts }
}
