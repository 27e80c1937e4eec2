import NIOCore

/// `HAPFraming` in a swift-nio pipeline, first in line: bytes written are sealed into frames,
/// bytes read are opened before the HTTP handler sees them. A frame that does not open is an
/// error down the pipeline (the HTTP handler fails the request and closes the connection).
/// Touched only on its channel's event loop (hence unchecked Sendable).
final class HAPFramingHandler: ChannelDuplexHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var framing: HAPFraming
    private var failed = false

    init(keys: HAPChannelKeys) { framing = HAPFraming(keys: keys) }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !failed else { return }
        let buffer = unwrapInboundIn(data)
        do {
            let plain = try framing.open(buffer.readableBytesView)
            if !plain.isEmpty { context.fireChannelRead(wrapInboundOut(context.channel.allocator.buffer(bytes: plain))) }
        } catch {
            failed = true
            context.fireErrorCaught(error)
            context.close(promise: nil)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let buffer = unwrapOutboundIn(data)
        let sealed = framing.seal(buffer.readableBytesView)
        context.write(wrapOutboundOut(context.channel.allocator.buffer(bytes: sealed)), promise: promise)
    }
}
