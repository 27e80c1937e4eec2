import Discovery
import Foundation
import XCTest

final class AirPlayFeaturesTests: XCTestCase {
    func testTwoWordFeaturesCombineHighWordAbove32Bits() throws {
        let features = try XCTUnwrap(AirPlayFeatures(features: "0x4A7FFFF7,0x4155FDE"))
        XCTAssertEqual(features.rawValue, 0x0415_5FDE_4A7F_FFF7)
        XCTAssertEqual(features.hex, "0x04155FDE4A7FFFF7")
        XCTAssertTrue(features.contains(.supportsAirPlayVideoV1))
        XCTAssertTrue(features.contains(bit: 0))
        XCTAssertFalse(features.contains(.supportsAirPlayVideoV2))
        XCTAssertEqual(features.names.first, "SupportsAirPlayVideoV1")
    }

    func testSingleWordFeaturesLeaveHighBitsClear() throws {
        let features = try XCTUnwrap(AirPlayFeatures(features: "0x77"))
        XCTAssertEqual(features.rawValue, 0x77)
        XCTAssertEqual(features.hex, "0x0000000000000077")
        XCTAssertEqual(features.names, ["SupportsAirPlayVideoV1", "SupportsAirPlayPhoto", "VideoHTTPLiveStreams",
                                        "SupportsAirPlaySlideshow"])
        XCTAssertEqual(features.unnamedBits, [2, 6])
    }

    func testLowerCaseHexAndUpperCasePrefixParse() {
        XCTAssertEqual(AirPlayFeatures(features: "0Xabcdef01,0x1")?.rawValue, 0x1_ABCD_EF01)
    }

    func testMalformedFeaturesAreRejectedWithoutCrashing() {
        for text in ["", "0x", "4A7FFFF7", "0xZZ", "0x123456789", "0x1,0x2,0x3", "0x1,", "0x1,2", " ,0x1", "0x-1", "0x+1"] {
            XCTAssertNil(AirPlayFeatures(features: text), "accepted '\(text)'")
        }
    }

    func testFexDecodesLittleEndianBytesWithoutPadding() throws {
        let fex = try XCTUnwrap(AirPlayFeatures(fex: "9/9/St5fFQQ"))
        XCTAssertEqual(fex.rawValue, 0x0415_5FDE_4A7F_FFF7)
        XCTAssertEqual(fex.extendedBits, [])
        XCTAssertEqual(AirPlayFeatures(fex: "9/9/St5fFQQ="), fex)
    }

    func testFexKeepsBitsAbove63() throws {
        let fex = try XCTUnwrap(AirPlayFeatures(fex: "9/9/St5fFQRB"))
        XCTAssertEqual(fex.rawValue, 0x0415_5FDE_4A7F_FFF7)
        XCTAssertEqual(fex.extendedBits, [64, 70])
        XCTAssertTrue(fex.contains(bit: 70))
        XCTAssertFalse(fex.contains(bit: 65))
        XCTAssertEqual(fex.hex, "0x04155FDE4A7FFFF7")
    }

    func testMalformedFexIsRejected() {
        for text in ["", "!!!!", "A", "9/9/St5fFQ$Q"] {
            XCTAssertNil(AirPlayFeatures(fex: text), "accepted '\(text)'")
        }
    }

    func testFeaturesEncodeAsSixteenDigitHexString() throws {
        let features = AirPlayFeatures(rawValue: 0x1_0000_0201)
        let json = String(decoding: try JSONEncoder().encode([features]), as: UTF8.self)
        XCTAssertEqual(json, #"["0x0000000100000201"]"#)
        XCTAssertEqual(try JSONDecoder().decode([AirPlayFeatures].self, from: Data(json.utf8)), [features])
    }

    func testExtendedFeaturesRoundTripThroughJSON() throws {
        let features = AirPlayFeatures(rawValue: 1, extendedBits: [64, 127, 130])
        let data = try JSONEncoder().encode(features)
        XCTAssertEqual(String(decoding: data, as: UTF8.self),
                       #""0x000000000000000480000000000000010000000000000001""#)
        XCTAssertEqual(try JSONDecoder().decode(AirPlayFeatures.self, from: data), features)
    }

    func testEveryNamedBitIsDistinctAndBelow64() {
        let bits = AirPlayFeature.allCases.map(\.bit)
        XCTAssertEqual(Set(bits).count, bits.count)
        XCTAssertTrue(bits.allSatisfy { (0..<64).contains($0) })
        XCTAssertEqual(AirPlayFeature.supportsAirPlayVideoV2.bit, 49)
        XCTAssertEqual(AirPlayFeature.authentication4.name, "Authentication_4")
    }
}

final class StatusFlagsTests: XCTestCase {
    func testAppleTV4KFlagsNameTheirBits() throws {
        let flags = try XCTUnwrap(StatusFlags(text: "0x10644"))
        XCTAssertEqual(flags.rawValue, 0x10644)
        XCTAssertEqual(flags.hex, "0x10644")
        XCTAssertEqual(flags.flags, [.audioCableAttached, .airPlayFromCloud, .oneTimePairingRequired, .homeKitAccessControl])
        XCTAssertFalse(flags.contains(.passwordRequired))
    }

    func testPasswordAndPinBits() throws {
        let flags = try XCTUnwrap(StatusFlags(text: "0x88"))
        XCTAssertEqual(flags.names, ["PINRequired", "PasswordRequired"])
    }

    func testLowerCaseHexAndDecimalParse() {
        XCTAssertEqual(StatusFlags(text: "0x1a404")?.rawValue, 0x1A404)
        XCTAssertEqual(StatusFlags(text: "68")?.rawValue, 68)
    }

    func testMalformedFlagsAreRejected() {
        for text in ["", "0x", "0xG1", "flags", "-4", "0x11111111111111111"] {
            XCTAssertNil(StatusFlags(text: text), "accepted '\(text)'")
        }
    }

    func testFlagsEncodeAsHexString() throws {
        let data = try JSONEncoder().encode([StatusFlags(rawValue: 0x244)])
        XCTAssertEqual(String(decoding: data, as: UTF8.self), #"["0x244"]"#)
        XCTAssertEqual(try JSONDecoder().decode([StatusFlags].self, from: data), [StatusFlags(rawValue: 0x244)])
    }
}

final class AppleModelCatalogTests: XCTestCase {
    func testKnownAppleIdentifiersMapToProducts() {
        XCTAssertEqual(AppleModelCatalog.productName(forModel: "AppleTV6,2"), "Apple TV 4K (1st gen)")
        XCTAssertEqual(AppleModelCatalog.productName(forModel: "AppleTV5,3"), "Apple TV HD")
        XCTAssertEqual(AppleModelCatalog.productName(forModel: "AppleTV14,1"), "Apple TV 4K (3rd gen)")
        XCTAssertEqual(AppleModelCatalog.productName(forModel: "AudioAccessory1,2"), "HomePod")
        XCTAssertEqual(AppleModelCatalog.productName(forModel: "AudioAccessorySingle5,1"), "HomePod mini")
        XCTAssertEqual(AppleModelCatalog.productName(forModel: "AirPort10,115"), "AirPort Express")
    }

    func testMacIdentifiersMapToMac() {
        for model in ["Mac14,2", "MacBookPro18,3", "MacBookAir10,1", "iMac21,1", "Macmini9,1", "MacPro7,1"] {
            XCTAssertEqual(AppleModelCatalog.productName(forModel: model), "Mac", model)
        }
    }

    func testNonAppleAndMalformedIdentifiersHaveNoProduct() {
        for model in ["UNU7090", "3810X", "Bookshelf", "ShairportSync", "Mac", "MacBook", "Mac14", "Mac14,", "Macintosh1,1"] {
            XCTAssertNil(AppleModelCatalog.productName(forModel: model), model)
        }
        XCTAssertTrue(AppleModelCatalog.isAppleModel("AppleTV99,1"))
        XCTAssertFalse(AppleModelCatalog.isAppleModel("55UQ80006LD"))
    }
}
