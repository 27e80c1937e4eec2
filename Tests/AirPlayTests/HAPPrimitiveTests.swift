@testable import AirPlay
import BigInt
import Foundation
import SeamcheckTestSupport
import XCTest

/// TLV8, SRP-6a and the channel framing: the RFC 5054 vectors, and HAP-python's own SRP server
/// and framing as the independent implementation.
final class HAPPrimitiveTests: XCTestCase {
    private func hex(_ text: String) -> [UInt8] {
        let clean = text.filter { !$0.isWhitespace }
        var out: [UInt8] = []
        var index = clean.startIndex
        while index < clean.endIndex {
            let next = clean.index(index, offsetBy: 2)
            out.append(UInt8(clean[index..<next], radix: 16)!)
            index = next
        }
        return out
    }

    private func hexString(_ bytes: some Collection<UInt8>) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    private func big(_ text: String) -> BigUInt { BigUInt(text.filter { !$0.isWhitespace }, radix: 16)! }

    // MARK: TLV8

    func testTLV8FragmentsLongValuesAndJoinsThemBack() throws {
        let long = (0..<600).map { UInt8($0 % 251) }
        let bytes = TLV8.encode([TLV8.Item(.state, [3]), TLV8.Item(.publicKey, long), TLV8.Item(.proof, [9, 9])])
        // 3 fragments of the public key: 255, 255, 90 bytes, each with its own type and length.
        XCTAssertEqual(bytes.count, 3 + (2 + 255) * 2 + (2 + 90) + 4)
        XCTAssertEqual(Array(bytes[3..<5]), [0x03, 0xFF])
        XCTAssertEqual(Array(bytes[260..<262]), [0x03, 0xFF])
        XCTAssertEqual(Array(bytes[517..<519]), [0x03, 90])
        let message = try TLV8Message(decoding: bytes)
        XCTAssertEqual(message[.publicKey], long)
        XCTAssertEqual(message.state, 3)
        XCTAssertEqual(message[.proof], [9, 9])
        XCTAssertEqual(message.items.count, 3)
    }

    func testTLV8ExactMultipleOf255AndEmptyValues() throws {
        let value = [UInt8](repeating: 7, count: 510)
        let bytes = TLV8.encode([TLV8.Item(.encryptedData, value), TLV8.Item(.separator, [])])
        XCTAssertEqual(bytes.count, 2 * 257 + 2)
        let message = try TLV8Message(decoding: bytes)
        XCTAssertEqual(message[.encryptedData], value)
        XCTAssertEqual(message[.separator], [])
    }

    func testTLV8MalformedInputIsATypedError() {
        XCTAssertThrowsError(try TLV8.decode([0x06])) { XCTAssertEqual($0 as? TLV8.DecodeError, .truncatedHeader(offset: 0)) }
        XCTAssertThrowsError(try TLV8.decode([0x06, 0x01, 0x02, 0x03, 0x05, 0xAA])) {
            XCTAssertEqual($0 as? TLV8.DecodeError, .truncatedValue(offset: 3, length: 5, available: 1))
        }
        XCTAssertThrowsError(try TLV8.decode([UInt8](repeating: 0, count: 70_000))) {
            XCTAssertEqual($0 as? TLV8.DecodeError, .tooLarge(limit: 64 * 1024))
        }
        XCTAssertEqual(try TLV8Message(decoding: [0x07, 0x01, 0x02]).error, .authentication)
        XCTAssertEqual(try TLV8Message(decoding: [0x07, 0x01, 0x99]).error, .unknown, "an unnamed code is still an error")
    }

    /// Random bodies: each decodes or is a typed error (never a crash), and what decodes encodes
    /// back to a body that decodes to the same items.
    func testTLV8RandomBodiesNeverCrash() {
        var generator = SystemRandomNumberGenerator()
        var decoded = 0
        for _ in 0..<5000 {
            let bytes = (0..<Int.random(in: 0...600, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            guard let items = try? TLV8.decode(bytes) else { continue }
            decoded += 1
            XCTAssertEqual(try TLV8.decode(TLV8.encode(items)).map(\.value), items.map(\.value))
        }
        XCTAssertGreaterThan(decoded, 0)
        var framing = HAPFraming(keys: HAPChannelKeys(sharedSecret: [1, 2, 3]))
        for _ in 0..<200 {
            let bytes = (0..<Int.random(in: 0...2000, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            XCTAssertThrowsError(try { var copy = framing; _ = try copy.open(bytes + [UInt8](repeating: 0, count: 1100)) }(),
                                 "random bytes never authenticate")
        }
        _ = try? framing.open([])
    }

    // MARK: SRP-6a

    /// RFC 5054 Appendix B: I = "alice", P = "password123", the 1024-bit group, SHA-1.
    /// OpenSSL's constant-time exponentiation (what pairing uses) against BigInt's own `power`, an
    /// independent implementation: edge cases and random 1024-bit values in the RFC 5054 group.
    func testModularPowerAgreesWithBigIntsOwn() {
        let prime = SRPParameters.rfc5054TestVectors.prime
        let cases: [(BigUInt, BigUInt, BigUInt)] = [
            (2, 0, prime), (0, 5, prime), (1, prime, prime), (prime + 7, 3, prime), (prime - 1, 2, prime), (5, 1, 9), (3, 200, 1_000_003),
        ] + (0..<4).map { _ in (BigUInt.randomInteger(withMaximumWidth: 1100), BigUInt.randomInteger(withMaximumWidth: 256), prime) }
        for (base, exponent, modulus) in cases {
            XCTAssertEqual(base.modularPower(exponent, modulus: modulus), base.power(exponent, modulus: modulus),
                           "\(base) ^ \(exponent) mod \(modulus)")
        }
    }

    func testSRPAgainstRFC5054AppendixBVectors() throws {
        let p = SRPParameters.rfc5054TestVectors
        let salt = hex("BEB25379D1A8581EB5A727673A2441EE")
        let username = Array("alice".utf8), password = Array("password123".utf8)
        XCTAssertEqual(p.multiplier, big("7556AA045AEF2CDD07ABAF0F665C3E818913186F"))
        XCTAssertEqual(p.privateKey(salt: salt, username: username, password: password), big("94B7555AABE9127CC58CCF4993DB6CF84D16C124"))
        let v = p.verifier(salt: salt, username: username, password: password)
        XCTAssertEqual(v, big("""
            7E273DE8696FFC4F4E337D05B4B375BEB0DDE1569E8FA00A9886D8129BADA1F1822223CA1A605B530E379BA4729FDC59F105B4787E5186F5C6
            71085A1447B52A48CF1970B4FB6F8400BBF4CEBFBB168152E08AB5EA53D15C1AFF87B2B9DA6E04E058AD51CC72BFC9033B564E26480D78E955A5E29E7AB245DB2BE315E2099AFB
            """))
        let client = SRPClient(parameters: p, username: username,
                               privateKey: hex("60975527035CF2AD1989806F0407210BC81EDC04E2762A56AFD529DDDA2D4393"))
        XCTAssertEqual(client.publicValue, big("""
            61D5E490F6F1B79547B0704C436F523DD0E560F0C64115BB72557EC44352E8903211C04692272D8B2D1A5358A2CF1B6E0BFCF99F921530EC8E
            39356179EAE45E42BA92AEACED825171E1E8B9AF6D9C03E1327F44BE087EF06530E69F66615261EEF54073CA11CF5858F0EDFDFE15EFEAB349EF5D76988A3672FAC47B0769447B
            """))
        // B = k v + g^b with the RFC's b (the server side, for the vector).
        let b = big("E487CB59D31AC550471E81F00F6928E01DDA08E974A004F49E61F5D105284D20")
        let serverPublic = (p.multiplier * v + p.generator.power(b, modulus: p.prime)) % p.prime
        XCTAssertEqual(serverPublic, big("""
            BD0C61512C692C0CB6D041FA01BB152D4916A1E77AF46AE105393011BAF38964DC46A0670DD125B95A981652236F99D9B681CBF87837EC996C6D
            A04453728610D0C6DDB58B318885D7D82C7F8DEB75CE7BD4FBAA37089E6F9C6059F388838E7A00030B331EB76840910440B1B27AAEAEEB4012B7D7665238A8E3FB004B117B58
            """))
        XCTAssertEqual(p.scrambler(clientPublic: client.publicValue, serverPublic: serverPublic), big("CE38B9593487DA98554ED47D70A7AE5F462EF019"))
        let s = try client.premasterSecret(salt: salt, serverPublicKey: Array(serverPublic.serialize()), password: password)
        XCTAssertEqual(s, big("""
            B0DC82BABCF30674AE450C0287745E7990A3381F63B387AAF271A10D233861E359B48220F7C4693C9AE12B0A6F67809F0876E2D013800D6C41BB
            59B6D5979B5C00A172B4A2A5903A0BDCAF8A709585EB2AFAFA8F3499B200210DCC1F10EB33943CD67FC88A2F39A4BE5BEC4EC0A3212DC346D7E474B29EDE8A469FFECA686E5A
            """))
        // A wrong password gives another secret.
        XCTAssertNotEqual(try client.premasterSecret(salt: salt, serverPublicKey: Array(serverPublic.serialize()), password: Array("password124".utf8)), s)
    }

    /// Legacy pairing's K = SHA1(S | 00000000) | SHA1(S | 00000001) and its proofs, on the RFC 5054
    /// Appendix B exchange (the same A, B, S): values computed apart with Python's hashlib.
    func testLegacyInterleavedKeyAndProofsOnTheRFC5054Exchange() throws {
        let rfc = SRPParameters.rfc5054TestVectors
        let p = SRPParameters(prime: rfc.prime, generator: rfc.generator, hash: .sha1, sessionKey: .interleaved, saltIsNumber: true)
        let salt = hex("BEB25379D1A8581EB5A727673A2441EE")
        let username = Array("alice".utf8), password = Array("password123".utf8)
        let client = SRPClient(parameters: p, username: username,
                               privateKey: hex("60975527035CF2AD1989806F0407210BC81EDC04E2762A56AFD529DDDA2D4393"))
        let v = p.verifier(salt: salt, username: username, password: password)
        let serverPublic = (p.multiplier * v + p.generator.power(big("E487CB59D31AC550471E81F00F6928E01DDA08E974A004F49E61F5D105284D20"),
                                                                    modulus: p.prime)) % p.prime
        let session = try client.session(salt: salt, serverPublicKey: Array(serverPublic.serialize()), password: password)
        XCTAssertEqual(hexString(session.key), "44ebb4ab646abbb123287f376db03fe0eeb929029c2ed935925c128cca3808a6f22d00add6bbae62")
        XCTAssertEqual(session.key.count, 40)
        XCTAssertEqual(hexString(session.clientProof), "3f8c0bb98f75dd13108dc562915f0a86e23bde71")
        XCTAssertTrue(session.acceptsServerProof(hex("798a11464a8a0250847a6679b3bd993c9d43a2d8")))
        // The same exchange with HAP's K = H(S) gives another key: the variant is really a parameter.
        let hapStyle = try SRPClient(parameters: rfc, username: username, privateKey: hex("60975527035CF2AD1989806F0407210BC81EDC04E2762A56AFD529DDDA2D4393"))
            .session(salt: salt, serverPublicKey: Array(serverPublic.serialize()), password: password)
        XCTAssertEqual(hapStyle.key.count, 20)
        XCTAssertNotEqual(hapStyle.clientProof, session.clientProof)
    }

    /// The legacy group is RFC 5054 Appendix A's "2048-bit Group", as printed there (g = 2). (That
    /// N and (N - 1) / 2 pass a Fermat test was checked once in Python: 10 s here in a debug build.)
    func testLegacyGroupIsRFC5054s2048BitGroup() {
        let rfcText = """
            AC6BDB41 324A9A9B F166DE5E 1389582F AF72B665 1987EE07 FC319294
            3DB56050 A37329CB B4A099ED 8193E075 7767A13D D52312AB 4B03310D
            CD7F48A9 DA04FD50 E8083969 EDB767B0 CF609517 9A163AB3 661A05FB
            D5FAAAE8 2918A996 2F0B93B8 55F97993 EC975EEA A80D740A DBF4FF74
            7359D041 D5C33EA7 1D281E44 6B14773B CA97B43A 23FB8016 76BD207A
            436C6481 F1D2B907 8717461A 5B9D32E6 88F87748 544523B5 24B0D57D
            5EA77A27 75D2ECFA 032CFBDB F52FB378 61602790 04E57AE6 AF874E73
            03CE5329 9CCC041C 7BC308D8 2A5698F3 A8D0C382 71AE35F8 E9DBFBB6
            94B5C803 D89F7AE4 35DE236D 525F5475 9B65E372 FCD68EF2 0FA7111F
            9E4AFF73
            """
        let p = SRPParameters.legacy
        XCTAssertEqual(p.prime, big(rfcText))
        XCTAssertEqual(p.generator, 2)
        XCTAssertEqual(p.prime.bitWidth, 2048)
        XCTAssertEqual(p.width, 256)
        // HAP keeps its group, hash and key.
        XCTAssertEqual(SRPParameters.hap.prime.bitWidth, 3072)
        XCTAssertEqual(SRPParameters.hap.generator, 5)
    }

    func testSRPRefusesAZeroOrOversizedServerKey() {
        let client = SRPClient(privateKey: [UInt8](repeating: 1, count: 32))
        XCTAssertThrowsError(try client.session(salt: [1], serverPublicKey: [0], password: [])) {
            XCTAssertEqual($0 as? SRPError, .badServerPublicKey)
        }
        XCTAssertThrowsError(try client.session(salt: [1], serverPublicKey: SRP.bytes(SRPParameters.hap.prime), password: [])) {
            XCTAssertEqual($0 as? SRPError, .badServerPublicKey, "B = N is 0 mod N")
        }
        XCTAssertThrowsError(try client.session(salt: [1], serverPublicKey: [UInt8](repeating: 0xFF, count: 385), password: [])) {
            XCTAssertEqual($0 as? SRPError, .badServerPublicKey)
        }
    }

    /// HAP's group and hash against HAP-python's SRP server (pyhap.hsrp) with fixed a, b and salt.
    func testSRPHAPGroupAgainstHAPPythonServer() throws {
        let a = "60975527035CF2AD1989806F0407210BC81EDC04E2762A56AFD529DDDA2D4393"
        let b = "E487CB59D31AC550471E81F00F6928E01DDA08E974A004F49E61F5D105284D20"
        let salt = "BEB25379D1A8581EB5A727673A2441EE"
        let json = try HAPPython.vectors(["srp", a, b, salt, "031-45-154"])
        let server = try JSONDecoder().decode([String: String].self, from: Data(json.utf8))
        let client = SRPClient(parameters: .hap, privateKey: hex(a))
        XCTAssertEqual(hexString(client.publicKey), server["A"])
        let session = try client.session(salt: hex(salt), serverPublicKey: hex(server["B"]!), password: Array("031-45-154".utf8))
        XCTAssertEqual(hexString(session.clientProof), server["M"], "our proof is the one HAP-python expects")
        XCTAssertTrue(session.acceptsServerProof(hex(server["HAMK"]!)))
        XCTAssertEqual(hexString(session.key), server["K"])
        let wrong = try client.session(salt: hex(salt), serverPublicKey: hex(server["B"]!), password: Array("031-45-155".utf8))
        XCTAssertNotEqual(hexString(wrong.clientProof), server["M"])
        XCTAssertFalse(wrong.acceptsServerProof(hex(server["HAMK"]!)))
    }

    // MARK: Channel framing

    /// Frames HAP-python's accessory side writes open here, and ours open there: 2-byte LE length
    /// as AAD, 1024-byte frames, a counter nonce per direction.
    func testFramingAgainstHAPPython() throws {
        let shared = (0..<32).map { UInt8($0 * 7 % 256) }
        let plain = (0..<2500).map { UInt8($0 % 256) }
        let theirs = hex(try HAPPython.vectors(["seal", hexString(shared), hexString(plain)]))
        XCTAssertEqual(theirs.count, plain.count + 3 * (2 + 16), "1024 + 1024 + 452: three frames")
        var framing = HAPFraming(keys: HAPChannelKeys(sharedSecret: shared))
        var opened: [UInt8] = []
        for start in stride(from: 0, to: theirs.count, by: 100) {  // in any split
            opened += try framing.open(theirs[start..<min(start + 100, theirs.count)])
        }
        XCTAssertEqual(opened, plain)

        var writer = HAPFraming(keys: HAPChannelKeys(sharedSecret: shared))
        let ours = writer.seal(Array("GET /accessories HTTP/1.1\r\n\r\n".utf8)) + writer.seal(plain)
        XCTAssertEqual(try HAPPython.vectors(["open", hexString(shared), hexString(ours)]),
                       hexString(Array("GET /accessories HTTP/1.1\r\n\r\n".utf8) + plain))
    }

    func testFramingRefusesTamperedAndOversizedFrames() throws {
        let keys = HAPChannelKeys(sharedSecret: [UInt8](repeating: 3, count: 32))
        var writer = HAPFraming(keys: keys.swapped)
        var sealed = writer.seal([1, 2, 3])
        sealed[3] ^= 0x01
        var reader = HAPFraming(keys: keys)
        XCTAssertThrowsError(try reader.open(sealed)) { XCTAssertEqual($0 as? HAPFramingError, .authentication(frame: 0)) }
        var plainReader = HAPFraming(keys: keys)
        XCTAssertThrowsError(try plainReader.open(Array("HTTP/1.1 200 OK\r\n".utf8))) {
            XCTAssertEqual($0 as? HAPFramingError, .frameTooLong(0x5448), "plain HTTP after verify reads as a huge frame")
        }
        XCTAssertEqual("\(keys)", "HAPChannelKeys(redacted)")
    }
}
