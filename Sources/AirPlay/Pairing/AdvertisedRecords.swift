import Foundation

/// What a receiver named only by address says about itself, for choosing how to pair: RTSP
/// `GET /info` with a binary plist `{qualifier: ["txtAirPlay"]}`, then `["txtRAOP"]` (as iOS
/// asks; UxPlay reads one qualifier per request and ignores the URL's when a `CSeq` is sent)
/// gives its features, status flags and, where it includes them, the bytes of its two TXT records.
public struct AdvertisedRecords: Sendable, Equatable {
    public var features: UInt64?
    public var statusFlags: UInt64?
    /// The `_airplay._tcp` and `_raop._tcp` TXT records, key -> value (nil for a bare key).
    public var airplay: [String: String?]?
    public var raop: [String: String?]?

    public init(features: UInt64? = nil, statusFlags: UInt64? = nil, airplay: [String: String?]? = nil, raop: [String: String?]? = nil) {
        self.features = features
        self.statusFlags = statusFlags
        self.airplay = airplay
        self.raop = raop
    }

    /// Asks `endpoint` once, on a connection of its own; nil when it does not answer with a plist.
    public static func fetch(_ endpoint: AirPlayEndpoint, configuration: AirPlayConfiguration = .init(requestTimeout: 2)) async -> AdvertisedRecords? {
        guard let line = try? await RTSPPairingLine(endpoint, configuration: configuration) else { return nil }
        defer { Task { await line.close() } }
        guard let plist = await info(line, qualifier: "txtAirPlay") else { return nil }
        let raop = await info(line, qualifier: "txtRAOP")
        return AdvertisedRecords(features: (plist["features"] as? NSNumber)?.uint64Value,
                                 statusFlags: (plist["statusFlags"] as? NSNumber)?.uint64Value,
                                 airplay: (plist["txtAirPlay"] as? Data).flatMap(txtRecord),
                                 raop: (raop?["txtRAOP"] as? Data).flatMap(txtRecord))
    }

    private static func info(_ line: RTSPPairingLine, qualifier: String) async -> [String: Any]? {
        let body = Array(PropertyList.binary(["qualifier": [qualifier]]))
        guard let answer = try? await line.send("GET", "/info", body, contentType: PropertyList.binaryContentType, step: "RTSP GET /info"),
              (200..<300).contains(answer.status), case .success(let plist) = PropertyList.dictionary(from: answer.body) else { return nil }
        return plist
    }

    /// DNS-SD TXT bytes: length-prefixed strings `key=value` (a bare `key` has no value). Nil when
    /// a length runs past the end.
    public static func txtRecord(_ data: Data) -> [String: String?]? {
        let bytes = Array(data)
        var record: [String: String?] = [:]
        var index = 0
        while index < bytes.count {
            let length = Int(bytes[index])
            index += 1
            guard index + length <= bytes.count else { return nil }
            let text = String(decoding: bytes[index..<(index + length)], as: UTF8.self)
            index += length
            guard !text.isEmpty else { continue }
            if let equals = text.firstIndex(of: "=") {
                record[String(text[..<equals])] = String(text[text.index(after: equals)...])
            } else {
                record[text] = .some(nil)
            }
        }
        return record
    }
}
