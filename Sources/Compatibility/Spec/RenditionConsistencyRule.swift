import Foundation
import HLS

extension DateRangeSpecRules {
    static let acrossRenditions = SpecRule(
        SpecRule.describe("daterange-inconsistent-across-renditions", "Media playlists disagree on their date ranges", severity: .error,
                          rationale: "All media playlists of a multivariant playlist must carry the same EXT-X-DATERANGE tags, and interstitials at the same START-DATE must come in the same order everywhere; otherwise the ad schedule changes when the player switches variant or audio rendition.",
                          source: source, inputs: "every media playlist of the multivariant playlist"),
        examples: [
            SpecExample("the audio rendition lacks ad1", triggers: true, playlist: RenditionExamples.multivariant,
                        resources: RenditionExamples.resources(video: P.media(P.interstitial()), audio: P.media())),
            SpecExample("ad1 and ad2 in a different order", triggers: true, playlist: RenditionExamples.multivariant,
                        resources: RenditionExamples.resources(
                            video: P.media(P.interstitial("ad1"), P.interstitial("ad2", "X-ASSET-URI=\"https://ads.example/ad2.m3u8\"")),
                            audio: P.media(P.interstitial("ad2", "X-ASSET-URI=\"https://ads.example/ad2.m3u8\""), P.interstitial("ad1")))),
            SpecExample("live: ad1 has left the audio window (MEDIA-SEQUENCE 10 vs 9)", triggers: false, playlist: RenditionExamples.multivariant,
                        resources: RenditionExamples.resources(video: RenditionExamples.live(sequence: 9, P.interstitial("ad1", "DURATION=1,X-ASSET-URI=\"\(P.ad1)\"")),
                                                               audio: RenditionExamples.live(sequence: 10))),
            SpecExample("the I-frame playlist carries no date ranges", triggers: false,
                        playlist: RenditionExamples.multivariant + "#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=100000,URI=\"iframes.m3u8\"\n",
                        resources: RenditionExamples.resources(video: P.media(P.interstitial()), audio: P.media(P.interstitial()))
                            .merging(["https://primary.example/iframes.m3u8": RenditionExamples.iFrames()]) { a, _ in a }),
            SpecExample("the I-frame playlist's ad1 differs", triggers: true,
                        playlist: RenditionExamples.multivariant + "#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=100000,URI=\"iframes.m3u8\"\n",
                        resources: RenditionExamples.resources(video: P.media(P.interstitial()), audio: P.media(P.interstitial()))
                            .merging(["https://primary.example/iframes.m3u8": RenditionExamples.iFrames(P.interstitial("ad1", "X-ASSET-URI=\"https://ads.example/ad2.m3u8\""))]) { a, _ in a }),
            SpecExample("same date ranges everywhere", triggers: false, playlist: RenditionExamples.multivariant,
                        resources: RenditionExamples.resources(video: P.media(P.interstitial()), audio: P.media(P.interstitial()))),
        ]) { context in
        let playlists = context.mediaPlaylists
        guard playlists.count > 1 else { return [] }
        // Indexed by ID: with 20,000 date ranges per playlist, searching the lists per ID took seconds.
        // By position, not by copy: a DateRange is a large value, and there are 20,000 per playlist.
        let merged = playlists.map(\.mergedDateRanges)
        let byID = merged.map { ranges in
            var positions: [String: Int] = [:]
            for (position, range) in ranges.enumerated() { if let id = range.id, positions[id] == nil { positions[id] = position } }
            return positions
        }
        var ids: [String] = []
        var seen: Set<String> = []
        for ranges in merged { for range in ranges { if let id = range.id, seen.insert(id).inserted { ids.append(id) } } }
        var found: [SpecViolation] = []
        for id in ids {
            guard let referenceIndex = byID.firstIndex(where: { $0[id] != nil }), let referencePosition = byID[referenceIndex][id] else { continue }
            let reference = merged[referenceIndex][referencePosition]
            let tag = "EXT-X-DATERANGE ID=\"\(id)\" (line \(reference.line) of \(playlists[referenceIndex].reference))"
            for (index, positions) in byID.enumerated() where index != referenceIndex {
                guard let otherPosition = positions[id] else {
                    // Live windows slide: a date range that left (or has not reached) this
                    // playlist's window is allowed to be absent (RFC 8216bis 6.2.1). An I-frame
                    // playlist is never played through, so its schedule cannot change under the
                    // viewer: packagers that leave date ranges out of it are not wrong.
                    if !Self.inWindow(reference, of: playlists[index].playlist) || playlists[index].role == .iFrame { continue }
                    found.append(SpecViolation(tag: tag, playlist: playlists[index].reference, expected: "present", actual: "missing",
                                               message: "EXT-X-DATERANGE ID=\"\(id)\" is missing from this media playlist; every media playlist must carry the same date ranges"))
                    continue
                }
                let other = merged[index][otherPosition]
                for difference in differences(reference, other) {
                    found.append(SpecViolation(tag: tag, line: other.line, playlist: playlists[index].reference, expected: difference.0, actual: difference.1,
                                               message: "EXT-X-DATERANGE ID=\"\(id)\" differs here (line \(other.line)): \(difference.1) instead of \(difference.0)"))
                }
            }
        }
        // Pods: interstitials at one START-DATE must keep their order in every playlist.
        let orders = merged.map { ranges -> [Date: [String]] in
            var pods: [Date: [String]] = [:]
            for range in ranges where range.isInterstitial {
                if let d = range.startDate, let id = range.id { pods[d, default: []].append(id) }
            }
            return pods
        }
        for (date, referenceOrder) in orders[0] where referenceOrder.count > 1 {
            let inReference = Set(referenceOrder)
            for index in 1..<orders.count {
                let order = (orders[index][date] ?? []).filter(inReference.contains)
                let inOrder = Set(order)
                let expected = referenceOrder.filter(inOrder.contains)
                guard order != expected else { continue }
                found.append(SpecViolation(tag: "interstitials at START-DATE \(HLSDate.format(date))", playlist: playlists[index].reference,
                                           expected: expected.joined(separator: ", ") + " (as in \(playlists[0].reference))",
                                           actual: order.joined(separator: ", "),
                                           message: "the interstitials at \(HLSDate.format(date)) play in a different order here; pods must be in the same tag order in every media playlist"))
            }
        }
        return found
    }

    /// Whether a date range's dates map to segments of `playlist`: always for VOD, within the
    /// segments' PROGRAM-DATE-TIME window for live.
    static func inWindow(_ range: DateRange, of playlist: MediaPlaylist) -> Bool {
        guard !playlist.isVOD, let start = playlist.startDate, let date = range.startDate else { return true }
        let end = start.addingTimeInterval(playlist.totalDuration)
        let rangeEnd = range.duration.map { date.addingTimeInterval($0) } ?? date
        return rangeEnd >= start && date <= end
    }

    /// Attributes whose values differ or that only one side has, as (reference, other) texts.
    static func differences(_ a: DateRange, _ b: DateRange) -> [(String, String)] {
        guard a.attributes != b.attributes else { return [] }  // the usual case, without the dictionaries
        // By name through dictionaries: a merged tag can have thousands of attributes.
        let inA = Dictionary(a.attributes.items.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        let inB = Dictionary(b.attributes.items.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        var result: [(String, String)] = []
        for item in a.attributes.items {
            guard let other = inB[item.name] else {
                result.append(("\(item.name)=\(item.value.text)", "no \(item.name)"))
                continue
            }
            if !sameValue(item.name, item.value, other) { result.append(("\(item.name)=\(item.value.text)", "\(item.name)=\(other.text)")) }
        }
        for item in b.attributes.items where inA[item.name] == nil {
            result.append(("no \(item.name)", "\(item.name)=\(item.value.text)"))
        }
        return result
    }
}

/// A multivariant playlist with one variant and one audio rendition, for the examples.
enum RenditionExamples {
    static let multivariant = """
        #EXTM3U
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,URI="audio.m3u8"
        #EXT-X-STREAM-INF:BANDWIDTH=2000000,CODECS="avc1.64001f,mp4a.40.2",RESOLUTION=1280x720,AUDIO="aac"
        video.m3u8

        """

    /// A live window of five 6 s segments starting at MEDIA-SEQUENCE `sequence` (21:55:40 for 9, one segment later for 10).
    static func live(sequence: Int, _ tags: String...) -> String {
        var lines = ["#EXTM3U", "#EXT-X-TARGETDURATION:6", "#EXT-X-MEDIA-SEQUENCE:\(sequence)",
                     "#EXT-X-PROGRAM-DATE-TIME:" + HLSDate.format(Date(timeIntervalSince1970: 1_578_002_140 + Double(sequence - 9) * 6))]
        lines += tags
        for i in 0..<5 { lines += ["#EXTINF:6,", "main\(sequence + i).ts"] }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `SpecPlaylist.media` as an I-frame playlist (EXT-X-I-FRAMES-ONLY, a byte range per frame).
    static func iFrames(_ tags: String...) -> String {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:4", "#EXT-X-TARGETDURATION:6", "#EXT-X-PLAYLIST-TYPE:VOD", "#EXT-X-I-FRAMES-ONLY",
                     "#EXT-X-PROGRAM-DATE-TIME:2020-01-02T21:55:40.000Z"]
        for i in 0..<5 { lines += ["#EXTINF:6,", "#EXT-X-BYTERANGE:9400@376", "main\(i).ts"] }
        lines += tags
        lines.append("#EXT-X-ENDLIST")
        return lines.joined(separator: "\n") + "\n"
    }

    static func resources(video: String, audio: String) -> [String: String] {
        ["https://primary.example/video.m3u8": video, "https://primary.example/audio.m3u8": audio,
         SpecPlaylist.ad1: SpecPlaylist.asset(), "https://ads.example/ad2.m3u8": SpecPlaylist.asset()]
    }
}
