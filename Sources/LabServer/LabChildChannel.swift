import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// The lab server's connections: Hummingbird's HTTP/1 channel (`HTTP1Channel`: NIO's HTTP/1
/// codec, the conversion to HTTP types, its connection state handler, the async channel its request
/// loop reads), with the lab's own handlers where they must sit, in this order from the socket:
///
/// 0. NIO's `BackPressureHandler`: no read from the socket while the channel cannot write, so a
///    client that pipelines requests without reading their answers leaves them in the kernel's
///    buffers instead of making the server queue an answer for each.
/// 1. `IdleStateHandler(writeTimeout:)` and `StalledWriteCloser`: a connection none of whose writes
///    completed for the idle timeout is closed (a client that stopped reading mid-segment, or an
///    idle one). First, so it sees the fast path's writes as well as Hummingbird's. It is the
///    connection's only idle timeout: Hummingbird's counts only the requests it sees, so it would
///    close a connection the fast path keeps busy.
/// 2. `PlaylistFastPath` (unless the bench turns it off): playlists answered from the bytes.
/// 3. NIO's response encoder and request decoder, then `LabConnectionHandler` (HTTP/1.0 close,
///    rejected requests logged, socket metering, the count of requests handed on).
/// 4. Hummingbird's HTTP types codec and `HTTPConnectionStateHandler` (graceful shutdown, close
///    after `Connection: close`), and its async channel.
struct LabChildChannel: ServerChildChannel, HTTPChannelHandler {
    typealias Value = NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>

    let responder: HTTPChannelHandler.Responder
    let log: RequestLog
    let fastPath: PlaylistFastPath.Responder?
    let idleTimeout: TimeAmount

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            let pipeline = channel.pipeline.syncOperations
            let ledger = ConnectionLedger()
            try pipeline.addHandler(BackPressureHandler())
            try pipeline.addHandler(IdleStateHandler(writeTimeout: idleTimeout))
            try pipeline.addHandler(StalledWriteCloser())
            if let fastPath {
                try pipeline.addHandler(PlaylistFastPath(responder: fastPath, ledger: ledger))
            }
            // As HTTP1Channel sets it up, with its default decoder limits.
            var limits = NIOHTTPDecoderLimitConfiguration()
            limits.maxHeaderFieldSize = 80 * 1024
            limits.maxHeaderListSize = 80 * 1024
            limits.maxHeaderFieldCount = 1000
            try pipeline.configureHTTPServerPipeline(
                withPipeliningAssistance: false, withErrorHandling: false, withOutboundHeaderValidation: false,
                withEncoderConfiguration: .init(), withDecoderLimitConfiguration: limits)
            try pipeline.addHandler(LabConnectionHandler(log: log, ledger: ledger))
            try pipeline.addHandler(HTTP1ToHTTPServerCodec(secure: false))
            try pipeline.addHandler(HTTPConnectionStateHandler(idleTimeout: nil, logger: logger))
            return try NIOAsyncChannel(wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
        }
    }

    func handle(value asyncChannel: Value, logger: Logger) async {
        await handleHTTP(asyncChannel: asyncChannel, logger: logger)
    }
}
