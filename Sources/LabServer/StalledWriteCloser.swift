import NIOCore

/// Closes a connection whose writes have not completed for the idle timeout: a client that stops
/// reading mid-segment. Hummingbird's own idle timer only watches a connection between requests,
/// so without this a stalled receiver would hold its connection, and the response it is not
/// reading, forever. Sits behind an `IdleStateHandler(writeTimeout:)`, which raises the event.
final class StalledWriteCloser: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case IdleStateHandler.IdleStateEvent.write = event as? IdleStateHandler.IdleStateEvent ?? .read {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }
}
