import Foundation

/// AES-128 (RFC 8216 4.3.2.4: whole segments, AES-128-CBC with PKCS#7 padding) for the lab's
/// encryption case. The key is a published test key, not a secret: receivers fetch it from the
/// lab server like any segment. ffmpeg 5.1's HLS muxer refuses to encrypt fMP4, so a second
/// ffmpeg job encrypts the clear encode's segments through ffmpeg's `crypto:` protocol, copying
/// its init section (left clear: the EXT-X-KEY follows the EXT-X-MAP) and playlist as they are.
enum LabEncryption {
    /// "seamcheck lab k1" in hexadecimal.
    static let keyHex = "7365616d636865636b206c6162206b31"
    static let ivHex = "000102030405060708090a0b0c0d0e0f"
    static let keyFile = "key.bin"

    /// The 16 bytes a key URI serves.
    static var key: Data {
        Data(stride(from: 0, to: keyHex.count, by: 2).map { offset in
            let start = keyHex.index(keyHex.startIndex, offsetBy: offset)
            return UInt8(keyHex[start..<keyHex.index(start, offsetBy: 2)], radix: 16) ?? 0
        })
    }

    /// The EXT-X-KEY of the encrypted segments, its URI under `prefix`.
    static func tag(prefix: String) -> String {
        "#EXT-X-KEY:METHOD=AES-128,URI=\"\(prefix)\(keyFile)\",IV=0x\(ivHex)"
    }

    /// The folder of the clear encode beside the encrypted one (`cases/<id>/ad` -> `cases/<id>/ad-clear`).
    static func clearFolder(of folder: String) -> String { folder + "-clear" }

    /// One ffmpeg run that writes `clear`'s segments encrypted, and its init section and
    /// `encoded.m3u8` copied, into `folder` (a sibling of the clear one: inputs are read as `../`).
    static func job(caseId: String, clear: EncodedRendition, folder: String) -> EncodeJob {
        let source = "../" + (clear.folder as NSString).lastPathComponent + "/"
        let copies = [EncodeJob.playlist] + [clear.initFile].compactMap { $0 }
        let segments = clear.segments.map(\.file)
        var inputs: [String] = [], outputs: [String] = []
        for (index, file) in (copies + segments).enumerated() {
            inputs += ["-f", "data", "-i", source + file]
            outputs += ["-map", String(index), "-c", "copy", "-f", "data"]
            outputs += index < copies.count ? [file] : ["-key", keyHex, "-iv", ivHex, "crypto:" + file]
        }
        return EncodeJob(caseId: caseId, step: "encrypt the interstitial (AES-128)", folder: folder, arguments: inputs + outputs)
    }
}
