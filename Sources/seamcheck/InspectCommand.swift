import ArgumentParser
import Foundation
import HLS
import Reporting
import ResultsReporting

struct InspectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show a playlist as parsed: variants, renditions, segments, date ranges and the interstitial schedule.",
        discussion: """
        Loads the media playlists of a multivariant playlist and the interstitials' asset lists (not \
        their assets, never media). The schedule is placed on the first variant's media playlist.
        """)

    @Argument(help: "A multivariant or media playlist: a path, file: URL or http(s) URL.")
    var playlist: String

    @Option(help: "table (default on a terminal) or json.")
    var format: ListFormat?

    @Flag(help: "Read the local playlist and its local children only; fetch nothing, and list what was not checked.")
    var offline = false

    @OptionGroup var timeout: TimeoutOption

    @Option(name: .customLong("bench-parse"), help: .hidden)
    var benchParse: Int?

    func run() async throws {
        if let iterations = benchParse { return try ParseBenchmark.run(playlist, iterations: iterations) }
        let presentation = try await PlaylistInput.load(playlist, timeout: timeout.timeout, fetchAssets: false, offline: offline)
        var document = InspectDocument(input: playlist, presentation: presentation)
        document.notChecked = PlaylistInput.notChecked(presentation, offline: offline)
        ExitSoon.keep((presentation, document))
        switch ListFormat.resolve(format) {
        case .json: try Output.write(try PlaylistInput.json(document), to: nil)
        case .table: try Output.write(InspectTable.render(document), to: nil)
        }
    }
}

/// The inspect JSON: the parsed model, one summary per media playlist (segments are counted, not
/// listed: a day of 2 s segments is 43,200 of them), the primary's date ranges and the schedule.
struct InspectDocument: Encodable {
    struct MediaSummary: Encodable {
        var uri: String
        /// variant, rendition or i-frame: which tag of the multivariant playlist names it.
        var kind: String
        var location: String
        var segmentCount: Int
        var duration: Double
        var targetDuration: Int?
        var mediaSequence: Int
        var discontinuitySequence: Int
        var discontinuities: Int
        var playlistType: String?
        var endList: Bool
        var iFramesOnly: Bool
        var partCount: Int
        var startDate: Date?
        var dateRangeCount: Int
    }

    /// A date range as inspect shows it: the typed standard attributes and the `X-` ones with
    /// their type (the raw attribute list would repeat every value).
    struct DateRangeSummary: Encodable {
        var line: Int
        var id: String?
        var classification: String?
        var startDate: String?
        var endDate: String?
        var duration: Double?
        var plannedDuration: Double?
        var endOnNext: Bool
        var cue: [String]?
        var scte35: [String: String]?
        var clientAttributes: [String: AttributeValue]

        enum CodingKeys: String, CodingKey {
            case line, id, classification = "class", startDate, endDate, duration, plannedDuration, endOnNext, cue, scte35, clientAttributes
        }

        init(_ r: DateRange) {
            line = r.line
            id = r.id
            classification = r.classification
            startDate = r.startDateText
            endDate = r.endDateText
            duration = r.duration
            plannedDuration = r.plannedDuration
            endOnNext = r.endOnNext
            cue = r.cue.map { $0.tokens.map(\.rawValue) + $0.unknown }
            let scte = [("cmd", r.scte35Command), ("out", r.scte35Out), ("in", r.scte35In)].compactMap { k, v in v.map { (k, $0) } }
            scte35 = scte.isEmpty ? nil : Dictionary(uniqueKeysWithValues: scte)
            clientAttributes = r.clientAttributes
        }
    }

    var schemaVersion = jsonSchemaVersion
    var input: String
    var kind: String
    var version: Int?
    var variants: [Variant]
    var renditions: [Rendition]
    var iFrameStreams: [IFrameStream]
    var sessionData: [SessionData]
    var mediaPlaylists: [MediaSummary]
    /// Media playlists that could not be loaded: the model above is shown without them.
    var unreachable: [UnreachablePlaylist]
    /// `--offline`: what was not fetched.
    var notChecked: [String] = []
    /// The media playlist the date ranges and the schedule come from.
    var primary: String?
    var dateRanges: [DateRangeSummary]
    var schedule: InterstitialSchedule?
    var diagnostics: [PlaylistInput.Diagnostic]

    init(input: String, presentation: Presentation) {
        self.input = input
        let multivariant = presentation.root.playlist.multivariant
        kind = multivariant == nil ? "media" : "multivariant"
        version = multivariant?.version ?? presentation.root.playlist.media?.version
        variants = multivariant?.variants ?? []
        renditions = multivariant?.renditions ?? []
        iFrameStreams = multivariant?.iFrameStreams ?? []
        sessionData = multivariant?.sessionData ?? []
        mediaPlaylists = presentation.mediaPlaylists.map { loaded in
            let p = loaded.playlist
            return MediaSummary(uri: loaded.reference, kind: loaded.role.rawValue, location: loaded.location.description, segmentCount: p.segments.count,
                                duration: p.totalDuration, targetDuration: p.targetDuration, mediaSequence: p.mediaSequence,
                                discontinuitySequence: p.discontinuitySequence, discontinuities: p.segments.lazy.filter(\.discontinuity).count,
                                playlistType: p.playlistType?.rawValue, endList: p.endList, iFramesOnly: p.iFramesOnly,
                                partCount: p.partCount, startDate: p.startDate, dateRangeCount: p.dateRanges.count)
        }
        unreachable = presentation.mediaFailures.filter { if case .offline = $0.error { return false } else { return true } }
            .map(UnreachablePlaylist.init)
        primary = presentation.primary?.reference
        dateRanges = (presentation.primary?.playlist.dateRanges ?? []).map(DateRangeSummary.init)
        schedule = presentation.primary.map { media in
            InterstitialSchedule(primary: media.playlist, assetList: { interstitial in
                if case .loaded(let list, _, _)? = presentation.assetList(for: interstitial, in: media) { return list }
                return nil
            })
        }
        diagnostics = PlaylistInput.diagnostics(presentation)
    }
}

/// Lines of values from the playlists: their control characters are made visible.
enum InspectTable {
    static func render(_ d: InspectDocument) -> String {
        var out = ["\(d.input): \(d.kind) playlist" + (d.version.map { ", version \($0)" } ?? "")]
        if d.kind == "multivariant" {
            out.append("")
            out.append("Variants (\(d.variants.count))")
            for v in d.variants {
                let fields = [v.bandwidth.map { "\($0) bit/s" }, v.averageBandwidth.map { "avg \($0)" }, v.resolution?.description,
                              v.frameRate.map { "\(HLSNumber.format($0)) fps" }, v.videoRange, v.codecs.isEmpty ? nil : v.codecs.joined(separator: ","),
                              v.audio.map { "audio \($0)" }, v.subtitles.map { "subtitles \($0)" },
                              v.closedCaptions.map { "cc \($0)" }].compactMap { $0 }
                out.append("  \(v.uri)  " + fields.joined(separator: "  "))
            }
            if !d.renditions.isEmpty {
                out.append("")
                out.append("Renditions (\(d.renditions.count))")
                for r in d.renditions {
                    let fields = [r.type?.rawValue, r.groupID.map { "group \($0)" }, r.name.map { "\"\($0)\"" }, r.language,
                                  r.channels.map { "\($0) ch" }, r.isDefault ? "default" : nil, r.autoselect ? "autoselect" : nil,
                                  r.uri ?? r.instreamID].compactMap { $0 }
                    out.append("  " + fields.joined(separator: "  "))
                }
            }
            if !d.iFrameStreams.isEmpty {
                out.append("")
                out.append("I-frame streams (\(d.iFrameStreams.count))")
                for s in d.iFrameStreams {
                    out.append("  \(s.uri ?? "(no URI)")  " + [s.bandwidth.map { "\($0) bit/s" }, s.resolution?.description].compactMap { $0 }.joined(separator: "  "))
                }
            }
        }
        out.append("")
        out.append("Media playlists (\(d.mediaPlaylists.count))")
        for m in d.mediaPlaylists {
            let type = m.playlistType ?? (m.endList ? "VOD (ENDLIST)" : "live")
            let what = m.kind == MediaPlaylistRole.iFrame.rawValue ? "I-frame playlist, \(m.segmentCount) I-frame(s)" : "\(m.segmentCount) segment(s)"
            out.append("  \(m.uri): \(what), \(clock(m.duration)), target \(m.targetDuration.map(String.init) ?? "?") s, \(type)"
                + (m.dateRangeCount > 0 ? ", \(m.dateRangeCount) date range(s)" : ""))
        }
        if !d.unreachable.isEmpty {
            out.append("")
            out.append("Not loaded (\(d.unreachable.count)): shown above without them")
            out += d.unreachable.map { "  \($0.text)" + ($0.status == nil ? "" : ": \($0.reason)") }
        }
        if !d.dateRanges.isEmpty {
            out.append("")
            out.append("Date ranges in \(d.primary ?? "the playlist") (\(d.dateRanges.count))")
            for r in d.dateRanges {
                let fields = ["line \(r.line)", r.id.map { "ID=\"\($0)\"" } ?? "no ID", r.classification.map { "CLASS=\"\($0)\"" },
                              r.startDate.map { "START \($0)" }, r.duration.map { "DURATION \(HLSNumber.format($0))" },
                              r.plannedDuration.map { "PLANNED \(HLSNumber.format($0))" }, r.endOnNext ? "END-ON-NEXT" : nil].compactMap { $0 }
                out.append("  " + fields.joined(separator: "  "))
            }
        }
        if let schedule = d.schedule, !schedule.entries.isEmpty {
            out.append("")
            out += timeline(schedule)
        }
        if !d.notChecked.isEmpty {
            out.append("")
            out.append("Not checked (--offline)")
            out += d.notChecked.map { "  \($0)" }
        }
        if !d.diagnostics.isEmpty {
            out.append("")
            out.append("Diagnostics (\(d.diagnostics.count))")
            out += d.diagnostics.map { "  \($0.text)" }
        }
        return VisibleText.escape(lines: out).joined(separator: "\n") + "\n"
    }

    /// The schedule as a timeline: one block per pod, the primary's resume point after it.
    static func timeline(_ schedule: InterstitialSchedule) -> [String] {
        let start = schedule.primaryStartDate.map { "starts \(HLSDate.format($0)), " } ?? "no PROGRAM-DATE-TIME, "
        var out = ["Interstitial schedule (primary timeline: \(start)\(clock(schedule.primaryDuration)))"]
        for (index, pod) in schedule.pods.enumerated() {
            let entries = schedule.entries.filter { $0.pod == index }
            let at = pod.offset.map(clock) ?? (pod.placement == .postRoll ? "pending until the stream ends" : "unplaced")
            let what = "\(pod.placement.rawValue)" + (entries.count > 1 ? " pod of \(entries.count)" : "")
            let before = pod.offset.flatMap { $0 < -0.0005 ? "  " + InterstitialSchedule.position(offset: $0) : nil } ?? ""
            out.append("  \(at)  \(what)\(before)" + (pod.startDate.map { "  (START-DATE \(HLSDate.format($0)))" } ?? ""))
            for (n, e) in entries.enumerated() {
                var facts = [e.playedDuration.map { clockShort($0) } ?? "duration unknown"]
                if e.resumeOffset != nil { facts.append("resume +\(clockShort(e.resumeOffset!))" + (e.resumeOffsetIsExplicit ? "" : " (played duration)")) }
                if !e.restrictions.isEmpty { facts.append("restrict \(e.restrictions.joined(separator: ","))") }
                if !e.snap.isEmpty { facts.append("snap \(e.snap.joined(separator: ","))") }
                if let limit = e.playoutLimit { facts.append("playout limit \(clockShort(limit))") }
                if e.playsOnce { facts.append("once") }
                facts.append("timeline \(e.timelineOccupies)/\(e.timelineStyle)")
                if !e.contentMayVary { facts.append("content does not vary") }
                if let skip = e.skipControl {
                    facts.append("skip button" + (skip.offset.map { " after \(clockShort($0))" } ?? "")
                        + (skip.duration.map { " for \(clockShort($0))" } ?? "") + (skip.labelID.map { " \"\($0)\"" } ?? "")
                        + (e.skipControlFromAssetList.isEmpty ? "" : " (asset list SKIP-CONTROL: \(e.skipControlFromAssetList.joined(separator: ", ")))"))
                }
                if e.onSegmentBoundary == false { facts.append("not on a segment boundary") }
                out.append("    \(n + 1). \(e.id ?? "(no ID)") (line \(e.line))  " + facts.joined(separator: "  "))
                if let list = e.assetList { out.append("       asset list \(list)") }
                for problem in e.assetListProblems {
                    out.append("       asset list problem: \(problem) (\(problem.outcome.rawValue))")
                }
                for asset in e.assets {
                    out.append("       asset \(asset.uri)" + (asset.duration.map { "  \(clockShort($0))" } ?? ""))
                }
            }
            if pod.placement == .postRoll {
                out.append("  playback ends")
            } else if let resume = pod.resumesAt {
                out.append("  \(clock(resume))  primary resumes")
            }
        }
        return out
    }

    /// `01:02:03.500`.
    static func clock(_ seconds: Double) -> String {
        guard seconds.isFinite, abs(seconds) < 1e12 else { return clockShort(seconds) }
        let millis = Int((abs(seconds) * 1000).rounded())
        let text = String(format: "%02d:%02d:%02d.%03d", millis / 3_600_000, millis / 60000 % 60, millis / 1000 % 60, millis % 1000)
        return seconds < 0 ? "-" + text : text
    }

    static func clockShort(_ seconds: Double) -> String { "\(HLSNumber.format(seconds)) s" }
}

/// `inspect --bench-parse N FILE`: parses a local playlist N times in-process and prints the best
/// and median times to stderr, so the benchmark can separate parsing from process start.
enum ParseBenchmark {
    static func run(_ path: String, iterations: Int) throws {
        guard let data = FileManager.default.contents(atPath: path) else { throw CLIFailure.input("\(path): cannot be read") }
        var times: [Double] = []
        var segments = 0
        for _ in 0..<max(1, iterations) {
            let start = DispatchTime.now().uptimeNanoseconds
            let parsed = try? PlaylistParser.parse(data)
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            segments = parsed?.playlist.media?.segments.count ?? 0
        }
        times.sort()
        Terminal.writeStderr(String(format: "parse: best %.2f ms, median %.2f ms over %d run(s), %d segments\n",
                                    times[0], times[times.count / 2], times.count, segments))
    }
}
