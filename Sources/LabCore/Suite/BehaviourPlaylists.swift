import Foundation

/// The text of a behaviour case's files: its media playlist with the case's EXT-X-DATERANGE tags,
/// and its asset lists. Asset URIs are absolute (`{LAB_ORIGIN}`, which `lab serve` replaces) and carry
/// `_HLS_interstitial_id`, as packagers SHOULD add it.
enum BehaviourPlaylists {
    static let placeholder = LabManifest.defaultOriginPlaceholder

    /// The absolute URI of a suite path, with `_HLS_interstitial_id=<id>`.
    static func assetURI(_ path: String, interstitial: String) -> String {
        "\(placeholder)/\(path)?_HLS_interstitial_id=\(interstitial)"
    }

    /// One EXT-X-DATERANGE of class com.apple.hls.interstitial, with exactly the attributes the
    /// interstitial states: X-ASSET-URI or X-ASSET-LIST, X-RESUME-OFFSET and X-PLAYOUT-LIMIT only when
    /// set, CUE, X-RESTRICT, X-SNAP and X-TIMELINE-OCCUPIES only when given.
    static func daterange(_ i: LabBehaviourInterstitial) -> String {
        var attributes = ["ID=\"\(i.id)\"", "CLASS=\"com.apple.hls.interstitial\"", "START-DATE=\"\(LabPlaylists.date(i.start))\"",
                          "DURATION=\(LabPlaylists.decimal(i.duration))"]
        if let list = i.assetList {
            attributes.append("X-ASSET-LIST=\"\(placeholder)/\(list)\"")
        } else if let asset = i.assets.first {
            attributes.append("X-ASSET-URI=\"\(assetURI(asset.playlist, interstitial: i.id))\"")
        }
        if let offset = i.resumeOffset { attributes.append("X-RESUME-OFFSET=\(LabPlaylists.decimal(offset))") }
        if let limit = i.playoutLimit { attributes.append("X-PLAYOUT-LIMIT=\(LabPlaylists.decimal(limit))") }
        if !i.cue.isEmpty { attributes.append("CUE=\"\(i.cue.joined(separator: ","))\"") }
        if !i.restrict.isEmpty { attributes.append("X-RESTRICT=\"\(i.restrict.joined(separator: ","))\"") }
        if !i.snap.isEmpty { attributes.append("X-SNAP=\"\(i.snap.joined(separator: ","))\"") }
        if let occupies = i.timelineOccupies { attributes.append("X-TIMELINE-OCCUPIES=\"\(occupies)\"") }
        return "#EXT-X-DATERANGE:" + attributes.joined(separator: ",")
    }

    /// The X-ASSET-LIST document: `{"ASSETS":[{"URI":...,"DURATION":...}]}`, DURATION a number.
    static func assetList(_ i: LabBehaviourInterstitial) -> String {
        let entries = i.assets.map { asset in
            "{\"URI\":\"\(assetURI(asset.playlist, interstitial: i.id))\",\"DURATION\":\(LabPlaylists.decimal(asset.duration))}"
        }
        return "{\"ASSETS\":[" + entries.joined(separator: ",") + "]}\n"
    }

    /// The case's primary media playlist. VOD: the whole primary. Live: the same segments without
    /// EXT-X-PLAYLIST-TYPE and with EXT-X-START; this file is the template `lab serve` cuts each
    /// client's window from (`LiveWindowPlaylist`), and what a static server or `seamcheck lint` reads
    /// (the event as it stands once ended).
    static func media(_ primary: EncodedRendition, behaviour: LabBehaviour, prefix: String = "primary/") -> String {
        let target = Int((primary.segments.map(\.duration).max() ?? 1).rounded())
        var lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:\(max(1, target))", "#EXT-X-MEDIA-SEQUENCE:0"]
        if let live = behaviour.live {
            lines.append("#EXT-X-INDEPENDENT-SEGMENTS")
            lines.append("#EXT-X-START:TIME-OFFSET=\(LabPlaylists.decimal(live.startOffset)),PRECISE=YES")
        } else {
            lines += ["#EXT-X-PLAYLIST-TYPE:VOD", "#EXT-X-INDEPENDENT-SEGMENTS"]
        }
        if let initFile = primary.initFile { lines.append("#EXT-X-MAP:URI=\"\(prefix)\(initFile)\"") }
        lines.append("#EXT-X-PROGRAM-DATE-TIME:\(LabPlaylists.date(0))")
        lines += behaviour.interstitials.map(daterange)
        for segment in primary.segments {
            lines += ["#EXTINF:\(String(format: "%.6f", segment.duration)),", prefix + segment.file]
        }
        lines.append("#EXT-X-ENDLIST")
        return lines.joined(separator: "\n") + "\n"
    }
}

extension LabStreamsGenerator {
    /// A behaviour case: nothing encoded. `cases/<id>/primary` and every asset folder `ad-N` link to
    /// the shared primary and the control case's ad; failing URIs (`missing-ad/`, `missing-list.json`)
    /// are kept free so that they answer 404.
    func writeBehaviour(_ definition: CaseDefinition, entry: BehaviourCatalog.Entry, primary: EncodedRendition,
                        root: String) throws(LabSuiteError) -> LabCase {
        let folder = "cases/\(definition.id)"
        let directory = root + "/" + folder
        do { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) } catch {
            throw .cannotWrite(path: directory, reason: error.localizedDescription)
        }
        try SuiteWriter.link(directory + "/primary", to: "../../primary")
        let source = "cases/\(BehaviourCatalog.adSource)/ad"
        let ad = try EncodedRendition.read(folder: source, root: root, caseId: definition.id)
        let behaviour = BehaviourCatalog.behaviour(entry, geometry: .measured(primary: primary, ad: ad))

        var assetFolders: [String] = []
        for interstitial in behaviour.interstitials {
            for asset in interstitial.assets {
                let assetFolder = String(asset.prefix.dropLast())
                if asset.fails {
                    try? FileManager.default.removeItem(atPath: root + "/" + assetFolder)
                } else if !assetFolders.contains(assetFolder) {
                    try SuiteWriter.link(root + "/" + assetFolder, to: "../\(BehaviourCatalog.adSource)/ad")
                    assetFolders.append(assetFolder)
                }
            }
            guard let list = interstitial.assetList else { continue }
            if interstitial.assetListFails {
                try? FileManager.default.removeItem(atPath: root + "/" + list)
            } else {
                try SuiteWriter.write(BehaviourPlaylists.assetList(interstitial), to: root + "/" + list)
            }
        }
        try SuiteWriter.write(BehaviourPlaylists.media(primary, behaviour: behaviour), to: directory + "/primary.m3u8")
        try SuiteWriter.write(LabPlaylists.single(.reference, rendition: primary, uri: "primary.m3u8", scale: scale),
                              to: directory + "/master.m3u8")

        let first = behaviour.interstitials.first
        let firstAsset = first?.assets.first { !$0.fails }
        let primaryVariant = behaviourVariant(folder + "/primary.m3u8", .primary, primary, segments: folder + "/primary/")
        let adVariants = assetFolders.map { behaviourVariant($0 + "/ad.m3u8", .interstitial, ad, segments: $0 + "/") }
        return LabCase(
            id: definition.id, kind: .behaviour, varies: definition.varies, title: definition.title, rules: [],
            playlist: folder + "/master.m3u8", interstitialPrefix: firstAsset?.prefix, interstitialStart: first?.start,
            interstitialDuration: first?.duration, resumeOffset: first?.resumeOffset, delivery: .interstitial,
            primary: LabRecipes.summary(.reference, duration: primary.duration, scale: scale),
            interstitial: LabRecipes.summary(.reference, duration: ad.duration, scale: scale),
            variants: [primaryVariant] + adVariants, behaviour: behaviour)
    }

    private func behaviourVariant(_ path: String, _ role: LabVariant.Role, _ rendition: EncodedRendition, segments: String) -> LabVariant {
        let spec = MediaSpec.reference
        return LabVariant(path: path, role: role,
                          codecs: [spec.video.map(LabRecipes.codecString), spec.audio.map(LabRecipes.codecString)].compactMap { $0 }
                              .joined(separator: ","),
                          videoCodec: spec.video?.codec.rawValue, dynamicRange: spec.video?.range.rawValue,
                          audioCodec: spec.audio?.codec.rawValue, channels: spec.audio.map { LabRecipes.channelCount($0.layout) },
                          bandwidth: rendition.peakBandwidth, resolution: spec.video.map { "\(scale.width($0))x\(scale.height($0))" },
                          lastSegment: rendition.segments.last.map { segments + $0.file })
    }
}
