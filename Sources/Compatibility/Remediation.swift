/// Encoder settings for the interstitial, as ffmpeg arguments, kept apart by kind so that the
/// settings of several findings merge into one command (one -vf chain, one -af chain).
public struct Remediation: Sendable, Equatable, Codable {
    /// Output options such as `-c:v libx264 -profile:v high` or `-ar 48000`. `-map` may repeat.
    public var arguments: [String]
    public var videoFilters: [String]
    public var audioFilters: [String]
    /// Inputs after the interstitial's own, with their options (`-f lavfi -i anullsrc=...`): a
    /// generated track for one the interstitial lacks. Input 0 is the interstitial.
    public var inputs: [String]

    public init(arguments: [String] = [], videoFilters: [String] = [], audioFilters: [String] = [], inputs: [String] = []) {
        self.arguments = arguments
        self.videoFilters = videoFilters
        self.audioFilters = audioFilters
        self.inputs = inputs
    }

    enum CodingKeys: String, CodingKey { case arguments, videoFilters, audioFilters, inputs }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        arguments = try c.decode([String].self, forKey: .arguments)
        videoFilters = try c.decode([String].self, forKey: .videoFilters)
        audioFilters = try c.decode([String].self, forKey: .audioFilters)
        // Results stored before generated inputs existed have none.
        inputs = try c.decodeIfPresent([String].self, forKey: .inputs) ?? []
    }

    /// The whole command: `ffmpeg -i INPUT [generated inputs] SETTINGS OUTPUT`, as arguments.
    public func command(input: String, output: String) -> [String] {
        ["ffmpeg", "-i", input] + inputs + commandArguments + [output]
    }

    /// The settings as they go on an ffmpeg command line after the interstitial's `-i AD`, quoted
    /// for a POSIX shell: generated inputs first (`-f lavfi -i anullsrc=...`), so that
    /// `ffmpeg -i AD <rendered> OUT` runs as written (a finding's and an asset's `remediation`).
    public var rendered: String {
        (inputs + commandArguments).map(shellQuoted).joined(separator: " ")
    }

    /// The settings as separate arguments. A stream nothing touches is copied, not re-encoded.
    public var commandArguments: [String] {
        var parts = arguments
        if !videoFilters.isEmpty { parts += ["-vf", videoFilters.joined(separator: ",")] }
        if !audioFilters.isEmpty { parts += ["-af", audioFilters.joined(separator: ",")] }
        if !touchesVideo { parts += ["-c:v", "copy"] }
        if !touchesAudio { parts += ["-c:a", "copy"] }
        return parts
    }

    var touchesVideo: Bool {
        !videoFilters.isEmpty || arguments.contains {
            ["-c:v", "-r", "-pix_fmt", "-profile:v", "-tag:v", "-color_primaries", "-color_trc", "-colorspace", "-x265-params", "-vn"].contains($0)
        }
    }

    var touchesAudio: Bool {
        !audioFilters.isEmpty || arguments.contains {
            ["-c:a", "-ar", "-ac", "-sample_fmt", "-profile:a", "-bits_per_raw_sample", "-an"].contains($0)
        }
    }

    /// One set of settings from many; a repeated option keeps its first value.
    public static func merge(_ remediations: [Remediation]) -> Remediation {
        var merged = Remediation()
        var seenOptions: Set<String> = []
        for remediation in remediations {
            var i = 0
            let args = remediation.arguments
            while i < args.count {
                let option = args[i]
                let hasValue = i + 1 < args.count && !args[i + 1].hasPrefix("-")
                if option == "-map", hasValue {
                    if !merged.arguments.containsChain([option, args[i + 1]]) { merged.arguments += [option, args[i + 1]] }
                } else if !seenOptions.contains(option) {
                    seenOptions.insert(option)
                    merged.arguments.append(option)
                    if hasValue { merged.arguments.append(args[i + 1]) }
                }
                i += hasValue ? 2 : 1
            }
            // A filter list is one chain: the same chain from several device classes is added once,
            // but single filters are never dropped from inside a chain.
            if !remediation.videoFilters.isEmpty, !merged.videoFilters.containsChain(remediation.videoFilters) {
                merged.videoFilters += remediation.videoFilters
            }
            if !remediation.audioFilters.isEmpty, !merged.audioFilters.containsChain(remediation.audioFilters) {
                merged.audioFilters += remediation.audioFilters
            }
            if !remediation.inputs.isEmpty, !merged.inputs.containsChain(remediation.inputs) {
                merged.inputs += remediation.inputs
            }
        }
        return merged
    }

    /// Options with their values (`-map` left out: it repeats by design).
    var optionValues: [String: String] {
        var values: [String: String] = [:]
        var i = 0
        while i < arguments.count {
            let hasValue = i + 1 < arguments.count && !arguments[i + 1].hasPrefix("-")
            if arguments[i] != "-map", values[arguments[i]] == nil { values[arguments[i]] = hasValue ? arguments[i + 1] : "" }
            i += hasValue ? 2 : 1
        }
        return values
    }

    /// Whether one command can carry both: no option with two values, and per stream the same
    /// filter chain (or one that contains the other, or none), the same generated inputs.
    public func conflicts(with other: Remediation) -> Bool {
        let mine = optionValues, theirs = other.optionValues
        if mine.contains(where: { option, value in theirs[option].map { $0 != value } ?? false }) { return true }
        func clash(_ a: [String], _ b: [String]) -> Bool { !a.isEmpty && !b.isEmpty && !a.containsChain(b) && !b.containsChain(a) }
        return clash(videoFilters, other.videoFilters) || clash(audioFilters, other.audioFilters) || clash(inputs, other.inputs)
    }

    /// Each class's settings, put in as few commands as do not conflict. One group: one encode
    /// serves every class. Several: no single encode does, each group is a variant of its own.
    public static func grouped(_ perClass: [(deviceClass: String, remediations: [Remediation])]) -> [ClassRemediation] {
        var groups: [ClassRemediation] = []
        for (deviceClass, remediations) in perClass {
            let mine = merge(remediations)
            guard mine != Remediation() else { continue }
            if let index = groups.firstIndex(where: { !$0.remediation.conflicts(with: mine) }) {
                groups[index].deviceClasses.append(deviceClass)
                groups[index].remediation = groups[index].remediation.combined(with: mine)
            } else {
                groups.append(ClassRemediation(deviceClasses: [deviceClass], remediation: mine))
            }
        }
        return groups
    }

    /// Two settings that do not conflict, as one: options merged, the longer chain of each stream.
    func combined(with other: Remediation) -> Remediation {
        func longer(_ a: [String], _ b: [String]) -> [String] { a.containsChain(b) ? a : b }
        var result = Remediation.merge([self, other])
        result.videoFilters = longer(videoFilters, other.videoFilters)
        result.audioFilters = longer(audioFilters, other.audioFilters)
        result.inputs = longer(inputs, other.inputs)
        return result
    }
}

/// The settings one group of device classes needs for an interstitial.
public struct ClassRemediation: Sendable, Equatable, Codable {
    public var deviceClasses: [String]
    public var remediation: Remediation

    public init(deviceClasses: [String], remediation: Remediation) {
        self.deviceClasses = deviceClasses
        self.remediation = remediation
    }
}

extension Array where Element == String {
    func containsChain(_ chain: [String]) -> Bool {
        guard chain.count <= count else { return false }
        return (0...(count - chain.count)).contains { Array(self[$0..<$0 + chain.count]) == chain }
    }
}

/// Quotes an argument for a POSIX shell when it holds anything but safe characters.
public func shellQuoted(_ text: String) -> String {
    let safe = !text.isEmpty && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_./=:,+@%".contains($0)) }
    return safe ? text : "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
}
