import Foundation

/// What one source of evidence says about a cell: the protocol (`/playback-info`), the receiver's
/// requests, the picture (a capture's frame codes) or the sound (its tones).
public struct VerdictEvidence: Codable, Sendable, Equatable {
    public enum Source: String, Codable, Sendable, CaseIterable {
        case `protocol`, requests, picture, sound

        /// "the picture says", "the requests say".
        var saying: String { self == .requests ? "the requests say" : "the \(rawValue) says" }
    }

    /// The verdict rule that read it (`VerdictRules.all`).
    public var rule: String
    public var source: Source
    /// nil: the source was there but says nothing about the switch (a capture that could not be read).
    public var verdict: LabVerdict?
    /// The stall this source measured, in ms (for a stall).
    public var stallMs: Double?
    public var words: String

    public init(rule: String, source: Source, verdict: LabVerdict?, stallMs: Double? = nil, words: String) {
        self.rule = rule
        self.source = source
        self.verdict = verdict
        self.stallMs = stallMs
        self.words = words
    }
}

/// The cell's verdict from all the evidence: the worst of what the sources say decides; where
/// sources disagree, the reason names both.
public struct CellVerdict: Codable, Sendable, Equatable {
    public var verdict: LabVerdict
    /// The stall the verdict names, in ms (a stall only).
    public var stallMs: Double?
    public var reason: String
    public var evidence: [VerdictEvidence]
    /// "the picture says failed (…), /playback-info says seamless": one line per source against the protocol.
    public var disagreements: [String]

    /// How bad a verdict is, worst last; a skipped cell says nothing.
    static func rank(_ verdict: LabVerdict) -> Int {
        switch verdict {
        case .skipped: return 0
        case .seamless: return 1
        case .glitch: return 2
        case .stall: return 3
        case .black: return 4
        case .failed: return 5
        }
    }

    public init(_ m: CellMeasurement, thresholds: MeasurementThresholds = .defaults) {
        let evidence = VerdictRules.all.compactMap { $0.read(m, thresholds) }
        self.evidence = evidence
        let protocolSays = evidence.first { $0.rule == VerdictRules.protocolRule }!
        // A cell that never played is skipped whatever else was captured.
        guard protocolSays.verdict != .skipped else {
            self.verdict = .skipped
            self.stallMs = nil
            self.reason = m.reason
            self.disagreements = []
            return
        }
        let judged = evidence.filter { $0.verdict != nil }
        let worst = judged.max { a, b in
            (Self.rank(a.verdict!), a.stallMs ?? 0) < (Self.rank(b.verdict!), b.stallMs ?? 0)
        }!
        verdict = worst.verdict!
        stallMs = verdict == .stall ? worst.stallMs : nil
        // Each other source whose verdict differs from what /playback-info said.
        let said = protocolSays.verdict!
        disagreements = evidence.filter { $0.source != .protocol && $0.verdict != nil && $0.verdict != said
                                          && Self.rank($0.verdict!) > Self.rank(said) }
            .map { "\($0.source.saying) \($0.verdict!.rawValue) (\($0.words)), /playback-info says \(said.rawValue)" }
        var parts = [worst.rule == VerdictRules.protocolRule ? m.reason : worst.words]
        if worst.rule != VerdictRules.protocolRule { parts.append("/playback-info: \(m.reason)") }
        parts += evidence.filter { $0.rule != worst.rule && $0.rule != VerdictRules.protocolRule && $0.source != .protocol }
            .map { "\($0.source.rawValue): \($0.words)" }
        if !disagreements.isEmpty {
            // In the reason, short: each source's words are already above; `disagreements` has them in full.
            let against = evidence.filter { $0.source != .protocol && $0.verdict != nil && $0.verdict != said
                                            && Self.rank($0.verdict!) > Self.rank(said) }
            let bySource = VerdictEvidence.Source.allCases.compactMap { source -> String? in
                let verdicts = against.filter { $0.source == source }.map { $0.verdict!.rawValue }
                return verdicts.isEmpty ? nil : "\(source.saying) " + verdicts.joined(separator: " and ")
            }
            parts.append("sources disagree: /playback-info says \(said.rawValue), " + bySource.joined(separator: ", "))
        }
        reason = parts.joined(separator: "; ")
    }
}

/// One way a source of evidence bears on the verdict, with examples that are its specification
/// (they run as tests: Tests/LabTests/VerdictRuleExampleTests.swift).
public struct VerdictRule: Sendable {
    public let id: String
    public let source: VerdictEvidence.Source
    public let summary: String
    /// What the source says, or nil when the rule has nothing to say about this cell.
    public let read: @Sendable (CellMeasurement, MeasurementThresholds) -> VerdictEvidence?
    public let examples: [VerdictExample]
}

public struct VerdictExample: Sendable {
    public let name: String
    public let measurement: CellMeasurement
    /// Whether the rule reads anything (with a verdict) from it.
    public let fires: Bool
    /// The cell's verdict from all the evidence, its stall, and words its reason must hold.
    public let verdict: LabVerdict
    public let stallMs: Double?
    public let reasonHolds: String?

    public init(_ name: String, _ measurement: CellMeasurement, fires: Bool, verdict: LabVerdict, stallMs: Double? = nil,
                reasonHolds: String? = nil) {
        self.name = name
        self.measurement = measurement
        self.fires = fires
        self.verdict = verdict
        self.stallMs = stallMs
        self.reasonHolds = reasonHolds
    }
}
