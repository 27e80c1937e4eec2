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

    public init(model: String? = nil, manufacturer: String? = nil, features: AirPlayFeatures? = nil,
                video: Bool? = nil, hdrFormats: [String]? = nil) {
        self.model = model
        self.manufacturer = manufacturer
        self.features = features
        self.video = video
        self.hdrFormats = hdrFormats
    }

    /// "model X, manufacturer Y, plays video" for messages.
    public var summary: String {
        let plays = video.map { $0 ? "plays video" : "audio only" } ?? "features unknown"
        return "model \(model ?? "unknown"), manufacturer \(manufacturer ?? "unknown"), \(plays)"
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
            hdrFormats: info?.hdrFormats)
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
                        reason: "\(best.profile): \(best.evidence.joined(separator: ", ")) (score \(best.score))")
    }
}
