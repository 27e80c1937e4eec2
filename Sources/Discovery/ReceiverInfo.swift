import Foundation

/// What a receiver says about itself in answer to `GET /info` (a binary plist).
///
/// Decoding is lenient: a key that is missing or of the wrong type leaves its field nil. Only
/// the keys Seamcheck uses are kept; pairing keys (pk, pi, psi) are dropped.
public struct ReceiverInfo: Codable, Sendable, Equatable {
    /// One screen the receiver drives (TVs have one; a Mac may have several).
    public struct Display: Codable, Sendable, Equatable {
        public var widthPixels: Int?
        public var heightPixels: Int?
        public var maxFPS: Int?
        /// As sent: Apple devices send the frame period in seconds (0.0166 for 60 Hz).
        public var refreshRate: Double?
        public var hdrModes: [HDRMode]

        public init(widthPixels: Int? = nil, heightPixels: Int? = nil, maxFPS: Int? = nil,
                    refreshRate: Double? = nil, hdrModes: [HDRMode] = []) {
            self.widthPixels = widthPixels
            self.heightPixels = heightPixels
            self.maxFPS = maxFPS
            self.refreshRate = refreshRate
            self.hdrModes = hdrModes
        }
    }

    /// One entry of a display's `HDRSupportedModes`.
    public struct HDRMode: Codable, Sendable, Equatable {
        /// `HDRMode` as sent, such as "DolbyVision" or "HDR10".
        public var mode: String?
        /// `codecStrings`, such as `hvc1.2.4.L153.B0` or `dvh1.05.06`.
        public var codecs: [String]

        public init(mode: String?, codecs: [String]) {
            self.mode = mode
            self.codecs = codecs
        }
    }

    public var deviceId: String?
    public var name: String?
    public var model: String?
    public var manufacturer: String?
    public var sourceVersion: String?
    /// `features` (bits 0-63) with the bits above 63 from `featuresEx`.
    public var features: AirPlayFeatures?
    public var statusFlags: StatusFlags?
    public var displays: [Display]
    /// `receiverHDRCapability`, such as "4k60".
    public var receiverHDRCapability: String?
    /// `playbackCapabilities.supportsInterstitials`: the receiver plays HLS interstitials itself.
    public var supportsInterstitials: Bool?
    public var supportsFPSSecureStop: Bool?
    /// HDR formats any display supports, in the probe's names: `HDR10`, `HLG`, `DolbyVision`;
    /// from the modes' names and Dolby Vision codec strings (`dvh1`, `dvhe`, `dva1`, `dvav`).
    /// A Main10 HEVC codec string alone is not taken for HDR10: SDR can be 10-bit too.
    public var hdrFormats: [String]
    /// Every codec string of every display's HDR modes, in order of first appearance.
    public var codecs: [String]

    public init(deviceId: String? = nil, name: String? = nil, model: String? = nil, manufacturer: String? = nil,
                sourceVersion: String? = nil, features: AirPlayFeatures? = nil, statusFlags: StatusFlags? = nil,
                displays: [Display] = [], receiverHDRCapability: String? = nil, supportsInterstitials: Bool? = nil,
                supportsFPSSecureStop: Bool? = nil) {
        self.deviceId = deviceId
        self.name = name
        self.model = model
        self.manufacturer = manufacturer
        self.sourceVersion = sourceVersion
        self.features = features
        self.statusFlags = statusFlags
        self.displays = displays
        self.receiverHDRCapability = receiverHDRCapability
        self.supportsInterstitials = supportsInterstitials
        self.supportsFPSSecureStop = supportsFPSSecureStop
        let modes = displays.flatMap(\.hdrModes)
        hdrFormats = Self.hdrFormats(of: modes)
        var seen = Set<String>()
        codecs = modes.flatMap(\.codecs).filter { seen.insert($0).inserted }
    }

    /// Decodes a `/info` body: a binary (or XML) property list whose root is a dictionary.
    public init(propertyList data: Data) throws(InfoError) {
        let root: Any
        do { root = try PropertyListSerialization.propertyList(from: data, options: [], format: nil) } catch {
            throw .badResponse("the body is not a property list (\(data.count) bytes)")
        }
        guard let plist = root as? [String: Any] else {
            throw .badResponse("the property list is not a dictionary")
        }
        let fex = Self.string(plist["featuresEx"]).flatMap { AirPlayFeatures(fex: $0) }
        let features: AirPlayFeatures? = Self.uint64(plist["features"])
            .map { AirPlayFeatures(rawValue: $0, extendedBits: fex?.extendedBits ?? []) } ?? fex
        let playback = plist["playbackCapabilities"] as? [String: Any] ?? [:]
        let displays = (plist["displays"] as? [Any] ?? []).compactMap { $0 as? [String: Any] }.map { display in
            Display(widthPixels: Self.int(display["widthPixels"]), heightPixels: Self.int(display["heightPixels"]),
                    maxFPS: Self.int(display["maxFPS"]), refreshRate: Self.double(display["refreshRate"]),
                    hdrModes: (display["HDRSupportedModes"] as? [Any] ?? []).compactMap { $0 as? [String: Any] }.map { mode in
                        HDRMode(mode: Self.string(mode["HDRMode"]),
                                codecs: (mode["codecStrings"] as? [Any] ?? []).compactMap(Self.string))
                    })
        }
        self.init(deviceId: Self.string(plist["deviceID"]).map { ReceiverDescription.normalizedDeviceId($0) ?? $0 },
                  name: Self.string(plist["name"]), model: Self.string(plist["model"]),
                  manufacturer: Self.string(plist["manufacturer"]), sourceVersion: Self.string(plist["sourceVersion"]),
                  features: features, statusFlags: Self.uint64(plist["statusFlags"]).map(StatusFlags.init(rawValue:)),
                  displays: displays, receiverHDRCapability: Self.string(plist["receiverHDRCapability"]),
                  supportsInterstitials: Self.bool(playback["supportsInterstitials"]),
                  supportsFPSSecureStop: Self.bool(playback["supportsFPSSecureStop"]))
    }

    /// The canonical HDR format names in `modes`, ordered HDR10, HLG, DolbyVision.
    static func hdrFormats(of modes: [HDRMode]) -> [String] {
        var found = Set<String>()
        for mode in modes {
            let name = (mode.mode ?? "").lowercased().filter { $0.isLetter || $0.isNumber }
            if name.contains("dolby") || name == "dv" || name == "dovi" { found.insert("DolbyVision") }
            if name.hasPrefix("hdr10") { found.insert("HDR10") }
            if name.contains("hlg") { found.insert("HLG") }
            let dolbyCodecs = ["dvh1", "dvhe", "dva1", "dvav"]
            if mode.codecs.contains(where: { codec in dolbyCodecs.contains { codec.lowercased().hasPrefix($0) } }) {
                found.insert("DolbyVision")
            }
        }
        return ["HDR10", "HLG", "DolbyVision"].filter(found.contains)
    }

    // MARK: Property list values (NSNumber, Int, Bool or Double depending on the platform)

    private static func string(_ value: Any?) -> String? {
        guard let text = value as? String else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty ? nil : trimmed
    }

    private static func int(_ value: Any?) -> Int? {
        if let number = value as? NSNumber { return number.intValue }
        return value as? Int
    }

    /// Integers as their 64-bit pattern: a feature mask with bit 63 set arrives negative.
    private static func uint64(_ value: Any?) -> UInt64? {
        if let number = value as? NSNumber { return UInt64(bitPattern: number.int64Value) }
        if let number = value as? Int { return UInt64(bitPattern: Int64(number)) }
        return nil
    }

    private static func double(_ value: Any?) -> Double? {
        if let number = value as? NSNumber { return number.doubleValue }
        return value as? Double
    }

    private static func bool(_ value: Any?) -> Bool? {
        if let flag = value as? Bool { return flag }
        if let number = value as? NSNumber { return number.boolValue }
        return nil
    }
}

/// Why `GET /info` gave nothing usable. Never fatal: discovery notes it on the receiver.
public enum InfoError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Every service has port 0: a sleep proxy answers for the device.
    case asleep
    case noAddress
    /// Connecting failed (refused, no route); `reason` is the system's.
    case unreachable(address: String, reason: String)
    /// No complete answer within the timeout.
    case timedOut(address: String, seconds: Double)
    /// The receiver answered with an error status: 403 / 470 mean pairing or a password first.
    case refused(status: Int, reason: String)
    /// The answer was not HTTP/RTSP, or its body not a property list.
    case badResponse(String)

    public var description: String {
        switch self {
        case .asleep: "GET /info skipped: the receiver is asleep (port 0)"
        case .noAddress: "GET /info skipped: the receiver has no address"
        case let .unreachable(address, reason):
            "GET /info: cannot connect to \(address) (\(reason))"
                + (reason == "Connection refused" ? ": nothing listens on the port the receiver advertises" : "")
        case let .timedOut(address, seconds): "GET /info: \(address) gave no answer within \(String(format: "%g", seconds)) s"
        case let .refused(status, reason):
            "GET /info: the receiver refused (\(status) \(reason))"
                + ([401, 403, 470].contains(status) ? "; it wants pairing or a password first" : "")
        case let .badResponse(what): "GET /info: unusable answer (\(what))"
        }
    }

    /// The same for one request among several (`InfoAttempt.result`), without the "GET /info" prefix.
    var attemptText: String {
        switch self {
        case .unreachable(_, let reason):
            reason == "Connection refused" ? "connection refused (nothing listens on this port)" : "cannot connect (\(reason))"
        case .timedOut(_, let seconds): "no answer within \(String(format: "%g", seconds)) s"
        case .badResponse(let what): "unusable answer (\(what))"
        default: description
        }
    }
}
