import Foundation

/// A live behaviour case's media playlist as it stands at one moment: the window `lab serve` cuts
/// from the case's template (`BehaviourPlaylists.media`, the whole primary) for one client.
///
/// The window holds the last `windowSegments` segments whose end is at or before the edge (at least
/// the first one), EXT-X-MEDIA-SEQUENCE is the first one's index, EXT-X-PROGRAM-DATE-TIME its
/// start; the template's DATERANGEs are always there (an interstitial ahead of the window is normal
/// in live); EXT-X-ENDLIST once the edge reaches the primary's end. No EXT-X-PLAYLIST-TYPE.
public struct LiveWindowPlaylist: Sendable, Equatable {
    public struct Segment: Sendable, Equatable {
        public var uri: String
        public var start: Double
        public var duration: Double
    }

    public var targetDuration: Int
    /// The EXT-X-MAP line, as the template writes it.
    public var map: String?
    public var dateranges: [String]
    public var segments: [Segment]

    /// Segment ends within this of the edge count as reached (playlists state milliseconds).
    static let slack = 0.0005

    /// Reads a template media playlist; nil when it lists no segment.
    public init?(template: String) {
        var target = 1, map: String?, dateranges: [String] = [], segments: [Segment] = []
        var pending: Double?, start = 0.0
        for raw in template.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("#EXT-X-TARGETDURATION:") {
                target = Int(line.dropFirst("#EXT-X-TARGETDURATION:".count)) ?? target
            } else if line.hasPrefix("#EXT-X-MAP:") {
                map = line
            } else if line.hasPrefix("#EXT-X-DATERANGE:") {
                dateranges.append(line)
            } else if line.hasPrefix("#EXTINF:") {
                pending = Double(line.dropFirst("#EXTINF:".count).prefix { $0 != "," })
            } else if !line.isEmpty, !line.hasPrefix("#"), let duration = pending {
                segments.append(Segment(uri: line, start: start, duration: duration))
                start = LabPlaylists.milliseconds(start + duration)
                pending = nil
            }
        }
        guard !segments.isEmpty else { return nil }
        self.targetDuration = target
        self.map = map
        self.dateranges = dateranges
        self.segments = segments
    }

    /// Seconds of primary.
    public var end: Double { segments.last.map { LabPlaylists.milliseconds($0.start + $0.duration) } ?? 0 }

    /// Index of the first segment of the window at `edge`, and how many.
    public func window(edge: Double, size: Int) -> Range<Int> {
        let reached = segments.lastIndex { $0.start + $0.duration <= edge + Self.slack } ?? 0
        return max(0, reached - max(1, size) + 1)..<(reached + 1)
    }

    /// What the playlist at an edge depends on: the window's segments and whether the edge has
    /// reached the primary's end. The text changes only when this does (`lab serve` keeps one per step).
    public struct Step: Hashable, Sendable {
        public var segments: Range<Int>
        public var ended: Bool
    }

    /// The step at `edge` for a window of `size` segments.
    public func step(edge: Double, size: Int) -> Step {
        Step(segments: window(edge: edge, size: size), ended: edge + Self.slack >= end)
    }

    /// The playlist text at `edge` (seconds of primary where the live edge stands).
    public func text(edge: Double, live: LabLiveWindow) -> String {
        text(step: step(edge: edge, size: live.windowSegments), live: live)
    }

    /// The playlist text of one step.
    public func text(step: Step, live: LabLiveWindow) -> String {
        let range = step.segments
        var lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:\(targetDuration)", "#EXT-X-MEDIA-SEQUENCE:\(range.lowerBound)",
                     "#EXT-X-INDEPENDENT-SEGMENTS", "#EXT-X-START:TIME-OFFSET=\(LabPlaylists.decimal(live.startOffset)),PRECISE=YES"]
        if let map { lines.append(map) }
        lines.append("#EXT-X-PROGRAM-DATE-TIME:\(LabPlaylists.date(segments[range.lowerBound].start))")
        lines += dateranges
        for segment in segments[range] {
            lines += ["#EXTINF:\(String(format: "%.6f", segment.duration)),", segment.uri]
        }
        if step.ended { lines.append("#EXT-X-ENDLIST") }
        return lines.joined(separator: "\n") + "\n"
    }
}
