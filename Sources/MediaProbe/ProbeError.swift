import HLS

/// Why an input could not be probed. Every case names the input and says what to do.
public enum ProbeError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidInput(InputLocationError)
    case fileNotFound(String)
    case notARegularFile(String)
    case emptyFile(String)
    case unreadable(String, reason: String)
    /// The bytes are not one of the allowed media containers (random bytes, a text file, a playlist).
    case notMedia(String, reason: String)
    /// The container opened but the file ends before the data its index points to.
    case truncated(String, reason: String)
    /// FFmpeg opened the input but essential fields are missing (for example a server that ignores Range requests).
    case incomplete(String, missing: [String])
    case openFailed(String, reason: String)
    case timedOut(String, seconds: Double)
    case cancelled(String)
    /// An HLS playlist, or a resource it references, could not be loaded.
    case playlist(LoadError)
    /// A multivariant playlist where a rendition (media playlist) was expected.
    case multivariantPlaylist(String, variants: [String])
    case emptyPlaylist(String)
    case encryptedRendition(String, method: String)
    /// FFmpeg's shared libraries, loaded on the first probe, are missing or unusable.
    case ffmpegUnavailable(String, reason: String)

    public var input: String? {
        switch self {
        case .invalidInput: return nil
        case .playlist(let error): return error.subject
        case .multivariantPlaylist(let i, _), .emptyPlaylist(let i), .encryptedRendition(let i, _): return i
        case .fileNotFound(let i), .notARegularFile(let i), .emptyFile(let i), .cancelled(let i): return i
        case .unreadable(let i, _), .notMedia(let i, _), .truncated(let i, _), .openFailed(let i, _): return i
        case .incomplete(let i, _), .timedOut(let i, _), .ffmpegUnavailable(let i, _): return i
        }
    }

    public var description: String {
        switch self {
        case .invalidInput(let error):
            return error.description
        case .fileNotFound(let input):
            return "\(input): no such file (check the path)"
        case .notARegularFile(let input):
            return "\(input): is a directory or special file, not a media file"
        case .emptyFile(let input):
            return "\(input): file is empty (0 bytes); re-export or re-download it"
        case .unreadable(let input, let reason):
            return "\(input): cannot read file (\(reason)); check its permissions"
        case .notMedia(let input, let reason):
            return "\(input): not a supported media file (\(reason)); expected MP4/MOV, MPEG-TS, Matroska/WebM or an audio file"
        case .truncated(let input, let reason):
            return "\(input): file is truncated (\(reason)); re-export or re-download it"
        case .incomplete(let input, let missing):
            let remote = input.lowercased().hasPrefix("http://") || input.lowercased().hasPrefix("https://")
            return "\(input): opened but essential fields are missing (\(missing.joined(separator: ", "))); "
                + (remote ? "the server may not support Range requests, or the file is damaged"
                          : "the file is probably truncated or damaged; re-export or re-download it")
        case .openFailed(let input, let reason):
            return "\(input): cannot open (\(reason))"
        case .timedOut(let input, let seconds):
            return "\(input): probe timed out after \(formatSeconds(seconds)) s; check the server or raise --timeout"
        case .cancelled(let input):
            return "\(input): probe cancelled"
        case .playlist(let error):
            return error.description
        case .multivariantPlaylist(let input, let variants):
            let sample = variants.prefix(3).joined(separator: ", ")
            return "\(input): is a multivariant playlist; probe one of its renditions (\(sample)\(variants.count > 3 ? ", ..." : ""))"
        case .emptyPlaylist(let input):
            return "\(input): media playlist has no segments to probe"
        case .encryptedRendition(let input, let method) where EncryptedSamples.clearContainerMethods.contains(method):
            return "\(input): segments are encrypted (METHOD=\(method)) without an EXT-X-MAP (MPEG-TS or packed audio): "
                + "the encryption covers the stream parameters, so they cannot be read; only fMP4 keeps them in the clear. "
                + "Probe a clear or fMP4 rendition instead"
        case .encryptedRendition(let input, let method):
            return "\(input): segments are encrypted (METHOD=\(method)); probe a clear rendition instead"
        case .ffmpegUnavailable(let input, let reason):
            return "\(input): cannot probe: FFmpeg's libraries cannot be loaded (\(reason)); "
                + "install libavformat, libavcodec and libavutil (scripts/setup-deps.sh)"
        }
    }
}

private func formatSeconds(_ s: Double) -> String {
    s == s.rounded() ? String(Int(s)) : String(s)
}
