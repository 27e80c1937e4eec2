import Foundation

/// `POST /pair-pin-start` (the receiver shows its code) and what its refusal means. A receiver
/// with a fixed code (printed on it, as a HAP accessory; UxPlay's `-pin 4321`) may have no such
/// step: HAP-python answers 500 and drops the connection. Since `airplay pair` always has the
/// code before it starts (`--pin`, or one line of stdin), a refusal other than 403 is not an
/// error: pairing goes on with that code on a new connection and the
/// refusal is told, with `--no-pin-start` for next time. A wrong code still ends at the proof
/// step. 403 stays an error: LG, Samsung and Vizio answer it when their code is asked every time.
enum PinStart {
    static let step = "pair-pin-start"

    enum Outcome: Sendable, Equatable {
        case started
        /// What to tell the user; whether the connection is gone.
        case refused(String, dropped: Bool)
    }

    static func outcome(endpoint: AirPlayEndpoint, status: Int, reason: String) throws(AirPlayError) -> Outcome {
        switch status {
        case 200..<300: return .started
        case 403:
            throw .pairing(endpoint: endpoint.description, step: step,
                           reason: "answered 403 Forbidden: set the receiver's AirPlay 'Require code' to 'First time only' (or allow everyone) and pair again")
        default:
            return .refused(advice(endpoint, what: "answered \(status) \(reason)"), dropped: false)
        }
    }

    /// A dropped connection or no answer: the receiver has no such step (a timeout is an error:
    /// the receiver may be asleep).
    static func outcome(endpoint: AirPlayEndpoint, failure: AirPlayError) throws(AirPlayError) -> Outcome {
        switch failure {
        case .connectionClosed: return .refused(advice(endpoint, what: "closed the connection"), dropped: true)
        case .pairing(_, _, let reason) where reason.hasPrefix("not an HTTP answer"):
            return .refused(advice(endpoint, what: reason), dropped: true)
        default: throw failure
        }
    }

    static func advice(_ endpoint: AirPlayEndpoint, what: String) -> String {
        "\(endpoint): pair-pin-start \(what): a receiver with a fixed code (printed on it) has no pair-pin-start and wants --no-pin-start; going on to pair-setup with the code given"
    }
}
