import AirPlay
import Discovery
import Foundation
import LabRun
import Reporting

/// Which pairing `airplay pair` runs, from what the receiver advertises (its TXT record, or
/// `GET /info` when it was named by address), never by trying codes.
enum PairScheme: Equatable {
    case hap
    case legacyPin
    case legacy
    /// A password, access control: pairing cannot help; the reason says what to do.
    case refused(String)

    /// `requirement` nil (named by address, no TXT record): RTSP `GET /info?txtAirPlay&txtRAOP`
    /// gives its TXT records (UxPlay says its PIN only there: raop `sf=0x8c`), else its features
    /// and flags; no answer leaves HAP (what every AirPlay 2 receiver speaks).
    static func choose(for target: RunTarget) async -> (PairScheme, String) {
        var requirement = target.pairing
        var source = "its TXT record"
        if requirement == nil, let records = await AdvertisedRecords.fetch(target.endpoint) {
            if records.airplay != nil || records.raop != nil {
                requirement = ReceiverDescription(name: target.name, airplay: records.airplay, raop: records.raop).pairing
                source = "the TXT records GET /info gave"
            } else if let features = records.features {
                requirement = PairingRequirement(features: AirPlayFeatures(rawValue: features), flags: records.statusFlags.map(StatusFlags.init(rawValue:)),
                                                 password: false, acl: nil, act: nil)
                source = "GET /info's features"
            }
        }
        guard let requirement else { return (.hap, "HAP (nothing advertised: no TXT record and no /info answer)") }
        let why = "\(requirement.scheme) (\(requirement.reason), from \(source))"
        switch requirement.kind {
        case .legacyPin: return (.legacyPin, why)
        case .legacy: return (.legacy, why)
        case .password:
            return (.refused("it wants an AirPlay password (\(requirement.reason)), which is not pairing: turn the password off in its AirPlay settings"), why)
        case .disabled, .unsupported:
            return (.refused("\(requirement.summary): allow this sender in the receiver's AirPlay settings"), why)
        case .pin, .transient, .none: return (.hap, why)
        }
    }
}

/// The legacy halves of `airplay pair` and `airplay verify`.
enum LegacyPairCommands {
    /// Pairs (with the code, or without one), checks the keys with a pair-verify, and returns
    /// what to store and the check's figures.
    static func pair(_ target: RunTarget, scheme: PairScheme, pin: String?, pinStart: Bool) async throws
        -> (credentials: LegacyCredentials, verify: Duration, infoStatus: Int) {
        let credentials: LegacyCredentials
        if scheme == .legacyPin {
            let code = try pin ?? AirPlayPairCommand.askCode(for: target.name)
            credentials = try await LegacyPairing.pair(target.endpoint, pin: code, pinStart: pinStart,
                                                       notice: { Terminal.writeStderr("seamcheck: \(VisibleText.escape($0))\n") })
        } else {
            if pin != nil { Terminal.writeStderr("seamcheck: \(VisibleText.escape(target.name)) wants no code (legacy pairing without a PIN): --pin is not used\n") }
            credentials = try await LegacyPairing.pairWithoutCode(target.endpoint)
        }
        let check = try await LegacyPairing.check(target.endpoint, credentials: credentials)
        return (credentials, check.verify, check.infoStatus)
    }
}
