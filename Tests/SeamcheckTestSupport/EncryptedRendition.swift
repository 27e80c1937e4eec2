import Foundation

/// An AES-128 rendition (RFC 8216 5.2) made by ffmpeg's `-hls_key_info_file`: 4 s of H.264 and
/// AAC in 2 s MPEG-TS segments, `index.m3u8` naming the key as `key.bin` beside it, no IV (the
/// media sequence is the IV).
public enum EncryptedRendition {
    public static let key = Data((0..<16).map { UInt8(0xA0 + $0) })

    /// Writes `index.m3u8`, the segments and `key.bin` into `folder`.
    public static func write(into folder: String, key: Data = EncryptedRendition.key) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try key.write(to: URL(fileURLWithPath: folder + "/key.bin"))
        let keyInfo = folder + "/keyinfo"
        try "key.bin\n\(folder)/key.bin\n".write(toFile: keyInfo, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: keyInfo) }
        let result = try Command.run("ffmpeg", ["-nostdin", "-v", "error", "-y",
                                                "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=30000/1001:duration=4",
                                                "-f", "lavfi", "-i", "sine=sample_rate=48000:duration=4",
                                                "-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-c:a", "aac",
                                                "-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod",
                                                "-hls_key_info_file", keyInfo,
                                                "-hls_segment_filename", folder + "/seg%d.ts", folder + "/index.m3u8"])
        guard result.status == 0 else { throw CommandError.failed("ffmpeg AES-128 HLS", result) }
    }
}
