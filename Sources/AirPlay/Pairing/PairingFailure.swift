import Foundation

/// Why one step of pair-setup or pair-verify failed; `step` names the message ("pair-setup M2").
/// The session turns it into `AirPlayError.pairing` (the connection is dropped) or, for the
/// accessory's own error item, `AirPlayError.pairingRefused`.
enum PairingFailure: Error, Sendable, Equatable {
    /// The body is not TLV8, or lacks an item the step needs.
    case malformed(step: String, reason: String)
    /// The accessory's `error` item.
    case refused(step: String, code: TLV8.ErrorCode)
    /// The SRP proof in M4 is not the one the password gives.
    case badProof(step: String)
    /// An Ed25519 signature that does not verify with the accessory's key.
    case badSignature(step: String)
    /// Encrypted data that does not authenticate.
    case decryption(step: String)
    /// The accessory is not the one the credentials were made with.
    case wrongAccessory(step: String)

    var step: String {
        switch self {
        case .malformed(let step, _), .refused(let step, _), .badProof(let step), .badSignature(let step),
             .decryption(let step), .wrongAccessory(let step): step
        }
    }

    var reason: String {
        switch self {
        case .malformed(_, let reason): "malformed answer: \(reason)"
        case .refused(_, let code): "the receiver refused: \(code)"
        case .badProof: "the receiver's SRP proof is wrong (it does not know the code, or it is not the receiver it claims)"
        case .badSignature: "the receiver's Ed25519 signature does not verify"
        case .decryption: "its encrypted data does not authenticate"
        case .wrongAccessory: "it is not the receiver these credentials were made with (another pairing identifier)"
        }
    }

    func airPlayError(endpoint: String) -> AirPlayError {
        if case .refused(let step, let code) = self { return .pairingRefused(endpoint: endpoint, step: step, code: code) }
        return .pairing(endpoint: endpoint, step: step, reason: reason)
    }
}

/// Reads one answer of `step`: TLV8, the expected state, no `error` item.
enum PairingMessage {
    static func read(_ body: some Collection<UInt8>, step: String, state: UInt8) throws(PairingFailure) -> TLV8Message {
        let message: TLV8Message
        do { message = try TLV8Message(decoding: body) } catch {
            throw .malformed(step: step, reason: error.description)
        }
        if let code = message.error { throw .refused(step: step, code: code) }
        guard message.state == state else {
            throw .malformed(step: step, reason: "state is \(message.state.map(String.init) ?? "missing"), expected \(state)")
        }
        return message
    }

    static func item(_ message: TLV8Message, _ tag: TLV8.Tag, step: String, count: ClosedRange<Int> = 1...4096) throws(PairingFailure) -> [UInt8] {
        guard let value = message[tag] else { throw .malformed(step: step, reason: "no \(tag) item") }
        guard count.contains(value.count) else {
            throw .malformed(step: step, reason: "\(tag) is \(value.count) bytes, expected \(count.lowerBound == count.upperBound ? "\(count.lowerBound)" : "\(count.lowerBound)-\(count.upperBound)")")
        }
        return value
    }
}
