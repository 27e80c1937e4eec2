import Foundation

/// Full-segment AES-128 (RFC 8216 5.2) as a packager writes it: openssl encrypts files of a clear
/// rendition folder (an ``HLSFixture``) with AES-128-CBC and PKCS#7 padding into `output`. Keys
/// and IVs are 32 hexadecimal digits.
public struct AESPackager: Sendable {
    public var clear: String
    public var output: URL

    public init(clear: String, output: URL) {
        self.clear = clear
        self.output = output
    }

    /// Writes `clear/file` encrypted with `key` and `iv` as `output/name`.
    public func encrypt(_ file: String, key: String, iv: String, as name: String) throws {
        let result = try Command.run("openssl", ["enc", "-aes-128-cbc", "-K", key, "-iv", iv,
                                                 "-in", clear + "/" + file, "-out", output.appendingPathComponent(name).path])
        guard result.status == 0 else { throw CommandError.failed("openssl enc \(file)", result) }
    }

    /// Writes a key file: the 16 raw bytes a key URI serves.
    public func writeKey(_ hex: String, as name: String) throws {
        try Self.bytes(hex).write(to: output.appendingPathComponent(name))
    }

    public static func bytes(_ hex: String) -> Data {
        var data = Data()
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            data.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return data
    }

    /// The media sequence number as an IV (RFC 8216 5.2): 128-bit big-endian.
    public static func sequenceIV(_ number: Int) -> String { String(format: "%032x", number) }
}
