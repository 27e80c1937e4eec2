import Foundation

/// fMP4 renditions whose samples are encrypted, as FairPlay and CENC streams are: ffmpeg's mp4
/// muxer writes CENC (`-encryption_scheme cenc-aes-ctr`: `encv`/`enca` sample entries with
/// `frma`, `tenc`, per-fragment `senc`), fragmented; the file is cut into `init.mp4` (everything
/// before the first moof) and one segment `seg0.m4s` (the fragments), under an EXT-X-KEY naming
/// a key nobody needs to fetch to read the container.
public enum SampleAESRendition {
    public static let keyHex = "00112233445566778899aabbccddeeff"
    public static let keyIDHex = "000102030405060708090a0b0c0d0e0f"

    /// A FairPlay key tag (KEYFORMAT com.apple.streamingkeydelivery) with `method`.
    public static func fairPlayKey(method: String, uri: String = "skd://key1") -> String {
        "#EXT-X-KEY:METHOD=\(method),URI=\"\(uri)\",KEYFORMAT=\"com.apple.streamingkeydelivery\",KEYFORMATVERSIONS=\"1\""
    }

    /// An encrypted fragmented MP4 of `duration` seconds, cached like any fixture.
    public static func fixture(_ name: String, duration: Double = 2, video: MediaFixture.Video? = MediaFixture.Video(),
                               audio: MediaFixture.Audio? = MediaFixture.Audio()) -> MediaFixture {
        MediaFixture.clip(name, duration: duration, video: video, audio: audio,
                          extra: ["-encryption_scheme", "cenc-aes-ctr", "-encryption_key", keyHex, "-encryption_kid", keyIDHex,
                                  "-movflags", "frag_keyframe+empty_moov+default_base_moof"])
    }

    /// Writes `init.mp4`, `seg0.m4s` and `index.m3u8` (with `keyTag` before its EXT-X-MAP) into
    /// `folder`; the segment lasts `duration` seconds.
    public static func write(_ fixture: MediaFixture, duration: Double = 2, keyTag: String, into folder: URL) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: try fixture.path()))
        guard let firstFragment = topLevelBoxes(data).first(where: { $0.type == "moof" })?.offset else {
            throw FixtureError(description: "no moof in \(fixture.name): not a fragmented MP4")
        }
        let encrypted = ["encv", "enca", "frma", "tenc"].filter { data.range(of: Data($0.utf8)) != nil }
        guard encrypted.contains("frma"), encrypted.contains("tenc"), encrypted.contains("encv") || encrypted.contains("enca") else {
            throw FixtureError(description: "\(fixture.name) has only \(encrypted) of encv, enca, frma, tenc: ffmpeg did not encrypt it")
        }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try data.prefix(firstFragment).write(to: folder.appendingPathComponent("init.mp4"))
        try data.suffix(from: firstFragment).write(to: folder.appendingPathComponent("seg0.m4s"))
        let playlist = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:\(Int(duration.rounded(.up)))",
                        "#EXT-X-PLAYLIST-TYPE:VOD", keyTag, "#EXT-X-MAP:URI=\"init.mp4\"",
                        String(format: "#EXTINF:%.3f,", duration), "seg0.m4s", "#EXT-X-ENDLIST", ""]
        try playlist.joined(separator: "\n").write(to: folder.appendingPathComponent("index.m3u8"), atomically: true, encoding: .utf8)
    }

    struct FixtureError: Error, CustomStringConvertible { var description: String }

    /// Type and offset of each top-level ISOBMFF box (32-bit sizes; ffmpeg writes no larger ones here).
    static func topLevelBoxes(_ data: Data) -> [(type: String, offset: Int)] {
        var boxes: [(String, Int)] = []
        var offset = 0
        let bytes = [UInt8](data)
        while offset + 8 <= bytes.count {
            let size = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            boxes.append((String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self), offset))
            guard size >= 8 else { break }
            offset += size
        }
        return boxes
    }
}
