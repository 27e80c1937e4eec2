import CFFmpeg
import Foundation
import HLS

/// HLS METHOD=AES-128 (RFC 8216 5.2): the whole segment is AES-128-CBC with PKCS#7 padding; the IV
/// is the key tag's IV, or else the segment's media sequence number as a 128-bit big-endian
/// integer. An init section (EXT-X-MAP after the key) is encrypted the same way, always with the
/// tag's IV (RFC 8216 4.3.2.5). Decrypted with libavutil's AES (FFmpeg is loaded already). The key
/// itself never goes into a message.
enum SegmentDecryption {
    static let keyLength = 16

    /// The IV for the segment with `mediaSequence`.
    static func iv(_ key: EncryptionKey, mediaSequence: Int, label: String) throws(ProbeError) -> [UInt8] {
        if let given = try tagIV(key, label: label) { return given }
        var iv = [UInt8](repeating: 0, count: 16)
        var number = UInt64(max(0, mediaSequence))
        for index in stride(from: 15, through: 8, by: -1) {
            iv[index] = UInt8(number & 0xFF)
            number >>= 8
        }
        return iv
    }

    /// The key tag's own IV; nil when it has none (for an init section, which has no media
    /// sequence number, RFC 8216 forbids that: the caller decides what to try).
    static func tagIV(_ key: EncryptionKey, label: String) throws(ProbeError) -> [UInt8]? {
        guard let text = key.iv else { return nil }
        var hex = Substring(text)
        if hex.hasPrefix("0x") || hex.hasPrefix("0X") { hex = hex.dropFirst(2) }
        guard hex.count == 32, hex.allSatisfy(\.isHexDigit) else {
            throw .openFailed(label, reason: "EXT-X-KEY IV=\(text) is not 32 hexadecimal digits (RFC 8216 4.3.2.4)")
        }
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    /// An init section in the clear: as read, unless `key` (the EXT-X-KEY in effect at its
    /// EXT-X-MAP) is AES-128. Such a key must carry an IV (RFC 8216 4.3.2.5; the parser reports
    /// one that does not); without one, a zero IV is tried, as hls.js does. A wrong IV garbles only
    /// the first 16 bytes, which padding cannot catch: the section must then start with an MP4 box.
    /// `keyBytes` fetches the key (once per URI, at the caller's limits).
    static func initSection(_ section: Data, key: EncryptionKey?, label: String,
                            keyBytes: (EncryptionKey) throws(ProbeError) -> Data) throws(ProbeError) -> Data {
        guard let key, key.method == "AES-128" else { return section }
        let iv = try tagIV(key, label: label)
        let clear = try decrypt(section, key: try keyBytes(key), iv: iv ?? [UInt8](repeating: 0, count: 16), label: label, part: "init section")
        guard clear.count >= 8, clear[clear.startIndex + 4..<clear.startIndex + 8].allSatisfy({ (0x20...0x7E).contains($0) }) else {
            let why = iv == nil ? "its EXT-X-KEY has no IV, which RFC 8216 4.3.2.5 requires, and a zero IV is not the one it was encrypted with"
                                : "the EXT-X-KEY's IV is not the one it was encrypted with"
            throw .openFailed(label, reason: "the AES-128 init section does not start with an MP4 box once decrypted: \(why)")
        }
        return clear
    }

    /// A fetched key as it must be: 16 raw bytes. The error names the key's URL (never its bytes):
    /// a key server that answers with a JSON or HTML page, or a hex string, is the usual cause.
    static func checkedKey(_ data: Data, url: String, label: String) throws(ProbeError) -> Data {
        guard data.count == keyLength else {
            throw .openFailed(label, reason: "the AES-128 key at \(url) is \(data.count) bytes, not 16: check the key URI serves the raw key")
        }
        return data
    }

    /// The clear bytes of `data`, or why it cannot be decrypted with this key; `part` names what
    /// `data` is in messages ("segment", "init section").
    static func decrypt(_ data: Data, key: Data, iv: [UInt8], label: String, part: String = "segment") throws(ProbeError) -> Data {
        guard key.count == keyLength else {
            throw .openFailed(label, reason: "the AES-128 key is \(key.count) bytes, not 16: check the key URI serves the raw key")
        }
        guard !data.isEmpty, data.count % 16 == 0 else {
            throw .openFailed(label, reason: "an AES-128 \(part) of \(data.count) bytes is not whole 16-byte blocks (truncated, or not encrypted)")
        }
        var clear = Data(count: data.count)
        var vector = iv
        let status = clear.withUnsafeMutableBytes { out in
            data.withUnsafeBytes { input in
                key.withUnsafeBytes { keyBytes in
                    sc_av_aes_cbc_decrypt(keyBytes.bindMemory(to: UInt8.self).baseAddress, &vector,
                                          out.bindMemory(to: UInt8.self).baseAddress, input.bindMemory(to: UInt8.self).baseAddress,
                                          Int32(data.count / 16))
                }
            }
        }
        guard status == 0 else { throw .openFailed(label, reason: "AES-128 decryption failed (\(status))") }
        // PKCS#7: the last byte says how many bytes of padding there are, each with that value.
        guard let pad = clear.last, (1...16).contains(pad), clear.suffix(Int(pad)).allSatisfy({ $0 == pad }) else {
            throw .openFailed(label, reason: "AES-128 decryption of the \(part) gave no valid padding: the key is not this \(part)'s, or it is not encrypted")
        }
        return clear.dropLast(Int(pad))
    }
}
