import Compatibility
import Foundation
import HLS
import Yams

/// The numbers the measurer and the graders use, kept as data (`DeviceProfiles/lab/measurement.yaml`,
/// documented in DeviceProfiles/README.md) so that a lab can tune them without a build.
public struct MeasurementThresholds: Codable, Sendable, Equatable {
    /// How a measured stall is graded against a class's prediction.
    public struct Grades: Codable, Sendable, Equatable {
        /// At or above: a warning (a hiccup a viewer may notice).
        public var warningMs: Double
        /// At or above: an error (what a viewer calls a stall).
        public var errorMs: Double

        public init(warningMs: Double = 200, errorMs: Double = 1000) {
            self.warningMs = warningMs
            self.errorMs = errorMs
        }
    }

    /// Shorter freezes are poll jitter, not stalls.
    public var stallMinimumMs: Double
    /// A stall within this many seconds (media position) of a transition point is a transition stall.
    public var transitionWindowSeconds: Double
    /// Position changes beyond what the elapsed wall time explains by more than this are jumps.
    public var jumpToleranceSeconds: Double
    /// Playback that stops this much or more before the media's end ended early.
    public var earlyEndMarginSeconds: Double
    /// Per poll pair: media time falling short of wall time by less than this is jitter.
    public var positionEpsilonSeconds: Double
    /// A silence between two streams' tones this long or longer is a glitch a viewer hears.
    public var audioGapMs: Double = 100
    /// An A/V offset at a switch further than this from what the streams say (sound early or late) is a glitch.
    public var avOffsetMs: Double = 45
    public var grades: Grades

    public init(stallMinimumMs: Double = 200, transitionWindowSeconds: Double = 1.5, jumpToleranceSeconds: Double = 1.0,
                earlyEndMarginSeconds: Double = 2.0, positionEpsilonSeconds: Double = 0.05, grades: Grades = Grades()) {
        self.stallMinimumMs = stallMinimumMs
        self.transitionWindowSeconds = transitionWindowSeconds
        self.jumpToleranceSeconds = jumpToleranceSeconds
        self.earlyEndMarginSeconds = earlyEndMarginSeconds
        self.positionEpsilonSeconds = positionEpsilonSeconds
        self.grades = grades
    }

    public static let defaults = MeasurementThresholds()

    /// The file beside the device profiles: `<profiles dir>/lab/measurement.yaml`.
    public static let relativePath = "lab/measurement.yaml"

    /// The keys a file or `--threshold KEY=VALUE` may set, as written in the YAML.
    public static let keys = ["stallMinimumMs", "transitionWindowSeconds", "jumpToleranceSeconds", "earlyEndMarginSeconds",
                              "positionEpsilonSeconds", "audioGapMs", "avOffsetMs", "grades.warningMs", "grades.errorMs"]

    /// How a measured stall of `ms` reads as a level: pass, warning or error.
    public func grade(stallMs ms: Double) -> ObservedLevel {
        ms >= grades.errorMs ? .error : ms >= grades.warningMs ? .warning : .pass
    }

    /// A copy with one value changed; `key` is one of `keys`.
    public func setting(_ key: String, to value: Double, file: String = "--threshold") throws(MeasurementThresholdsError) -> Self {
        guard value.isFinite, value >= 0 else {
            throw .invalid(file: file, field: key, problem: "\(value) is not a number of 0 or more")
        }
        var copy = self
        switch key {
        case "stallMinimumMs": copy.stallMinimumMs = value
        case "transitionWindowSeconds": copy.transitionWindowSeconds = value
        case "jumpToleranceSeconds": copy.jumpToleranceSeconds = value
        case "earlyEndMarginSeconds": copy.earlyEndMarginSeconds = value
        case "positionEpsilonSeconds": copy.positionEpsilonSeconds = value
        case "audioGapMs": copy.audioGapMs = value
        case "avOffsetMs": copy.avOffsetMs = value
        case "grades.warningMs": copy.grades.warningMs = value
        case "grades.errorMs": copy.grades.errorMs = value
        default:
            throw .invalid(file: file, field: key, problem: "unknown threshold\(Suggestion.text(for: key, in: Self.keys)); "
                           + "thresholds: \(Self.keys.joined(separator: ", "))")
        }
        try copy.check(file: file)
        return copy
    }

    /// `KEY=VALUE` overrides, in order.
    public func overriding(_ assignments: [String]) throws(MeasurementThresholdsError) -> Self {
        var result = self
        for assignment in assignments {
            let parts = assignment.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, let value = Double(parts[1]) else {
                throw .invalid(file: "--threshold", field: assignment, problem: "expected KEY=NUMBER, e.g. grades.errorMs=800")
            }
            result = try result.setting(parts[0], to: value)
        }
        return result
    }

    func check(file: String) throws(MeasurementThresholdsError) {
        if grades.warningMs > grades.errorMs {
            throw .invalid(file: file, field: "grades", problem: "warningMs (\(grades.warningMs)) must not exceed errorMs (\(grades.errorMs))")
        }
    }
}

/// Why a thresholds file could not be used: names the file, the key and what to do.
public enum MeasurementThresholdsError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(file: String, reason: String)
    case invalid(file: String, field: String, problem: String)

    public var description: String {
        switch self {
        case .unreadable(let file, let reason):
            return "\(file): cannot read the measurement thresholds (\(reason)); check the path given to --thresholds"
        case .invalid(let file, let field, let problem):
            return "\(file): \(field): \(problem) (schema: DeviceProfiles/README.md, \"Measurement thresholds\")"
        }
    }
}

/// Reads thresholds from YAML: every key optional (a missing one keeps its default), unknown keys refused.
public enum MeasurementThresholdsLoader {
    public static func load(file: String) throws(MeasurementThresholdsError) -> MeasurementThresholds {
        let text: String
        do { text = try TextFile.read(file) } catch { throw .unreadable(file: file, reason: error.reason) }
        return try parse(text, file: file)
    }

    /// The file at `<profilesDirectory>/lab/measurement.yaml` when there is one, else the defaults.
    public static func load(besideProfiles directory: String) throws(MeasurementThresholdsError) -> MeasurementThresholds {
        let file = directory + "/" + MeasurementThresholds.relativePath
        return FileManager.default.fileExists(atPath: file) ? try load(file: file) : .defaults
    }

    public static func parse(_ text: String, file: String) throws(MeasurementThresholdsError) -> MeasurementThresholds {
        let node: Node?
        do { node = try Yams.compose(yaml: text) } catch {
            throw .invalid(file: file, field: "(document)", problem: "not valid YAML: \(BoundedText.clip(String(describing: error)))")
        }
        guard let node else { return .defaults }
        guard let mapping = node.mapping else {
            throw .invalid(file: file, field: "(document)", problem: "expected a mapping of thresholds")
        }
        var result = MeasurementThresholds.defaults
        for (key, value) in mapping {
            let name = key.string ?? "?"
            if name == "grades" {
                guard let grades = value.mapping else {
                    throw .invalid(file: file, field: "grades", problem: "expected a mapping with warningMs and errorMs")
                }
                for (gradeKey, gradeValue) in grades {
                    result = try result.setting("grades." + (gradeKey.string ?? "?"), to: try number(gradeValue, file: file,
                                                field: "grades." + (gradeKey.string ?? "?")), file: file)
                }
            } else {
                result = try result.setting(name, to: try number(value, file: file, field: name), file: file)
            }
        }
        return result
    }

    private static func number(_ node: Node, file: String, field: String) throws(MeasurementThresholdsError) -> Double {
        guard let text = node.scalar?.string, let value = Double(text) else {
            throw .invalid(file: file, field: field, problem: "expected a number")
        }
        return value
    }
}
