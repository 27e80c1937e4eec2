import Foundation
@testable import HLS
import XCTest

/// Random damage to valid playlists must give diagnostics or a not-a-playlist error, never a
/// crash or a hang. The generator is seeded: a failure reproduces with the printed iteration.
final class ParserMutationTests: XCTestCase {
    struct SplitMix64: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let fragments: [[UInt8]] = [
        "\"", ",", "=", ":", "\n", "\r", "#", "{$", "}", "0x", "-", ".", "@", "x", "#EXT-X-DATERANGE:", "#EXTINF:",
        "#EXT-X-STREAM-INF:", "ID=", "START-DATE=\"", "\u{0}", "\u{FEFF}", "é", "9999999999999999999999", "-0.0000001",
        "#EXT-X-DEFINE:NAME=\"a\",VALUE=\"{$a}\"", "{$a}", "CUE=\"PRE,POST\"", "#EXT-X-KEY:METHOD=", "BYTERANGE=\"1@",
    ].map { Array($0.utf8) }

    func testThousandsOfRandomMutationsNeverCrashTheParser() {
        let seeds = [SeedPlaylists.specAd1, SeedPlaylists.wwdc23Pod, SeedPlaylists.cuePrePost, SeedPlaylists.timelineAttributes,
                     SeedPlaylists.multivariant].map { Array($0.utf8) }
        var rng = SplitMix64(state: 0x5EA4_C4EC)
        var parsed = 0, refused = 0
        for iteration in 0..<6000 {
            var bytes = seeds[iteration % seeds.count]
            for _ in 0..<Int.random(in: 1...8, using: &rng) { mutate(&bytes, &rng) }
            do {
                let result = try PlaylistParser.parse(Data(bytes))
                parsed += 1
                // The model built from damaged input must still be usable.
                if let media = result.playlist.media {
                    _ = InterstitialSchedule(primary: media)
                    for range in media.dateRanges { _ = range.interstitial; _ = range.label }
                }
                for d in result.diagnostics { XCTAssertGreaterThan(d.line, 0, "iteration \(iteration)") }
            } catch {
                refused += 1
            }
        }
        XCTAssertGreaterThan(parsed, 3000, "most mutations keep #EXTM3U and must parse")
        XCTAssertGreaterThan(refused, 0, "some mutations break the header and must be refused")
    }

    private func mutate(_ bytes: inout [UInt8], _ rng: inout SplitMix64) {
        let position = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &rng)
        switch Int.random(in: 0..<7, using: &rng) {
        case 0 where !bytes.isEmpty: bytes[position] = UInt8.random(in: 0...255, using: &rng)
        case 1 where !bytes.isEmpty: bytes.remove(at: position)
        case 2: bytes.insert(contentsOf: Self.fragments.randomElement(using: &rng)!, at: position)
        case 3 where !bytes.isEmpty:
            let end = min(bytes.count, position + Int.random(in: 1...40, using: &rng))
            bytes.removeSubrange(position..<end)
        case 4 where !bytes.isEmpty:
            let end = min(bytes.count, position + Int.random(in: 1...60, using: &rng))
            bytes.insert(contentsOf: bytes[position..<end], at: Int.random(in: 0...bytes.count, using: &rng))
        case 5: bytes = Array(bytes.prefix(position))
        default:
            if let newline = bytes[position...].firstIndex(of: 0x0A), newline + 1 < bytes.count {
                bytes.insert(contentsOf: bytes[position..<newline], at: newline + 1)
            }
        }
    }
}
