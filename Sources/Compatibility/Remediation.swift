/// Encoder settings for the interstitial, as ffmpeg arguments, kept apart by kind so that the
/// settings of several findings merge into one command (one -vf chain, one -af chain).
public struct Remediation: Sendable, Equatable, Codable {
    /// Output options such as `-c:v libx264 -profile:v high` or `-ar 48000`.
    public var arguments: [String]
    public var videoFilters: [String]
    public var audioFilters: [String]

    public init(arguments: [String] = [], videoFilters: [String] = [], audioFilters: [String] = []) {
        self.arguments = arguments
        self.videoFilters = videoFilters
        self.audioFilters = audioFilters
    }

    /// The settings as they go on an ffmpeg command line, quoted for a POSIX shell.
    public var rendered: String {
        commandArguments.map(shellQuoted).joined(separator: " ")
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
            ["-c:v", "-r", "-pix_fmt", "-profile:v", "-tag:v", "-color_primaries", "-color_trc", "-colorspace"].contains($0)
        }
    }

    var touchesAudio: Bool {
        !audioFilters.isEmpty || arguments.contains {
            ["-c:a", "-ar", "-ac", "-sample_fmt", "-profile:a", "-bits_per_raw_sample"].contains($0)
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
                if !seenOptions.contains(option) {
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
        }
        return merged
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
