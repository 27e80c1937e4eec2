import Hummingbird
import NIOCore
import NIOHTTP1

/// One request a connection for a client that asked for no more: HTTP/1.0 without
/// `Connection: keep-alive` (RFC 9112 9.3), or any `Connection: close`. Hummingbird reads only the
/// HTTP types' headers, which carry no version, and ends a connection on `Connection: close`
/// alone; so the request head gets that header here, where the version is still known (between
/// NIO's HTTP/1 decoder and the conversion to HTTP types). Added to the pipeline by `Installer`,
/// which Hummingbird places after that conversion.
final class HTTP10Closer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(var head) = unwrapInboundIn(data), !head.isKeepAlive {
            head.headers.replaceOrAdd(name: "connection", value: "close")
            context.fireChannelRead(wrapInboundOut(.head(head)))
            return
        }
        context.fireChannelRead(data)
    }

    /// Puts an `HTTP10Closer` right after the HTTP/1 request decoder when added to a pipeline.
    final class Installer: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = NIOAny

        func handlerAdded(context: ChannelHandlerContext) {
            let pipeline = context.pipeline.syncOperations
            guard let decoder = try? pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self) else { return }
            try? pipeline.addHandler(HTTP10Closer(), position: .after(decoder))
        }
    }
}

/// A request context that knows the address the connection arrived at: where a client that sent
/// no Host header reached the server (the bound port even when it listens on port 0).
public protocol LocalAddressRequestContext: RequestContext {
    var localAddress: SocketAddress? { get }
}

extension SuiteFiles {
    /// `ADDRESS:PORT` (`[ADDRESS]:PORT` for IPv6) of a socket address, or nil without an IP and port.
    static func authority(_ address: SocketAddress?) -> String? {
        guard let address, let ip = address.ipAddress, let port = address.port, port > 0 else { return nil }
        return (ip.contains(":") ? "[\(ip)]" : ip) + ":\(port)"
    }
}
