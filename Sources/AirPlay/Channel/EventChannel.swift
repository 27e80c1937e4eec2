import Foundation
import NIOCore
import NIOPosix

/// AirPlay 2's event channel: a second TCP connection, to the `eventPort` the RTSP SETUP answer
/// names, framed and encrypted like the control channel with the `events` keys. The receiver
/// sends requests on it; each gets an empty `200 OK` carrying its `CSeq` (and `Server`), as pyatv
/// answers. What the events say is not read: the sender only has to keep the channel open.
final class EventChannel: Sendable {
    private let channel: any Channel
    private let responder: EventResponder

    private init(channel: any Channel, responder: EventResponder) {
        self.channel = channel
        self.responder = responder
    }

    /// Connects to `port`; a refused connection is tried again `attempts - 1` more times,
    /// `retryDelay` seconds apart (some receivers open the port a moment after answering SETUP).
    static func connect(host: String, port: Int, keys: HAPChannelKeys, connectTimeout: Double,
                        attempts: Int, retryDelay: Double) async throws(ConnectionFailure) -> EventChannel {
        var remaining = max(attempts, 1)
        while true {
            remaining -= 1
            do {
                return try await connectOnce(host: host, port: port, keys: keys, connectTimeout: connectTimeout)
            } catch {
                guard remaining > 0, !Task.isCancelled else { throw error }
                try? await Task.sleep(nanoseconds: UInt64(max(retryDelay, 0) * 1_000_000_000))
            }
        }
    }

    private static func connectOnce(host: String, port: Int, keys: HAPChannelKeys,
                                    connectTimeout: Double) async throws(ConnectionFailure) -> EventChannel {
        let responder = EventResponder()
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.milliseconds(Int64(max(connectTimeout, 0.001) * 1000)))
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers([HAPFramingHandler(keys: keys), responder])
                }
            }
        do {
            return EventChannel(channel: try await bootstrap.connect(host: host, port: port).get(), responder: responder)
        } catch {
            if case ChannelError.connectTimeout = error {
                throw .connect("no answer within \(connectTimeout.formatted()) s")
            }
            throw .connect(Connection.describe(error))
        }
    }

    /// The receiver's requests answered so far (the tests read it).
    var answered: Int { get async { (try? await channel.eventLoop.submit { self.responder.answered }.get()) ?? 0 } }

    var isOpen: Bool { channel.isActive }

    func close() async { try? await channel.close() }
}

/// Parses the receiver's requests on the event channel (HTTP/RTSP heads, `Content-Length`
/// bodies skipped) and answers each. More than 64 KiB without a complete request closes the
/// channel. Touched only on its channel's event loop (hence unchecked Sendable).
final class EventResponder: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    static let maxPending = 64 * 1024

    private var pending: [UInt8] = []
    private(set) var answered = 0

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        pending += unwrapInboundIn(data).readableBytesView
        while let (answer, used) = Self.answer(to: pending) {
            pending.removeFirst(used)
            answered += 1
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: answer)), promise: nil)
        }
        if pending.count > Self.maxPending { context.close(promise: nil) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) { context.close(promise: nil) }

    /// The answer to the first complete request in `bytes` and how many bytes it used; nil until
    /// one is complete. Pure, for the tests.
    static func answer(to bytes: [UInt8]) -> (answer: [UInt8], used: Int)? {
        let crlf2: [UInt8] = [13, 10, 13, 10]
        guard bytes.count >= 4, let end = (0...(bytes.count - 4)).first(where: { Array(bytes[$0..<$0 + 4]) == crlf2 }) else { return nil }
        let head = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        var length = 0
        var keep: [(String, String)] = []
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            switch name.lowercased() {
            case "content-length": length = max(Int(value) ?? 0, 0)
            case "cseq": keep.append(("CSeq", value))
            case "server": keep.append(("Server", value))
            default: break
            }
        }
        let used = end + 4 + length
        guard bytes.count >= used else { return nil }
        let version = head.first?.split(separator: " ").last.map(String.init) ?? "RTSP/1.0"
        var text = "\(version.hasPrefix("HTTP/") ? version : "RTSP/1.0") 200 OK\r\nContent-Length: 0\r\nAudio-Latency: 0\r\n"
        for (name, value) in keep { text += "\(name): \(value)\r\n" }
        return (Array((text + "\r\n").utf8), used)
    }
}
