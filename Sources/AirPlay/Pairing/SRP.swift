import BigInt
import Crypto
import Foundation

// SRP-6a (RFC 5054 arithmetic) for pair-setup: the math only, no messages. HAP uses the 3072-bit
// group with SHA-512 and the user name "Pair-Setup"; Apple's legacy PIN pairing (AirPlay 1
// receivers such as UxPlay and the Apple TV 3) the 2048-bit group with SHA-1 and a 40-byte K; the
// RFC 5054 Appendix B vectors use the 1024-bit group with SHA-1. So the group, the hash and the
// way K is made are parameters.

/// The hash SRP is run with.
public enum SRPHash: Sendable {
    case sha1
    case sha512

    func digest(_ parts: [UInt8]...) -> [UInt8] {
        switch self {
        case .sha1:
            var hasher = Insecure.SHA1()
            for part in parts { hasher.update(data: part) }
            return Array(hasher.finalize())
        case .sha512:
            var hasher = SHA512()
            for part in parts { hasher.update(data: part) }
            return Array(hasher.finalize())
        }
    }
}

/// How the shared key K is made from the premaster secret S.
public enum SRPSessionKey: Sendable {
    /// K = H(S), S and K read as numbers (leading zero bytes dropped), as pyatv and HAP-python do.
    case hash
    /// K = H(S | 00000000) | H(S | 00000001): two digests (40 bytes with SHA-1), Apple's legacy
    /// pairing as UxPlay's `srp.c` makes it (`hash_session_key`, S without leading zero bytes).
    case interleaved
}

/// A group (N, g), a hash, and how K is made.
public struct SRPParameters: Sendable {
    public let prime: BigUInt
    public let generator: BigUInt
    public let hash: SRPHash
    public let sessionKey: SRPSessionKey
    /// Whether the salt is hashed as a number (leading zero bytes dropped), as csrp (UxPlay) does
    /// in x and M; HAP hashes it as sent.
    public let saltIsNumber: Bool

    /// Bytes of N: the width `PAD()` fills to.
    public var width: Int { (prime.bitWidth + 7) / 8 }

    public init(prime: BigUInt, generator: BigUInt, hash: SRPHash, sessionKey: SRPSessionKey = .hash, saltIsNumber: Bool = false) {
        self.prime = prime
        self.generator = generator
        self.hash = hash
        self.sessionKey = sessionKey
        self.saltIsNumber = saltIsNumber
    }

    /// HAP: RFC 5054's 3072-bit group, g = 5, SHA-512.
    public static let hap = SRPParameters(prime: BigUInt(group3072, radix: 16)!, generator: 5, hash: .sha512)

    /// Legacy AirPlay PIN pairing (`/pair-setup-pin`): RFC 5054's 2048-bit group, g = 2, SHA-1,
    /// K = SHA1(S | 0) | SHA1(S | 1).
    public static let legacy = SRPParameters(prime: BigUInt(group2048, radix: 16)!, generator: 2, hash: .sha1,
                                             sessionKey: .interleaved, saltIsNumber: true)

    /// RFC 5054 Appendix A's 1024-bit group, g = 2, with SHA-1: the parameters of the Appendix B vectors.
    public static let rfc5054TestVectors = SRPParameters(prime: BigUInt(group1024, radix: 16)!, generator: 2, hash: .sha1)

    /// The salt as it is hashed (see `saltIsNumber`).
    func hashedSalt(_ salt: [UInt8]) -> [UInt8] { saltIsNumber ? SRP.stripped(salt) : salt }

    /// K from the premaster secret S.
    func key(premasterSecret s: BigUInt) -> [UInt8] {
        switch sessionKey {
        case .hash: SRP.stripped(hash.digest(SRP.bytes(s)))
        case .interleaved: hash.digest(SRP.bytes(s), [0, 0, 0, 0]) + hash.digest(SRP.bytes(s), [0, 0, 0, 1])
        }
    }

    func pad(_ value: BigUInt) -> [UInt8] {
        let bytes = SRP.bytes(value)
        return bytes.count >= width ? bytes : [UInt8](repeating: 0, count: width - bytes.count) + bytes
    }

    /// k = H(N | PAD(g)).
    public var multiplier: BigUInt { BigUInt(Data(hash.digest(SRP.bytes(prime), pad(generator)))) }

    /// x = H(s | H(I | ":" | P)).
    public func privateKey(salt: [UInt8], username: [UInt8], password: [UInt8]) -> BigUInt {
        BigUInt(Data(hash.digest(salt, hash.digest(username, Array(":".utf8), password))))
    }

    /// v = g^x mod N (the accessory's verifier; the client never sends it).
    public func verifier(salt: [UInt8], username: [UInt8], password: [UInt8]) -> BigUInt {
        generator.modularPower(privateKey(salt: salt, username: username, password: password), modulus: prime)
    }

    /// u = H(PAD(A) | PAD(B)).
    public func scrambler(clientPublic: BigUInt, serverPublic: BigUInt) -> BigUInt {
        BigUInt(Data(hash.digest(pad(clientPublic), pad(serverPublic))))
    }
}

/// Why the accessory's SRP values are unusable.
public enum SRPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// B mod N == 0, or B wider than N (RFC 5054 2.5.3 says abort).
    case badServerPublicKey
    /// u == 0.
    case badScrambler
    case emptySalt

    public var description: String {
        switch self {
        case .badServerPublicKey: "the accessory's SRP public key B is invalid (B mod N is 0, or B is wider than N)"
        case .badScrambler: "the SRP scrambling value u is 0"
        case .emptySalt: "the accessory sent an empty SRP salt"
        }
    }
}

/// The client side of one SRP-6a exchange. Its description shows no secret.
public struct SRPClient: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    public let parameters: SRPParameters
    public let username: [UInt8]
    private let secret: BigUInt
    /// A = g^a mod N.
    public let publicValue: BigUInt

    /// `privateKey` is `a`; give 32 random bytes (tests give the RFC's).
    public init(parameters: SRPParameters = .hap, username: [UInt8] = Array("Pair-Setup".utf8), privateKey: [UInt8]) {
        self.parameters = parameters
        self.username = username
        secret = BigUInt(Data(privateKey))
        publicValue = parameters.generator.modularPower(secret, modulus: parameters.prime)
    }

    public var description: String { "SRPClient(user \(String(decoding: username, as: UTF8.self)), secret redacted)" }
    public var debugDescription: String { description }

    /// A as sent in M3 (big-endian, no leading zero bytes, as pyatv and hap-python write it).
    public var publicKey: [UInt8] { SRP.bytes(publicValue) }

    /// Premaster secret S = (B - k g^x)^(a + u x) mod N.
    public func premasterSecret(salt: [UInt8], serverPublicKey: [UInt8], password: [UInt8]) throws(SRPError) -> BigUInt {
        guard !salt.isEmpty else { throw .emptySalt }
        let p = parameters
        guard serverPublicKey.count <= p.width else { throw .badServerPublicKey }
        let b = BigUInt(Data(serverPublicKey))
        guard b % p.prime != 0 else { throw .badServerPublicKey }
        let u = p.scrambler(clientPublic: publicValue, serverPublic: b)
        guard u != 0 else { throw .badScrambler }
        let x = p.privateKey(salt: p.hashedSalt(salt), username: username, password: password)
        let gx = p.generator.modularPower(x, modulus: p.prime)
        let kgx = (p.multiplier * gx) % p.prime
        let base = (b + p.prime - kgx) % p.prime
        return base.modularPower(secret + u * x, modulus: p.prime)
    }

    /// The session after M2: the shared key K and both proofs.
    public func session(salt: [UInt8], serverPublicKey: [UInt8], password: [UInt8]) throws(SRPError) -> SRPSession {
        let s = try premasterSecret(salt: salt, serverPublicKey: serverPublicKey, password: password)
        let hash = parameters.hash
        // HAP: K = H(S), read as a number as pyatv (srptools) and hap-python do: leading zero
        // bytes of S and of K are dropped. HKDF and the proofs take K in that form.
        let key = parameters.key(premasterSecret: s)
        let hN = hash.digest(SRP.bytes(parameters.prime))
        let hG = hash.digest(SRP.bytes(parameters.generator))
        let group = zip(hN, hG).map { $0 ^ $1 }
        let b = SRP.bytes(BigUInt(Data(serverPublicKey)))
        let proof = hash.digest(group, hash.digest(username), parameters.hashedSalt(salt), publicKey, b, key)
        let serverProof = hash.digest(publicKey, proof, key)
        return SRPSession(key: key, clientProof: proof, expectedServerProof: serverProof)
    }
}

/// K and the proofs of one exchange. Key material: its description shows none.
public struct SRPSession: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    public let key: [UInt8]
    /// M, sent in M3.
    public let clientProof: [UInt8]
    /// H(A | M | K): what M4's proof must be.
    let expectedServerProof: [UInt8]

    public var description: String { "SRPSession(keys redacted)" }
    public var debugDescription: String { description }

    /// The accessory's M4 proof, compared in constant time.
    public func acceptsServerProof(_ proof: [UInt8]) -> Bool {
        guard proof.count == expectedServerProof.count else { return false }
        return zip(proof, expectedServerProof).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

enum SRP {
    static func bytes(_ value: BigUInt) -> [UInt8] {
        let data = value.serialize()
        return data.isEmpty ? [0] : Array(data)
    }

    static func stripped(_ bytes: [UInt8]) -> [UInt8] {
        let rest = bytes.drop { $0 == 0 }
        return rest.isEmpty ? [0] : Array(rest)
    }
}

private let group1024 = """
EEAF0AB9ADB38DD69C33F80AFA8FC5E86072618775FF3C0B9EA2314C9C256576D674DF7496EA81D3383B4813D692C6E0E0D5D8E250B98BE4\
8E495C1D6089DAD15DC7D7B46154D6B6CE8EF4AD69B15D4982559B297BCF1885C529F566660E57EC68EDBC3C05726CC02FD4CBF4976EAA9A\
FD5138FE8376435B9FC61D2FC0EB06E3
"""

/// RFC 5054 Appendix A, "2048-bit Group" (g = 2).
private let group2048 = """
AC6BDB41324A9A9BF166DE5E1389582FAF72B6651987EE07FC3192943DB56050A37329CBB4A099ED8193E0757767A13DD52312AB4B03310D\
CD7F48A9DA04FD50E8083969EDB767B0CF6095179A163AB3661A05FBD5FAAAE82918A9962F0B93B855F97993EC975EEAA80D740ADBF4FF74\
7359D041D5C33EA71D281E446B14773BCA97B43A23FB801676BD207A436C6481F1D2B9078717461A5B9D32E688F87748544523B524B0D57D\
5EA77A2775D2ECFA032CFBDBF52FB3786160279004E57AE6AF874E7303CE53299CCC041C7BC308D82A5698F3A8D0C38271AE35F8E9DBFBB6\
94B5C803D89F7AE435DE236D525F54759B65E372FCD68EF20FA7111F9E4AFF73
"""

private let group3072 = """
FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DDEF9519B3CD3A431B\
302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7EDEE386BFB5A899FA5AE9F24117C4B1FE6\
49286651ECE45B3DC2007CB8A163BF0598DA48361C55D39A69163FA8FD24CF5F83655D23DCA3AD961C62F356208552BB9ED529077096966D\
670C354E4ABC9804F1746C08CA18217C32905E462E36CE3BE39E772C180E86039B2783A2EC07A28FB5C55DF06F4C52C9DE2BCBF695581718\
3995497CEA956AE515D2261898FA051015728E5A8AAAC42DAD33170D04507A33A85521ABDF1CBA64ECFB850458DBEF0A8AEA71575D060C7D\
B3970F85A6E1E4C7ABF5AE8CDB0933D71E8C94E04A25619DCEE3D2261AD2EE6BF12FFA06D98A0864D87602733EC86A64521F2B18177B200C\
BBE117577A615D6C770988C0BAD946E208E24FA074E5AB3143DB5BFCE0FD108E4B82D120A93AD2CAFFFFFFFFFFFFFFFF
"""
