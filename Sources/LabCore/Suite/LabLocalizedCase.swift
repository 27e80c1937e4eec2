import Foundation

/// A localization case's playlists: the shared primary (its muxed English audio is the DEFAULT
/// audio rendition, EXT-X-MEDIA without URI), an encoded audio rendition per other language, a
/// WebVTT subtitle rendition per language (one cue file per primary segment, so that requests show
/// when a receiver reads them), and the case's own ad: English only, one muxed variant, no
/// subtitles. Which renditions a receiver fetches before the ad and after it is its language
/// choice, read from the request log (`LabSession.renditionsBefore` and `renditionsAfter`).
extension LabStreamsGenerator {
    func writeLocalized(_ definition: CaseDefinition, ad: MediaSpec, primary: EncodedRendition,
                        root: String) throws(LabSuiteError) -> LabCase {
        let folder = "cases/\(definition.id)"
        let directory = root + "/" + folder
        try SuiteWriter.link(directory + "/primary", to: "../../primary")
        let asset = try EncodedRendition.read(folder: folder + "/ad", root: root, caseId: definition.id)
        try SuiteWriter.write(LabPlaylists.media(asset, prefix: ""), to: directory + "/ad/ad.m3u8")
        try SuiteWriter.write(LabPlaylists.single(ad, rendition: asset, uri: "ad.m3u8", scale: scale), to: directory + "/ad/master.m3u8")

        let boundary = primary.segments.count / 2
        let start = primary.start(of: boundary)
        let mark = InterstitialMark(id: "ad-\(definition.id)", start: start, duration: asset.duration,
                                    assetURI: "\(LabManifest.defaultOriginPlaceholder)/\(folder)/ad/master.m3u8", resumeOffset: 0)
        try SuiteWriter.write(LabPlaylists.media(primary, prefix: "primary/", interstitials: [mark]), to: directory + "/primary.m3u8")

        var renditions = [LabRendition(type: "audio", language: "en", name: "English", isDefault: true, path: nil, segments: nil)]
        var audioPeak = 0
        for rendition in definition.renditions {
            let path = "\(folder)/\(rendition.folder)/\(rendition.kind == .audio ? "audio" : "subs").m3u8"
            switch rendition.kind {
            case .audio:
                let encoded = try EncodedRendition.read(folder: folder + "/" + rendition.folder, root: root, caseId: definition.id)
                try SuiteWriter.write(LabPlaylists.media(encoded, prefix: "", interstitials: [mark]), to: root + "/" + path)
                audioPeak = max(audioPeak, encoded.peakBandwidth)
            case .subtitles:
                try writeSubtitles(rendition, primary: primary, mark: mark, directory: directory)
            }
            renditions.append(LabRendition(type: rendition.kind.rawValue, language: rendition.language, name: rendition.name,
                                           isDefault: false, path: path, segments: "\(folder)/\(rendition.folder)/"))
        }
        try SuiteWriter.write(Self.localizedMultivariant(renditions, folder: folder, primary: primary, audioPeak: audioPeak, scale: scale),
                              to: directory + "/master.m3u8")

        var labCase = LabCase(
            id: definition.id, kind: definition.kind, varies: definition.varies, title: definition.title, rules: definition.rules,
            playlist: folder + "/master.m3u8", interstitialPrefix: folder + "/ad/", interstitialStart: start,
            interstitialDuration: asset.duration, resumeOffset: 0, delivery: .interstitial,
            primary: LabRecipes.summary(.reference, duration: primary.duration, scale: scale),
            interstitial: LabRecipes.summary(ad, duration: asset.duration, scale: scale),
            variants: [variant(folder + "/primary.m3u8", .primary, .reference, primary, segments: folder + "/primary/"),
                       variant(folder + "/ad/ad.m3u8", .interstitial, ad, asset, segments: folder + "/ad/")])
        labCase.renditions = renditions
        return labCase
    }

    /// One WebVTT file per primary segment, each with one cue naming the language and the time.
    private func writeSubtitles(_ rendition: LocalizedRendition, primary: EncodedRendition, mark: InterstitialMark,
                                directory: String) throws(LabSuiteError) {
        let target = Int((primary.segments.map(\.duration).max() ?? 1).rounded(.up))
        var lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:\(max(1, target))", "#EXT-X-MEDIA-SEQUENCE:0",
                     "#EXT-X-PLAYLIST-TYPE:VOD", "#EXT-X-PROGRAM-DATE-TIME:\(LabPlaylists.date(0))",
                     "#EXT-X-DATERANGE:ID=\"\(mark.id)\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"\(LabPlaylists.date(mark.start))\","
                         + "DURATION=\(LabPlaylists.decimal(mark.duration)),X-ASSET-URI=\"\(mark.assetURI)\",X-RESUME-OFFSET=\(LabPlaylists.decimal(mark.resumeOffset))"]
        for index in primary.segments.indices {
            let from = primary.start(of: index), to = from + primary.segments[index].duration
            let file = String(format: "sub_%03d.vtt", index)
            let cue = "WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:0,LOCAL:00:00:00.000\n\n\(Self.vttTime(from)) --> \(Self.vttTime(to))\n"
                + "\(rendition.name) subtitles, \(Self.vttTime(from))\n"
            try SuiteWriter.write(cue, to: directory + "/\(rendition.folder)/\(file)")
            lines += ["#EXTINF:\(String(format: "%.6f", primary.segments[index].duration)),", file]
        }
        lines.append("#EXT-X-ENDLIST")
        try SuiteWriter.write(lines.joined(separator: "\n") + "\n", to: directory + "/\(rendition.folder)/subs.m3u8")
    }

    static func vttTime(_ seconds: Double) -> String {
        let ms = Int((seconds * 1000).rounded())
        return String(format: "%02d:%02d:%02d.%03d", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000)
    }

    /// The primary's multivariant playlist: the audio group (English muxed, DEFAULT), the subtitle
    /// group (no DEFAULT: off until the viewer turns them on), one variant naming both.
    static func localizedMultivariant(_ renditions: [LabRendition], folder: String, primary: EncodedRendition, audioPeak: Int,
                                      scale: LabScale) -> String {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-INDEPENDENT-SEGMENTS"]
        for rendition in renditions {
            let uri = rendition.path.map { ",URI=\"\(String($0.dropFirst(folder.count + 1)))\"" } ?? ""
            if rendition.type == "audio" {
                lines.append("#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"aud\",NAME=\"\(rendition.name)\",LANGUAGE=\"\(rendition.language)\","
                    + "DEFAULT=\(rendition.isDefault ? "YES" : "NO"),AUTOSELECT=YES,CHANNELS=\"2\"" + uri)
            } else {
                lines.append("#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID=\"subs\",NAME=\"\(rendition.name)\",LANGUAGE=\"\(rendition.language)\","
                    + "DEFAULT=NO,AUTOSELECT=YES,FORCED=NO" + uri)
            }
        }
        let video = MediaSpec.reference.video!
        lines.append("#EXT-X-STREAM-INF:BANDWIDTH=\(primary.peakBandwidth + audioPeak),AVERAGE-BANDWIDTH=\(primary.averageBandwidth),"
            + "CODECS=\"\(LabRecipes.codecString(video)),\(LabRecipes.codecString(MediaSpec.reference.audio!))\","
            + "RESOLUTION=\(scale.width(video))x\(scale.height(video)),FRAME-RATE=\(LabPlaylists.decimal(LabRecipes.frameRate(video.rate))),"
            + "VIDEO-RANGE=SDR,AUDIO=\"aud\",SUBTITLES=\"subs\"")
        lines.append("primary.m3u8")
        return lines.joined(separator: "\n") + "\n"
    }
}
