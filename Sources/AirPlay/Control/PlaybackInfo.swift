import Foundation

// `/playback-info` and `/server-info` dictionaries into the contract's value types. Receivers
// differ in what they fill in; every key is optional and a key of the wrong type counts as absent.

extension PlaybackInfo {
    /// Reads a `/playback-info` dictionary: numbers may be reals, integers or numeric strings,
    /// booleans `<true/>` or 0/1; the `error` dict is `{code, domain}` (either may be missing).
    init(plist: [String: Any]) {
        self.init(
            duration: Self.time(plist["duration"]),
            position: Self.time(plist["position"]),
            rate: PropertyList.double(plist["rate"]).flatMap { Self.rates.contains($0) ? $0 : nil },
            readyToPlay: PropertyList.bool(plist["readyToPlay"]),
            playbackBufferEmpty: PropertyList.bool(plist["playbackBufferEmpty"]),
            playbackBufferFull: PropertyList.bool(plist["playbackBufferFull"]),
            playbackLikelyToKeepUp: PropertyList.bool(plist["playbackLikelyToKeepUp"]),
            loadedTimeRanges: Self.ranges(plist["loadedTimeRanges"]),
            seekableTimeRanges: Self.ranges(plist["seekableTimeRanges"]),
            error: Self.receiverError(plist["error"]))
    }

    /// Media times believed from a receiver: a day before the start to a year after it. Beyond
    /// that (1e308 s) a value is no time any stream has, and is read as absent rather than
    /// carried into measurements and printed as 309 digits.
    static let times: ClosedRange<Double> = -86_400...31_536_000
    /// Playback rates believed (AirPlay's are 0, 1 and the trick-play rates up to a few dozen).
    static let rates: ClosedRange<Double> = -1_000...1_000

    static func time(_ value: Any?) -> Double? {
        PropertyList.double(value).flatMap { times.contains($0) ? $0 : nil }
    }

    private static func ranges(_ value: Any?) -> [TimeRange] {
        guard let items = value as? [Any] else { return [] }
        return items.compactMap { item in
            guard let range = item as? [String: Any],
                  let start = time(range["start"]),
                  let duration = time(range["duration"]) else { return nil }
            return TimeRange(start: start, duration: duration)
        }
    }

    private static func receiverError(_ value: Any?) -> ReceiverError? {
        guard let error = value as? [String: Any] else { return nil }
        return ReceiverError(domain: PropertyList.string(error["domain"]), code: PropertyList.int(error["code"]))
    }
}

extension ServerInfo {
    /// Reads a `/server-info` dictionary; `features` may be an integer or a "0x…" string (the
    /// TXT record's form), and some receivers spell the device id `deviceID`.
    init(plist: [String: Any]) {
        self.init(
            deviceId: PropertyList.string(plist["deviceid"] ?? plist["deviceID"] ?? plist["deviceId"]),
            features: PropertyList.int(plist["features"]),
            model: PropertyList.string(plist["model"]),
            protocolVersion: PropertyList.string(plist["protovers"]),
            sourceVersion: PropertyList.string(plist["srcvers"]))
    }
}
