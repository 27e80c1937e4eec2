import Crypto
import Foundation

/// The two keys of an encrypted control channel, from the pair-verify (or transient pair-setup)
/// shared secret: HKDF-SHA-512 with salt `Control-Salt`; the controller writes with
/// `Control-Write-Encryption-Key` and reads with `Control-Read-Encryption-Key`. Key material:
/// never printed or logged (the description says so and nothing more).
public struct HAPChannelKeys: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    let write: SymmetricKey
    let read: SymmetricKey
    /// The AirPlay 2 event channel's pair from the same secret (salt `Events-Salt`), in the
    /// controller's view; see `events`.
    private let eventWrite: SymmetricKey
    private let eventRead: SymmetricKey

    public init(sharedSecret: [UInt8]) {
        write = HAPCrypto.key(from: sharedSecret, salt: "Control-Salt", info: "Control-Write-Encryption-Key")
        read = HAPCrypto.key(from: sharedSecret, salt: "Control-Salt", info: "Control-Read-Encryption-Key")
        // The receiver sends the requests on the event channel, so the names are the other way
        // round: the sender writes with the "Read" key and reads with the "Write" key (as pyatv).
        eventWrite = HAPCrypto.key(from: sharedSecret, salt: "Events-Salt", info: "Events-Read-Encryption-Key")
        eventRead = HAPCrypto.key(from: sharedSecret, salt: "Events-Salt", info: "Events-Write-Encryption-Key")
    }

    /// The accessory's view: what the controller writes, it reads.
    public var swapped: HAPChannelKeys {
        HAPChannelKeys(write: read, read: write, eventWrite: eventRead, eventRead: eventWrite)
    }

    /// The keys of the AirPlay 2 event channel (the connection to SETUP's `eventPort`).
    public var events: HAPChannelKeys {
        HAPChannelKeys(write: eventWrite, read: eventRead, eventWrite: eventWrite, eventRead: eventRead)
    }

    private init(write: SymmetricKey, read: SymmetricKey, eventWrite: SymmetricKey, eventRead: SymmetricKey) {
        self.write = write
        self.read = read
        self.eventWrite = eventWrite
        self.eventRead = eventRead
    }

    public var description: String { "HAPChannelKeys(redacted)" }
    public var debugDescription: String { description }
}

/// Why encrypted bytes from the receiver are unusable; the connection is dropped.
public enum HAPFramingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A frame's length field above 1024.
    case frameTooLong(Int)
    /// A frame that does not authenticate (wrong key, tampered, or plain bytes after verify).
    case authentication(frame: UInt64)

    public var description: String {
        switch self {
        case .frameTooLong(let length): "an encrypted frame claims \(length) bytes (at most 1024)"
        case .authentication(let frame): "encrypted frame \(frame) does not authenticate (not encrypted with the session's key)"
        }
    }
}

/// HAP's framing of the control channel: each frame is a 2-byte little-endian length (at most
/// 1024), that many bytes of ChaCha20-Poly1305 ciphertext and a 16-byte tag; the length bytes are
/// the AAD and the nonce is a 64-bit counter per direction, from 0. Pure: bytes in, bytes out.
public struct HAPFraming: Sendable {
    public static let maxFrame = 1024
    private let keys: HAPChannelKeys
    private var written: UInt64 = 0
    private var readCount: UInt64 = 0
    private var pending: [UInt8] = []

    public init(keys: HAPChannelKeys) { self.keys = keys }

    /// Frames and encrypts `plaintext` (several frames when over 1024 bytes; none when empty).
    public mutating func seal(_ plaintext: some Collection<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        var rest = Array(plaintext)[...]
        while !rest.isEmpty {
            let chunk = Array(rest.prefix(Self.maxFrame))
            rest = rest.dropFirst(chunk.count)
            let length = [UInt8(chunk.count & 0xFF), UInt8(chunk.count >> 8)]
            out += length
            out += HAPCrypto.seal(chunk, key: keys.write, nonce: HAPCrypto.nonce(counter: written), aad: length)
            written += 1
        }
        return out
    }

    /// Takes received bytes in any split; returns the plaintext of every complete frame, keeping a
    /// partial frame for the next call (at most one frame, 1042 bytes, is buffered).
    public mutating func open(_ bytes: some Collection<UInt8>) throws(HAPFramingError) -> [UInt8] {
        pending += bytes
        var out: [UInt8] = []
        var offset = 0
        while pending.count - offset >= 2 {
            let length = Int(pending[offset]) | Int(pending[offset + 1]) << 8
            guard length <= Self.maxFrame else { throw .frameTooLong(length) }
            let end = offset + 2 + length + 16
            guard pending.count >= end else { break }
            let aad = Array(pending[offset..<offset + 2])
            guard let plain = HAPCrypto.open(pending[offset + 2..<end], key: keys.read,
                                             nonce: HAPCrypto.nonce(counter: readCount), aad: aad) else {
                throw .authentication(frame: readCount)
            }
            out += plain
            readCount += 1
            offset = end
        }
        pending.removeFirst(offset)
        return out
    }
}
