import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A stored entry that cannot be used, and why; its device id and address when readable, so
/// that naming the receiver by either still finds it.
public struct UnusableEntry: Sendable, Equatable {
    public var receiver: String
    public var reason: String
    public var deviceId: String?
    public var address: String?

    public init(receiver: String, reason: String, deviceId: String? = nil, address: String? = nil) {
        self.receiver = receiver
        self.reason = reason
        self.deviceId = deviceId
        self.address = address
    }

    /// Whether `text` names it: its receiver name, device id or address (case-insensitive).
    public func matches(_ text: String) -> Bool {
        let wanted = text.lowercased()
        return [receiver, deviceId, address].compactMap { $0?.lowercased() }.contains(wanted)
    }
}

/// Why the credentials file cannot be used; each says what to do.
public enum CredentialStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Readable or writable by others than this user.
    case permissions(path: String, mode: String)
    /// Owned by another user (`chown`, not `chmod`, is the fix).
    case owner(path: String, owner: UInt32, user: UInt32)
    /// Written by a newer Seamcheck: its `schemaVersion` is above the one this one knows. Never
    /// rewritten (that would drop what it does not know).
    case newerVersion(path: String, version: Int, known: Int)
    case notRegularFile(path: String)
    /// Not the file's JSON at all.
    case corrupt(path: String, reason: String)
    /// One entry is unusable.
    case corruptEntry(path: String, receiver: String, reason: String)
    case io(path: String, reason: String)
    /// No stored pairing matches.
    case notFound(path: String, receiver: String)

    public var description: String {
        switch self {
        case .permissions(let path, let mode):
            return "\(path): the AirPlay credentials file is \(mode): it holds private keys and must be this user's, mode 0600; run `chmod 600 \(path)` (and check who else could have read it)"
        case .owner(let path, let owner, let user):
            return "\(path): the AirPlay credentials file is owned by uid \(owner), not by this user (uid \(user)): it holds private keys; run `chown \(user) \(path)` if it is yours (as root), or give this user a file of its own with --credentials"
        case .newerVersion(let path, let version, let known):
            return "\(path): the AirPlay credentials file was written by a newer Seamcheck (schemaVersion \(version); this one knows up to \(known)); use that Seamcheck, or give this one another file with --credentials; the file was not changed"
        case .notRegularFile(let path):
            return "\(path): the AirPlay credentials path is not a regular file; remove it and pair again"
        case .corrupt(let path, let reason):
            return "\(path): the AirPlay credentials file is unreadable (\(reason)); move it away and pair the receivers again with `seamcheck airplay pair`"
        case .corruptEntry(let path, let receiver, let reason):
            return "\(path): the stored pairing for \(receiver) is unusable (\(reason)); run `seamcheck airplay unpair \(receiver)` then `seamcheck airplay pair \(receiver)`"
        case .io(let path, let reason):
            return "\(path): \(reason)"
        case .notFound(let path, let receiver):
            return "\(receiver): no stored pairing in \(path); `seamcheck airplay pairings` lists them"
        }
    }
}

/// The credentials file: JSON, mode 0600, one entry per receiver. Written whole through a
/// temporary file and a rename; refused when others could read it or when it is not its JSON.
/// Nothing here prints a key.
public struct CredentialStore: @unchecked Sendable {  // unusableJSON holds JSON values only
    public let path: String
    public private(set) var pairings: [StoredPairing]
    /// Entries that do not decode: their receiver name (when readable), why, and their JSON, kept
    /// as they are on the next write so that only `unpair` removes them.
    public private(set) var unusable: [UnusableEntry] = []
    private var unusableJSON: [[String: Any]] = []

    static let maxBytes = 4 << 20
    /// The version this Seamcheck writes: 2 (every entry has `kind`); it reads 1 and 2.
    public static let schemaVersion = 2

    /// `SEAMCHECK_AIRPLAY_CREDENTIALS`, else `$XDG_CONFIG_HOME/seamcheck/airplay-credentials.json`,
    /// else `~/.config/seamcheck/airplay-credentials.json`.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let path = environment["SEAMCHECK_AIRPLAY_CREDENTIALS"], !path.isEmpty { return path }
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.config")
        return config + "/seamcheck/airplay-credentials.json"
    }

    /// Reads `path`; a missing file is an empty store.
    public init(path: String) throws(CredentialStoreError) {
        self.path = path
        // Opened once without following a link (no swap between the check and the read), then
        // checked on the descriptor: a regular file of this user that nobody else can read.
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            switch errno {
            case ENOENT: pairings = []; return
            case ELOOP: throw .notRegularFile(path: path)
            default: throw .io(path: path, reason: String(cString: strerror(errno)))
            }
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .io(path: path, reason: String(cString: strerror(errno))) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .notRegularFile(path: path) }
        guard info.st_uid == geteuid() else { throw .owner(path: path, owner: info.st_uid, user: geteuid()) }
        guard info.st_mode & 0o077 == 0 else {
            throw .permissions(path: path, mode: String(format: "mode %04o, owner uid %d", info.st_mode & 0o7777, info.st_uid))
        }
        guard info.st_size <= Self.maxBytes else { throw .corrupt(path: path, reason: "larger than \(Self.maxBytes) bytes") }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = read(fd, &buffer, buffer.count)
            guard count >= 0 else { throw .io(path: path, reason: String(cString: strerror(errno))) }
            if count == 0 { break }
            data.append(contentsOf: buffer[0..<count])
            guard data.count <= Self.maxBytes else { throw .corrupt(path: path, reason: "larger than \(Self.maxBytes) bytes") }
        }
        guard let file = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw .corrupt(path: path, reason: "not a JSON object")
        }
        let version: Int
        switch file["schemaVersion"] {
        case nil: version = 1
        case let number as Int where number >= 1: version = number
        default: throw .corrupt(path: path, reason: "`schemaVersion` is not a positive whole number")
        }
        guard version <= Self.schemaVersion else { throw .newerVersion(path: path, version: version, known: Self.schemaVersion) }
        guard let entries = file["pairings"] as? [[String: Any]] else { throw .corrupt(path: path, reason: "no `pairings` list") }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        decoder.userInfo[.credentialsSchemaVersion] = version
        pairings = []
        for entry in entries {
            do {
                let json = try JSONSerialization.data(withJSONObject: entry)
                let pairing = try decoder.decode(StoredPairing.self, from: json)
                if let problem = pairing.credentials.problem {
                    unusable.append(UnusableEntry(receiver: pairing.receiver, reason: problem, deviceId: pairing.deviceId, address: pairing.address))
                    unusableJSON.append(entry)
                } else {
                    pairings.append(pairing)
                }
            } catch {
                unusable.append(UnusableEntry(receiver: (entry["receiver"] as? String) ?? "(no name)", reason: Self.reason(error),
                                              deviceId: entry["deviceId"] as? String, address: entry["address"] as? String))
                unusableJSON.append(entry)
            }
        }
    }

    /// The pairing `text` names (see `StoredPairing.matches`), checked: a corrupt entry is refused.
    public func pairing(for text: String) throws(CredentialStoreError) -> StoredPairing? {
        if let broken = unusable.first(where: { $0.matches(text) }) {
            throw .corruptEntry(path: path, receiver: broken.receiver, reason: broken.reason)
        }
        return try pairing { $0.matches(text) }
    }

    /// The pairing for a resolved receiver: its device id, then its name, then its address.
    public func pairing(name: String, deviceId: String?, address: String) throws(CredentialStoreError) -> StoredPairing? {
        if let broken = unusable.first(where: { entry in
            entry.receiver == name || (deviceId != nil && entry.deviceId?.lowercased() == deviceId?.lowercased())
                || entry.address == address
        }) {
            throw .corruptEntry(path: path, receiver: broken.receiver, reason: broken.reason)
        }
        if let deviceId, let found = try pairing(where: { $0.deviceId?.lowercased() == deviceId.lowercased() }) { return found }
        if let found = try pairing(where: { $0.receiver == name }) { return found }
        return try pairing { $0.address == address }
    }

    private func pairing(where predicate: (StoredPairing) -> Bool) throws(CredentialStoreError) -> StoredPairing? {
        pairings.first(where: predicate)
    }

    /// Adds `pairing`, replacing any entry for the same receiver (device id, or name and address).
    public mutating func store(_ pairing: StoredPairing) throws(CredentialStoreError) {
        pairings.removeAll { old in
            (pairing.deviceId != nil && old.deviceId == pairing.deviceId) || old.receiver == pairing.receiver || old.address == pairing.address
        }
        pairings.append(pairing)
        try write()
    }

    /// Removes every entry `text` names; returns them. None is `notFound`.
    @discardableResult
    public mutating func remove(_ text: String) throws(CredentialStoreError) -> [StoredPairing] {
        let removed = pairings.filter { $0.matches(text) }
        let wanted = text.lowercased()
        let brokenCount = unusable.count
        for index in unusable.indices.reversed() where unusable[index].matches(wanted) {
            unusable.remove(at: index)
            unusableJSON.remove(at: index)
        }
        guard !removed.isEmpty || unusable.count < brokenCount else { throw .notFound(path: path, receiver: text) }
        pairings.removeAll { $0.matches(text) }
        try write()
        return removed
    }

    private func write() throws(CredentialStoreError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        let data: Data
        do {
            let good = try pairings.map { try JSONSerialization.jsonObject(with: encoder.encode($0)) }
            data = try JSONSerialization.data(withJSONObject: ["schemaVersion": Self.schemaVersion, "pairings": good + unusableJSON] as [String: Any],
                                              options: [.prettyPrinted, .sortedKeys])
        } catch {
            throw .io(path: path, reason: "cannot encode: \(error)")
        }
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty, !FileManager.default.fileExists(atPath: folder) {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o700])
            } catch { throw .io(path: folder, reason: "cannot create the folder: \(error.localizedDescription)") }
        }
        let temporary = path + ".tmp-\(getpid())"
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw .io(path: temporary, reason: String(cString: strerror(errno))) }
        let bytes = Array(data)
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        let ok = fchmod(fd, 0o600) == 0 && written == bytes.count && fsync(fd) == 0
        let reason = String(cString: strerror(errno))
        close(fd)
        guard ok, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw .io(path: path, reason: "cannot write: \(reason)")
        }
    }

    private static func reason(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context): return "not JSON: \(context.debugDescription)"
        case DecodingError.keyNotFound(let key, let context):
            let at = context.codingPath.map(\.stringValue).joined(separator: ".")
            return "missing \(key.stringValue)" + (at.isEmpty ? "" : " at \(at)")
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            return "wrong value at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        default: return "\(error)"
        }
    }
}
