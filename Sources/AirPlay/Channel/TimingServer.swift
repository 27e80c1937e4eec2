import Foundation
import NIOCore
import NIOPosix

/// The NTP-style timing responder AirPlay 2's SETUP names (`timingProtocol: NTP`, `timingPort`),
/// as pyatv's URL player runs one: UDP on the control connection's local address; each 32-byte
/// request (big-endian: proto, type, seqno, padding, then reference, receive and send times as
/// NTP seconds and fraction) is answered with type 0xD3, seqno 7, the request's send time as the
/// reference and now as receive and send time. Whether a receiver's clock sync is content with it
/// was not checked (no receiver); that it answers as described is.
final class TimingServer: Sendable {
    private let channel: any Channel
    private let handler: TimingHandler

    private init(channel: any Channel, handler: TimingHandler) {
        self.channel = channel
        self.handler = handler
    }

    /// Timing requests answered so far (a receiver that stopped asking shows here).
    var answered: Int { handler.answeredCount }

    /// Binds `host`:0 (the local address the receiver reaches us on).
    static func start(host: String) async throws(ConnectionFailure) -> TimingServer {
        let handler = TimingHandler()
        let bootstrap = DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(handler) }
            }
        do {
            return TimingServer(channel: try await bootstrap.bind(host: host, port: 0).get(), handler: handler)
        } catch {
            throw .connect(Connection.describe(error))
        }
    }

    var port: Int { channel.localAddress?.port ?? 0 }

    func close() async { try? await channel.close() }

    /// NTP time now: seconds since 1900 and a 32-bit fraction.
    static func ntpNow() -> (seconds: UInt32, fraction: UInt32) {
        let now = Date().timeIntervalSince1970
        let whole = floor(now)
        return (UInt32(truncatingIfNeeded: Int64(whole) + 0x83AA_7E80), UInt32(min((now - whole) * 4_294_967_296, 4_294_967_295)))
    }

    /// The answer to one timing request; nil for fewer than 32 bytes. Pure, for the tests.
    static func reply(to request: [UInt8], now: (seconds: UInt32, fraction: UInt32)) -> [UInt8]? {
        guard request.count >= 32 else { return nil }
        var out: [UInt8] = [request[0], 0xD3, 0x00, 0x07, 0, 0, 0, 0]
        out += request[24..<32]  // their send time is our reference time
        for value in [now.seconds, now.fraction, now.seconds, now.fraction] {
            out += [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
        }
        return out
    }
}

/// Answers each datagram with `TimingServer.reply`; others are dropped.
final class TimingHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    typealias OutboundOut = AddressedEnvelope<ByteBuffer>
    private let lock = NSLock()
    private var answered = 0
    var answeredCount: Int { lock.withLock { answered } }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        guard let answer = TimingServer.reply(to: Array(envelope.data.readableBytesView), now: TimingServer.ntpNow()) else { return }
        lock.withLock { answered += 1 }
        let out = AddressedEnvelope(remoteAddress: envelope.remoteAddress, data: context.channel.allocator.buffer(bytes: answer))
        context.writeAndFlush(wrapOutboundOut(out), promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {}  // an ICMP error on UDP: keep serving
}
