import Foundation

/// HAP's TLV8: a type byte, a length byte, up to 255 value bytes. A longer value is split into
/// 255-byte fragments of the same type written one after another; the reader joins adjacent
/// items of one type. Pure: every malformed body is a typed error, never a crash.
public enum TLV8 {
    /// The item types pair-setup and pair-verify use (HAP spec, table 5-6).
    public enum Tag: UInt8, Sendable, CaseIterable {
        case method = 0x00
        case identifier = 0x01
        case salt = 0x02
        case publicKey = 0x03
        case proof = 0x04
        case encryptedData = 0x05
        case state = 0x06
        case error = 0x07
        case retryDelay = 0x08
        case certificate = 0x09
        case signature = 0x0A
        case permissions = 0x0B
        case fragmentData = 0x0C
        case fragmentLast = 0x0D
        case flags = 0x13
        case separator = 0xFF
    }

    /// The error codes an accessory answers with (the `error` item).
    public enum ErrorCode: UInt8, Sendable, Equatable, CustomStringConvertible {
        case unknown = 0x01
        case authentication = 0x02
        case backoff = 0x03
        case maxPeers = 0x04
        case maxTries = 0x05
        case unavailable = 0x06
        case busy = 0x07

        public var description: String {
            switch self {
            case .unknown: "unknown error"
            case .authentication: "authentication failed (wrong code, or a key it does not know)"
            case .backoff: "too many attempts: it wants a pause before the next"
            case .maxPeers: "it has no room for another pairing"
            case .maxTries: "too many failed attempts"
            case .unavailable: "pairing unavailable (already paired with another controller, or not in pairing mode)"
            case .busy: "busy with another pairing"
            }
        }
    }

    /// `method` values.
    public enum Method: UInt8, Sendable {
        case pairSetup = 0
        case pairSetupWithAuth = 1
        case pairVerify = 2
        case addPairing = 3
        case removePairing = 4
        case listPairings = 5
    }

    /// `flags` bits (pair-setup M1).
    public static let transientFlag: UInt32 = 0x10

    /// Why bytes are not TLV8.
    public enum DecodeError: Error, Sendable, Equatable, CustomStringConvertible {
        /// A type byte with no length byte after it.
        case truncatedHeader(offset: Int)
        /// A length that runs past the end of the body.
        case truncatedValue(offset: Int, length: Int, available: Int)
        /// More bytes than the decoder accepts (bounded memory).
        case tooLarge(limit: Int)

        public var description: String {
            switch self {
            case .truncatedHeader(let offset): "TLV8 item at byte \(offset) has no length byte"
            case .truncatedValue(let offset, let length, let available):
                "TLV8 item at byte \(offset) claims \(length) bytes, \(available) remain"
            case .tooLarge(let limit): "TLV8 body larger than \(limit) bytes"
            }
        }
    }

    /// One item; `value` is whole (fragments joined).
    public struct Item: Sendable, Equatable {
        public var tag: UInt8
        public var value: [UInt8]
        public init(_ tag: Tag, _ value: [UInt8]) { self.tag = tag.rawValue; self.value = value }
        public init(rawTag: UInt8, _ value: [UInt8]) { self.tag = rawTag; self.value = value }
    }

    /// Encodes items in order; values over 255 bytes become fragments (each full 255-byte item is
    /// continued by the next item of its type).
    public static func encode(_ items: [Item]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(items.reduce(0) { $0 + $1.value.count + 2 * ($1.value.count / 255 + 1) })
        for item in items {
            var rest = item.value[...]
            repeat {
                let chunk = rest.prefix(255)
                out.append(item.tag)
                out.append(UInt8(chunk.count))
                out.append(contentsOf: chunk)
                rest = rest.dropFirst(chunk.count)
            } while !rest.isEmpty
        }
        return out
    }

    /// Decodes a body: an item of 255 bytes followed by one of the same type is one value split
    /// in fragments, and is joined. Bodies over `limit` bytes are refused before any parsing.
    public static func decode(_ bytes: some Collection<UInt8>, limit: Int = 64 * 1024) throws(DecodeError) -> [Item] {
        guard bytes.count <= limit else { throw .tooLarge(limit: limit) }
        let data = Array(bytes)
        var items: [Item] = []
        var offset = 0
        var previousWasFull = false
        while offset < data.count {
            guard offset + 1 < data.count else { throw .truncatedHeader(offset: offset) }
            let tag = data[offset]
            let length = Int(data[offset + 1])
            let start = offset + 2
            guard start + length <= data.count else {
                throw .truncatedValue(offset: offset, length: length, available: data.count - start)
            }
            let value = data[start..<start + length]
            if previousWasFull, let last = items.last, last.tag == tag {
                items[items.count - 1].value.append(contentsOf: value)
            } else {
                items.append(Item(rawTag: tag, Array(value)))
            }
            previousWasFull = length == 255
            offset = start + length
        }
        return items
    }
}

/// Decoded items by type, for reading one message's fields.
public struct TLV8Message: Sendable, Equatable {
    public var items: [TLV8.Item]

    public init(_ items: [TLV8.Item]) { self.items = items }

    public init(decoding bytes: some Collection<UInt8>) throws(TLV8.DecodeError) {
        items = try TLV8.decode(bytes)
    }

    /// The first item of `tag`, whole.
    public subscript(tag: TLV8.Tag) -> [UInt8]? {
        items.first { $0.tag == tag.rawValue }?.value
    }

    /// `state` as a number (1 = M1 ...), nil when absent or not one byte.
    public var state: UInt8? { self[.state].flatMap { $0.count == 1 ? $0[0] : nil } }

    /// The accessory's `error` item: a known code, or `.unknown` for one this code does not name.
    public var error: TLV8.ErrorCode? {
        guard let raw = self[.error] else { return nil }
        return raw.count == 1 ? (TLV8.ErrorCode(rawValue: raw[0]) ?? .unknown) : .unknown
    }

    public func encoded() -> [UInt8] { TLV8.encode(items) }
}
