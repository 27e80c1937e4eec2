import AirPlay
import Discovery
import Foundation
import LabCore
import LabServer

/// How the run reaches each receiver: stored credentials first (pair-verify), then what its TXT
/// record says (transient pairing where it offers it), and never a guessed code: a receiver that
/// wants a code nobody entered is refused with "needs pairing: run seamcheck airplay pair NAME".
public enum PairingAccess {
    public static func decide(for target: RunTarget, stored: HAPCredentials?) -> AirPlayAccess {
        if let stored { return .verify(stored) }
        let endpoint = target.endpoint.description
        switch target.pairing?.kind {
        case .transient?:
            return .transient
        case .pin?:
            return .refuse(.needsPairing(endpoint: endpoint, receiver: target.name))
        case .password?:
            return .refuse(.passwordRequired(endpoint: endpoint))
        case .disabled?, .unsupported?:
            return .refuse(.pairing(endpoint: endpoint, step: "access control",
                                    reason: "\(target.pairing!.summary): allow this sender in the receiver's AirPlay settings (allow access: everyone on the network)"))
        case .none?, nil:
            return .plain(pairingName: target.name)
        case .legacy?, .legacyPin?:
            // Legacy pairing belongs to the RTSP session (UxPlay); until it lands, plain HTTP.
            return .plain(pairingName: target.name)
        }
    }

    /// Which requests follow pairing: AirPlay 2's when the receiver's features say AirPlay 2
    /// (bit 38 or 48), else AirPlay 1's. Plain sessions (Kodi) are AirPlay 1 whatever this says.
    public static func flow(for target: RunTarget) -> AirPlayFlow {
        target.pairing?.airPlay2 == true ? .airPlay2 : .airPlay1
    }

    /// A word for the start of a run: "no pairing", "transient pairing", "paired (pair-verify)"...
    public static func describe(_ access: AirPlayAccess) -> String {
        switch access {
        case .plain: "no pairing"
        case .transient: "transient pairing"
        case .verify: "paired (pair-verify with stored credentials)"
        case .refuse(let error):
            switch error {
            case .needsPairing: "needs pairing (no stored credentials)"
            case .passwordRequired: "wants a password"
            default: "refused before connecting"
            }
        }
    }
}
