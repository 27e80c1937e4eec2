import Discovery
import Foundation

/// A discovered receiver with its device class and, when asked for, its `/info` answer: one
/// entry of `seamcheck discover`'s `receivers`.
///
/// Encodes flat: the `Receiver` fields (INTERFACE.md's discover fields and more), then
/// `deviceClass` (null when unclassified), `classifiedBy` (`inventory`, `profile`, `info` or
/// null), `classificationReason`, and `info` when `/info` answered. A failed `/info` adds a
/// line to `warnings` instead.
public struct ClassifiedReceiver: Encodable, Sendable, Equatable {
    public var receiver: Receiver
    public var info: ReceiverInfo?
    public var infoError: InfoError?
    public var classification: Classification

    public init(receiver: Receiver, info: ReceiverInfo? = nil, infoError: InfoError? = nil, classification: Classification) {
        self.receiver = receiver
        self.info = info
        self.infoError = infoError
        self.classification = classification
    }

    /// The TXT decoding warnings and the `/info` failure, if any.
    public var warnings: [String] {
        receiver.warnings + (infoError.map { [$0.description] } ?? [])
    }

    public var deviceClass: String? { classification.deviceClass }

    private enum CodingKeys: String, CodingKey {
        case deviceClass, classifiedBy, classificationReason, info
    }

    public func encode(to encoder: any Encoder) throws {
        var flat = receiver
        flat.details.warnings = warnings
        try flat.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(classification.deviceClass, forKey: .deviceClass)
        try container.encode(classification.classifiedBy, forKey: .classifiedBy)
        try container.encode(classification.reason, forKey: .classificationReason)
        try container.encodeIfPresent(info, forKey: .info)
    }
}

extension ReceiverClassifier {
    /// `receiver` classified, with its `/info` result when one was fetched.
    public func classified(_ receiver: Receiver, info: Result<ReceiverInfo, InfoError>? = nil) -> ClassifiedReceiver {
        let answer = try? info?.get()
        var failure: InfoError?
        if case .failure(let error)? = info { failure = error }
        return ClassifiedReceiver(receiver: receiver, info: answer, infoError: failure,
                                  classification: classify(receiver, info: answer))
    }
}
