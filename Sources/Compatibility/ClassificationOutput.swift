import Discovery
import Foundation

/// A discovered receiver with its device class and, when asked for, its `/info` answer: one
/// entry of `seamcheck discover`'s `receivers`.
///
/// Encodes flat: the `Receiver` fields (docs/interface.md's discover fields and more), then
/// `deviceClass` (null when unclassified), `classifiedBy` (`inventory`, `profile`, `info` or
/// null), `classificationReason`, `inventoryPin` (for an unclassified receiver, the inventory
/// entry to add; else null), and, when `/info` was asked: `info` (when it answered),
/// `infoResult` (`answered`, `refused`, `failed`, `skipped`), `infoAnsweredBy` (the request
/// whose status line decided, or null) and `infoAttempts` (every request). A refusal is a fact,
/// not a warning; a failed `/info` adds a line to `warnings`.
public struct ClassifiedReceiver: Encodable, Sendable, Equatable {
    public var receiver: Receiver
    public var infoOutcome: InfoOutcome?
    public var classification: Classification

    public init(receiver: Receiver, infoOutcome: InfoOutcome? = nil, classification: Classification) {
        self.receiver = receiver
        self.infoOutcome = infoOutcome
        self.classification = classification
    }

    /// The `/info` answer, when there is one.
    public var info: ReceiverInfo? { infoOutcome?.info }

    /// Why `/info` gave nothing, when it did not answer.
    public var infoError: InfoError? {
        if case .failure(let error)? = infoOutcome?.result { return error }
        return nil
    }

    /// The TXT decoding warnings and the `/info` failure (not a refusal), if any.
    public var warnings: [String] {
        receiver.warnings + (infoOutcome?.warning.map { [$0] } ?? [])
    }

    public var deviceClass: String? { classification.deviceClass }

    /// For an unclassified receiver, the lab inventory entry that would classify it, with CLASS
    /// for the profile id to choose (`- {deviceId: "AA:BB:CC:DD:EE:FF", deviceClass: CLASS}`, by
    /// name when the receiver gives no device id); nil once it has a class.
    public var inventoryPin: String? {
        guard classification.deviceClass == nil else { return nil }
        let key = receiver.deviceId.map { "deviceId: \"\($0)\"" } ?? "name: \"\(receiver.name.replacingOccurrences(of: "\"", with: "\\\""))\""
        return "- {\(key), deviceClass: CLASS}"
    }

    private enum CodingKeys: String, CodingKey {
        case deviceClass, classifiedBy, classificationReason, inventoryPin, info, infoResult, infoAnsweredBy, infoAttempts
    }

    public func encode(to encoder: any Encoder) throws {
        var flat = receiver
        flat.details.warnings = warnings
        try flat.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(classification.deviceClass, forKey: .deviceClass)
        try container.encode(classification.classifiedBy, forKey: .classifiedBy)
        try container.encode(classification.reason, forKey: .classificationReason)
        try container.encode(inventoryPin, forKey: .inventoryPin)
        try container.encodeIfPresent(info, forKey: .info)
        if let infoOutcome {
            try container.encode(infoOutcome.kind.rawValue, forKey: .infoResult)
            try container.encode(infoOutcome.answeredBy, forKey: .infoAnsweredBy)
            try container.encode(infoOutcome.attempts, forKey: .infoAttempts)
        }
    }
}

extension ReceiverClassifier {
    /// `receiver` classified, with its `/info` outcome when one was fetched.
    public func classified(_ receiver: Receiver, info outcome: InfoOutcome? = nil) -> ClassifiedReceiver {
        ClassifiedReceiver(receiver: receiver, infoOutcome: outcome, classification: classify(receiver, info: outcome?.info))
    }
}
