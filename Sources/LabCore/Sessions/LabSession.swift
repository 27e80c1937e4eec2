import Compatibility
import Foundation

/// What one client did with one case at one station, rebuilt from the request log (docs/interface.md,
/// "lab sessions").
public struct LabSession: Codable, Sendable, Equatable {
    /// The station whose server it fetched from (nil: unknown). Never two stations in one session.
    public var station: String? = nil
    public var client: String
    public var userAgent: String?
    /// The receiver the client address maps to (Avahi or an inventory pin), or nil.
    public var receiver: String?
    public var deviceId: String?
    public var deviceClass: String?
    public var `case`: String
    public var started: Date
    public var ended: Date
    /// The primary media playlist it played (the one it fetched most segments of), relative to the suite.
    /// Nil, with `variantUndetermined` saying why, when its fetches do not show a choice.
    public var variant: String?
    /// Why no variant is named as played: it fetched several variants' segments equally (Kodi
    /// reads every variant of a ladder), or fetched variant playlists and no segment.
    public var variantUndetermined: String? = nil
    /// Every primary media playlist it fetched, in first-fetch order (a receiver that switches shows here).
    public var variantsFetched: [String]
    /// The primary audio rendition it fetched, when audio is a rendition of its own.
    public var audioRendition: String?
    public var interstitialRequested: Bool
    public var interstitialVariant: String?
    public var interstitialSegments: Int
    /// Where it came back to the primary, in seconds on the primary timeline: the start of the
    /// first primary segment fetched after the interstitial's first segment.
    public var resumedAt: Double?
    /// It added `_HLS_primary_id` to an interstitial request (draft -22 query parameters).
    public var sentPrimaryId: Bool
    /// It added `_HLS_start_offset` to an interstitial request.
    public var sentStartOffset: Bool
    public var requests: Int
    public var bytes: Int
    /// Requests answered 4xx or 5xx.
    public var failedRequests: Int
    /// Requests the client abandoned mid-body.
    public var abandonedRequests: Int
    /// In capability cases: what the chosen variant shows the receiver decodes.
    public var observedCapability: ObservedCapability?
    /// In localization cases: the renditions ("audio fr", "subtitles fr") whose segments it fetched
    /// before its first interstitial request, and after its last interstitial segment (nil when it
    /// requested no interstitial). The muxed default audio counts when primary segments came
    /// without any audio rendition's. Absent from other cases' JSON.
    public var renditionsBefore: [String]? = nil
    public var renditionsAfter: [String]? = nil

    private enum CodingKeys: String, CodingKey {
        case station, client, userAgent, receiver, deviceId, deviceClass, `case`, started, ended, variant, variantUndetermined
        case variantsFetched, audioRendition
        case interstitialRequested, interstitialVariant, interstitialSegments, resumedAt, sentPrimaryId, sentStartOffset
        case requests, bytes, failedRequests, abandonedRequests, observedCapability, renditionsBefore, renditionsAfter
    }

    /// docs/interface.md's fields are always present, null when unknown.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(station, forKey: .station)
        try c.encode(client, forKey: .client)
        try c.encode(userAgent, forKey: .userAgent)
        try c.encode(receiver, forKey: .receiver)
        try c.encode(deviceId, forKey: .deviceId)
        try c.encode(deviceClass, forKey: .deviceClass)
        try c.encode(`case`, forKey: .case)
        try c.encode(started, forKey: .started)
        try c.encode(ended, forKey: .ended)
        try c.encode(variant, forKey: .variant)
        try c.encode(variantUndetermined, forKey: .variantUndetermined)
        try c.encode(variantsFetched, forKey: .variantsFetched)
        try c.encode(audioRendition, forKey: .audioRendition)
        try c.encode(interstitialRequested, forKey: .interstitialRequested)
        try c.encode(interstitialVariant, forKey: .interstitialVariant)
        try c.encode(interstitialSegments, forKey: .interstitialSegments)
        try c.encode(resumedAt, forKey: .resumedAt)
        try c.encode(sentPrimaryId, forKey: .sentPrimaryId)
        try c.encode(sentStartOffset, forKey: .sentStartOffset)
        try c.encode(requests, forKey: .requests)
        try c.encode(bytes, forKey: .bytes)
        try c.encode(failedRequests, forKey: .failedRequests)
        try c.encode(abandonedRequests, forKey: .abandonedRequests)
        try c.encode(observedCapability, forKey: .observedCapability)
        try c.encodeIfPresent(renditionsBefore, forKey: .renditionsBefore)
        try c.encodeIfPresent(renditionsAfter, forKey: .renditionsAfter)
    }
}

/// What a receiver showed it decodes by the variant it chose from a capability ladder.
public struct ObservedCapability: Codable, Sendable, Equatable {
    public var videoCodec: String?
    public var dynamicRange: String?
    public var audioCodec: String?
    public var channels: Int?
    /// How this compares with the receiver's class profile, one line each ("the class says h264 only;
    /// it chose hevc"). Empty when the profile agrees.
    public var againstProfile: [String]
}

/// Rebuilds sessions from the request log: one per station, client address and case (a pause
/// over `gap` starts another). An address names a receiver only within its station.
public struct SessionBuilder: Sendable {
    public let manifest: LabManifest
    /// Receivers by station and client address (`Self.key`).
    public let receivers: [String: LabReceiverRecord]
    /// What each station's address mapped to over time (LabStore.receiverHistory), oldest first: a
    /// session takes the entry in effect when it ended, not the receiver's class now.
    public let history: [String: [LabReceiverRecord]]
    /// Profiles by class id, for observed capabilities.
    public let profiles: [String: DeviceProfile]
    /// A pause longer than this between two requests of one client for one case starts a new session.
    public let gap: TimeInterval

    public init(manifest: LabManifest, receivers: [LabReceiverRecord], history: [LabReceiverRecord] = [],
                profiles: [DeviceProfile] = [], gap: TimeInterval = 120) {
        self.manifest = manifest
        self.receivers = Dictionary(receivers.map { (Self.key($0.station, $0.address), $0) }, uniquingKeysWith: { first, _ in first })
        self.history = Dictionary(grouping: history, by: { Self.key($0.station, $0.address) })
            .mapValues { $0.sorted { $0.seenAt < $1.seenAt } }
        self.profiles = Dictionary(profiles.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        self.gap = gap
    }

    /// A station and address as one key (the unknown station is '').
    static func key(_ station: String?, _ address: String) -> String {
        (station ?? LabStation.unknown) + "\u{0}" + address
    }

    /// Sessions in start order; requests outside any case (the lab page, the API) are not sessions.
    public func sessions(from requests: [LabRequestRecord]) -> [LabSession] {
        var open: [String: [LabRequestRecord]] = [:]
        var closed: [[LabRequestRecord]] = []
        for request in requests.sorted(by: { ($0.at, $0.client, $0.station ?? "") < ($1.at, $1.client, $1.station ?? "") }) {
            guard let caseId = request.caseId, manifest.case(caseId) != nil else { continue }
            let key = Self.key(request.station, request.client) + "\u{0}" + caseId
            if let last = open[key]?.last, request.at.timeIntervalSince(last.at) > gap {
                closed.append(open[key]!)
                open[key] = nil
            }
            open[key, default: []].append(request)
        }
        closed.append(contentsOf: open.values)
        return closed.compactMap(session).sorted {
            ($0.started, $0.station ?? "", $0.client, $0.case) < ($1.started, $1.station ?? "", $1.client, $1.case)
        }
    }

    private func session(_ requests: [LabRequestRecord]) -> LabSession? {
        guard let first = requests.first, let caseId = first.caseId, let labCase = manifest.case(caseId) else { return nil }
        let variants = Dictionary(labCase.variants.map { ("/" + $0.path, $0) }, uniquingKeysWith: { first, _ in first })
        let primaryFolder = "/" + labCase.folder + "primary/"
        let timeline = Dictionary(manifest.primaryTimeline.map { ($0.file, $0) }, uniquingKeysWith: { first, _ in first })
        let served = requests.filter { $0.status < 400 }

        var primaryPlaylists: [String] = [], audioPlaylist: String?, adPlaylists: [String] = []
        for request in served {
            guard let variant = variants[request.path] else { continue }
            switch variant.role {
            case .primary where variant.videoCodec == nil && variant.audioCodec != nil:
                audioPlaylist = audioPlaylist ?? variant.path
            case .primary:
                if !primaryPlaylists.contains(variant.path) { primaryPlaylists.append(variant.path) }
            case .interstitial:
                if !adPlaylists.contains(variant.path) { adPlaylists.append(variant.path) }
            }
        }
        let adRequests = served.filter { labCase.isInterstitialRequest($0.path) }
        // Media segments: not playlists or asset lists, and not init sections (the suite names them init*).
        let isSegment: (LabRequestRecord) -> Bool = { request in
            let file = request.path.split(separator: "/").last ?? ""
            return !file.hasSuffix(".m3u8") && !file.hasSuffix(".json") && !file.hasPrefix("init")
        }
        let adSegments = adRequests.filter(isSegment)

        var resumedAt: Double?
        if let firstAd = adSegments.first ?? adRequests.first {
            resumedAt = served.first { request in
                request.at >= firstAd.at && request.path.hasPrefix(primaryFolder)
                    && timeline[String(request.path.dropFirst(primaryFolder.count))] != nil && isSegment(request)
            }.flatMap { timeline[String($0.path.dropFirst(primaryFolder.count))]?.start }
        }
        let (chosen, undetermined) = mostPlayed(primaryPlaylists, requests: served)
        let receiver = receiver(first.client, station: first.station, at: requests.last?.at ?? first.at)
        var observed: ObservedCapability?
        if labCase.kind == .capability, let chosen, let variant = variants["/" + chosen] {
            let audio = audioPlaylist.flatMap { variants["/" + $0] }
            observed = observation(video: variant, audio: audio, receiver: receiver,
                                   offered: Set(labCase.variants.compactMap(\.dynamicRange)))
        }
        let queries = adRequests.compactMap(\.query)
        var session = LabSession(
            station: first.station, client: first.client, userAgent: mostCommon(requests.compactMap(\.userAgent)), receiver: receiver?.name,
            deviceId: receiver?.deviceId, deviceClass: receiver?.deviceClass, case: caseId, started: first.at,
            ended: requests.last?.at ?? first.at, variant: chosen, variantUndetermined: undetermined, variantsFetched: primaryPlaylists, audioRendition: audioPlaylist,
            // A behaviour case's failing asset or asset list answers 404: asking for it is still asking for the ad.
            interstitialRequested: !adRequests.isEmpty || (labCase.kind == .behaviour && requests.contains { labCase.isInterstitialRequest($0.path) }),
            interstitialVariant: adPlaylists.first,
            interstitialSegments: adSegments.count, resumedAt: resumedAt,
            sentPrimaryId: queries.contains { $0.contains("_HLS_primary_id=") },
            sentStartOffset: queries.contains { $0.contains("_HLS_start_offset=") },
            requests: requests.count, bytes: requests.reduce(0) { $0 + $1.bytes },
            failedRequests: requests.filter { $0.status >= 400 }.count,
            abandonedRequests: requests.filter { !$0.completed }.count, observedCapability: observed)
        if let renditions = labCase.renditions {
            let segments = served.filter(isSegment)
            func fetched(_ window: [LabRequestRecord]) -> [String] {
                var labels = renditions.filter { rendition in
                    guard let folder = rendition.segments else { return false }
                    return window.contains { $0.path.hasPrefix("/" + folder) }
                }
                if !labels.contains(where: { $0.type == "audio" }), window.contains(where: { $0.path.hasPrefix(primaryFolder) }),
                   let muxed = renditions.first(where: { $0.type == "audio" && $0.segments == nil }) {
                    labels.insert(muxed, at: 0)
                }
                return labels.map(\.label)
            }
            if let firstAd = adRequests.first?.at, let lastAd = (adSegments.last ?? adRequests.last)?.at {
                session.renditionsBefore = fetched(segments.filter { $0.at < firstAd })
                session.renditionsAfter = fetched(segments.filter { $0.at > lastAd && !labCase.isInterstitialRequest($0.path) })
            }
        }
        return session
    }

    /// The playlist whose folder got the most segment requests after it was fetched: a receiver
    /// fetches several variant playlists to measure, then plays one. No playlist, and why, when the
    /// segments show no choice: a tie at the top, every variant fetched about equally (within one
    /// segment or 10 %), or no segment at all.
    private func mostPlayed(_ playlists: [String], requests: [LabRequestRecord]) -> (String?, String?) {
        guard playlists.count > 1 else { return (playlists.first, nil) }
        // Segments are named after their playlist's stem in the suite ("v_hevc_sdr.m3u8" -> "v_hevc_sdr_...").
        let counts = playlists.map { playlist -> (String, Int) in
            let stem = "/" + String(playlist.dropLast(".m3u8".count))
            return (playlist, requests.filter { $0.path.hasPrefix(stem) && !$0.path.hasSuffix(".m3u8") }.count)
        }
        let ranked = counts.sorted { $0.1 > $1.1 }
        let top = ranked[0].1, runnerUp = ranked[1].1, least = ranked[ranked.count - 1].1
        if top == 0 {
            return (nil, "undetermined: fetched \(playlists.count) variant playlists and no segment of any")
        }
        if top == runnerUp || (least > 0 && top - least <= max(1, top / 10)) {
            let tied = ranked.filter { top - $0.1 <= max(1, top / 10) }
            return (nil, "undetermined: fetched segments of \(tied.count) variants about equally ("
                    + tied.map { "\($0.0) \($0.1)" }.joined(separator: ", ") + "), as a client that reads every variant does")
        }
        return (ranked[0].0, nil)
    }

    /// What `address` at `station` mapped to at `date`: the last history entry from before it, else
    /// the first one after (the receiver was found later), else the current record.
    private func receiver(_ address: String, station: String?, at date: Date) -> LabReceiverRecord? {
        let key = Self.key(station, address)
        guard let entries = history[key], !entries.isEmpty else { return receivers[key] }
        return entries.last { $0.seenAt <= date } ?? entries.first
    }

    /// `offered`: the dynamic ranges the case's ladder offers.
    private func observation(video: LabVariant, audio: LabVariant?, receiver: LabReceiverRecord?, offered: Set<String>?) -> ObservedCapability {
        let deviceClass = receiver?.deviceClass
        let audioCodec = audio?.audioCodec ?? video.audioCodec
        let channels = audio?.channels ?? video.channels
        var notes: [String] = []
        if let deviceClass, let profile = profiles[deviceClass] {
            let plays = profile.plays
            if let codec = video.videoCodec, !plays.videoCodecs.contains(codec) {
                notes.append("chose \(codec); class \(deviceClass) plays \(plays.videoCodecs.joined(separator: ", ")) only")
            }
            if let range = video.dynamicRange, !plays.dynamicRanges.contains(range) {
                notes.append("chose \(range); class \(deviceClass) plays \(plays.dynamicRanges.joined(separator: ", ")) only")
            }
            if let audioCodec, !plays.audioCodecs.contains(audioCodec) {
                notes.append("chose \(audioCodec) audio; class \(deviceClass) plays \(plays.audioCodecs.joined(separator: ", ")) only")
            }
            if let channels, channels > plays.maxChannels {
                notes.append("chose \(channels) channels; class \(deviceClass) renders at most \(plays.maxChannels)")
            }
        }
        if let declared = receiver?.declaredHDRFormats, let range = video.dynamicRange {
            if range != "SDR", !declared.contains(range) {
                notes.append("chose \(range); its /info declares " + (declared.isEmpty ? "no HDR format" : declared.joined(separator: ", ")))
            } else if range == "SDR", let offered = offered, !Set(declared).isDisjoint(with: offered) {
                notes.append("chose SDR although the ladder offers, and its /info declares, \(declared.filter(offered.contains).joined(separator: ", "))")
            }
        }
        return ObservedCapability(videoCodec: video.videoCodec, dynamicRange: video.dynamicRange, audioCodec: audioCodec,
                                  channels: channels, againstProfile: notes)
    }

    private func mostCommon(_ values: [String]) -> String? {
        let counts = Dictionary(values.map { ($0, 1) }, uniquingKeysWith: +)
        return counts.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key
    }
}
