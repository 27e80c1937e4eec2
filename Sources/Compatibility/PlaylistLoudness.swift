import Foundation
import HLS
import MediaProbe

/// How a playlist audit measures loudness (nil on `PlaylistAuditor`: not at all).
public struct LoudnessOptions: Sendable {
    /// Programme measured on each side of a break: whole segments from the break outwards until
    /// at least this many seconds, or the end of the programme.
    public var programmeSeconds: Double
    /// Seconds allowed per segment fetch; a measurement stops at four times this.
    public var fetchTimeout: Double

    public init(programmeSeconds: Double = 10, fetchTimeout: Double = 15) {
        self.programmeSeconds = programmeSeconds
        self.fetchTimeout = fetchTimeout
    }
}

/// A break as loudness sees it: where the programme stops and where it resumes.
struct LoudnessBreak: Sendable {
    var id: String?
    var kind: InterstitialSchedule.Placement
    var startDate: Date?
    /// On the primary timeline (its first media playlist).
    var offset: Double?
    /// Resume point minus break point (the pod's X-RESUME-OFFSETs), when known.
    var resumeDelta: Double?

    var label: String {
        let name = id.map { "break \"\($0)\"" } ?? "the break"
        switch kind {
        case .preRoll: return "\(name) (pre-roll: programme after it only)"
        case .postRoll: return "\(name) (post-roll: programme before it only)"
        case .midRoll: return name + (offset.map { " at \(LoudnessRule.format($0)) s" } ?? "")
        }
    }

    /// The segments measured before and after the break on `playlist` (a rendition of the primary).
    func windows(in playlist: MediaPlaylist, seconds: Double) -> (before: Range<Int>?, after: Range<Int>?, problem: String?) {
        let boundaries = playlist.segmentBoundaries
        let count = playlist.segments.count
        let at: Double?
        switch kind {
        case .preRoll: at = 0
        case .postRoll: at = boundaries[count]
        case .midRoll:
            // The rendition's own PROGRAM-DATE-TIME places the date; else the primary timeline's offset.
            if let startDate, playlist.hasProgramDateTime { at = ProgramDateTimeIndex(playlist).offset(of: startDate) } else { at = offset }
        }
        guard let at else { return (nil, nil, "the break has no place on the programme's timeline (no EXT-X-PROGRAM-DATE-TIME)") }
        // A live playlist's window may have moved past the date, or not reached it yet.
        guard at >= -0.001, at <= boundaries[count] + 0.001 else {
            return (nil, nil, "the break (\(InterstitialSchedule.position(offset: at))) is outside the programme's segments (0-\(LoudnessRule.format(boundaries[count])) s)")
        }
        var before: Range<Int>?, after: Range<Int>?
        let startsBefore = boundaries.prefix(count).filter { $0 < at - 0.001 }.count
        if kind != .preRoll, startsBefore > 0 {
            var first = startsBefore - 1
            while first > 0, boundaries[startsBefore] - boundaries[first] < seconds { first -= 1 }
            before = first..<startsBefore
        }
        if kind != .postRoll {
            let resume = at + max(resumeDelta ?? 0, 0)
            if let first = (0..<count).first(where: { boundaries[$0 + 1] > resume + 0.001 }) {
                var end = first + 1
                while end < count, boundaries[end] - boundaries[first] < seconds { end += 1 }
                after = first..<end
            }
        }
        if before == nil, after == nil { return (nil, nil, "the programme has no segment next to the break") }
        return (before, after, nil)
    }
}

/// Media and message context for loudness-mismatch, after the loudness step.
struct LoudnessPair {
    var primary: MediaDescription
    var interstitial: MediaDescription
    var scope: LoudnessScope?
}

/// Playlist audits' loudness step: the interstitial asset's audio measured whole, the programme's
/// audio measured around each break, for the renditions each class plays. Planned into the
/// fetch+probe step (`prefetchJobs`), read back during evaluation (`pair`); each distinct
/// rendition and window is measured once, whatever the number of classes and breaks sharing it.
struct PlaylistLoudness: Sendable {
    let options: LoudnessOptions
    let session: LoudnessSession
    /// Keyed by the plan's role ("interstitial 3").
    let breaks: [String: LoudnessBreak]
    let base: InputLocation

    /// `loaded`: the media playlists the audit has read already (`RenditionProbes.loaded`), not fetched again;
    /// `segments`: the resources its probes read (`ProbeSession.segments`), not fetched again either.
    init(options: LoudnessOptions, plan: AuditPlan, schedule: InterstitialSchedule, presentation: Presentation,
         loader: PresentationLoader, width: Int, loaded: [InputLocation: LoadedMediaPlaylist], segments: SegmentCache) {
        self.options = options
        base = presentation.location
        session = LoudnessSession(loader: loader, fetchTimeout: options.fetchTimeout, width: width, seed: loaded, segments: segments)
        var breaks: [String: LoudnessBreak] = [:]
        for asset in plan.assets where schedule.entries.indices.contains(asset.entry) {
            let entry = schedule.entries[asset.entry]
            let pod = schedule.pods.indices.contains(entry.pod) ? schedule.pods[entry.pod] : nil
            let delta = pod.flatMap { pod in pod.resumesAt.flatMap { at in pod.offset.map { at - $0 } } }
            breaks[asset.role] = LoudnessBreak(id: entry.id, kind: entry.placement, startDate: entry.startDate, offset: entry.offset,
                                               resumeDelta: delta)
        }
        self.breaks = breaks
    }

    /// What the classes' first choices need measured, as jobs for the fetch+probe step: each
    /// waits for the probes of its two renditions (started before it) and measures nothing when
    /// either has no audio.
    func prefetchJobs(plan: AuditPlan, presentation: Presentation, playlists: AssetPlaylists, profiles: [DeviceProfile],
                      probes: RenditionProbes) -> [@Sendable () async -> Void] {
        let primarySources = Self.audioSources(presentation.root, at: presentation.location, profiles: profiles)
        var jobs: [@Sendable () async -> Void] = []
        var seen: Set<String> = []
        let session = self.session, seconds = options.programmeSeconds
        for asset in plan.assets {
            guard let brk = breaks[asset.role], let location = try? asset.base.resolving(asset.uri),
                  case .success(let (root, resource))? = playlists.known(location) else { continue }
            let adSources = Self.audioSources(root, at: resource.location, profiles: profiles)
            // An asset that is a media playlist was read by the loader already: no second fetch.
            var known: MediaPlaylist?
            if case .media(let media) = root.playlist { known = media }
            let final = resource.location
            for case let (primarySource?, adSource?) in zip(primarySources, adSources)
            where seen.insert("\(asset.role)|\(primarySource)|\(adSource)").inserted {
                jobs.append { [known] in
                    if let known { await session.seed(known, at: final) }
                    guard let ad = try? await probes.describe(adSource), !ad.audio.isEmpty,
                          let primary = try? await probes.describe(primarySource), !primary.audio.isEmpty else { return }
                    // The ad and the programme around its break at once: each is mostly waiting on the network.
                    async let whole = session.whole(adSource)
                    async let around = session.around(primarySource, brk, seconds: seconds)
                    _ = await (whole, around)
                }
            }
        }
        return jobs
    }

    /// Starts fetching, beside the probes, the segments the jobs of `prefetchJobs` will measure
    /// (renditions whose media playlist is read already); returns at once.
    func warmUp(plan: AuditPlan, presentation: Presentation, playlists: AssetPlaylists, profiles: [DeviceProfile]) async {
        let primarySources = Self.audioSources(presentation.root, at: presentation.location, profiles: profiles)
        var seen: Set<String> = []
        var windows: [(segments: Range<Int>, playlist: MediaPlaylist, location: InputLocation)] = []
        for asset in plan.assets {
            guard let brk = breaks[asset.role], let location = try? asset.base.resolving(asset.uri),
                  case .success(let (root, resource))? = playlists.known(location) else { continue }
            if case .media(let media) = root.playlist { await session.seed(media, at: resource.location) }
            let adSources = Self.audioSources(root, at: resource.location, profiles: profiles)
            for case let (primarySource?, adSource?) in zip(primarySources, adSources)
            where seen.insert("\(asset.role)|\(primarySource)|\(adSource)").inserted {
                windows += await session.windows(ad: adSource, primary: primarySource, brk, seconds: options.programmeSeconds)
            }
        }
        // One set of fetches for all: the programme's windows around breaks close together overlap.
        await session.warm(windows)
    }

    /// The rendition carrying the audio each class selects first (its audio rendition, or the
    /// variant), in profile order; nil for a class that selects nothing.
    static func audioSources(_ root: ParsedPlaylist, at location: InputLocation, profiles: [DeviceProfile]) -> [InputLocation?] {
        switch root.playlist {
        case .media: return profiles.map { _ in location }
        case .multivariant(let multivariant):
            return profiles.map { profile -> InputLocation? in
                guard case .selected(let choice) = VariantSelector.select(from: multivariant, for: profile.plays) else { return nil }
                return try? location.resolving(choice.audioURI ?? choice.variantURI)
            }
        }
    }

    /// The pair with both levels filled in for one class, and what was measured recorded for the report.
    func pair(primary: RenditionPick, interstitial: RenditionPick, role: String, profile: DeviceProfile) async -> LoudnessPair {
        guard let brk = breaks[role] else { return LoudnessPair(primary: primary.media, interstitial: interstitial.media, scope: nil) }
        let primaryText = primary.audioRendition ?? primary.rendition, adText = interstitial.audioRendition ?? interstitial.rendition
        var record = AssetLoudness(deviceClasses: [profile.id], sides: [], interstitial: nil, before: nil, after: nil,
                                   programme: nil, difference: nil, problem: nil)
        let pair = await measure(primary, primaryText, interstitial, adText, brk: brk, role: role, record: &record)
        await session.record(record, role: role, key: primaryText + "\u{1}" + adText)
        return pair
    }

    private func measure(_ primary: RenditionPick, _ primaryText: String, _ interstitial: RenditionPick, _ adText: String,
                         brk: LoudnessBreak, role: String, record: inout AssetLoudness) async -> LoudnessPair {
        var pair = LoudnessPair(primary: primary.media, interstitial: interstitial.media, scope: nil)
        guard !interstitial.media.audio.isEmpty else {
            record.problem = "not measured: the interstitial has no audio track"
            return pair
        }
        guard !primary.media.audio.isEmpty else {
            record.problem = "not measured: the primary has no audio track"
            return pair
        }
        guard let adSource = try? base.resolving(adText), let primarySource = try? base.resolving(primaryText) else {
            record.problem = "not measured: a rendition's location cannot be resolved"
            return pair
        }
        let whole = await session.whole(adSource)
        let around = await session.around(primarySource, brk, seconds: options.programmeSeconds)
        record.interstitial = LoudnessSpan(rendition: adText, whole)
        record.before = around.before.map { LoudnessSpan(rendition: primaryText, $0) }
        record.after = around.after.map { LoudnessSpan(rendition: primaryText, $0) }
        record.sides = (around.before == nil ? [] : ["before"]) + (around.after == nil ? [] : ["after"])
        let sides = [around.before, around.after].compactMap { $0 }
        let programme = SegmentsLoudness.combined(sides.compactMap { side in side.integrated.map { ($0, side.seconds) } })
        record.programme = programme.map(Self.milli)
        guard let level = whole.integrated, let programme else {
            record.problem = whole.integrated == nil ? "not measured (the interstitial): \(whole.problem ?? "no value")"
                : "not measured (the programme around the break): " + (around.problem ?? sides.compactMap(\.problem).first ?? "no value")
            return pair
        }
        record.difference = Self.milli(level - programme)
        pair.primary.audio[0].integratedLoudness = programme
        pair.interstitial.audio[0].integratedLoudness = level
        let described = zip(["before", "after"], [around.before, around.after]).compactMap { side, measured in
            measured.map { "\(side): " + Self.describe($0) }
        }
        pair.scope = LoudnessScope(primary: "around \(brk.label) (\(described.joined(separator: "; ")))",
                                   interstitial: "over the whole asset (\(LoudnessRule.format(whole.seconds)) s"
                                       + (whole.skipped.isEmpty ? "" : ", \(whole.skipped.count) segment(s) left out: \(whole.skipped[0])") + ")",
                                   fixLevel: await session.fixLevel(programme, role: role))
        return pair
    }

    static func milli(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }

    static func describe(_ measured: SegmentsLoudness) -> String {
        guard let value = measured.integrated else { return "not measured, \(measured.problem ?? "no value")" }
        var text = "\(LoudnessRule.lufs(value)) over \(LoudnessRule.format(measured.seconds)) s"
        if !measured.skipped.isEmpty { text += ", \(measured.skipped.count) segment(s) left out: \(measured.skipped.joined(separator: ", "))" }
        return text
    }
}

extension PlaylistLoudness {
    /// Puts what was measured on each interstitial and the cost on the result.
    func report(into result: inout AuditResult, order: [String]) async {
        for index in result.interstitials.indices {
            result.interstitials[index].loudness = await session.records(for: result.interstitials[index].role, order: order)
        }
        result.loudness = await session.totals(programmeSeconds: options.programmeSeconds)
    }
}
