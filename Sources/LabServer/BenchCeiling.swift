import Hummingbird
import NIOCore
import NIOHTTP1
import NIOPosix

/// Bench only (`scripts/bench/lab-serve.sh`, through `lab serve --bench-ceiling`): what this stack
/// can reach on this machine, measured under the same wrk load as the lab server. A Hummingbird
/// application with one route answering every GET with a constant body (the Hummingbird version and
/// event loops `lab serve` uses), or a bare SwiftNIO HTTP/1 server doing the same. No log, no files.
public enum BenchCeiling {
    public enum Kind: String, Sendable, CaseIterable {
        case hummingbird, nio
    }

    /// Serves until the process is stopped; `onRunning` gets the bound port.
    public static func run(_ kind: Kind, bind: String, port: Int, bodyBytes: Int,
                           onRunning: @escaping @Sendable (Int) -> Void = { _ in }) async throws {
        let body = ByteBuffer(repeating: UInt8(ascii: "#"), count: max(0, bodyBytes))
        switch kind {
        case .hummingbird:
            let router = Router()
            router.get("**") { _, _ in
                Response(status: .ok, headers: [.contentType: "application/vnd.apple.mpegurl", .cacheControl: "no-cache"],
                         body: .init(byteBuffer: body))
            }
            let app = Application(router: router,
                                  configuration: .init(address: .hostname(bind, port: port), serverName: "seamcheck-lab"),
                                  onServerRunning: { channel in onRunning(channel.localAddress?.port ?? port) })
            try await app.runService()
        case .nio:
            let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.backlog, value: 256)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                        try channel.pipeline.syncOperations.addHandler(ConstantResponder(body: body))
                    }
                }
                .bind(host: bind, port: port).get()
            onRunning(channel.localAddress?.port ?? port)
            try await channel.closeFuture.get()
        }
    }

    /// Answers every request with `body` (keep-alive as the request asks).
    private final class ConstantResponder: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let body: ByteBuffer
        private var keepAlive = true

        init(body: ByteBuffer) { self.body = body }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head): keepAlive = head.isKeepAlive
            case .body: break
            case .end:
                var headers = HTTPHeaders()
                headers.add(name: "content-type", value: "application/vnd.apple.mpegurl")
                headers.add(name: "cache-control", value: "no-cache")
                headers.add(name: "content-length", value: String(body.readableBytes))
                if !keepAlive { headers.add(name: "connection", value: "close") }
                context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
                context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
                if !keepAlive { context.close(promise: nil) }
            }
        }
    }
}
