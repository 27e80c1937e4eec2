import Foundation
@testable import HLS
import XCTest

/// What fuzzing found slow (issue 14), pinned by behaviour: the work is done once, by index.
final class HostileScheduleTests: XCTestCase {
    static let head = "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXT-X-PROGRAM-DATE-TIME:2020-01-02T21:55:40Z\n#EXTINF:6,\na.ts\n"

    func testManyTagsOfOneIDMergeIntoOneRangeWithEveryAttributeOnceAndTheFirstValueWinning() throws {
        // 100 tags of one ID, 254 attributes each (the fuzzed case): 25,400 distinct names, plus
        // one name every tag repeats with its own value.
        var text = Self.head
        for tag in 0..<100 {
            let attributes = (0..<252).map { "X-\(tag)-\($0)=\($0)" }.joined(separator: ",")
            text += "#EXT-X-DATERANGE:ID=\"x\",START-DATE=\"2020-01-02T21:55:44Z\",X-SAME=\(tag),\(attributes)\n"
        }
        text += "#EXT-X-ENDLIST\n"
        let media = try XCTUnwrap(try PlaylistParser.parse(text).playlist.media)
        XCTAssertEqual(media.dateRanges.count, 100)
        let merged = InterstitialSchedule.merged(media.dateRanges)
        XCTAssertEqual(merged.count, 1)
        let range = try XCTUnwrap(merged.first)
        XCTAssertEqual(range.attributes.items.count, 2 + 1 + 100 * 252, "ID, START-DATE, X-SAME and every tag's own names")
        XCTAssertEqual(Set(range.attributes.names).count, range.attributes.items.count, "each name once")
        XCTAssertEqual(range.attributes["X-SAME"]?.number, 0, "the first tag's value wins")
        XCTAssertEqual(range.attributes.items.last?.name, "X-99-251", "in tag order")
        XCTAssertEqual(range.clientAttributes.count, 1 + 100 * 252, "the merged tag is typed")
        XCTAssertEqual(range.line, 7, "named by the first tag's line")
    }

    func testLoadedPlaylistsKeepTheirMergedRangesInStepWithThePlaylist() throws {
        let text = Self.head + "#EXT-X-DATERANGE:ID=\"a\",START-DATE=\"2020-01-02T21:55:44Z\"\n#EXT-X-DATERANGE:ID=\"a\",DURATION=5\n#EXT-X-ENDLIST\n"
        let media = try XCTUnwrap(try PlaylistParser.parse(text).playlist.media)
        var loaded = LoadedMediaPlaylist(location: .file(path: "/p.m3u8"), reference: "p.m3u8", playlist: media, diagnostics: [])
        XCTAssertEqual(loaded.mergedDateRanges.map(\.duration), [5])
        loaded.playlist.dateRanges.removeLast()
        XCTAssertEqual(loaded.mergedDateRanges.map(\.duration), [nil], "recomputed when the playlist changes")
    }

    func testEachDistinctAssetReferenceIsResolvedOncePerLoad() async throws {
        // Twelve EXT-X-DEFINE doublings give a 60 KiB value; 20 interstitials use it in one URI,
        // 5 more in another: two distinct references, resolved once each and found again by lint.
        var lines = ["#EXTM3U", "#EXT-X-TARGETDURATION:6", "#EXT-X-PLAYLIST-TYPE:VOD", "#EXT-X-DEFINE:NAME=\"a0\",VALUE=\"0123456789abcde\""]
        lines += (1...12).map { "#EXT-X-DEFINE:NAME=\"a\($0)\",VALUE=\"{$a\($0 - 1)}{$a\($0 - 1)}\"" }
        lines += ["#EXT-X-PROGRAM-DATE-TIME:2020-01-02T21:55:40Z", "#EXTINF:6,", "a.ts"]
        for i in 0..<25 {
            let uri = i < 20 ? "https://ads.example/{$a12}.m3u8" : "https://ads.example/{$a12}/2.m3u8"
            lines.append("#EXT-X-DATERANGE:ID=\"\(i)\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"2020-01-02T21:55:44Z\",X-ASSET-URI=\"\(uri)\"")
        }
        lines.append("#EXT-X-ENDLIST")
        let main = "https://primary.example/main.m3u8"
        let value = String(repeating: "0123456789abcde", count: 4096)
        let asset = "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXTINF:6,\nad.ts\n#EXT-X-ENDLIST\n"
        let fetcher = CountingFetcher(bodies: [main: lines.joined(separator: "\n"), "https://ads.example/\(value).m3u8": asset])
        let presentation = try await PresentationLoader(fetcher: fetcher).load(.remote(try XCTUnwrap(URL(string: main))))
        XCTAssertEqual(presentation.resolutions.count, 2, "two distinct (base, reference) pairs")
        XCTAssertEqual(fetcher.requests.count, 3, "the playlist and each distinct asset once: \(fetcher.requests.map { $0.prefix(40) })")
        let media = try XCTUnwrap(presentation.primary)
        let first = try XCTUnwrap(media.playlist.dateRanges.first?.interstitial?.assetURI)
        guard case .loaded(let summary)? = presentation.asset(first, from: media.location) else {
            return XCTFail("the asset is found by its reference")
        }
        XCTAssertEqual(summary.duration, 6)
    }

    func testSpacesAreTrimmedAsFoundationTrimsWhitespacesWithoutItsCost() {
        for text in [" \t\u{00A0}a b\u{3000} ", "a", "", "   ", "\na\n", " é\t"] {
            XCTAssertEqual(text.trimmingSpaces(), text.trimmingCharacters(in: .whitespaces), text.debugDescription)
        }
    }

    func testPercentEncodingWorksOnBytes() {
        XCTAssertEqual(URIReference.encodingInvalidCharacters("a b\"<>é{|}%41"), "a%20b%22%3C%3E%C3%A9%7B%7C%7D%41")
        XCTAssertEqual(URIReference.encodingInvalidCharacters("https://h/p?q=1#f"), "https://h/p?q=1#f")
        let reference = URIReference(parsing: "hTTp://höst/ä/b?c#d")
        XCTAssertEqual(reference.scheme, "hTTp")
        XCTAssertEqual(reference.authority, "höst")
        XCTAssertEqual(reference.path, "/ä/b")
        XCTAssertEqual(reference.query, "c")
        XCTAssertEqual(reference.fragment, "d")
    }
}

/// Serves bodies by URL and counts what is asked; anything else is a 404.
final class CountingFetcher: ResourceFetching, @unchecked Sendable {
    let bodies: [String: String]
    private let lock = NSLock()
    private var asked: [String] = []

    init(bodies: [String: String]) { self.bodies = bodies }

    var requests: [String] { lock.withLock { asked } }

    func fetch(_ location: InputLocation, limits: FetchLimits) async throws(LoadError) -> FetchedResource {
        lock.withLock { asked.append(location.description) }
        guard let body = bodies[location.description] else { throw .httpStatus(location.description, code: 404) }
        return FetchedResource(location: location, data: Data(body.utf8), contentType: nil, elapsed: 0.01)
    }
}
