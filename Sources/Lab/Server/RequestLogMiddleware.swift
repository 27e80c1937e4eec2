import Foundation
import Hummingbird
import NIOCore

/// The request context of the lab server: Hummingbird's, plus the client's address.
public struct LabRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}

/// Records every request in the request log once its body is written, or once the client went
/// away mid-body (`completed` false, with the bytes it did get): what a receiver fetched, and how far.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = LabRequestContext
    let log: RequestLog
    let knownCases: Set<String>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        let path = request.uri.path
        let caseId = SuiteFiles.caseId(of: path).flatMap { knownCases.contains($0) ? $0 : nil }
        let record = LabRequestRecord(
            at: Date(), client: context.remoteAddress?.ipAddress ?? "unknown", clientPort: context.remoteAddress?.port,
            method: request.method.rawValue, path: String(path.prefix(2048)),
            query: request.uri.query.map { String($0.prefix(2048)) }, range: request.headers[.range].map { String($0.prefix(256)) },
            status: 0, bytes: 0, durationMs: 0, userAgent: request.headers[.userAgent].map { String($0.prefix(512)) },
            caseId: caseId)
        let log = self.log
        @Sendable func finish(status: Int, bytes: Int, expected: Int?, completed: Bool) {
            var done = record
            done.status = status
            done.bytes = bytes
            done.expectedBytes = expected
            done.completed = completed
            done.durationMs = Self.milliseconds(ContinuousClock.now - started)
            log.append(done)
        }
        let response: Response
        do { response = try await next(request, context) } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            finish(status: status, bytes: 0, expected: nil, completed: true)
            throw error
        }
        var counted = response
        let body = response.body
        let expected = request.method == .head ? 0 : body.contentLength
        let status = response.status.code
        counted.body = ResponseBody(contentLength: body.contentLength) { writer in
            let counter = ByteCounter()
            do {
                try await body.write(CountingWriter(parent: writer, counter: counter))
            } catch {
                finish(status: status, bytes: counter.value, expected: expected, completed: false)
                throw error
            }
            finish(status: status, bytes: counter.value, expected: expected, completed: true)
        }
        return counted
    }

    static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return (Double(seconds) * 1000 + Double(attoseconds) / 1e15).rounded(toPlaces: 3)
    }
}

/// Bytes written so far; used by one body write at a time.
private final class ByteCounter: @unchecked Sendable {
    var value = 0
}

private struct CountingWriter: ResponseBodyWriter {
    var parent: any ResponseBodyWriter
    let counter: ByteCounter

    mutating func write(_ buffer: ByteBuffer) async throws {
        try await parent.write(buffer)
        counter.value += buffer.readableBytes
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
        try await parent.finish(trailingHeaders)
    }
}

extension Double {
    func rounded(toPlaces places: Int) -> Double {
        let scale = pow(10, Double(places))
        return (self * scale).rounded() / scale
    }
}
