import Foundation

/// The JSON document an X-ASSET-LIST names: `{"ASSETS": [{"URI": ..., "DURATION": ...}], "SKIP-CONTROL": {...}}`.
public struct AssetList: Sendable, Equatable, Codable {
    public struct Asset: Sendable, Equatable, Codable {
        public var uri: String
        public var duration: Double
    }

    public struct SkipControl: Sendable, Equatable, Codable {
        public var offset: Double?
        public var duration: Double?
        public var labelID: String?

        public init(offset: Double? = nil, duration: Double? = nil, labelID: String? = nil) {
            self.offset = offset
            self.duration = duration
            self.labelID = labelID
        }
    }

    public var assets: [Asset]
    public var skipControl: SkipControl?

    public var totalDuration: Double { assets.reduce(0) { $0 + $1.duration } }

    /// Decodes the document strictly: keys are case-sensitive, every asset needs URI (a string)
    /// and DURATION (a number). Unknown keys are allowed (vendors add their own).
    public static func decode(_ data: Data) throws(AssetListError) -> AssetList {
        if PlaylistSniffer.looksLikeHTML(data) { throw .html }
        let object: Any
        do { object = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) } catch {
            let start = String(decoding: data.prefix(40), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw .notJSON(start.isEmpty ? "an empty body" : "it starts with \"\(start)\"")
        }
        guard let root = object as? [String: Any] else { throw .notAnObject }
        guard let assetsValue = root["ASSETS"] else {
            let near = root.keys.first { $0.uppercased() == "ASSETS" }
            throw .missingAssets(caseMismatch: near)
        }
        guard let entries = assetsValue as? [Any] else { throw .assetsNotAnArray }
        var assets: [Asset] = []
        for (index, entry) in entries.enumerated() {
            guard let object = entry as? [String: Any] else { throw .invalidAsset(index: index, reason: "is not a JSON object") }
            guard let uriValue = object["URI"] else { throw .invalidAsset(index: index, reason: "has no \"URI\"") }
            guard let uri = uriValue as? String else { throw .invalidAsset(index: index, reason: "\"URI\" is not a string") }
            guard let durationValue = object["DURATION"] else { throw .invalidAsset(index: index, reason: "has no \"DURATION\"") }
            guard let duration = number(durationValue) else {
                throw .invalidAsset(index: index, reason: "\"DURATION\" is not a number of seconds")
            }
            guard duration >= 0 else { throw .invalidAsset(index: index, reason: "\"DURATION\" is negative") }
            assets.append(Asset(uri: uri, duration: duration))
        }
        var skip: SkipControl?
        if let value = root["SKIP-CONTROL"] {
            guard let object = value as? [String: Any] else { throw .invalidSkipControl("is not a JSON object") }
            var control = SkipControl()
            if let v = object["OFFSET"] {
                guard let n = number(v) else { throw .invalidSkipControl("\"OFFSET\" is not a number") }
                control.offset = n
            }
            if let v = object["DURATION"] {
                guard let n = number(v) else { throw .invalidSkipControl("\"DURATION\" is not a number") }
                control.duration = n
            }
            if let v = object["LABEL-ID"] {
                guard let s = v as? String else { throw .invalidSkipControl("\"LABEL-ID\" is not a string") }
                control.labelID = s
            }
            skip = control
        }
        return AssetList(assets: assets, skipControl: skip)
    }

    /// JSONSerialization gives NSNumber for numbers and booleans alike; a boolean is not a duration.
    private static func number(_ value: Any) -> Double? {
        if value is Bool, !(value is Int) { return nil }
        if let n = value as? NSNumber {
            if String(cString: n.objCType) == "c" { return nil }
            return n.doubleValue
        }
        if let d = value as? Double { return d }
        if let i = value as? Int { return Double(i) }
        return nil
    }
}

/// Why an asset list cannot be used; the client would skip the interstitial.
public enum AssetListError: Error, Equatable, Sendable, CustomStringConvertible {
    case html
    case notJSON(String)
    case notAnObject
    case missingAssets(caseMismatch: String?)
    case assetsNotAnArray
    case invalidAsset(index: Int, reason: String)
    case invalidSkipControl(String)

    public var description: String {
        switch self {
        case .html: return "is an HTML page, not a JSON asset list (an error page or a captive portal?)"
        case .notJSON(let start): return "is not JSON (\(start))"
        case .notAnObject: return "is JSON but not an object; expected {\"ASSETS\": [...]}"
        case .missingAssets(let near):
            return "has no \"ASSETS\" key" + (near.map { " (found \"\($0)\": keys are case-sensitive)" } ?? "")
        case .assetsNotAnArray: return "has \"ASSETS\" that is not an array"
        case .invalidAsset(let index, let reason): return "ASSETS[\(index)] \(reason)"
        case .invalidSkipControl(let reason): return "SKIP-CONTROL \(reason)"
        }
    }
}
