import Compatibility
import Foundation
import Logging

/// What a generation run did.
public struct LabStreamsResult: Sendable {
    public var manifest: LabManifest
    /// The suite folder, absolute.
    public var root: String
    /// ffmpeg runs this time; 0 when everything was cached.
    public var encoded: Int
    /// Encodes found up to date and skipped.
    public var cached: Int
}

/// Generates the lab's test-stream suite (`seamcheck lab streams`): the shared primary, each
/// case's interstitial or capability ladder, the playlists of the layout `LabManifest` documents,
/// and `lab.json`. Encodes are cached by recipe; playlists and the manifest are rewritten only
/// when their text changes. It cannot check that a receiver will accept what it makes: the lab does.
public struct LabStreamsGenerator: Sendable {
    public var scale: LabScale
    /// ffmpeg processes at once.
    public var jobs: Int
    public var logger: Logger

    public init(scale: LabScale = .full, jobs: Int = 2, logger: Logger = Logger(label: "seamcheck.lab.streams")) {
        self.scale = scale
        self.jobs = jobs
        self.logger = logger
    }

    /// Every case id, in catalog order.
    public static var caseIds: [String] { LabCatalog.ids }

    /// Checks ids against the catalog: an unknown one is `.unknownCase` with the nearest id.
    public static func validate(_ ids: [String]) throws(LabSuiteError) {
        for id in ids where LabCatalog.definition(id) == nil {
            throw .unknownCase(id, suggestion: Suggestion.best(for: id, in: LabCatalog.ids), known: LabCatalog.ids)
        }
    }

    /// Generates `caseIds` (every case when empty) into `output`. Cases generated earlier at the
    /// same scale stay in the manifest.
    public func generate(output: String, caseIds: [String] = []) async throws(LabSuiteError) -> LabStreamsResult {
        try Self.validate(caseIds)
        // A behaviour case plays the control case's ad: the control comes with it.
        let wanted = Set(caseIds + (caseIds.contains { LabCatalog.definition($0)?.kind == .behaviour } ? [BehaviourCatalog.adSource] : []))
        let selected = LabCatalog.cases.filter { caseIds.isEmpty || wanted.contains($0.id) }
        let ffmpeg = try FFmpegRunner.locate(logger: logger)
        do { try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true) } catch {
            throw .cannotWrite(path: output, reason: error.localizedDescription)
        }
        let root = URL(fileURLWithPath: output).resolvingSymlinksInPath().standardizedFileURL.path

        // A stitched case reuses its source case's encodes: each is listed (and run) once.
        var encodes = [primaryJob]
        for job in selected.flatMap(jobs(for:)) where !encodes.contains(where: { $0.folder == job.folder }) { encodes.append(job) }
        let cached = encodes.filter { ffmpeg.isCached($0, root: root) }.count
        logger.info("generating lab streams", metadata: ["scale": "\(scale.rawValue)", "cases": "\(selected.count)",
                                                         "encodes": "\(encodes.count)", "cached": "\(cached)"])
        var encoded = try await ffmpeg.runAll(encodes, root: root, width: jobs)
        // Encrypted ads: their clear encode's segments, encrypted (its file list is known only now).
        let encryptions = try encryptionJobs(selected, root: root)
        encoded += try await ffmpeg.runAll(encryptions, root: root, width: jobs)
        let total = encodes.count + encryptions.count

        let primary = try EncodedRendition.read(folder: "primary", root: root, caseId: "primary")
        try SuiteWriter.write(LabPlaylists.media(primary, prefix: ""), to: root + "/primary/primary.m3u8")
        var cases: [LabCase] = []
        for definition in selected {
            cases.append(try writeCase(definition, primary: primary, root: root))
        }
        let timeline = zip(primary.segments, primary.segments.indices).map { segment, index in
            LabSegment(file: segment.file, start: primary.start(of: index), duration: segment.duration)
        }
        var manifest = LabManifest(generator: "seamcheck lab streams, \(ffmpeg.version)", primaryTimeline: timeline,
                                   cases: merged(cases, previous: root))
        manifest.scale = scale.rawValue
        manifest.frameCode = .current
        manifest.streams = plans.map(\.stream)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let json: Data
        do { json = try encoder.encode(manifest) } catch {
            throw .cannotWrite(path: root + "/" + LabManifest.fileName, reason: String(describing: error))
        }
        try SuiteWriter.write(String(decoding: json, as: UTF8.self) + "\n", to: root + "/" + LabManifest.fileName)
        logger.info("lab streams ready", metadata: ["folder": "\(root)", "encoded": "\(encoded)", "cached": "\(total - encoded)"])
        return LabStreamsResult(manifest: manifest, root: root, encoded: encoded, cached: total - encoded)
    }

    /// Cases of an earlier run at the same scale that this run did not regenerate, kept in catalog order.
    private func merged(_ cases: [LabCase], previous root: String) -> [LabCase] {
        guard let earlier = try? LabSuite.load(root).manifest, earlier.scale == scale.rawValue else { return cases }
        let fresh = Set(cases.map(\.id))
        let kept = earlier.cases.filter { !fresh.contains($0.id) && LabCatalog.definition($0.id) != nil
            && FileManager.default.fileExists(atPath: root + "/" + $0.playlist) }
        let all = cases + kept
        return LabCatalog.ids.compactMap { id in all.first { $0.id == id } }
    }

    // MARK: - Encodes

    /// Every stream of the catalog at this scale, with its code id.
    var plans: [StreamPlan] { LabStreamPlans.all(scale: scale) }

    var primaryJob: EncodeJob { plans[0].job(scale: scale) }

    /// The encodes a case needs: a stitched case's are its source case's. An encrypted ad is
    /// encoded clear beside its folder first (`encryptionJobs` fills the folder).
    func jobs(for definition: CaseDefinition) -> [EncodeJob] {
        let owner = definition.kind == .behaviour ? BehaviourCatalog.adSource : definition.stitchedFrom ?? definition.id
        return plans.filter { $0.stream.caseId == owner }.map { $0.job(scale: scale) }
    }

    /// The encryption of every selected encrypted ad, each once. Its recipe holds its clear
    /// encode's, so a clear encode made with other arguments is encrypted again even when its file
    /// list is unchanged (the folder is replaced whole, never emptied first: another run may be
    /// serving it).
    private func encryptionJobs(_ selected: [CaseDefinition], root: String) throws(LabSuiteError) -> [EncodeJob] {
        var result: [EncodeJob] = []
        for definition in selected {
            let source = definition.stitchedFrom.flatMap(LabCatalog.definition) ?? definition
            guard source.interstitial?.encrypted == true else { continue }
            let folder = "cases/\(source.id)/ad"
            guard !result.contains(where: { $0.folder == folder }) else { continue }
            let clear = try EncodedRendition.read(folder: LabEncryption.clearFolder(of: folder), root: root, caseId: source.id)
            var job = LabEncryption.job(caseId: source.id, clear: clear, folder: folder)
            let clearRecipe = root + "/" + clear.folder + "/" + FFmpegRunner.recipeFile
            job.inputs = "input \(clear.folder):\n" + ((try? String(contentsOfFile: clearRecipe, encoding: .utf8)) ?? "")
            result.append(job)
        }
        return result
    }

    // MARK: - Playlists

    private func writeCase(_ definition: CaseDefinition, primary: EncodedRendition, root: String) throws(LabSuiteError) -> LabCase {
        if let entry = definition.behaviour { return try writeBehaviour(definition, entry: entry, primary: primary, root: root) }
        guard let ad = definition.interstitial else { return try writeLadder(definition, root: root) }
        if let source = definition.stitchedFrom { return try writeStitched(definition, source: source, ad: ad, primary: primary, root: root) }
        if !definition.renditions.isEmpty { return try writeLocalized(definition, ad: ad, primary: primary, root: root) }
        let folder = "cases/\(definition.id)"
        let directory = root + "/" + folder
        try SuiteWriter.link(directory + "/primary", to: "../../primary")

        let asset = try EncodedRendition.read(folder: folder + "/ad", root: root, caseId: definition.id)
        if ad.encrypted { try SuiteWriter.write(LabEncryption.key, to: directory + "/ad/" + LabEncryption.keyFile) }
        try SuiteWriter.write(LabPlaylists.media(asset, prefix: "", key: ad.encrypted ? LabEncryption.tag(prefix: "") : nil),
                              to: directory + "/ad/ad.m3u8")
        try SuiteWriter.write(LabPlaylists.single(ad, rendition: asset, uri: "ad.m3u8", scale: scale), to: directory + "/ad/master.m3u8")

        // A mid-roll between two segments near the middle of the primary.
        let boundary = primary.segments.count / 2
        let start = primary.start(of: boundary)
        let mark = InterstitialMark(id: "ad-\(definition.id)", start: start, duration: asset.duration,
                                    assetURI: "\(LabManifest.defaultOriginPlaceholder)/\(folder)/ad/master.m3u8", resumeOffset: 0)
        try SuiteWriter.write(LabPlaylists.media(primary, prefix: "primary/", interstitials: [mark]), to: directory + "/primary.m3u8")
        try SuiteWriter.write(LabPlaylists.single(.reference, rendition: primary, uri: "primary.m3u8", scale: scale),
                             to: directory + "/master.m3u8")

        return LabCase(
            id: definition.id, kind: definition.kind, varies: definition.varies, title: definition.title, rules: definition.rules,
            playlist: folder + "/master.m3u8", interstitialPrefix: folder + "/ad/", interstitialStart: start,
            interstitialDuration: asset.duration, resumeOffset: 0, delivery: .interstitial,
            primary: LabRecipes.summary(.reference, duration: primary.duration, scale: scale),
            interstitial: LabRecipes.summary(ad, duration: asset.duration, scale: scale),
            variants: [variant(folder + "/primary.m3u8", .primary, .reference, primary, segments: folder + "/primary/"),
                       variant(folder + "/ad/ad.m3u8", .interstitial, ad, asset, segments: folder + "/ad/")])
    }

    /// A stitched case: `cases/<id>/stitched.m3u8` splices the ad of `cases/<source>/ad` (through the
    /// symlink `cases/<id>/ad`) into the shared primary at the source case's break. No encode of its own.
    private func writeStitched(_ definition: CaseDefinition, source: String, ad: MediaSpec, primary: EncodedRendition,
                               root: String) throws(LabSuiteError) -> LabCase {
        let folder = "cases/\(definition.id)"
        let directory = root + "/" + folder
        do { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) } catch {
            throw .cannotWrite(path: directory, reason: error.localizedDescription)
        }
        try SuiteWriter.link(directory + "/primary", to: "../../primary")
        try SuiteWriter.link(directory + "/ad", to: "../\(source)/ad")
        let asset = try EncodedRendition.read(folder: "cases/\(source)/ad", root: root, caseId: definition.id)

        // The break of the source case: the middle segment boundary, on a timeline that has the
        // primary before it; after the ad the primary resumes where it left off.
        let boundary = primary.segments.count / 2
        let start = primary.start(of: boundary)
        try SuiteWriter.write(LabPlaylists.stitched(primary, ad: asset, at: boundary, primaryPrefix: "primary/", adPrefix: "ad/",
                                                    adKey: ad.encrypted ? LabEncryption.tag(prefix: "ad/") : nil),
                              to: directory + "/stitched.m3u8")
        try SuiteWriter.write(LabPlaylists.stitchedSingle(primary: .reference, ad: ad, primaryRendition: primary, adRendition: asset,
                                                          uri: "stitched.m3u8", scale: scale), to: directory + "/master.m3u8")
        // The stitched timeline ends with the primary's last segment, through this case's `primary` link.
        var stitched = variant(folder + "/stitched.m3u8", .primary, .reference, primary, segments: folder + "/primary/")
        stitched.codecs = LabPlaylists.stitchedCodecs(primary: .reference, ad: ad).joined(separator: ",")
        stitched.bandwidth = max(primary.peakBandwidth, asset.peakBandwidth)
        return LabCase(
            id: definition.id, kind: definition.kind, varies: definition.varies, title: definition.title, rules: definition.rules,
            playlist: folder + "/master.m3u8", interstitialPrefix: folder + "/ad/", interstitialStart: start,
            interstitialDuration: asset.duration, resumeOffset: 0, delivery: .stitched, stitchedFrom: source,
            primary: LabRecipes.summary(.reference, duration: primary.duration, scale: scale),
            interstitial: LabRecipes.summary(ad, duration: asset.duration, scale: scale),
            variants: [stitched])
    }

    /// `segments`: the folder (relative to the suite) the playlist's segment URIs resolve in.
    func variant(_ path: String, _ role: LabVariant.Role, _ spec: MediaSpec, _ rendition: EncodedRendition,
                         segments: String) -> LabVariant {
        LabVariant(path: path, role: role,
                   codecs: ([spec.video.map(LabRecipes.codecString)] + [spec.audio.map(LabRecipes.codecString)]).compactMap { $0 }
                       .joined(separator: ","),
                   videoCodec: spec.video?.codec.rawValue, dynamicRange: spec.video?.range.rawValue,
                   audioCodec: spec.audio?.codec.rawValue, channels: spec.audio.map { LabRecipes.channelCount($0.layout) },
                   bandwidth: rendition.peakBandwidth, resolution: spec.video.map { "\(scale.width($0))x\(scale.height($0))" },
                   lastSegment: rendition.segments.last.map { segments + $0.file })
    }

    /// The capability ladder: every video tier with every audio group, equal declared video bandwidth.
    private func writeLadder(_ definition: CaseDefinition, root: String) throws(LabSuiteError) -> LabCase {
        let folder = "cases/\(definition.id)"
        var videos: [(CapabilityLadder.VideoTier, EncodedRendition)] = []
        for tier in CapabilityLadder.videoTiers {
            let rendition = try EncodedRendition.read(folder: folder + "/video-" + tier.name, root: root, caseId: definition.id)
            try SuiteWriter.write(LabPlaylists.media(rendition, prefix: ""), to: root + "/" + rendition.folder + "/media.m3u8")
            videos.append((tier, rendition))
        }
        var audios: [(CapabilityLadder.AudioGroup, EncodedRendition)] = []
        for group in CapabilityLadder.audioGroups {
            let rendition = try EncodedRendition.read(folder: folder + "/audio-" + group.name, root: root, caseId: definition.id)
            try SuiteWriter.write(LabPlaylists.media(rendition, prefix: ""), to: root + "/" + rendition.folder + "/media.m3u8")
            audios.append((group, rendition))
        }
        // Equal tiers: every video variant declares the highest peak of them all.
        let videoPeak = videos.map(\.1.peakBandwidth).max() ?? 0
        let videoAverage = videos.map(\.1.averageBandwidth).max() ?? 0
        var streams: [LabPlaylists.StreamInf] = []
        for (group, audio) in audios {
            for (tier, _) in videos {
                streams.append(LabPlaylists.StreamInf(
                    uri: "video-\(tier.name)/media.m3u8", bandwidth: videoPeak + audio.peakBandwidth,
                    averageBandwidth: videoAverage + audio.averageBandwidth,
                    codecs: [LabRecipes.codecString(tier.video), LabRecipes.codecString(group.audio)],
                    video: ("\(scale.width(tier.video))x\(scale.height(tier.video))", LabRecipes.frameRate(tier.video.rate), LabRecipes.videoRange(tier.video.range)),
                    audioGroup: group.name))
            }
        }
        let media = audios.map { group, _ in
            LabPlaylists.AudioMedia(group: group.name, name: group.label, language: "en", channels: LabRecipes.channelCount(group.audio.layout),
                                    uri: "audio-\(group.name)/media.m3u8", isDefault: true)
        }
        try SuiteWriter.write(LabPlaylists.multivariant(streams, audio: media), to: root + "/" + folder + "/master.m3u8")

        let reference = MediaSpec(video: CapabilityLadder.videoTiers[0].video, audio: CapabilityLadder.audioGroups[0].audio)
        let variants = videos.map { tier, rendition in
            variant(rendition.folder + "/media.m3u8", .primary, MediaSpec(video: tier.video, audio: nil), rendition,
                    segments: rendition.folder + "/")
        } + audios.map { group, rendition in
            variant(rendition.folder + "/media.m3u8", .primary, MediaSpec(video: nil, audio: group.audio), rendition,
                    segments: rendition.folder + "/")
        }
        return LabCase(id: definition.id, kind: definition.kind, varies: definition.varies, title: definition.title,
                       rules: definition.rules, playlist: folder + "/master.m3u8",
                       primary: LabRecipes.summary(reference, duration: videos.first?.1.duration ?? 0, scale: scale),
                       variants: variants)
    }
}
