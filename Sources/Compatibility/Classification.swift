import Discovery
import Foundation

/// What classification looks at: the receiver's TXT records, and its `/info` answer if any.
public struct ReceiverFacts: Sendable, Equatable {
    public var model: String?
    public var manufacturer: String?
    public var features: AirPlayFeatures?
    /// Nil when the features are unknown: "no video bit" is then not evidence of a speaker.
    public var video: Bool?
    /// Nil without an `/info` answer.
    public var hdrFormats: [String]?
    /// The DNS-SD service types the receiver advertises (`_airplay._tcp`, `_raop._tcp`); nil
    /// when unknown (facts built by hand).
    public var services: [String]?
    /// Where `model` came from, as a lab engineer finds it: `_airplay._tcp model=AppleTV6,2`,
    /// `_raop._tcp am=ShairportSync`, `/info model=...`.
    public var modelSource: String?
    /// Where `features` came from: `_airplay._tcp features=0x7F8AD0,0x38BCF46` (as sent),
    /// `_raop._tcp ft=...`, `/info features=0x...`.
    public var featuresSource: String?

    public init(model: String? = nil, manufacturer: String? = nil, features: AirPlayFeatures? = nil,
                video: Bool? = nil, hdrFormats: [String]? = nil, services: [String]? = nil,
                modelSource: String? = nil, featuresSource: String? = nil) {
        self.model = model
        self.manufacturer = manufacturer
        self.features = features
        self.video = video
        self.hdrFormats = hdrFormats
        self.services = services
        self.modelSource = modelSource
        self.featuresSource = featuresSource
    }

    /// "model X, manufacturer Y, plays video" for messages.
    public var summary: String {
        let plays = video.map { $0 ? "plays video" : "audio only" } ?? "features unknown"
        return "model \(model ?? "unknown"), manufacturer \(manufacturer ?? "unknown"), \(plays)"
            + (services.map { ", services " + $0.joined(separator: " + ") } ?? "")
            + (hdrFormats.map { ", /info HDR: " + ($0.isEmpty ? "none" : $0.joined(separator: ", ")) } ?? "")
    }

    /// TXT values first; `/info` fills what TXT lacks (a malformed `features`, say) and adds HDR.
    public init(receiver: Receiver, info: ReceiverInfo? = nil) {
        let model = receiver.model ?? info?.model
        let features = receiver.features ?? info?.features
        self.init(
            model: model,
            manufacturer: receiver.manufacturer ?? info?.manufacturer
                ?? model.flatMap { AppleModelCatalog.isAppleModel($0) ? "Apple" : nil },
            features: features,
            video: features.map { $0.contains(.supportsAirPlayVideoV1) || $0.contains(.supportsAirPlayVideoV2) },
            hdrFormats: info?.hdrFormats,
            services: receiver.services,
            modelSource: receiver.model != nil
                ? Self.txtSource(receiver, airplay: "model", raop: "am")
                : info?.model.map { "/info model=\($0)" },
            featuresSource: receiver.features != nil
                ? Self.txtSource(receiver, airplay: "features", raop: "ft")
                : info?.features.map { "/info features=\($0.hex)" })
    }

    /// `<service type> <key>=<value as sent>` for the TXT key a decoded value came from (the
    /// airplay record wins, as in `ReceiverDescription`); `fex` when `features` is absent.
    private static func txtSource(_ receiver: Receiver, airplay key: String, raop raopKey: String) -> String? {
        func lookup(_ type: String, _ key: String) -> String? {
            guard let record = receiver.txt[type],
                  let entry = record.first(where: { $0.key.lowercased() == key }), let value = entry.value else { return nil }
            return "\(type) \(entry.key)=\(value)"
        }
        return lookup("_airplay._tcp", key) ?? lookup("_raop._tcp", raopKey)
            ?? (key == "features" ? lookup("_airplay._tcp", "fex") : nil)
    }
}

/// A receiver's device class and why.
public struct Classification: Codable, Sendable, Equatable {
    public enum Source: String, Codable, Sendable {
        /// Pinned by the lab inventory file.
        case inventory
        /// The best `match` of the profiles, from TXT records alone.
        case profile
        /// The best `match` changed once `/info` was taken into account.
        case info
    }

    /// A profile id; nil for an unclassified receiver (never a guess).
    public var deviceClass: String?
    public var classifiedBy: Source?
    /// One line for people: what matched, or why nothing did.
    public var reason: String

    public init(deviceClass: String?, classifiedBy: Source?, reason: String) {
        self.deviceClass = deviceClass
        self.classifiedBy = classifiedBy
        self.reason = reason
    }
}

/// Puts receivers in device classes: a lab inventory pin first, then the profile whose `match`
/// scores highest (see `MatchRule` for the scores). A tie between profiles, or no match at
/// all, leaves the receiver unclassified.
public struct ReceiverClassifier: Sendable {
    /// A profile whose `match` fits, with its score and what matched.
    public struct Candidate: Sendable, Equatable {
        public var profile: String
        public var score: Int
        public var evidence: [String]
    }

    public let profiles: [DeviceProfile]
    public let inventory: LabInventory?

    public init(profiles: [DeviceProfile], inventory: LabInventory? = nil) {
        self.profiles = profiles
        self.inventory = inventory
    }

    public func classify(_ receiver: Receiver, info: ReceiverInfo? = nil) -> Classification {
        if let entry = inventory?.entry(for: receiver) {
            let by = entry.deviceId.map { "deviceId \($0)" } ?? "name '\(entry.name ?? "")'"
            return Classification(deviceClass: entry.deviceClass, classifiedBy: .inventory,
                                  reason: "pinned by \(entry.field) of \(inventory?.file ?? "the inventory") (\(by))"
                                      + (entry.note.map { ": \($0)" } ?? ""))
        }
        let fromTXT = decide(ReceiverFacts(receiver: receiver))
        guard let info else { return fromTXT.classification(source: .profile) }
        let withInfo = decide(ReceiverFacts(receiver: receiver, info: info))
        guard withInfo.deviceClass != fromTXT.deviceClass else { return fromTXT.classification(source: .profile) }
        var refined = withInfo.classification(source: .info)
        refined.reason += "; from TXT alone: " + (fromTXT.deviceClass ?? "unclassified")
        return refined
    }

    /// Every profile whose `match` fits `facts`, best first (ties by id).
    public func candidates(for facts: ReceiverFacts) -> [Candidate] {
        profiles.compactMap { profile in
            profile.match?.evaluate(facts).map { Candidate(profile: profile.id, score: $0.score, evidence: $0.evidence) }
        }.sorted { ($1.score, $0.profile) < ($0.score, $1.profile) }
    }

    private struct Decision {
        var deviceClass: String?
        var reason: String

        func classification(source: Classification.Source) -> Classification {
            Classification(deviceClass: deviceClass, classifiedBy: deviceClass == nil ? nil : source, reason: reason)
        }
    }

    private func decide(_ facts: ReceiverFacts) -> Decision {
        let candidates = candidates(for: facts)
        guard let best = candidates.first else {
            return Decision(deviceClass: nil, reason: "no profile's match fits (\(facts.summary)); pin it to a class in an --inventory file")
        }
        let tied = candidates.filter { $0.score == best.score }
        guard tied.count == 1 else {
            return Decision(deviceClass: nil, reason: "ambiguous: \(tied.map(\.profile).joined(separator: ", ")) match equally "
                + "(score \(best.score)); pin it in an --inventory file or make one profile's match more specific")
        }
        return Decision(deviceClass: best.profile,
                        reason: "\(best.profile): \(best.evidence.joined(separator: "; ")) (score \(best.score))")
    }
}
