import Foundation
import HLS

/// A break's start and the primary's segments, and whether the rule fires for them.
public struct BoundaryExample: Sendable {
    public var name: String
    /// Seconds from the start of the primary.
    public var offset: Double
    public var boundaries: [Double]
    public var snap: [String]
    public var triggers: Bool
}

/// `break-off-segment-boundary`: a mid-roll whose START-DATE falls inside a primary segment and
/// whose tag has no X-SNAP OUT. Receivers that leave the primary only at segment boundaries play
/// on to the next one (the ad starts late, the schedule drifts) or cut the segment mid-way.
public enum BoundaryRule {
    public static let description = RuleDescription(
        id: "break-off-segment-boundary", title: "A break starts inside a primary segment, without X-SNAP",
        rationale: "Receivers that switch only at segment boundaries either play the primary on to the next boundary (the break starts late and the timeline drifts) or cut the segment they are in. X-SNAP=\"OUT\" tells the client to leave at the nearest boundary (meant for live streams, where packager and encoder clocks drift); in VOD, move START-DATE to the boundary. The finding names the nearest boundary and its date. Breaks at the very start or end are pre- and post-rolls; a gap of 1 ms or less is on the boundary.",
        source: "Apple, Getting Started with HLS Interstitials 1.0b4 (seeds/003): X-SNAP OUT and IN; WWDC22 notes (seeds/004): Prevent drift with SNAP, for live; reference/interstitials.md: START-DATE not on a primary segment boundary and no X-SNAP",
        defaultSeverity: .info, track: .both, inputs: "the primary media playlist's segments, each interstitial's START-DATE and X-SNAP")

    public static let examples: [BoundaryExample] = [
        BoundaryExample(name: "6 s segments, a break at 7.5 s", offset: 7.5, boundaries: [0, 6, 12, 18], snap: [], triggers: true),
        BoundaryExample(name: "a break at 7.5 s with X-SNAP=\"IN\" only", offset: 7.5, boundaries: [0, 6, 12, 18], snap: ["IN"], triggers: true),
        BoundaryExample(name: "a break at 12 s, on a boundary", offset: 12, boundaries: [0, 6, 12, 18], snap: [], triggers: false),
        BoundaryExample(name: "a break at 7.5 s with X-SNAP=\"OUT,IN\"", offset: 7.5, boundaries: [0, 6, 12, 18], snap: ["OUT", "IN"], triggers: false),
    ]

    /// nil when the break is on a boundary (within 1 ms), snaps out, or lies outside the segments.
    /// `ascending`: whether `boundaries` never go down (nil: looked at here); then the boundaries
    /// around the break are found by bisection, not by reading every segment (1,000 breaks on a
    /// day of 2 s segments).
    public static func evaluate(offset: Double, boundaries: [Double], snap: [String], live: Bool = false,
                                startDate: Date? = nil, ascending: Bool? = nil) -> Mismatch? {
        guard !snap.contains("OUT"), let first = boundaries.first, let last = boundaries.last,
              offset > first + 0.001, offset < last - 0.001 else { return nil }
        let nearest: Double, before: Double, after: Double
        if ascending ?? isAscending(boundaries) {
            // The first boundary at or after the break; the one before it is the last before.
            var low = 0, high = boundaries.count
            while low < high {
                let middle = (low + high) / 2
                if boundaries[middle] < offset { low = middle + 1 } else { high = middle }
            }
            after = low < boundaries.count ? boundaries[low] : last
            let previous = low > 0 ? boundaries[low - 1] : nil
            before = after == offset ? after : (previous ?? first)
            // The earlier one on a tie, as min(by:) keeps the first of equals.
            nearest = previous.map { abs($0 - offset) <= abs(after - offset) ? $0 : after } ?? after
        } else {
            guard let closest = boundaries.min(by: { abs($0 - offset) < abs($1 - offset) }) else { return nil }
            nearest = closest
            before = boundaries.last { $0 <= offset } ?? first
            after = boundaries.first { $0 >= offset } ?? last
        }
        guard abs(nearest - offset) > 0.001 else { return nil }
        let distance = HLSNumber.format(abs(nearest - offset))
        let date = startDate.map { " (START-DATE=\"\(HLSDate.format($0.addingTimeInterval(nearest)))\")" } ?? ""
        let fix = live ? "add X-SNAP=\"OUT,IN\" (live), or move START-DATE to the boundary at \(HLSNumber.format(nearest)) s\(date)"
            : "move START-DATE to the boundary at \(HLSNumber.format(nearest)) s\(date) (X-SNAP is meant for live streams)"
        return Mismatch(
            expected: "a segment boundary (nearest: \(HLSNumber.format(nearest)) s)",
            actual: "\(HLSNumber.format(offset)) s, \(HLSNumber.format(offset - before)) s into the segment \(HLSNumber.format(before))-\(HLSNumber.format(after)) s",
            message: "the break starts at \(HLSNumber.format(offset)) s, inside the primary segment \(HLSNumber.format(before))-\(HLSNumber.format(after)) s, with no X-SNAP OUT: receivers that switch at segment boundaries start it late or cut the segment. The nearest boundary is \(HLSNumber.format(nearest)) s (\(distance) s \(nearest < offset ? "earlier" : "later")): \(fix)",
            remediation: nil)
    }

    /// Whether `values` never go down (NaN is neither).
    static func isAscending(_ values: [Double]) -> Bool {
        zip(values, values.dropFirst()).allSatisfy { $0 <= $1 }
    }

    /// One finding per mid-roll of `schedule` off its primary's segment boundaries (no device class:
    /// the profiles grade it like the spec rules).
    public static func findings(_ schedule: InterstitialSchedule, primary: MediaPlaylist, uri: String,
                                boundaries: [Double]? = nil) -> [Finding] {
        let boundaries = boundaries ?? primary.segmentBoundaries
        let ascending = isAscending(boundaries)
        return schedule.entries.compactMap { entry in
            guard entry.onSegmentBoundary == false, let offset = entry.offset,
                  let mismatch = evaluate(offset: offset, boundaries: boundaries, snap: entry.snap, live: !primary.isVOD,
                                          startDate: schedule.primaryStartDate, ascending: ascending) else { return nil }
            let subject = entry.id.map { "EXT-X-DATERANGE ID=\"\($0)\"" } ?? "EXT-X-DATERANGE (line \(entry.line))"
            return Finding(rule: description.id, severity: description.defaultSeverity, deviceClass: nil, subject: subject,
                           expected: mismatch.expected, actual: mismatch.actual, message: mismatch.message, remediation: nil,
                           location: SourceLocation(uri: uri, line: entry.line))
        }
    }

    /// The findings of `presentation`'s primary timeline, as `lint` reports them: the break's place
    /// needs only the playlist, so lint and audit raise the same finding.
    public static func findings(in presentation: Presentation) -> [Finding] {
        findings(in: SpecContext(presentation))
    }

    /// The same, with the primary's schedule the spec rules of `context` made (or make) too.
    public static func findings(in context: SpecContext) -> [Finding] {
        guard let index = context.primaryIndex else { return [] }
        let timeline = context.mediaPlaylists[index]
        let (schedule, boundaries) = context.schedule(ofPlaylistAt: index)
        return findings(schedule, primary: timeline.playlist, uri: timeline.location.description, boundaries: boundaries)
    }
}
