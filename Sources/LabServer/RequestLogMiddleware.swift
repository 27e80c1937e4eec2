import Foundation
import LabCore
import Hummingbird
import NIOCore
import ServiceLifecycle

/// The request context of the lab server: Hummingbird's, plus the client's address and connection.
public struct LabRequestContext: RequestContext, RemoteAddressRequestContext, LocalAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?
    let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        channel = source.channel
    }

    public var localAddress: SocketAddress? { channel.localAddress }
}

/// Records every request in the request log once its body is in the socket, or once the client went
/// away mid-body (`completed` false): what a receiver fetched, and how far. `bytes` are the body bytes
/// the socket took (SocketMeter), not those handed to the channel. It also applies the backpressure:
/// each body write waits until at most `inFlightLimit` bytes are still on their way to the socket.
/// A body still being written `shutdownGrace` after the server began to stop is cut (closed).
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = LabRequestContext
    let log: RequestLog
    let knownCases: Set<String>
    /// The lab token: a request carrying it and `LabAccess.pushedForHeader` is logged as the
    /// receiver's it names (the sender fetched it on that receiver's behalf).
    var token: String? = nil
    /// Body bytes a connection may have handed to NIO and not yet into its socket.
    static var inFlightLimit: Int { 2 * SuiteFileProvider.chunkLength }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        let path = request.uri.path
        let caseId = SuiteFiles.caseId(of: path).flatMap { knownCases.contains($0) ? $0 : nil }
        var client = context.remoteAddress?.ipAddress ?? "unknown"
        var clientPort = context.remoteAddress?.port
        var userAgent = request.headers[.userAgent].map { String($0.prefix(512)) }
        if let token, let receiver = LabAccess.pushedFor(request, token: token) {
            userAgent = (userAgent.map { $0 + " " } ?? "") + "(pushed by the sender at \(client))"
            client = receiver
            clientPort = nil
        }
        let record = LabRequestRecord(
            at: Date(), client: client, clientPort: clientPort,
            method: request.method.rawValue, path: String(path.prefix(2048)),
            query: request.uri.query.map { String($0.prefix(2048)) }, range: request.headers[.range].map { String($0.prefix(256)) },
            status: 0, bytes: 0, durationMs: 0, userAgent: userAgent,
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
        let channel = context.channel
        counted.body = ResponseBody(contentLength: body.contentLength) { writer in
            guard let meter = SocketMeter.meter(of: channel) else {
                // No meter: the connection closed already (its handlers are gone). Nothing is claimed
                // as sent unless the write goes through.
                do { try await body.write(writer) } catch {
                    finish(status: status, bytes: 0, expected: expected, completed: false)
                    throw error
                }
                finish(status: status, bytes: expected ?? 0, expected: expected, completed: true)
                return
            }
            let start = meter.reading
            var failure: (any Error)?
            do {
                try await withGracefulShutdownHandler {
                    try await body.write(MeteredWriter(parent: writer, meter: meter, limit: Self.inFlightLimit))
                    await meter.wait(untilUnsettledAtMost: 0)
                } onGracefulShutdown: {
                    Self.cut(channel)
                }
            } catch { failure = error }
            let end = meter.reading
            finish(status: status, bytes: end.taken - start.taken, expected: expected,
                   completed: failure == nil && end.failed == start.failed)
            if let failure { throw failure }
        }
        return counted
    }

    /// How long a body still being written when the server stops (SIGTERM, SIGINT) may go on.
    static let shutdownGrace = TimeAmount.seconds(1)

    /// Closes `channel` after `shutdownGrace`: without this a client that stopped reading holds the
    /// shutdown until the idle timeout. Its writes then fail and the request is logged cut, with the
    /// bytes its socket took.
    static func cut(_ channel: any Channel) {
        channel.eventLoop.scheduleTask(in: shutdownGrace) { channel.close(promise: nil) }
    }

    static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return (Double(seconds) * 1000 + Double(attoseconds) / 1e15).rounded(toPlaces: 3)
    }
}

/// Hands each body chunk to the channel through the meter, then waits until the socket has taken
/// all but `limit` bytes: a client that stops reading stops the file reads too.
private struct MeteredWriter: ResponseBodyWriter {
    var parent: any ResponseBodyWriter
    let meter: SocketMeter
    let limit: Int

    mutating func write(_ buffer: ByteBuffer) async throws {
        meter.hand(buffer.readableBytes)
        try await parent.write(buffer)
        await meter.wait(untilUnsettledAtMost: limit)
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
