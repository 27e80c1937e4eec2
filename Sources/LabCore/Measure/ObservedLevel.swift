import Compatibility

/// A verdict read as a severity, so that it can be held against a profile's prediction:
/// seamless is a pass, a glitch a warning, a stall, black screen or failure an error. A skipped
/// interstitial says nothing about the switch, so it is not compared.
public enum ObservedLevel: String, Codable, Sendable, Comparable {
    case pass, warning, error

    public init?(_ verdict: LabVerdict) {
        switch verdict {
        case .seamless: self = .pass
        case .glitch: self = .warning
        case .stall, .black, .failed: self = .error
        case .skipped: return nil
        }
    }

    /// A profile severity on the same scale (info is a pass: nothing a viewer notices).
    public init(_ severity: Severity?) {
        switch severity {
        case .error: self = .error
        case .warning: self = .warning
        case .info, nil: self = .pass
        }
    }

    public static func < (lhs: ObservedLevel, rhs: ObservedLevel) -> Bool {
        let order: [ObservedLevel] = [.pass, .warning, .error]
        return order.firstIndex(of: lhs)! < order.firstIndex(of: rhs)!
    }
}
