import Foundation

/// One resolved DNS-SD service instance, as Avahi reported it on one interface and protocol.
public struct ResolvedService: Codable, Sendable, Equatable, Hashable {
    /// `_airplay._tcp` or `_raop._tcp`.
    public var type: String
    /// The instance name (`Living Room`, or `AABBCCDDEEFF@Living Room` for raop).
    public var name: String
    public var domain: String
    /// The interface name (`lo`, `eth0`), or the index as text when it has no name.
    public var interface: String
    /// `IPv4` or `IPv6`.
    public var addressFamily: String
    public var hostName: String
    public var address: String
    /// 0 for a sleeping device answered by a sleep proxy.
    public var port: Int
    public var txt: TXTRecord
    /// Announced by this machine (Avahi's LOCAL flag); kept, not filtered out.
    public var isLocal: Bool

    public init(type: String, name: String, domain: String = "local", interface: String, addressFamily: String = "IPv4",
                hostName: String, address: String, port: Int, txt: TXTRecord, isLocal: Bool = false) {
        self.type = type
        self.name = name
        self.domain = domain
        self.interface = interface
        self.addressFamily = addressFamily
        self.hostName = hostName
        self.address = address
        self.port = port
        self.txt = txt
        self.isLocal = isLocal
    }
}

/// An AirPlay receiver: its `_airplay._tcp` and `_raop._tcp` services merged by device id.
///
/// Encodes flat, in the shape of docs/interface.md's `discover` receivers: the `details` fields
/// (name, deviceId, model, ..., capabilities, warnings) next to addresses, port and services.
/// Fields of `details` read directly: `receiver.model`.
@dynamicMemberLookup
public struct Receiver: Codable, Sendable, Equatable, Identifiable {
    public var details: ReceiverDescription
    public var hostName: String?
    /// Unique addresses, IPv4 before IPv6.
    public var addresses: [String]
    /// The `_airplay._tcp` port, or the `_raop._tcp` one for an audio-only receiver.
    public var port: Int
    /// The `_raop._tcp` port, when that service was seen.
    public var raopPort: Int?
    public var interfaces: [String]
    /// The service types seen, `_airplay._tcp` first.
    public var services: [String]
    /// All services have port 0: a sleep proxy answers for the device.
    public var isAsleep: Bool
    /// The raw TXT records by service type.
    public var txt: [String: TXTRecord]

    public subscript<Value>(dynamicMember keyPath: KeyPath<ReceiverDescription, Value>) -> Value {
        details[keyPath: keyPath]
    }

    /// Stable while the receiver is listed: `device:`, the device id, `@` and its name (two receivers
    /// on one host share the interface's MAC as device id: Kodi and UxPlay), or, for a receiver
    /// without one, `service:`, its first service type and its name. Not encoded.
    public var id: String {
        details.deviceId.map { "device:\($0)@\(details.name)" } ?? "service:\(services.first ?? ""):\(details.name)"
    }

    public init(details: ReceiverDescription, hostName: String?, addresses: [String], port: Int, raopPort: Int?,
                interfaces: [String], services: [String], isAsleep: Bool, txt: [String: TXTRecord]) {
        self.details = details
        self.hostName = hostName
        self.addresses = addresses
        self.port = port
        self.raopPort = raopPort
        self.interfaces = interfaces
        self.services = services
        self.isAsleep = isAsleep
        self.txt = txt
    }

    private enum CodingKeys: String, CodingKey {
        case hostName, addresses, port, raopPort, interfaces, services, isAsleep, txt
    }

    public init(from decoder: any Decoder) throws {
        details = try ReceiverDescription(from: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        hostName = try container.decodeIfPresent(String.self, forKey: .hostName)
        addresses = try container.decode([String].self, forKey: .addresses)
        port = try container.decode(Int.self, forKey: .port)
        raopPort = try container.decodeIfPresent(Int.self, forKey: .raopPort)
        interfaces = try container.decode([String].self, forKey: .interfaces)
        services = try container.decode([String].self, forKey: .services)
        isAsleep = try container.decode(Bool.self, forKey: .isAsleep)
        txt = try container.decodeIfPresent([String: TXTRecord].self, forKey: .txt) ?? [:]
    }

    public func encode(to encoder: any Encoder) throws {
        try details.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(hostName, forKey: .hostName)
        try container.encode(addresses, forKey: .addresses)
        try container.encode(port, forKey: .port)
        try container.encodeIfPresent(raopPort, forKey: .raopPort)
        try container.encode(interfaces, forKey: .interfaces)
        try container.encode(services, forKey: .services)
        try container.encode(isAsleep, forKey: .isAsleep)
        try container.encode(txt, forKey: .txt)
    }
}

extension Receiver {
    static let airplayType = "_airplay._tcp"
    static let raopType = "_raop._tcp"

    /// Groups services into receivers by device id (`deviceid` TXT key for airplay, the MAC part
    /// of the instance name for raop) and name (the airplay instance name, the raop one after `@`):
    /// programs on one host take the same MAC as device id, and are told apart by their names. A
    /// service without a device id stands alone. Sorted by name.
    public static func merge(_ services: [ResolvedService]) -> [Receiver] {
        var groups: [String: [ResolvedService]] = [:]
        var order: [String] = []
        for service in services {
            let key = groupKey(service)
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(service)
        }
        return order.compactMap { groups[$0].map(receiver) }
            .sorted { ($0.name, $0.deviceId ?? "") < ($1.name, $1.deviceId ?? "") }
    }

    private static func groupKey(_ service: ResolvedService) -> String {
        switch service.type {
        case airplayType:
            let id = service.txt.first { $0.key.lowercased() == "deviceid" }?.value
                .flatMap(ReceiverDescription.normalizedDeviceId)
            return id.map { "id:\($0)@\(service.name)@\(service.domain)" } ?? "airplay:\(service.name)@\(service.domain)"
        case raopType:
            return RAOPName(service.name).map { "id:\($0.deviceId)@\($0.name)@\(service.domain)" } ?? "raop:\(service.name)@\(service.domain)"
        default:
            return "\(service.type):\(service.name)@\(service.domain)"
        }
    }

    /// One receiver from the services of one group (IPv4 entries preferred for TXT and host).
    private static func receiver(_ group: [ResolvedService]) -> Receiver {
        let sorted = group.sorted { ($0.addressFamily, $0.interface) < ($1.addressFamily, $1.interface) }
        let airplay = sorted.first { $0.type == airplayType }
        let raop = sorted.first { $0.type == raopType }
        let raopName = raop.flatMap { RAOPName($0.name) }
        let name = airplay?.name ?? raopName?.name ?? raop?.name ?? sorted[0].name
        let details = ReceiverDescription(name: name, airplay: airplay?.txt, raop: raop?.txt,
                                          fallbackDeviceId: raopName?.deviceId)
        let addresses = unique(sorted.filter { $0.addressFamily == "IPv4" }.map(\.address)
            + sorted.filter { $0.addressFamily != "IPv4" }.map(\.address))
        var txt: [String: TXTRecord] = [:]
        for service in [airplay, raop].compactMap({ $0 }) { txt[service.type] = service.txt }
        return Receiver(
            details: details,
            hostName: (airplay ?? raop ?? sorted[0]).hostName,
            addresses: addresses,
            port: (airplay ?? raop ?? sorted[0]).port,
            raopPort: raop?.port,
            interfaces: unique(sorted.map(\.interface)),
            services: [airplayType, raopType].filter { type in group.contains { $0.type == type } },
            isAsleep: group.allSatisfy { $0.port == 0 },
            txt: txt
        )
    }

    private static func unique(_ items: [String]) -> [String] {
        var seen = Set<String>()
        return items.filter { seen.insert($0).inserted }
    }
}
