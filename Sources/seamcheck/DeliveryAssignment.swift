import AirPlay
import LabRun

/// `lab run --delivery [RECEIVER=]plain|pushed`: how each receiver gets the case's playlists.
/// On the command line, beside `--capture [RECEIVER=]INPUT`, rather than in the inventory or a
/// class profile: pushing is what the sender does (as the YouTube app does), not what a receiver
/// is, and one receiver is measured both ways by two runs of the same inventory.
enum DeliveryAssignment {
    /// The values spelled without a receiver: `plain` or `pushed`.
    static func parse(_ value: String, in text: String) throws -> LabDelivery {
        guard let delivery = LabDelivery(rawValue: value) else {
            throw CLIFailure.input("--delivery \(text): give plain or pushed, optionally for one receiver: --delivery RECEIVER=pushed")
        }
        return delivery
    }

    /// The receivers whose playlists are pushed. A bare value is every receiver's; RECEIVER=VALUE
    /// (a name, device id or address in this run) is that receiver's, and wins over a bare one.
    static func pushed(_ texts: [String], targets: [RunTarget]) throws -> Set<AirPlayEndpoint> {
        var every = LabDelivery.plain
        var each: [String: LabDelivery] = [:]
        for text in texts {
            // The last "=": a receiver's name may hold one, the values never do.
            guard let equals = text.lastIndex(of: "=") else {
                every = try parse(text, in: text)
                continue
            }
            let receiver = String(text[..<equals])
            let delivery = try parse(String(text[text.index(after: equals)...]), in: text)
            guard let target = targets.first(where: { $0.name == receiver || $0.deviceId == receiver || $0.address == receiver
                || "\($0.endpoint.host):\($0.endpoint.port)" == receiver }) else {
                throw CLIFailure.input("--delivery \(text): no receiver '\(receiver)' in this run (\(targets.map(\.name).joined(separator: ", ")))")
            }
            each[target.name] = delivery
        }
        return Set(targets.filter { (each[$0.name] ?? every) == .pushed }.map(\.endpoint))
    }
}
