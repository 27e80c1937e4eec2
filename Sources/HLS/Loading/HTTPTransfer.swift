import CCurl
import Foundation

/// One http(s) GET through libcurl, on a thread of its own, with every limit enforced as the
/// bytes arrive.
///
/// libcurl's multi interface is driven here rather than URLSession: on Linux a cancelled
/// URLSession task keeps reading for a while (a whole 2 GB body under load), where returning 0
/// from a libcurl callback stops the transfer at once. Redirects are followed by hand so every
/// hop is checked (scheme, loops, count) before it is requested. The connect timeout counts, per
/// hop, until the final response's headers (a server that accepts and never answers trips it);
/// the total timeout counts across every hop. Both run on the monotonic clock.
final class HTTPTransfer: @unchecked Sendable {
    /// How long one wait for socket activity may block before the clocks and the cancel flag are
    /// checked again; a cancel also wakes the wait at once.
    private static let tick: Int32 = 100

    private let url: URL
    private let limits: FetchLimits
    private let started = ContinuousClock.now
    private let lock = NSLock()
    private var cancelled = false
    private var multi: UnsafeMutableRawPointer?

    /// State of the hop in flight; only the transfer's thread touches it.
    private var body = Data()
    private var headersDone = false
    /// The hop was stopped on purpose at a redirect's headers.
    private var stoppedAtRedirect = false
    /// The Location header of the response in flight, as sent.
    private var location: String?
    private var gotResponse = false
    private var verdict: LoadError?
    private var current: URL
    private var currentEasy: UnsafeMutableRawPointer?

    private init(url: URL, limits: FetchLimits) {
        self.url = url
        self.limits = limits
        current = url
    }

    static func fetch(_ url: URL, limits: FetchLimits) async throws(LoadError) -> FetchedResource {
        let transfer = HTTPTransfer(url: url, limits: limits)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let thread = Thread { continuation.resume(returning: transfer.run()) }
                thread.name = "seamcheck-http"
                thread.start()
            }
        } onCancel: {
            transfer.cancel()
        }
        return try result.get()
    }

    private func cancel() {
        lock.withLock {
            cancelled = true
            if let multi { sc_curl_multi_wakeup(multi) }
        }
    }

    private var isCancelled: Bool { lock.withLock { cancelled } }

    private func run() -> Result<FetchedResource, LoadError> {
        let timer = Date()
        if sc_curl_load() != 0 {
            return .failure(.httpUnavailable(url.absoluteString, reason: String(cString: sc_curl_load_error())))
        }
        guard let multi = sc_curl_multi_init() else {
            return .failure(.connectionFailed(url.absoluteString, reason: "libcurl could not start a transfer"))
        }
        lock.withLock { self.multi = multi }
        defer {
            lock.withLock { self.multi = nil }
            sc_curl_multi_cleanup(multi)
        }
        var visited: Set<String> = [url.absoluteString]
        var redirects = 0
        while true {
            if isCancelled { return .failure(.cancelled(url.absoluteString)) }
            let hop = request(current, on: multi)
            switch hop {
            case .failure(let error): return .failure(error)
            case .success(.body(let data, let type)):
                return .success(FetchedResource(location: .remote(current), data: data, contentType: type,
                                                elapsed: Date().timeIntervalSince(timer)))
            case .success(.redirect(let target)):
                let from = current.absoluteString
                guard !target.isEmpty, let next = URL(string: target, relativeTo: current)?.absoluteURL else {
                    return .failure(.badRedirect(from, location: target))
                }
                guard ["http", "https"].contains(next.scheme?.lowercased() ?? "") else {
                    return .failure(.redirectToUnsupportedScheme(from, target: next.absoluteString))
                }
                guard visited.insert(next.absoluteString).inserted else { return .failure(.redirectLoop(url.absoluteString)) }
                redirects += 1
                guard redirects <= limits.maxRedirects else {
                    return .failure(.tooManyRedirects(url.absoluteString, limit: limits.maxRedirects))
                }
                current = next
            }
        }
    }

    private enum Hop {
        case body(Data, contentType: String?)
        case redirect(String)
    }

    /// One request, without following redirects.
    private func request(_ target: URL, on multi: UnsafeMutableRawPointer) -> Result<Hop, LoadError> {
        guard let easy = sc_curl_easy_init() else {
            return .failure(.connectionFailed(url.absoluteString, reason: "libcurl could not start a transfer"))
        }
        var headers: UnsafeMutablePointer<curl_slist>?
        headers = sc_curl_slist_append(headers, "Accept: application/vnd.apple.mpegurl, application/x-mpegurl, application/json;q=0.9, */*;q=0.5")
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(sc_curl_error_size()))
        errorBuffer.initialize(to: 0)
        defer {
            sc_curl_multi_remove_handle(multi, easy)
            sc_curl_easy_cleanup(easy)
            sc_curl_slist_free_all(headers)
            errorBuffer.deallocate()
        }
        body = Data()
        currentEasy = easy
        headersDone = false
        stoppedAtRedirect = false
        location = nil
        gotResponse = false
        verdict = nil

        let me = Unmanaged.passUnretained(self).toOpaque()
        _ = sc_curl_set_string(easy, CURLOPT_URL, target.absoluteString)
        guard sc_curl_restrict_to_http(easy) == CURLE_OK else {
            return .failure(.httpUnavailable(url.absoluteString, reason: "this libcurl cannot be limited to http and https"))
        }
        // With a proxy, its CONNECT reply stays out of the header callback (it is not the answer).
        _ = sc_curl_set_long(easy, CURLOPT_SUPPRESS_CONNECT_HEADERS, 1)
        // Cleaning up a handle must not wait for a name lookup in flight (cancel, timeouts).
        _ = sc_curl_set_long(easy, CURLOPT_QUICK_EXIT, 1)
        _ = sc_curl_set_long(easy, CURLOPT_FOLLOWLOCATION, 0)
        _ = sc_curl_set_long(easy, CURLOPT_NOSIGNAL, 1)
        _ = sc_curl_set_string(easy, CURLOPT_USERAGENT, "seamcheck")
        _ = sc_curl_set_list(easy, CURLOPT_HTTPHEADER, headers)
        // Playlists are often served gzip; the limit counts the decoded bytes.
        _ = sc_curl_set_string(easy, CURLOPT_ACCEPT_ENCODING, "")
        _ = sc_curl_set_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(limits.connectTimeout))
        _ = sc_curl_set_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer)
        _ = sc_curl_set_write(easy, CURLOPT_HEADERFUNCTION, { data, size, count, context in
            let transfer = Unmanaged<HTTPTransfer>.fromOpaque(context!).takeUnretainedValue()
            return transfer.header(UnsafeRawBufferPointer(start: data, count: size * count)) ? size * count : 0
        })
        _ = sc_curl_set_pointer(easy, CURLOPT_HEADERDATA, me)
        _ = sc_curl_set_write(easy, CURLOPT_WRITEFUNCTION, { data, size, count, context in
            let transfer = Unmanaged<HTTPTransfer>.fromOpaque(context!).takeUnretainedValue()
            return transfer.received(UnsafeRawBufferPointer(start: data, count: size * count)) ? size * count : 0
        })
        _ = sc_curl_set_pointer(easy, CURLOPT_WRITEDATA, me)

        let hopStarted = ContinuousClock.now
        guard sc_curl_multi_add_handle(multi, easy) == CURLM_OK else {
            return .failure(.connectionFailed(url.absoluteString, reason: "libcurl could not start a transfer"))
        }
        var running: Int32 = 1
        var code = CURLE_OK
        while running > 0 {
            guard sc_curl_multi_perform(multi, &running) == CURLM_OK else {
                return .failure(.connectionFailed(url.absoluteString, reason: "libcurl failed"))
            }
            if let verdict { return .failure(verdict) }
            if running == 0 { break }
            if isCancelled { return .failure(.cancelled(url.absoluteString)) }
            let now = ContinuousClock.now
            let total = Self.seconds(now - started), waiting = Self.seconds(now - hopStarted)
            if !gotResponse, waiting >= limits.connectTimeout {
                return .failure(silence(easy, seconds: limits.connectTimeout))
            }
            if total >= limits.totalTimeout {
                return .failure(gotResponse ? .timedOut(current.absoluteString, seconds: limits.totalTimeout, limit: limits.timeLimit)
                                            : .noResponse(current.absoluteString, seconds: limits.totalTimeout, limit: limits.timeLimit))
            }
            let left = gotResponse ? limits.totalTimeout - total
                                   : min(limits.connectTimeout - waiting, limits.totalTimeout - total)
            let wait = min(Self.tick, Int32(clamping: Self.milliseconds(left) + 1))
            _ = sc_curl_multi_poll(multi, wait)
        }
        var queued: Int32 = 0
        while let message = sc_curl_multi_info_read(multi, &queued) {
            if message.pointee.msg == CURLMSG_DONE { code = sc_curl_msg_result(message) }
        }
        if let verdict { return .failure(verdict) }
        switch code {
        case CURLE_OK: break
        case CURLE_WRITE_ERROR where stoppedAtRedirect: break
        case CURLE_OPERATION_TIMEDOUT:
            return .failure(gotResponse ? .timedOut(current.absoluteString, seconds: limits.totalTimeout, limit: limits.timeLimit)
                                        : silence(easy, seconds: limits.connectTimeout))
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_CONNECT:
            let detail = String(cString: errorBuffer)
            return .failure(.hostUnreachable(current.absoluteString,
                                             reason: detail.isEmpty ? String(cString: sc_curl_easy_strerror(code)) : detail))
        default:
            let detail = String(cString: errorBuffer)
            let reason = detail.isEmpty ? String(cString: sc_curl_easy_strerror(code)) : detail
            return .failure(.connectionFailed(url.absoluteString, reason: reason))
        }
        // A response without a body never reached the header checks' end; run them now.
        if !headersDone, let verdict = responseVerdict(easy) { return .failure(verdict) }
        let status = Self.long(easy, CURLINFO_RESPONSE_CODE)
        if (300..<400).contains(status) {
            guard let location else { return .failure(.httpStatus(current.absoluteString, code: status)) }
            return .success(.redirect(location))
        }
        return .success(.body(body, contentType: Self.contentType(easy)))
    }

    /// No answer in time: from a host that never took the TCP connection (nothing listens, or
    /// its packets are dropped) or from a server that took it and stayed silent.
    private func silence(_ easy: UnsafeMutableRawPointer, seconds: Double) -> LoadError {
        var connected: curl_off_t = 0
        _ = sc_curl_get_offset(easy, CURLINFO_CONNECT_TIME_T, &connected)
        if connected == 0 {
            return .hostUnreachable(current.absoluteString, reason: "no connection within \(limits.timeLimit.describe(seconds))")
        }
        return .noResponse(current.absoluteString, seconds: seconds, limit: limits.timeLimit)
    }

    /// Called per header line; at the blank line that ends a final response's headers, decides
    /// whether the body is wanted. Returning false aborts the transfer.
    private func header(_ line: UnsafeRawBufferPointer) -> Bool {
        guard line.count <= 2, line.allSatisfy({ $0 == 0x0D || $0 == 0x0A }) else {
            let text = String(decoding: line, as: UTF8.self)
            if text.hasPrefix("HTTP/") { location = nil }
            if let colon = text.firstIndex(of: ":"), text[..<colon].lowercased() == "location" {
                location = text[text.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
            }
            return true
        }
        // The end of a header block; 1xx blocks (100 Continue) are followed by the real one.
        guard let easy = currentEasy else { return true }
        let status = Self.long(easy, CURLINFO_RESPONSE_CODE)
        if status < 200 { return true }
        gotResponse = true
        headersDone = true
        if let verdict = responseVerdict(easy) {
            self.verdict = verdict
            return false
        }
        // A redirect's own body is of no interest: stop there, the Location is already parsed.
        stoppedAtRedirect = (300..<400).contains(status)
        return !stoppedAtRedirect
    }

    private func received(_ data: UnsafeRawBufferPointer) -> Bool {
        if isCancelled {
            verdict = .cancelled(url.absoluteString)
            return false
        }
        guard body.count + data.count <= limits.maxBytes else {
            verdict = .tooLarge(current.absoluteString, limit: limits.maxBytes)
            return false
        }
        body.append(contentsOf: data)
        return true
    }

    /// What is wrong with a final response before its body: a failing status, media, a declared
    /// length over the limit.
    private func responseVerdict(_ easy: UnsafeMutableRawPointer) -> LoadError? {
        let status = Self.long(easy, CURLINFO_RESPONSE_CODE)
        let here = current.absoluteString
        if (300..<400).contains(status) { return nil }
        guard (200..<300).contains(status) else { return .httpStatus(here, code: status) }
        let type = Self.contentType(easy) ?? ""
        if limits.refuseMedia, type.hasPrefix("video/") || (type.hasPrefix("audio/") && !type.contains("mpegurl")) {
            return .mediaInsteadOfPlaylist(here, contentType: type)
        }
        var length: curl_off_t = -1
        if sc_curl_get_offset(easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length) == CURLE_OK, length > limits.maxBytes {
            return .tooLarge(here, limit: limits.maxBytes)
        }
        return nil
    }

    private static func long(_ easy: UnsafeMutableRawPointer, _ info: CURLINFO) -> Int {
        var value = 0
        _ = sc_curl_get_long(easy, info, &value)
        return value
    }

    private static func contentType(_ easy: UnsafeMutableRawPointer) -> String? {
        var type: UnsafeMutablePointer<CChar>?
        guard sc_curl_get_string(easy, CURLINFO_CONTENT_TYPE, &type) == CURLE_OK, let type else { return nil }
        let text = String(cString: type).lowercased()
        return text.isEmpty ? nil : text
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private static func milliseconds(_ seconds: Double) -> Int {
        Int(max(0, min(seconds, 86_400)) * 1000)
    }
}
