import Foundation

/// A text file a user names (project file, matrix, inventory, device profile, lab manifest), read
/// whole within a size limit and refused early when it is not text: a directory, a device
/// (`/dev/zero` never ends), a 2 GB sparse file, NUL or other control bytes (which YAML forbids and
/// which made the YAML parser quadratic), bytes that are not UTF-8. Reading is linear in the
/// limit, whatever the file. Playlists given by path are read by `ResourceFetcher` with the same checks.
public enum TextFile {
    /// Every configuration file Seamcheck reads is far below this (a 1,000-case matrix is ~100 KiB).
    public static let defaultLimit = 4 << 20

    /// The file's text: at most `limit` bytes of UTF-8 without control characters (tab, LF, CR allowed).
    public static func read(_ path: String, limit: Int = defaultLimit) throws(TextFileError) -> String {
        let data = try readData(path, limit: limit)
        if let offset = data.firstIndex(where: isControl) {
            let line = data[..<offset].reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
            throw TextFileError(path: path, problem: .binary(byte: data[offset], offset: offset - data.startIndex, line: line))
        }
        guard let text = String(validating: data, as: UTF8.self) else { throw TextFileError(path: path, problem: .notUTF8) }
        return text
    }

    /// The file's bytes, at most `limit` of them; no check of what they are.
    public static func readData(_ path: String, limit: Int = defaultLimit) throws(TextFileError) -> Data {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { throw TextFileError(path: path, problem: .notFound) }
            throw TextFileError(path: path, problem: .unreadable(String(cString: strerror(errno))))
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw TextFileError(path: path, problem: .directory)
        default: throw TextFileError(path: path, problem: .notRegular)
        }
        // Refused before reading: a sparse 2 GB file costs nothing to stat and everything to read.
        guard Int(info.st_size) <= limit else { throw TextFileError(path: path, problem: .tooLarge(size: Int(info.st_size), limit: limit)) }
        let data: Data
        switch FileBytes.read(path, expected: Int(info.st_size), limit: limit) {
        case .success(let bytes): data = bytes
        case .failure(let failure): throw TextFileError(path: path, problem: .unreadable(failure.reason))
        }
        // A file that grew after the stat (or a /proc file that says 0 bytes).
        guard data.count <= limit else { throw TextFileError(path: path, problem: .tooLarge(size: nil, limit: limit)) }
        return data
    }

    /// C0 controls other than tab, LF and CR, and DEL: never in YAML or JSON text.
    static func isControl(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D) || byte == 0x7F
    }
}

/// Why a file named by the user could not be read as text. `reason` fits in "cannot read X (reason)".
public struct TextFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Problem: Sendable, Equatable {
        case notFound
        case directory
        case notRegular
        case tooLarge(size: Int?, limit: Int)
        case unreadable(String)
        case binary(byte: UInt8, offset: Int, line: Int)
        case notUTF8
    }

    public var path: String
    public var problem: Problem

    public init(path: String, problem: Problem) {
        self.path = path
        self.problem = problem
    }

    /// What is wrong and what to do, without the path.
    public var reason: String {
        switch problem {
        case .notFound: return "no such file; check the path"
        case .directory: return "it is a directory; give the file itself"
        case .notRegular: return "not a regular file (a device, FIFO or socket); give a file"
        case .tooLarge(let size, let limit):
            return (size.map { "\(LoadError.bytes($0)), " } ?? "") + "larger than the \(LoadError.bytes(limit)) limit; is this the right file?"
        case .unreadable(let reason): return reason + "; check its permissions"
        case .binary(let byte, let offset, let line):
            return String(format: "byte 0x%02X at offset %d (line %d) is a control character: a binary file, not text", byte, offset, line)
        case .notUTF8: return "not UTF-8 text; save it as UTF-8"
        }
    }

    public var description: String { "\(path): \(reason)" }
}

/// Shortens a text quoted in a message or a report: its start and end, with the number of bytes
/// cut between them, never inside a UTF-8 sequence. Linear, and never counts characters.
public enum BoundedText {
    /// The most bytes of input text a one-line error message quotes.
    public static let messageBytes = 300

    public static func clip(_ text: String, maxBytes: Int = messageBytes) -> String {
        let bytes = text.utf8
        guard bytes.count > maxBytes else { return text }
        func scalarStart(_ index: String.Index) -> String.Index {
            var index = index
            while index > bytes.startIndex, bytes[index] & 0xC0 == 0x80 { index = bytes.index(before: index) }
            return index
        }
        let headEnd = scalarStart(bytes.index(bytes.startIndex, offsetBy: maxBytes * 2 / 3))
        let tailStart = scalarStart(bytes.index(bytes.endIndex, offsetBy: -(maxBytes / 3)))
        let cut = bytes.distance(from: headEnd, to: tailStart)
        return String(Substring(bytes[..<headEnd])) + " [... \(cut) bytes cut ...] " + String(Substring(bytes[tailStart...]))
    }
}
