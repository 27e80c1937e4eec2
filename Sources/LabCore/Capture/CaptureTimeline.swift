import Foundation

/// What the analyzer knows of the streams a capture may show: labels, rates, where breaks are.
public struct CaptureStreams: Sendable {
    public var code: LabFrameCode
    public var manifest: LabManifest?

    public init(code: LabFrameCode = .current, manifest: LabManifest? = nil) {
        self.code = manifest?.frameCode ?? code
        self.manifest = manifest
    }

    func label(_ stream: Int) -> String { manifest?.stream(stream)?.label ?? "stream \(stream)" }

    func rate(_ stream: Int) -> Double? {
        guard let rate = manifest?.stream(stream)?.framesPerSecond, rate > 0 else { return nil }
        return rate
    }

    /// Whether a code names a stream this suite has (any id when there is no manifest).
    func knows(_ stream: Int) -> Bool { manifest?.streams == nil || manifest?.stream(stream) != nil }

    /// The frames either side of a break from `from` to `to`: the primary's frame at the case's break,
    /// an ad's first (0) and last frame.
    func expectedFrames(from: Int, to: Int) -> (last: Int?, first: Int?) {
        guard let manifest, let a = manifest.stream(from), let b = manifest.stream(to) else { return (nil, nil) }
        func breakFrame(_ ad: LabCodedStream, primaryRate: Double) -> Int? {
            guard let start = manifest.cases.first(where: { $0.id == ad.caseId })?.interstitialStart else { return nil }
            return Int((start * primaryRate).rounded())
        }
        switch (a.role, b.role) {
        case (.primary, .ad): return (breakFrame(b, primaryRate: a.framesPerSecond).map { $0 - 1 }, 0)
        case (.ad, .primary):
            return (Int((a.duration * a.framesPerSecond).rounded()) - 1, breakFrame(a, primaryRate: b.framesPerSecond))
        default: return (nil, nil)
        }
    }
}

/// Builds segments and transitions from the readings of every captured frame. Pure: the analyzer
/// feeds it, tests call it with readings made up to the millisecond.
public struct CaptureTimeline: Sendable {
    public var streams: CaptureStreams
    /// Seconds between two captured frames (the capture's nominal or median interval).
    public var interval: Double

    public init(streams: CaptureStreams, interval: Double) {
        self.streams = streams
        self.interval = interval
    }

    /// A run of identical readings: what the screen showed from `start` until `end`.
    struct Show {
        var reading: FrameReading
        var start: Double
        var end: Double
        /// When the capture last showed it.
        var last: Double
        var captures: Int
    }

    static func shows(_ readings: [(time: Double, reading: FrameReading)], interval: Double) -> [Show] {
        var shows: [Show] = []
        for (index, item) in readings.enumerated() {
            let end = index + 1 < readings.count ? readings[index + 1].time : item.time + interval
            if var last = shows.last, last.reading == item.reading {
                last.end = end
                last.last = item.time
                last.captures += 1
                shows[shows.count - 1] = last
            } else {
                shows.append(Show(reading: item.reading, start: item.time, end: end, last: item.time, captures: 1))
            }
        }
        return shows
    }

    public func build(_ readings: [(time: Double, reading: FrameReading)], tones: [ToneRun] = [])
        -> (segments: [ShownSegment], transitions: [CaptureTransition]) {
        let shows = Self.shows(readings, interval: interval)
        // Group: a segment runs from a coded show to the last coded show of the same stream before another stream.
        var groups: [[Int]] = []  // indexes into shows of coded shows
        var currentStream: Int?
        for (index, show) in shows.enumerated() {
            guard case .code(let stream, _) = show.reading else { continue }
            if stream != currentStream { groups.append([]); currentStream = stream }
            groups[groups.count - 1].append(index)
        }
        var segments: [ShownSegment] = []
        var transitions: [CaptureTransition] = []
        for (number, group) in groups.enumerated() {
            segments.append(segment(group, shows: shows))
            guard number > 0, let previous = groups[number - 1].last, let first = group.first else { continue }
            transitions.append(transition(from: previous, to: first, shows: shows, tones: tones))
        }
        return (segments, transitions)
    }

    private func frameOf(_ show: Show) -> (stream: Int, frame: Int)? {
        if case .code(let stream, let frame) = show.reading { return (stream, frame) }
        return nil
    }

    private func segment(_ group: [Int], shows: [Show]) -> ShownSegment {
        let first = frameOf(shows[group[0]])!
        let last = frameOf(shows[group[group.count - 1]])!
        let start = shows[group[0]].start, end = shows[group[group.count - 1]].end
        let rate = streams.rate(first.stream) ?? estimatedRate(group, shows: shows)
        let period = rate > 0 ? 1 / rate : interval
        var repeated = 0, skipped = 0, backward = 0, black = 0
        var freezes: [Freeze] = []
        var seen = Set<Int>()
        for (position, index) in group.enumerated() {
            let show = shows[index]
            let current = frameOf(show)!
            seen.insert(current.frame)
            // On screen until the next different picture, whatever it is.
            let held = show.end - show.start
            repeated += max(0, Int((held / period).rounded()) - 1)
            if held - period >= 2 * interval - 0.001 {
                freezes.append(Freeze(frame: current.frame, at: show.start, ms: ((held - period) * 1000).rounded(),
                                      delayMs: delay(around: position, group, shows: shows, rate: rate)))
            }
            guard position + 1 < group.count else { continue }
            let next = shows[group[position + 1]]
            let nextFrame = frameOf(next)!.frame
            for between in (index + 1)..<group[position + 1] where shows[between].reading == .black { black += shows[between].captures }
            let step = nextFrame - current.frame
            if step < 0 { backward += 1; continue }
            // What the capture could not have shown: frames due between its two pictures.
            let possible = max(1, Int(((next.start - show.last) * rate).rounded()))
            skipped += max(0, step - possible)
        }
        return ShownSegment(stream: first.stream, label: streams.label(first.stream), firstFrame: first.frame, lastFrame: last.frame,
                            start: start, end: end, frameRate: (rate * 1000).rounded() / 1000, framesShown: seen.count,
                            repeatedFrames: repeated, skippedFrames: skipped, backwardJumps: backward, freezes: freezes,
                            blackFrames: black)
    }

    /// The shift of (time shown - frame / rate) from the frames before `position` (itself
    /// included) to the frames after it, in ms.
    private func delay(around position: Int, _ group: [Int], shows: [Show], rate: Double) -> Double? {
        guard rate > 0, position + 1 < group.count else { return nil }
        func offsets(_ range: ArraySlice<Int>) -> [Double] {
            range.map { shows[$0].start - Double(frameOf(shows[$0])!.frame) / rate }.sorted()
        }
        let before = offsets(group[max(0, position - 14)...position])
        let after = offsets(group[(position + 1)...].prefix(15))
        guard before.count >= 3, after.count >= 3 else { return nil }
        return ((after[after.count / 2] - before[before.count / 2]) * 1000).rounded()
    }

    /// Frames a second from the codes: frame steps over time, leaving out pictures held over three intervals.
    private func estimatedRate(_ group: [Int], shows: [Show]) -> Double {
        var steps = 0, seconds = 0.0
        for (a, b) in zip(group, group.dropFirst()) {
            let dt = shows[b].start - shows[a].start
            let step = frameOf(shows[b])!.frame - frameOf(shows[a])!.frame
            guard step > 0, dt <= 3 * interval + 0.001 else { continue }
            steps += step
            seconds += dt
        }
        return seconds > 0 ? Double(steps) / seconds : 1 / interval
    }

    private func transition(from a: Int, to b: Int, shows: [Show], tones: [ToneRun]) -> CaptureTransition {
        let last = frameOf(shows[a])!, first = frameOf(shows[b])!
        let from = ShownFrame(stream: last.stream, label: streams.label(last.stream), frame: last.frame, at: shows[a].start)
        let to = ShownFrame(stream: first.stream, label: streams.label(first.stream), frame: first.frame, at: shows[b].start)
        let period = streams.rate(last.stream).map { 1 / $0 } ?? interval
        var black = 0, blackSeconds = 0.0, unreadable = 0
        for index in (a + 1)..<b {
            switch shows[index].reading {
            case .black: black += shows[index].captures; blackSeconds += shows[index].end - shows[index].start
            case .unreadable: unreadable += shows[index].captures
            case .code: break
            }
        }
        let gaps = (a..<b).map { shows[$0 + 1].start - shows[$0].last }
        let widest = gaps.max() ?? 0
        let frozen = max(0, shows[a].end - shows[a].start - period)
        let stall = max(0, shows[b].start - shows[a].start - period)
        let expected = streams.expectedFrames(from: last.stream, to: first.stream)
        var skipped: Int?
        if let lastExpected = expected.last, let firstExpected = expected.first {
            skipped = abs(lastExpected - last.frame) + abs(first.frame - firstExpected)
        }
        var transition = CaptureTransition(from: from, to: to, expectedLastFrame: expected.last, expectedFirstFrame: expected.first,
                                           frozenMs: (frozen * 1000).rounded(), blackFrames: black, blackMs: (blackSeconds * 1000).rounded(),
                                           unreadableFrames: unreadable, skippedFrames: skipped, stallMs: (stall * 1000).rounded(),
                                           audioGapMs: ToneRun.gap(tones, from: last.stream, to: first.stream, near: shows[b].start))
        if widest > 1.5 * interval { transition.captureGapMs = (widest * 1000).rounded() }
        return transition
    }
}
