import Foundation

/// The JSON document an X-ASSET-LIST names: `{"ASSETS": [{"URI": ..., "DURATION": ...}], "SKIP-CONTROL": {...}}`.
///
/// What is wrong with one asset or one SKIP-CONTROL value does not reject the document: it is
/// an `AssetListProblem`, and the asset is scheduled the way players do (draft -22: a client
/// SHOULD skip just the asset that fails, and the whole interstitial only when the list fails).
public struct AssetList: Sendable, Equatable, Codable {
    public struct Asset: Sendable, Equatable, Codable {
        public var uri: String
        public var duration: Double
        /// The entry's position in ASSETS (skipped entries keep their numbers).
        public var index: Int?

        public init(uri: String, duration: Double, index: Int? = nil) {
            self.uri = uri
            self.duration = duration
            self.index = index
        }
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

    /// The assets that play, in order: the entries that were skipped are not here.
    public var assets: [Asset]
    public var skipControl: SkipControl?
    /// Values of the wrong type or range, with what was done with each.
    public var problems: [AssetListProblem]

    public init(assets: [Asset], skipControl: SkipControl? = nil, problems: [AssetListProblem] = []) {
        self.assets = assets
        self.skipControl = skipControl
        self.problems = problems
    }

    enum CodingKeys: String, CodingKey { case assets, skipControl, problems }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        assets = try c.decode([Asset].self, forKey: .assets)
        skipControl = try c.decodeIfPresent(SkipControl.self, forKey: .skipControl)
        problems = try c.decodeIfPresent([AssetListProblem].self, forKey: .problems) ?? []
    }

    public var totalDuration: Double { assets.reduce(0) { $0 + $1.duration } }

    /// Decodes the document. Keys are case-sensitive; unknown keys are allowed (vendors add their own).
    ///
    /// Rejected as a whole (the client skips the interstitial): not JSON, not an object, no
    /// `ASSETS` array. Per value, as the players do:
    /// - `DURATION` a string holding a decimal number (`"30"`, as some ad normalizers write it):
    ///   read as that number, as hls.js and Shaka do (`parseFloat`); Media3 drops the asset.
    /// - an entry that is not an object, a `URI` missing or not a string, a `DURATION` missing,
    ///   not a number, negative or beyond any finite number (`1e400`), a key in the wrong case:
    ///   that asset is skipped and the others play (Media3 drops such entries, hls.js cannot load
    ///   them; Shaka rejects the whole list).
    /// - `SKIP-CONTROL` not an object, or a value in it of the wrong type: ignored, so the tag's
    ///   X-SKIP-CONTROL-* value applies (`InterstitialSchedule` overrides key by key); a numeric
    ///   string and a fraction are read as numbers (Media3 reads fractions).
    public static func decode(_ data: Data) throws(AssetListError) -> AssetList {
        if PlaylistSniffer.looksLikeHTML(data) { throw .html }
        let object = try parseJSON(data)
        guard let root = object as? [String: Any] else { throw .notAnObject }
        guard let assetsValue = root["ASSETS"] else {
            let near = root.keys.first { $0.uppercased() == "ASSETS" }
            throw .missingAssets(caseMismatch: near)
        }
        guard let entries = assetsValue as? [Any] else { throw .assetsNotAnArray(JSONValue.describe(assetsValue)) }
        var problems: [AssetListProblem] = []
        var assets: [Asset] = []
        for (index, entry) in entries.enumerated() {
            guard let object = entry as? [String: Any] else {
                problems.append(AssetListProblem(index: index, key: nil, value: JSONValue.describe(entry), problem: "is not a JSON object",
                                                 outcome: .assetSkipped))
                continue
            }
            func missing(_ key: String) -> AssetListProblem {
                let near = object.keys.first { $0 != key && $0.uppercased() == key }
                return AssetListProblem(index: index, key: key, value: near.map { "\"\($0)\": \(JSONValue.describe(object[$0]!))" },
                                        problem: near == nil ? "is missing" : "is missing (found \"\(near!)\": keys are case-sensitive)",
                                        outcome: .assetSkipped)
            }
            var skipped = false
            var uri: String?
            if let value = object["URI"] {
                if let text = value as? String, !text.hasPrefix(JSONValue.nonFiniteMarker) {
                    uri = text
                } else {
                    problems.append(AssetListProblem(index: index, key: "URI", value: JSONValue.describe(value),
                                                     problem: "is \(JSONValue.kind(value)), not a string", outcome: .assetSkipped))
                    skipped = true
                }
            } else {
                problems.append(missing("URI"))
                skipped = true
            }
            var duration: Double?
            if let value = object["DURATION"] {
                let read = seconds(value, index: index, key: "DURATION", whole: false, invalid: .assetSkipped)
                problems += read.problems
                duration = read.value
                if read.value == nil { skipped = true }
            } else {
                problems.append(missing("DURATION"))
                skipped = true
            }
            if !skipped, let uri, let duration { assets.append(Asset(uri: uri, duration: duration, index: index)) }
        }
        var skip: SkipControl?
        if let value = root["SKIP-CONTROL"] {
            if let object = value as? [String: Any] {
                var control = SkipControl()
                for key in ["OFFSET", "DURATION"] {
                    guard let v = object[key] else { continue }
                    let read = seconds(v, index: nil, key: "SKIP-CONTROL.\(key)", whole: true, invalid: .ignored)
                    problems += read.problems
                    if key == "OFFSET" { control.offset = read.value } else { control.duration = read.value }
                }
                if let v = object["LABEL-ID"] {
                    if let s = v as? String {
                        control.labelID = s
                    } else {
                        problems.append(AssetListProblem(index: nil, key: "SKIP-CONTROL.LABEL-ID", value: JSONValue.describe(v),
                                                         problem: "is \(JSONValue.kind(v)), not a string", outcome: .ignored))
                    }
                }
                for key in object.keys.sorted() where !["OFFSET", "DURATION", "LABEL-ID"].contains(key)
                    && ["OFFSET", "DURATION", "LABEL-ID"].contains(key.uppercased()) {
                    problems.append(AssetListProblem(index: nil, key: "SKIP-CONTROL.\(key)", value: JSONValue.describe(object[key]!),
                                                     problem: "is not a SKIP-CONTROL key (keys are case-sensitive: \(key.uppercased()))",
                                                     outcome: .ignored))
                }
                skip = control
            } else {
                problems.append(AssetListProblem(index: nil, key: "SKIP-CONTROL", value: JSONValue.describe(value),
                                                 problem: "is \(JSONValue.kind(value)), not an object", outcome: .ignored))
            }
        } else if let near = root.keys.first(where: { $0.uppercased() == "SKIP-CONTROL" }) {
            problems.append(AssetListProblem(index: nil, key: near, value: JSONValue.describe(root[near]!),
                                             problem: "is not SKIP-CONTROL (keys are case-sensitive)", outcome: .ignored))
        }
        return AssetList(assets: assets, skipControl: skip, problems: problems)
    }

    /// A number of seconds: a JSON number, or a string holding a decimal number (read as one,
    /// with a problem); `whole` asks for a decimal-integer as the tag's X-SKIP-CONTROL-* are.
    private static func seconds(_ value: Any, index: Int?, key: String, whole: Bool,
                                invalid: AssetListProblem.Outcome) -> (value: Double?, problems: [AssetListProblem]) {
        let written = JSONValue.describe(value)
        func problem(_ text: String, _ outcome: AssetListProblem.Outcome) -> AssetListProblem {
            AssetListProblem(index: index, key: key, value: written, problem: text, outcome: outcome)
        }
        if let text = value as? String, text.hasPrefix(JSONValue.nonFiniteMarker) {
            return (nil, [problem("is beyond any finite number (a JSON parser reads it as infinity or rejects the list)", invalid)])
        }
        var problems: [AssetListProblem] = []
        let number: Double
        if let n = JSONValue.number(value) {
            number = n
        } else if let text = value as? String, let n = HLSNumber.parse(text.trimmingCharacters(in: .whitespaces)) {
            number = n
            problems.append(problem("is a string, not a number (read as \(HLSNumber.format(n)) s, as hls.js and Shaka read it; Media3 "
                                    + (invalid == .assetSkipped ? "drops the asset" : "ignores it") + ")", .readAsNumber))
        } else {
            return (nil, [problem("is \(JSONValue.kind(value)), not a number of seconds", invalid)])
        }
        guard number.isFinite else { return (nil, [problem("is not a finite number", invalid)]) }
        guard number >= 0 else { return (nil, problems + [problem("is negative", invalid)]) }
        if whole, number != number.rounded() {
            problems.append(problem("is not a whole number of seconds (X-SKIP-CONTROL-\(key.split(separator: ".").last ?? "") is a decimal-integer; read as \(HLSNumber.format(number)) s, as Media3 reads it)", .readAsNumber))
        }
        return (number, problems)
    }

    /// JSONSerialization refuses a number no Double holds (`1e400`), which is valid JSON that
    /// players read as infinity or refuse: such literals are marked and parsed again, so that
    /// the problem names its key instead of failing the whole document as "not JSON".
    private static func parseJSON(_ data: Data) throws(AssetListError) -> Any {
        var body = data
        for _ in 0..<16 {
            do { return try JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) } catch {
                let text = String(describing: (error as NSError).userInfo[NSDebugDescriptionErrorKey] ?? "")
                guard let literal = JSONValue.unrepresentableLiteral(in: text),
                      let marked = JSONValue.marking(literal, in: body) else { break }
                body = marked
            }
        }
        let start = String(decoding: data.prefix(40), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        throw .notJSON(start.isEmpty ? "an empty body" : "it starts with \"\(start)\"")
    }
}

/// One value of an asset list that is not what draft -22 says, and what was done with it.
public struct AssetListProblem: Sendable, Equatable, Codable, CustomStringConvertible {
    public enum Outcome: String, Sendable, Codable {
        /// A numeric string or a fraction used as the number it holds.
        case readAsNumber = "read-as-number"
        /// The ASSETS entry is not scheduled; the others are.
        case assetSkipped = "asset-skipped"
        /// The SKIP-CONTROL value is not used (the tag's X-SKIP-CONTROL-* apply instead).
        case ignored
    }

    /// The position in ASSETS; nil for SKIP-CONTROL.
    public var index: Int?
    /// `URI`, `DURATION`, `SKIP-CONTROL.OFFSET`...; nil when the entry itself is wrong.
    public var key: String?
    /// The value as JSON (`"30"`, `-5`, `true`); nil when the key is missing.
    public var value: String?
    public var problem: String
    public var outcome: Outcome

    public init(index: Int?, key: String?, value: String?, problem: String, outcome: Outcome) {
        self.index = index
        self.key = key
        self.value = value
        self.problem = problem
        self.outcome = outcome
    }

    /// `ASSETS[1] "DURATION": "30" is a string, not a number (...)`.
    public var description: String { "\(place) \(problem)" }

    /// Where and what: `ASSETS[1] "DURATION": "30"`, `ASSETS[2]: "ad.m3u8"`, `ASSETS[0] "URI"` (missing).
    public var place: String {
        let at = index.map { "ASSETS[\($0)]" + (key.map { " \"\($0)\"" } ?? "") } ?? key.map { "\"\($0)\"" } ?? "the document"
        return at + (value == nil || problem.hasPrefix("is missing (found") ? "" : ": \(value!)")
    }

    /// What a player does with it, in words.
    public var consequence: String {
        switch outcome {
        case .readAsNumber: return "Seamcheck schedules it with that value"
        case .assetSkipped: return "that asset is skipped (the others play) and Seamcheck schedules it so"
        case .ignored: return "the value is ignored (the tag's X-SKIP-CONTROL-* value applies, if it has one) and Seamcheck schedules it so"
        }
    }
}

/// How asset-list values are named in problems.
enum JSONValue {
    static let nonFiniteMarker = "\u{0}non-finite:"

    /// JSONSerialization gives NSNumber for numbers and booleans alike; a boolean is not a number.
    static func number(_ value: Any) -> Double? {
        if value is Bool, !(value is Int) { return nil }
        if let n = value as? NSNumber {
            if String(cString: n.objCType) == "c" { return nil }
            return n.doubleValue
        }
        if let d = value as? Double { return d }
        if let i = value as? Int { return Double(i) }
        return nil
    }

    static func kind(_ value: Any) -> String {
        if value is NSNull { return "null" }
        if let s = value as? String { return s.hasPrefix(nonFiniteMarker) ? "a number beyond any finite one" : "a string" }
        if number(value) != nil { return "a number" }
        if value is Bool || (value as? NSNumber) != nil { return "a boolean" }
        if value is [Any] { return "an array" }
        if value is [String: Any] { return "an object" }
        return "a JSON value"
    }

    /// The value as JSON, cut to 80 characters.
    static func describe(_ value: Any) -> String {
        if let s = value as? String, s.hasPrefix(nonFiniteMarker) { return String(s.dropFirst(nonFiniteMarker.count)) }
        if number(value) == nil, let n = value as? NSNumber { return n.boolValue ? "true" : "false" }
        if let n = number(value) { return HLSNumber.format(n) }
        let text: String
        if let data = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys, .withoutEscapingSlashes]) {
            text = String(decoding: data, as: UTF8.self)
        } else {
            text = String(describing: value)
        }
        return text.count > 80 ? String(text.prefix(77)) + "..." : text
    }

    /// `1e400` from "Number 1e400 is not representable in Swift."
    static func unrepresentableLiteral(in message: String) -> String? {
        guard message.hasPrefix("Number "), let end = message.range(of: " is not representable") else { return nil }
        let literal = String(message[message.index(message.startIndex, offsetBy: 7)..<end.lowerBound])
        return !literal.isEmpty && literal.allSatisfy({ "0123456789+-.eE".contains($0) }) ? literal : nil
    }

    /// The body with the first `literal` in value position (after `:`, `[` or `,`) turned into a marked string.
    static func marking(_ literal: String, in body: Data) -> Data? {
        let bytes = Array(body), needle = Array(literal.utf8)
        guard needle.count <= bytes.count else { return nil }
        for start in 0...(bytes.count - needle.count) where Array(bytes[start..<start + needle.count]) == needle {
            var before = start - 1
            while before >= 0, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[before]) { before -= 1 }
            let after = start + needle.count
            guard before >= 0, [UInt8(ascii: ":"), UInt8(ascii: "["), UInt8(ascii: ",")].contains(bytes[before]),
                  after == bytes.count || !"0123456789.eE+-".utf8.contains(bytes[after]) else { continue }
            let replacement = Array("\"\\u0000non-finite:\(literal)\"".utf8)
            return Data(bytes[..<start] + replacement + bytes[after...])
        }
        return nil
    }
}

/// Why an asset list cannot be used at all; the client skips the interstitial.
public enum AssetListError: Error, Equatable, Sendable, CustomStringConvertible {
    case html
    case notJSON(String)
    case notAnObject
    case missingAssets(caseMismatch: String?)
    /// ASSETS as written (`{}`, `"ad.m3u8"`).
    case assetsNotAnArray(String)

    public var description: String {
        switch self {
        case .html: return "is an HTML page, not a JSON asset list (an error page or a captive portal?)"
        case .notJSON(let start): return "is not JSON (\(start))"
        case .notAnObject: return "is JSON but not an object; expected {\"ASSETS\": [...]}"
        case .missingAssets(let near):
            return "has no \"ASSETS\" key" + (near.map { " (found \"\($0)\": keys are case-sensitive)" } ?? "")
        case .assetsNotAnArray(let value): return "has \"ASSETS\": \(value), which is not an array"
        }
    }
}
