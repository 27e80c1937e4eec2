import Foundation

/// The stall measured at one transition point of a cell: 0 when playback passed it without one,
/// nil when it never got there.
public struct TransitionStall: Codable, Sendable, Equatable {
    /// "ad start 6 s".
    public var transition: String
    public var ms: Double?

    public init(transition: String, ms: Double?) {
        self.transition = transition
        self.ms = ms
    }
}

/// The sound at one switch heard: its audio gap and A/V offset (nil: not heard, not seen).
public struct SoundColumn: Codable, Sendable, Equatable {
    /// "the ad's start", "the return from the ad".
    public var transition: String
    public var gapMs: Double?
    public var avOffsetMs: Double?
    public var expectedAvOffsetMs: Double?
}

/// What `lab run` measured for a report cell (a receiver x case, or the class roll-up).
public struct MeasuredColumns: Codable, Sendable, Equatable {
    /// seamless, glitch, stall, failed, skipped: the measured verdict (shown even when an operator's wins).
    public var verdict: String
    /// The stall the verdict names, in ms.
    public var stallMs: Double?
    public var firstFrameMs: Double?
    public var firstRequestMs: Double?
    public var firstSegmentMs: Double?
    /// The longest stall at any transition (0: none; null: never reached), the number calibration grades.
    public var transitionStallMs: Double?
    /// Per transition point of the case (for a class: the worst of its receivers).
    public var transitionStalls: [TransitionStall]
    /// The longest stall away from the transitions.
    public var elsewhereStallMs: Double?
    /// The measured stall graded through the thresholds: pass, warning or error (null when not compared).
    public var level: String?
    public var reason: String
    public var runId: String?
    /// For an interstitial case: whether the receiver fetched any of the interstitial (false: it
    /// played straight through, there was no transition and `transitionStalls` is empty); nil otherwise.
    public var interstitialPlayed: Bool?
    /// How many measured cells this rests on (1 for a receiver; its receivers' for a class).
    public var cells: Int
    /// The longest transition stall from a capture of the picture (`lab run --capture`), beside the protocol's.
    public var pictureStallMs: Double?
    /// `/play` to the first coded frame on screen, from the capture.
    public var pictureFirstFrameMs: Double?
    /// What each source of evidence said ("protocol seamless, picture failed"), for every measured cell.
    public var sources: String?
    /// Where a source says worse than /playback-info, in words (empty when they agree).
    public var disagreements: [String]?
    /// What the sound did at each switch heard (`lab run --capture-audio`): gap and A/V offset.
    public var sound: [SoundColumn]?
    /// The longest audio gap at a switch, ms (from the sound).
    public var audioGapMs: Double?
    /// The A/V offset furthest from the streams' own, ms (signed; positive: the sound late).
    public var avOffsetMs: Double?

    public init(verdict: String, stallMs: Double? = nil, firstFrameMs: Double? = nil, firstRequestMs: Double? = nil,
                firstSegmentMs: Double? = nil, transitionStallMs: Double? = nil, transitionStalls: [TransitionStall] = [],
                elsewhereStallMs: Double? = nil, level: String? = nil, reason: String, runId: String? = nil, cells: Int = 1,
                interstitialPlayed: Bool? = nil) {
        self.verdict = verdict
        self.stallMs = stallMs
        self.firstFrameMs = firstFrameMs
        self.firstRequestMs = firstRequestMs
        self.firstSegmentMs = firstSegmentMs
        self.transitionStallMs = transitionStallMs
        self.transitionStalls = transitionStalls
        self.elsewhereStallMs = elsewhereStallMs
        self.level = level
        self.reason = reason
        self.runId = runId
        self.cells = cells
        self.interstitialPlayed = interstitialPlayed
    }

    /// One run cell's columns.
    public init(_ cell: LabRunCell, labCase: LabCase, thresholds: MeasurementThresholds) {
        let m = cell.measurement
        let reached = m.lastPosition ?? -1
        let played = TransitionPoint.interstitialFetched(labCase, requests: cell.requests)
        let perPoint: [TransitionStall] = played == false ? [] : TransitionPoint.of(labCase).map { point -> TransitionStall in
            let here = m.stalls.filter { $0.transition == point.label }.map(\.durationMs).max()
            return TransitionStall(transition: point.label,
                                   ms: here ?? (reached >= point.position + thresholds.transitionWindowSeconds ? 0 : nil))
        }
        let verdict = m.verdict(thresholds: thresholds)
        // Calibration grades the worst stall at a switch, whoever saw it: the polls or the picture.
        let switchStall = [m.transitionStallMs, m.picture?.switchStallMs].compactMap { $0 }.max()
        self.init(verdict: verdict.verdict.rawValue, stallMs: verdict.stallMs, firstFrameMs: m.playToFirstFrameMs,
                  firstRequestMs: m.playToFirstRequestMs, firstSegmentMs: m.playToFirstSegmentMs,
                  transitionStallMs: switchStall, transitionStalls: perPoint, elsewhereStallMs: m.elsewhereStallMs,
                  level: Self.level(m, thresholds: thresholds)?.rawValue, reason: verdict.reason, runId: cell.runId,
                  interstitialPlayed: played)
        pictureStallMs = m.picture?.switchStallMs
        pictureFirstFrameMs = m.picture?.playToFirstFrameMs
        sources = Self.sources(verdict)
        disagreements = verdict.disagreements
        if let heard = m.sound {
            // A switch the capture could not be trusted at says so in place of figures.
            sound = heard.transitions.map { SoundColumn(transition: $0.at + ($0.notMeasured != nil && $0.gapMs == nil ? ": not measured" : ""),
                                                        gapMs: $0.gapMs, avOffsetMs: $0.avOffsetMs, expectedAvOffsetMs: $0.expectedAvOffsetMs) }
            audioGapMs = heard.longestGapMs
            avOffsetMs = heard.worstAVErrorMs
            if !heard.isMeasured { sound = [SoundColumn(transition: "sound \(heard.result)", gapMs: nil, avOffsetMs: nil, expectedAvOffsetMs: nil)] }
        }
    }

    /// "protocol seamless, picture failed": each source's worst verdict, in the order of `VerdictEvidence.Source`.
    static func sources(_ verdict: CellVerdict) -> String {
        VerdictEvidence.Source.allCases.compactMap { source -> String? in
            let said = verdict.evidence.filter { $0.source == source }
            guard !said.isEmpty else { return nil }
            let worst = said.compactMap(\.verdict).max { CellVerdict.rank($0) < CellVerdict.rank($1) }
            return "\(source.rawValue) \(worst?.rawValue ?? "unreadable")"
        }.joined(separator: ", ")
    }

    /// A measured cell as a level to hold against the prediction: the stall (at a transition, else the
    /// verdict's) through the grades; failures that say nothing of the switch (receiver gone, the run's
    /// own failure, not run) are not compared.
    public static func level(_ m: CellMeasurement, thresholds: MeasurementThresholds) -> ObservedLevel? {
        let verdict = m.verdict(thresholds: thresholds)
        switch m.outcome {
        case .skipped: return nil
        case .failed:
            switch m.failure {
            case .neverPlayed?, .receiverError?, .endedEarly?: return .error
            default: return nil
            }
        case .stall, .seamless:
            // The picture's failure (an ad never on screen) says as much about the switch as the protocol's.
            if verdict.verdict == .failed { return .error }
            let stall = thresholds.grade(stallMs: verdict.stallMs ?? 0)
            let heard = verdict.evidence.contains { $0.source == .sound && $0.verdict == .glitch }
            return m.jumps.isEmpty && !heard ? stall : max(stall, .warning)
        }
    }

    /// A class's roll-up: the worst verdict and stalls, the median first frame.
    static func rollUp(_ members: [MeasuredColumns]) -> MeasuredColumns? {
        guard !members.isEmpty else { return nil }
        func worst(_ values: [Double?]) -> Double? { values.compactMap { $0 }.max() }
        func median(_ values: [Double?]) -> Double? {
            let sorted = values.compactMap { $0 }.sorted()
            return sorted.isEmpty ? nil : sorted[sorted.count / 2]
        }
        let levels = members.compactMap { $0.level.flatMap(ObservedLevel.init(rawValue:)) }
        let worstMember = members.max { a, b in
            (a.level.flatMap(ObservedLevel.init(rawValue:)) ?? .pass, a.stallMs ?? 0) < (b.level.flatMap(ObservedLevel.init(rawValue:)) ?? .pass, b.stallMs ?? 0)
        }!
        let labels = members.flatMap { $0.transitionStalls.map(\.transition) }
        var seen = Set<String>()
        let perPoint = labels.filter { seen.insert($0).inserted }.map { label in
            TransitionStall(transition: label, ms: worst(members.flatMap { $0.transitionStalls.filter { $0.transition == label }.map(\.ms) }))
        }
        let counts = Dictionary(members.map { ($0.verdict, 1) }, uniquingKeysWith: +).sorted { ($1.value, $0.key) < ($0.value, $1.key) }
        var rolled = MeasuredColumns(verdict: worstMember.verdict, stallMs: worst(members.map(\.stallMs)), firstFrameMs: median(members.map(\.firstFrameMs)),
                               firstRequestMs: median(members.map(\.firstRequestMs)), firstSegmentMs: median(members.map(\.firstSegmentMs)),
                               transitionStallMs: worst(members.map(\.transitionStallMs)), transitionStalls: perPoint,
                               elsewhereStallMs: worst(members.map(\.elsewhereStallMs)), level: levels.max()?.rawValue,
                               reason: counts.map { "\($0.value) \($0.key)" }.joined(separator: ", ") + " measured",
                               cells: members.count,
                               interstitialPlayed: members.contains { $0.interstitialPlayed == true } ? true
                                   : members.contains { $0.interstitialPlayed == false } ? false : nil)
        rolled.pictureStallMs = worst(members.map(\.pictureStallMs))
        rolled.pictureFirstFrameMs = median(members.map(\.pictureFirstFrameMs))
        let disagreements = members.flatMap { $0.disagreements ?? [] }
        rolled.disagreements = disagreements.isEmpty ? nil : disagreements
        return rolled
    }
}

extension MeasuredColumns {
    /// From a recorded measured verdict alone (its run cell not at hand): the verdict, its stall, its note.
    public init(recorded: LabVerdictRecord, thresholds: MeasurementThresholds) {
        let stallMs = recorded.seconds.map { $0 * 1000 }
        let level: ObservedLevel? = switch recorded.verdict {
        case .seamless: .pass
        case .glitch: .warning
        case .stall: thresholds.grade(stallMs: stallMs ?? thresholds.grades.errorMs)
        case .black, .failed: .error
        case .skipped: nil
        }
        self.init(verdict: recorded.verdict.rawValue, stallMs: stallMs, level: level?.rawValue, reason: recorded.note ?? "",
                  runId: recorded.runId)
    }
}
