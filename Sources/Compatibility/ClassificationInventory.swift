import Discovery
import Foundation
import HLS
import Yams

/// Why a lab inventory file could not be used. Names the file, the field and the problem.
public enum InventoryError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(file: String, reason: String)
    case invalid(file: String, field: String, problem: String)

    public var description: String {
        switch self {
        case let .unreadable(file, reason): "\(file): cannot read the inventory (\(reason))"
        case let .invalid(file, field, problem): "\(file): \(BoundedText.clip(field)): \(BoundedText.clip(problem, maxBytes: 2_000))"
        }
    }
}

/// A lab's list of its receivers and their device classes, for what TXT records cannot tell
/// (a Dolby Vision TV and a low-end one advertise alike). Schema: DeviceProfiles/README.md.
///
/// ```yaml
/// receivers:
///   - deviceId: "AA:BB:CC:DD:EE:01"
///     deviceClass: smart-tv-dolby-vision
///     note: LG C2, rack 3
///   - name: Bedroom TV
///     deviceClass: smart-tv-low-end
/// ```
public struct LabInventory: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        /// Upper case with colons, comparable with `Receiver.deviceId`.
        public var deviceId: String?
        /// The receiver's service name, compared case-insensitively.
        public var name: String?
        public var deviceClass: String
        public var note: String?
        /// Where it is in the file, for messages: `receivers[2]`.
        public var field: String
        /// The receiver's IP addresses, for the lab: a client fetching from one of them is this
        /// receiver, whether or not it advertises itself.
        public var addresses: [String] = []
    }

    public var file: String
    public var entries: [Entry]

    static let entryKeys: Set<String> = ["deviceId", "name", "deviceClass", "note", "addresses"]

    public static func load(_ path: String, knownClasses: [String]) throws(InventoryError) -> LabInventory {
        let text: String
        do { text = try TextFile.read(path) } catch { throw .unreadable(file: path, reason: error.reason) }
        return try parse(text, file: path, knownClasses: knownClasses)
    }

    /// Parses and checks an inventory; `file` is only used in messages. Every entry needs a
    /// `deviceClass` among `knownClasses` and a `deviceId`, a `name`, or both (then both must
    /// match); unknown keys and a receiver pinned twice are errors.
    public static func parse(_ text: String, file: String, knownClasses: [String]) throws(InventoryError) -> LabInventory {
        let node: Node?
        do { node = try Yams.compose(yaml: text) } catch {
            throw .invalid(file: file, field: "(document)", problem: "not valid YAML: " + BoundedText.clip("\(error)"))
        }
        guard let mapping = node?.mapping else {
            throw .invalid(file: file, field: "(document)", problem: "expected a mapping with a receivers list")
        }
        for key in mapping.keys.compactMap(\.string) where key != "receivers" {
            throw .invalid(file: file, field: key, problem: "unknown key\(Suggestion.text(for: key, in: ["receivers"]))")
        }
        guard let list = mapping["receivers"] else {
            throw .invalid(file: file, field: "receivers", problem: "required key is missing")
        }
        guard let items = list.sequence else {
            throw .invalid(file: file, field: "receivers", problem: "expected a list of receivers")
        }
        var entries: [Entry] = []
        for (index, item) in items.enumerated() {
            let entry = try parseEntry(item, field: "receivers[\(index)]", file: file, knownClasses: knownClasses)
            let twin = entries.first { other in
                entry.deviceId.map { $0 == other.deviceId } ?? (other.deviceId == nil && sameName(other.name, entry.name))
            }
            if let twin {
                let what = entry.deviceId.map { "deviceId \($0)" } ?? "name '\(entry.name ?? "")'"
                throw .invalid(file: file, field: entry.field, problem: "\(what) is already pinned by \(twin.field)")
            }
            entries.append(entry)
        }
        return LabInventory(file: file, entries: entries)
    }

    private static func parseEntry(_ node: Node, field: String, file: String, knownClasses: [String]) throws(InventoryError) -> Entry {
        guard let mapping = node.mapping else {
            throw .invalid(file: file, field: field, problem: "expected a mapping with deviceClass and deviceId or name")
        }
        for key in mapping.keys.compactMap(\.string) where !entryKeys.contains(key) {
            throw .invalid(file: file, field: "\(field).\(key)", problem: "unknown key\(Suggestion.text(for: key, in: entryKeys))")
        }
        func text(_ key: String) throws(InventoryError) -> String? {
            guard let value = mapping[key] else { return nil }
            // The raw text: an unquoted all-digit MAC must not turn into a YAML 1.1 number.
            guard let scalar = value.scalar?.string.trimmingCharacters(in: .whitespaces), !scalar.isEmpty else {
                throw .invalid(file: file, field: "\(field).\(key)", problem: "expected a non-empty string")
            }
            return scalar
        }
        guard let deviceClass = try text("deviceClass") else {
            throw .invalid(file: file, field: "\(field).deviceClass", problem: "required key is missing")
        }
        guard knownClasses.contains(deviceClass) else {
            throw .invalid(file: file, field: "\(field).deviceClass", problem: "unknown device class '\(deviceClass)'"
                + "\(Suggestion.text(for: deviceClass, in: Set(knownClasses))); known: \(knownClasses.joined(separator: ", "))")
        }
        var deviceId: String?
        if let raw = try text("deviceId") {
            guard let normalized = ReceiverDescription.normalizedDeviceId(raw) else {
                throw .invalid(file: file, field: "\(field).deviceId",
                               problem: "'\(raw)' is not a device id such as AA:BB:CC:DD:EE:FF (seamcheck discover shows them)")
            }
            deviceId = normalized
        }
        let name = try text("name")
        guard deviceId != nil || name != nil else {
            throw .invalid(file: file, field: field, problem: "give deviceId or name (or both) to say which receiver is pinned")
        }
        var addresses: [String] = []
        if let list = mapping["addresses"] {
            guard let items = list.sequence else {
                throw .invalid(file: file, field: "\(field).addresses", problem: "expected a list of IP addresses")
            }
            for (index, item) in items.enumerated() {
                guard let address = item.scalar?.string.trimmingCharacters(in: .whitespaces), Self.isIPAddress(address) else {
                    throw .invalid(file: file, field: "\(field).addresses[\(index)]",
                                   problem: "'\(item.scalar?.string ?? "")' is not an IPv4 or IPv6 address such as 192.168.1.20")
                }
                addresses.append(address)
            }
        }
        return Entry(deviceId: deviceId, name: name, deviceClass: deviceClass, note: try text("note"), field: field,
                     addresses: addresses)
    }

    /// The entry pinning `receiver`: one whose deviceId matches (and name, if it has one) before
    /// one that gives only a name.
    public func entry(for receiver: Receiver) -> Entry? {
        let byId = entries.first { entry in
            entry.deviceId != nil && entry.deviceId == receiver.deviceId
                && (entry.name == nil || Self.sameName(entry.name, receiver.name))
        }
        return byId ?? entries.first { $0.deviceId == nil && Self.sameName($0.name, receiver.name) }
    }

    static func isIPAddress(_ text: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }

    private static func sameName(_ a: String?, _ b: String?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case let (a?, b?): a.caseInsensitiveCompare(b) == .orderedSame
        default: false
        }
    }
}
