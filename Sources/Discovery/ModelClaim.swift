import Foundation

/// Why an Apple model string (`model=AppleTV3,2`) is not taken as proof that the receiver is an
/// Apple device: open-source receivers (UxPlay, RPiPlay) claim an Apple TV 3 so that iOS talks
/// to them. Each check reads the other records; a receiver that passes them all is not proven
/// Apple either, only not contradicted.
public struct ModelDoubt: Sendable, Equatable {
    public var id: String
    /// What was seen, in words naming the record and key.
    public var reason: String
}

public enum ModelClaim {
    /// UxPlay's and RPiPlay's built-in `pi` (lib/dnssdint.h `AIRPLAY_PI`): the same on every copy.
    public static let openSourcePairingId = "2e388006-13ba-4041-9a67-25dd4a43d536"

    /// The checks, in order. `model` is the claimed Apple model; `record` the `_airplay._tcp` TXT
    /// record with lowercased keys.
    static let checks: [(id: String, test: @Sendable (_ model: String, _ features: AirPlayFeatures?, _ record: [String: String?]) -> String?)] = [
        ("fixed-pairing-id", { _, _, record in
            guard let pi = record["pi"] ?? nil, pi.lowercased() == openSourcePairingId else { return nil }
            return "_airplay._tcp pi=\(pi) is the fixed value built into UxPlay and RPiPlay, not a device's own identifier"
        }),
        ("apple-tv-without-video", { model, features, _ in
            guard model.hasPrefix("AppleTV"), let features, !features.contains(.supportsAirPlayVideoV1),
                  !features.contains(.supportsAirPlayVideoV2) else { return nil }
            return "features \(features.hex) has no AirPlay video bit (0 or 49): every Apple TV advertises one"
        }),
        ("other-manufacturer", { _, _, record in
            guard let maker = record["manufacturer"] ?? nil, !maker.isEmpty, maker.lowercased() != "apple" else { return nil }
            return "_airplay._tcp manufacturer=\(maker)"
        }),
    ]

    /// The doubts about `model` (empty when it is not an Apple model or nothing contradicts it).
    public static func doubts(model: String?, features: AirPlayFeatures?, airplay: TXTRecord?) -> [ModelDoubt] {
        guard let model, AppleModelCatalog.isAppleModel(model) else { return [] }
        var record: [String: String?] = [:]
        for (key, value) in airplay ?? [:] where record[key.lowercased()] == nil { record[key.lowercased()] = value }
        return checks.compactMap { check in check.test(model, features, record).map { ModelDoubt(id: check.id, reason: $0) } }
    }
}
