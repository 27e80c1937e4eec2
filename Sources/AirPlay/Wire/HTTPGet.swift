import Foundation

/// One bounded `GET` over plain HTTP/1.1 (the sender fetching a pushed playlist from the lab
/// server): the status and body, or why there is none. Never waits past `timeout` seconds in all,
/// never buffers more than `maxBytes`.
public enum HTTPGet {
    public struct Answer: Sendable, Equatable {
        public var status: Int
        public var body: Data
    }

    public static func fetch(_ url: URL, headers: [(String, String)], timeout: Double,
                             maxBytes: Int) async -> Result<Answer, PushFinding> {
        guard url.scheme == "http", let host = url.host else {
            return .failure(PushFinding("\(url.absoluteString.prefix(200)): only http:// is fetched"))
        }
        let connection = Connection(host: host, port: url.port ?? 80, connectTimeout: timeout, maxBodyBytes: maxBytes)
        defer { Task { await connection.shutDown() } }
        var path = url.path.isEmpty ? "/" : url.path
        if let query = url.query { path += "?" + query }
        let request = HTTPRequest(method: "GET", path: path, headers: headers + [("Connection", "close")])
        do {
            let response = try await connection.send(request, timeout: timeout)
            return .success(Answer(status: response.status, body: response.body))
        } catch {
            let reason: String
            switch error {
            case .timeout: reason = "no complete answer within \(timeout.formatted()) s"
            case .connect(let why): reason = "cannot connect (\(why))"
            case .closed: reason = "the server closed the connection before a complete answer"
            case .malformed(let parse): reason = parse.description
            case .io(let why), .encryption(let why): reason = why
            }
            return .failure(PushFinding("GET \(url.absoluteString.prefix(200)): \(reason)"))
        }
    }
}
