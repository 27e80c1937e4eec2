import Foundation

/// Limits of one transfer. The defaults are generous for playlists and strict where players are.
public struct FetchLimits: Sendable, Equatable {
    public var maxBytes: Int
    /// Seconds until the response headers (or, for files, not used).
    public var connectTimeout: Double
    /// Seconds for the whole transfer.
    public var totalTimeout: Double
    public var maxRedirects: Int
    /// Stop at the headers when the server says it sends audio or video (lint never reads media).
    public var refuseMedia: Bool
    /// Which limit the two timeouts are, for the message when one fires.
    public var timeLimit: TimeLimit = .option

    public init(maxBytes: Int, connectTimeout: Double = 10, totalTimeout: Double = 30, maxRedirects: Int = 5, refuseMedia: Bool = true) {
        self.maxBytes = maxBytes
        self.connectTimeout = connectTimeout
        self.totalTimeout = totalTimeout
        self.maxRedirects = maxRedirects
        self.refuseMedia = refuseMedia
    }

    /// These limits with both timeouts at `seconds`, named `limit`.
    public func timed(_ seconds: Double, _ limit: TimeLimit) -> FetchLimits {
        var limits = self
        limits.connectTimeout = seconds
        limits.totalTimeout = seconds
        limits.timeLimit = limit
        return limits
    }

    public static let playlistBytes = 16 << 20
    public static let assetListBytes = 1 << 20
}

/// Who set a fetch's time limit: the message of a fetch that ran out names it, and says what to do.
public enum TimeLimit: String, Sendable, Equatable, Codable {
    /// The user's `--timeout` (or the project file's `timeout`, or its default).
    case option
    /// The fixed wait players give an interstitial's asset list or asset before skipping it:
    /// Seamcheck waits as long, whatever --timeout says (unless --timeout is shorter).
    case interstitial

    /// "15 s (--timeout)", "10 s (the players' wait for an interstitial)".
    public func describe(_ seconds: Double) -> String {
        let value = "\(HLSNumber.format(seconds)) s"
        switch self {
        case .option: return value + " (--timeout)"
        case .interstitial: return value + " (the time players wait for an interstitial before skipping it)"
        }
    }

    /// What the user can do when the limit fired.
    public var advice: String {
        switch self {
        case .option: return "raise --timeout to wait longer"
        case .interstitial: return "players skip an ad that takes longer, and --timeout does not change that: make the server answer faster"
        }
    }
}

/// A body read in full, within its limits.
public struct FetchedResource: Sendable {
    /// Where the body came from after redirects: relative references resolve against this.
    public var location: InputLocation
    public var data: Data
    public var contentType: String?
    /// Seconds from the request to the last byte.
    public var elapsed: Double

    public init(location: InputLocation, data: Data, contentType: String?, elapsed: Double) {
        self.location = location
        self.data = data
        self.contentType = contentType
        self.elapsed = elapsed
    }
}

/// Reads a location's bytes. The real one reads files and http(s); tests and rule examples give
/// an in-memory one.
public protocol ResourceFetching: Sendable {
    func fetch(_ location: InputLocation, limits: FetchLimits) async throws(LoadError) -> FetchedResource
}

/// Files from disk and http(s) through libcurl, each within its limits.
public struct ResourceFetcher: ResourceFetching {
    public init() {}

    public func fetch(_ location: InputLocation, limits: FetchLimits) async throws(LoadError) -> FetchedResource {
        switch location {
        case .file(let path): return try Self.readFile(path, limits: limits)
        case .remote(let url): return try await HTTPTransfer.fetch(url, limits: limits)
        }
    }

    /// Reads at most `maxBytes`; refuses directories, devices and FIFOs (a `/dev/zero` never ends).
    static func readFile(_ path: String, limits: FetchLimits) throws(LoadError) -> FetchedResource {
        let start = Date()
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { throw .fileNotFound(path) }
            throw .unreadable(path, reason: String(cString: strerror(errno)))
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw .notARegularFile(path) }
        guard Int(info.st_size) <= limits.maxBytes else { throw .tooLarge(path, limit: limits.maxBytes) }
        let data: Data
        switch FileBytes.read(path, expected: Int(info.st_size), limit: limits.maxBytes) {
        case .success(let bytes): data = bytes
        case .failure(let failure): throw .unreadable(path, reason: failure.reason)
        }
        guard data.count <= limits.maxBytes else { throw .tooLarge(path, limit: limits.maxBytes) }
        return FetchedResource(location: .file(path: path), data: data, contentType: nil, elapsed: Date().timeIntervalSince(start))
    }
}
