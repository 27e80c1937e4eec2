import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One http(s) GET through URLSession, with a delegate that enforces the limits as bytes arrive.
///
/// Counting in the delegate is what keeps a 2 GB response from being buffered: the task is
/// cancelled as soon as the Content-Length or the bytes received pass the limit. The connect and
/// total timeouts are our own timers, because URLSession's request timeout is an idle timeout
/// (a server dripping a byte a second never trips it) and its resource timeout is not honoured
/// the same way on every platform.
final class HTTPTransfer: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private let url: URL
    private let limits: FetchLimits
    private let started = Date()
    private var current: URL
    private var visited: Set<String>
    private var redirects = 0
    private var body = Data()
    private var contentType: String?
    private var gotResponse = false
    private var continuation: CheckedContinuation<Result<FetchedResource, LoadError>, Never>?
    /// A result that arrived before `start` (the task was already cancelled), and whether the
    /// caller has been resumed.
    private var early: Result<FetchedResource, LoadError>?
    private var resumed = false
    private var session: URLSession?
    private var timers: [DispatchWorkItem] = []

    private init(url: URL, limits: FetchLimits) {
        self.url = url
        self.limits = limits
        current = url
        visited = [url.absoluteString]
    }

    static func fetch(_ url: URL, limits: FetchLimits) async throws(LoadError) -> FetchedResource {
        let transfer = HTTPTransfer(url: url, limits: limits)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in transfer.start(continuation) }
        } onCancel: {
            transfer.finish(.failure(.connectionFailed(url.absoluteString, reason: "cancelled")))
        }
        return try result.get()
    }

    private func start(_ continuation: CheckedContinuation<Result<FetchedResource, LoadError>, Never>) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = limits.totalTimeout + 1
        configuration.timeoutIntervalForResource = limits.totalTimeout + 1
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let session = URLSession(configuration: configuration, delegate: self, delegateQueue: queue)
        var request = URLRequest(url: url)
        request.setValue("seamcheck", forHTTPHeaderField: "User-Agent")
        request.setValue("application/vnd.apple.mpegurl, application/x-mpegurl, application/json;q=0.9, */*;q=0.5",
                         forHTTPHeaderField: "Accept")
        let connect = DispatchWorkItem { [self] in
            let waiting = lock.withLock { !gotResponse }
            if waiting { finish(.failure(.noResponse(url.absoluteString, seconds: limits.connectTimeout))) }
        }
        let total = DispatchWorkItem { [self] in
            let answered = lock.withLock { gotResponse }
            finish(.failure(answered ? .timedOut(url.absoluteString, seconds: limits.totalTimeout)
                                     : .noResponse(url.absoluteString, seconds: limits.totalTimeout)))
        }
        let cancelledBeforeStart: Result<FetchedResource, LoadError>? = lock.withLock {
            if let early {
                resumed = true
                return early
            }
            self.continuation = continuation
            self.session = session
            timers = [connect, total]
            return nil
        }
        if let cancelledBeforeStart {
            session.invalidateAndCancel()
            return continuation.resume(returning: cancelledBeforeStart)
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + limits.connectTimeout, execute: connect)
        DispatchQueue.global().asyncAfter(deadline: .now() + limits.totalTimeout, execute: total)
        session.dataTask(with: request).resume()
    }

    /// Resumes the caller once; later calls (a timer after completion, a late callback) do nothing.
    private func finish(_ result: Result<FetchedResource, LoadError>) {
        let (continuation, session, timers) = lock.withLock {
            if self.continuation == nil, !resumed, early == nil { early = result }
            if self.continuation != nil { resumed = true }
            let taken = (self.continuation, self.session, self.timers)
            self.continuation = nil
            self.session = nil
            self.timers = []
            body = Data()
            return taken
        }
        guard let continuation else { return }
        timers.forEach { $0.cancel() }
        session?.invalidateAndCancel()
        continuation.resume(returning: result)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        lock.withLock { gotResponse = true }
        let where_ = lock.withLock { current.absoluteString }
        guard let http = response as? HTTPURLResponse else { completionHandler(.allow); return }
        guard (200..<300).contains(http.statusCode) else {
            completionHandler(.cancel)
            return finish(.failure(.httpStatus(where_, code: http.statusCode)))
        }
        let type = (http.value(forHTTPHeaderField: "Content-Type") ?? "").lowercased()
        if limits.refuseMedia, type.hasPrefix("video/") || (type.hasPrefix("audio/") && !type.contains("mpegurl")) {
            completionHandler(.cancel)
            return finish(.failure(.mediaInsteadOfPlaylist(where_, contentType: type)))
        }
        if http.expectedContentLength > Int64(limits.maxBytes) {
            completionHandler(.cancel)
            return finish(.failure(.tooLarge(where_, limit: limits.maxBytes)))
        }
        lock.withLock { contentType = type.isEmpty ? nil : type }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let (size, where_) = lock.withLock {
            body.append(data)
            return (body.count, current.absoluteString)
        }
        if size > limits.maxBytes {
            dataTask.cancel()
            finish(.failure(.tooLarge(where_, limit: limits.maxBytes)))
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        guard let target = request.url else { completionHandler(nil); return }
        let verdict: LoadError? = lock.withLock {
            let from = current.absoluteString
            guard ["http", "https"].contains(target.scheme?.lowercased() ?? "") else {
                return .redirectToUnsupportedScheme(from, target: target.absoluteString)
            }
            guard visited.insert(target.absoluteString).inserted else { return .redirectLoop(url.absoluteString) }
            redirects += 1
            guard redirects <= limits.maxRedirects else { return .tooManyRedirects(url.absoluteString, limit: limits.maxRedirects) }
            current = target
            return nil
        }
        if let verdict {
            completionHandler(nil)
            task.cancel()
            return finish(.failure(verdict))
        }
        completionHandler(request)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (data, type, where_) = lock.withLock { (body, contentType, current) }
        if let error {
            let code = (error as? URLError)?.code
            let text = url.absoluteString
            switch code {
            case .cancelled?: return finish(.failure(.connectionFailed(text, reason: "cancelled")))
            case .timedOut?: return finish(.failure(.timedOut(text, seconds: limits.totalTimeout)))
            default: return finish(.failure(.connectionFailed(text, reason: error.localizedDescription)))
            }
        }
        finish(.success(FetchedResource(location: .remote(where_), data: data, contentType: type,
                                        elapsed: Date().timeIntervalSince(started))))
    }
}
