import Foundation

/// A rendition ffmpeg wrote: its init section and segments, as its `encoded.m3u8` lists them.
struct EncodedRendition: Sendable {
    /// Folder relative to the suite root.
    var folder: String
    /// The EXT-X-MAP's file; nil for MPEG-TS.
    var initFile: String?
    var segments: [(file: String, duration: Double)]
    /// Bytes of each segment, in order.
    var sizes: [Int]

    var duration: Double { LabPlaylists.milliseconds(segments.reduce(0) { $0 + $1.duration }) }

    /// Seconds from the first segment to the start of segment `index`, to the millisecond.
    func start(of index: Int) -> Double { LabPlaylists.milliseconds(segments[..<index].reduce(0) { $0 + $1.duration }) }

    /// Highest segment bit rate (what BANDWIDTH must cover) and the average, in bits per second.
    var peakBandwidth: Int {
        zip(segments, sizes).map { Int((Double($1 * 8) / max($0.duration, 0.001)).rounded(.up)) }.max() ?? 0
    }
    var averageBandwidth: Int {
        Int((Double(sizes.reduce(0, +) * 8) / max(duration, 0.001)).rounded(.up))
    }

    static func read(folder: String, root: String, caseId: String) throws(LabSuiteError) -> EncodedRendition {
        let directory = root + "/" + folder
        guard let text = try? String(contentsOfFile: directory + "/" + EncodeJob.playlist, encoding: .utf8) else {
            throw .generationFailed(caseId: caseId, step: "read \(folder)/\(EncodeJob.playlist)", reason: "ffmpeg wrote no playlist")
        }
        var initFile: String?
        var segments: [(String, Double)] = []
        var pending: Double?
        for line in text.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if line.hasPrefix("#EXT-X-MAP:URI=\"") {
                initFile = String(line.dropFirst("#EXT-X-MAP:URI=\"".count).prefix { $0 != "\"" })
            } else if line.hasPrefix("#EXTINF:") {
                pending = Double(line.dropFirst("#EXTINF:".count).prefix { $0 != "," })
            } else if !line.isEmpty, !line.hasPrefix("#"), let duration = pending {
                segments.append((line, duration))
                pending = nil
            }
        }
        guard !segments.isEmpty else {
            throw .generationFailed(caseId: caseId, step: "read \(folder)/\(EncodeJob.playlist)", reason: "the playlist lists no segments")
        }
        let sizes = segments.map { segment -> Int in
            let attributes = try? FileManager.default.attributesOfItem(atPath: directory + "/" + segment.0)
            return (attributes?[.size] as? NSNumber)?.intValue ?? 0
        }
        return EncodedRendition(folder: folder, initFile: initFile, segments: segments, sizes: sizes)
    }
}

/// One EXT-X-DATERANGE interstitial of a case's primary playlist.
struct InterstitialMark: Sendable {
    var id: String
    /// Seconds from the first segment.
    var start: Double
    var duration: Double
    var assetURI: String
    var resumeOffset: Double
}

/// The playlists of the suite, as text. Every playlist is VOD with PROGRAM-DATE-TIME from
/// `epoch`, so date ranges sit at the same time in every case and every run.
enum LabPlaylists {
    /// 2026-01-01T00:00:00Z.
    static let epoch = Date(timeIntervalSince1970: 1_767_225_600)

    static func date(_ offset: Double) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: epoch.addingTimeInterval((offset * 1000).rounded() / 1000))
    }

    static func decimal(_ value: Double) -> String { String(format: "%.3f", value) }

    /// `value` rounded to the millisecond: what playlists and the manifest state.
    static func milliseconds(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }

    /// A media playlist of `rendition` whose URIs start with `prefix` ("" or "primary/"); `key`:
    /// the EXT-X-KEY of its segments (after the EXT-X-MAP: the init section stays clear).
    static func media(_ rendition: EncodedRendition, prefix: String, interstitials: [InterstitialMark] = [], key: String? = nil) -> String {
        let target = Int((rendition.segments.map(\.duration).max() ?? 1).rounded())
        var lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:\(max(1, target))", "#EXT-X-MEDIA-SEQUENCE:0",
                     "#EXT-X-PLAYLIST-TYPE:VOD", "#EXT-X-INDEPENDENT-SEGMENTS"]
        if let initFile = rendition.initFile { lines.append("#EXT-X-MAP:URI=\"\(prefix)\(initFile)\"") }
        lines.append("#EXT-X-PROGRAM-DATE-TIME:\(date(0))")
        if let key { lines.append(key) }
        for mark in interstitials {
            lines.append("#EXT-X-DATERANGE:ID=\"\(mark.id)\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"\(date(mark.start))\","
                + "DURATION=\(decimal(mark.duration)),X-ASSET-URI=\"\(mark.assetURI)\",X-RESUME-OFFSET=\(decimal(mark.resumeOffset))")
        }
        for segment in rendition.segments {
            lines += ["#EXTINF:\(String(format: "%.6f", segment.duration)),", prefix + segment.file]
        }
        lines.append("#EXT-X-ENDLIST")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The primary with `ad` spliced in before segment `boundary`: primary segments, EXT-X-DISCONTINUITY,
    /// the ad's segments (with its own EXT-X-MAP), EXT-X-DISCONTINUITY, the primary's EXT-X-MAP
    /// again and the rest of the primary. PROGRAM-DATE-TIME follows the playback timeline; no date range.
    /// `adKey`: the ad's EXT-X-KEY, after the ad's EXT-X-MAP (its init section is clear); then
    /// METHOD=NONE before the primary's EXT-X-MAP, since a key applies to the EXT-X-MAP after it.
    static func stitched(_ primary: EncodedRendition, ad: EncodedRendition, at boundary: Int,
                         primaryPrefix: String, adPrefix: String, adKey: String? = nil) -> String {
        let all = primary.segments + ad.segments
        let target = Int((all.map(\.duration).max() ?? 1).rounded())
        var lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:\(max(1, target))", "#EXT-X-MEDIA-SEQUENCE:0",
                     "#EXT-X-DISCONTINUITY-SEQUENCE:0", "#EXT-X-PLAYLIST-TYPE:VOD", "#EXT-X-INDEPENDENT-SEGMENTS"]
        func section(_ rendition: EncodedRendition, _ range: Range<Int>, prefix: String, at start: Double,
                     keyBefore: String? = nil, keyAfter: String? = nil) {
            if let keyBefore { lines.append(keyBefore) }
            if let initFile = rendition.initFile { lines.append("#EXT-X-MAP:URI=\"\(prefix)\(initFile)\"") }
            lines.append("#EXT-X-PROGRAM-DATE-TIME:\(date(start))")
            if let keyAfter { lines.append(keyAfter) }
            for segment in rendition.segments[range] {
                lines += ["#EXTINF:\(String(format: "%.6f", segment.duration)),", prefix + segment.file]
            }
        }
        let breakAt = primary.start(of: boundary)
        section(primary, 0..<boundary, prefix: primaryPrefix, at: 0)
        lines.append("#EXT-X-DISCONTINUITY")
        section(ad, 0..<ad.segments.count, prefix: adPrefix, at: breakAt, keyAfter: adKey)
        lines.append("#EXT-X-DISCONTINUITY")
        section(primary, boundary..<primary.segments.count, prefix: primaryPrefix, at: milliseconds(breakAt + ad.duration),
                keyBefore: adKey == nil ? nil : "#EXT-X-KEY:METHOD=NONE")
        lines.append("#EXT-X-ENDLIST")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The single-variant multivariant playlist of a stitched media playlist: CODECS lists what
    /// either side carries; RESOLUTION, FRAME-RATE and VIDEO-RANGE are the primary's, as server-side
    /// insertion declares them (and as `seamcheck audit` checks them against the first segments).
    static func stitchedSingle(primary: MediaSpec, ad: MediaSpec, primaryRendition: EncodedRendition, adRendition: EncodedRendition,
                               uri: String, scale: LabScale) -> String {
        var video: (String, Double, String)?
        if let v = primary.video {
            video = ("\(scale.width(v))x\(scale.height(v))", LabRecipes.frameRate(v.rate), LabRecipes.videoRange(v.range))
        }
        let bits = (primaryRendition.sizes + adRendition.sizes).reduce(0, +) * 8
        let average = Int((Double(bits) / max(primaryRendition.duration + adRendition.duration, 0.001)).rounded(.up))
        return multivariant([StreamInf(uri: uri, bandwidth: max(primaryRendition.peakBandwidth, adRendition.peakBandwidth),
                                       averageBandwidth: average, codecs: stitchedCodecs(primary: primary, ad: ad), video: video)])
    }

    /// Codec strings of both sides, the primary's first, each once.
    static func stitchedCodecs(primary: MediaSpec, ad: MediaSpec) -> [String] {
        let all = [primary.video.map(LabRecipes.codecString), ad.video.map(LabRecipes.codecString),
                   primary.audio.map(LabRecipes.codecString), ad.audio.map(LabRecipes.codecString)].compactMap { $0 }
        return all.enumerated().filter { index, codec in !all[..<index].contains(codec) }.map(\.element)
    }

    /// One EXT-X-STREAM-INF entry.
    struct StreamInf {
        var uri: String
        var bandwidth: Int
        var averageBandwidth: Int
        var codecs: [String]
        var video: (resolution: String, rate: Double, range: String)?
        var audioGroup: String?
    }

    /// One EXT-X-MEDIA audio rendition.
    struct AudioMedia {
        var group: String
        var name: String
        /// RFC 5646 ("en").
        var language: String
        var channels: Int
        var uri: String
        var isDefault: Bool
    }

    static func multivariant(_ streams: [StreamInf], audio: [AudioMedia] = []) -> String {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-INDEPENDENT-SEGMENTS"]
        for rendition in audio {
            lines.append("#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"\(rendition.group)\",NAME=\"\(rendition.name)\",LANGUAGE=\"\(rendition.language)\","
                + "DEFAULT=\(rendition.isDefault ? "YES" : "NO"),AUTOSELECT=YES,CHANNELS=\"\(rendition.channels)\",URI=\"\(rendition.uri)\"")
        }
        for stream in streams {
            var attributes = ["BANDWIDTH=\(stream.bandwidth)", "AVERAGE-BANDWIDTH=\(stream.averageBandwidth)",
                              "CODECS=\"\(stream.codecs.joined(separator: ","))\""]
            if let video = stream.video {
                attributes += ["RESOLUTION=\(video.resolution)", "FRAME-RATE=\(decimal(video.rate))", "VIDEO-RANGE=\(video.range)"]
            }
            if let group = stream.audioGroup { attributes.append("AUDIO=\"\(group)\"") }
            lines += ["#EXT-X-STREAM-INF:" + attributes.joined(separator: ","), stream.uri]
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The single-variant multivariant playlist of a muxed rendition described by `spec`.
    static func single(_ spec: MediaSpec, rendition: EncodedRendition, uri: String, scale: LabScale) -> String {
        var codecs: [String] = []
        var video: (String, Double, String)?
        if let v = spec.video {
            codecs.append(LabRecipes.codecString(v))
            video = ("\(scale.width(v))x\(scale.height(v))", LabRecipes.frameRate(v.rate), LabRecipes.videoRange(v.range))
        }
        if let a = spec.audio { codecs.append(LabRecipes.codecString(a)) }
        return multivariant([StreamInf(uri: uri, bandwidth: rendition.peakBandwidth, averageBandwidth: rendition.averageBandwidth,
                                       codecs: codecs, video: video)])
    }
}

/// Writes files only when their content changes, so a cached run touches nothing.
enum SuiteWriter {
    static func write(_ text: String, to path: String) throws(LabSuiteError) {
        try write(Data(text.utf8), to: path)
    }

    static func write(_ data: Data, to path: String) throws(LabSuiteError) {
        if FileManager.default.contents(atPath: path) == data { return }
        do {
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw .cannotWrite(path: path, reason: error.localizedDescription)
        }
    }

    /// `path` as a symbolic link to `destination` (relative), replacing whatever is there. The link
    /// is made beside it and renamed over it: two runs into one suite never meet a missing link or
    /// fail on the other's (a folder in its place is removed first: rename(2) cannot replace it).
    static func link(_ path: String, to destination: String) throws(LabSuiteError) {
        let fm = FileManager.default
        if (try? fm.destinationOfSymbolicLink(atPath: path)) == destination { return }
        let temporary = path + ".link-\(ProcessInfo.processInfo.processIdentifier)"
        try? fm.removeItem(atPath: temporary)
        do { try fm.createSymbolicLink(atPath: temporary, withDestinationPath: destination) } catch {
            throw .cannotWrite(path: path, reason: error.localizedDescription)
        }
        if rename(temporary, path) == 0 { return }
        try? fm.removeItem(atPath: path)
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? fm.removeItem(atPath: temporary)
            throw .cannotWrite(path: path, reason: reason)
        }
    }
}
