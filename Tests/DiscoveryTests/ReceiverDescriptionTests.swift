import Discovery
import Foundation
import XCTest

final class ReceiverDescriptionTests: XCTestCase {
    func testAppleTV4KDecodesIdentityFeaturesAndFlags() {
        let receiver = ReceiverDescription(name: "Living Room", airplay: TXTFixtures.appleTV4K)
        XCTAssertEqual(receiver.name, "Living Room")
        XCTAssertEqual(receiver.deviceId, "90:DD:5D:98:F0:0A")
        XCTAssertEqual(receiver.model, "AppleTV6,2")
        XCTAssertEqual(receiver.manufacturer, "Apple")
        XCTAssertEqual(receiver.product, "Apple TV 4K (1st gen)")
        XCTAssertEqual(receiver.features?.hex, "0x04155FDE4A7FFFF7")
        XCTAssertEqual(receiver.featureNames.first, "SupportsAirPlayVideoV1")
        XCTAssertTrue(receiver.featureNames.contains("SupportsCoreUtilsPairingAndEncryption"))
        XCTAssertFalse(receiver.featureNames.contains("SupportsAirPlayVideoV2"))
        XCTAssertEqual(receiver.flags?.hex, "0x10644")
        XCTAssertEqual(receiver.flagNames, ["AudioCableAttached", "AirPlayFromCloud", "OneTimePairingRequired",
                                            "HomeKitAccessControl"])
        XCTAssertEqual(receiver.sourceVersion, "380.20.1")
        XCTAssertEqual(receiver.osVersion, "12.2.1")
        XCTAssertEqual(receiver.capabilities, ReceiverCapabilities(
            video: true, audio: true, airPlay2: true, screenMirroring: true, passwordRequired: false, pinRequired: false))
        XCTAssertEqual(receiver.warnings, [])
    }

    func testAppleTVHDIsVideoCapableAirPlay2() {
        let receiver = ReceiverDescription(name: "Bedroom", airplay: TXTFixtures.appleTVHD)
        XCTAssertEqual(receiver.product, "Apple TV HD")
        XCTAssertEqual(receiver.features?.rawValue, 0x3C15_5FDE_5A7F_DFD5)
        XCTAssertTrue(receiver.features?.contains(.supportsScreenMultiCodec) ?? false)
        XCTAssertEqual(receiver.flagNames, ["AudioCableAttached", "AirPlayFromCloud", "OneTimePairingRequired"])
        XCTAssertTrue(receiver.capabilities.video)
        XCTAssertTrue(receiver.capabilities.airPlay2)
        XCTAssertEqual(receiver.osVersion, "14.2")
        XCTAssertEqual(receiver.warnings, ["no deviceid key: this receiver cannot be matched with its _raop._tcp service"])
    }

    func testHomePodHasNoVideoBits() {
        let receiver = ReceiverDescription(name: "Kitchen", airplay: TXTFixtures.homePod)
        XCTAssertEqual(receiver.product, "HomePod")
        XCTAssertEqual(receiver.features?.hex, "0x3C356BD04A7FCA00")
        XCTAssertFalse(receiver.features?.contains(.supportsAirPlayVideoV1) ?? true)
        XCTAssertFalse(receiver.features?.contains(.supportsAirPlayVideoV2) ?? true)
        XCTAssertFalse(receiver.featureNames.contains("SupportsAirPlayScreen"))
        XCTAssertEqual(receiver.flags?.rawValue, 0x1A404)
        XCTAssertEqual(receiver.flagNames, ["AudioCableAttached", "HomeKitAccessControl"])
        XCTAssertEqual(receiver.capabilities, ReceiverCapabilities(
            video: false, audio: true, airPlay2: true, screenMirroring: false))
    }

    func testSmartTVsPlayVideoThroughAirPlayVideoV2Only() {
        for (name, txt, manufacturer, model, multiCodec) in [
            ("Roku", TXTFixtures.roku, "Roku", "3810X", true),
            ("Samsung", TXTFixtures.samsung, "Samsung", "UNU7090", false),
            ("LG", TXTFixtures.lg, "LG", "55UQ80006LD", true),
        ] {
            let receiver = ReceiverDescription(name: name, airplay: txt)
            XCTAssertEqual(receiver.manufacturer, manufacturer, name)
            XCTAssertEqual(receiver.model, model, name)
            XCTAssertNil(receiver.product, name)
            XCTAssertEqual(receiver.features?.contains(.supportsAirPlayVideoV1), false, name)
            XCTAssertEqual(receiver.features?.contains(.supportsAirPlayVideoV2), true, name)
            XCTAssertEqual(receiver.features?.contains(.supportsScreenMultiCodec), multiCodec, name)
            XCTAssertEqual(receiver.capabilities, ReceiverCapabilities(
                video: true, audio: true, airPlay2: true, screenMirroring: true), name)
        }
        XCTAssertEqual(ReceiverDescription(name: "Roku", airplay: TXTFixtures.roku).features?.hex, "0x010BCF46007F8AD0")
        XCTAssertEqual(ReceiverDescription(name: "Samsung", airplay: TXTFixtures.samsung).features?.hex, "0x038BCB46007F8AD0")
        XCTAssertNil(ReceiverDescription(name: "Samsung", airplay: TXTFixtures.samsung).flags)
        XCTAssertEqual(ReceiverDescription(name: "LG", airplay: TXTFixtures.lg).sourceVersion, "377.40.00")
    }

    func testSpeakersAreAudioOnly() {
        let sonos = ReceiverDescription(name: "Sonos", airplay: TXTFixtures.sonos)
        XCTAssertEqual(sonos.features?.hex, "0x0001C340445F8A00")
        XCTAssertEqual(sonos.flagNames, ["AudioCableAttached"])
        XCTAssertTrue(sonos.featureNames.contains("Authentication_8"))
        XCTAssertEqual(sonos.capabilities, ReceiverCapabilities(video: false, audio: true, airPlay2: true, screenMirroring: false))

        let shairport = ReceiverDescription(name: "Pi", airplay: TXTFixtures.shairport)
        XCTAssertEqual(shairport.features?.rawValue, 0x0001_8340_405C_4A00)
        XCTAssertNil(shairport.manufacturer)
        XCTAssertNil(shairport.product)
        XCTAssertEqual(shairport.osVersion, "15.0")
        XCTAssertEqual(shairport.capabilities, ReceiverCapabilities(video: false, audio: true, airPlay2: true, screenMirroring: false))
    }

    func testAllRealRecordsDecodeFeaturesModelAndVersion() {
        for (name, txt) in TXTFixtures.all {
            let receiver = ReceiverDescription(name: name, airplay: txt)
            XCTAssertNotNil(receiver.features, name)
            XCTAssertNotNil(receiver.model, name)
            XCTAssertNotNil(receiver.sourceVersion, name)
            XCTAssertTrue(receiver.capabilities.audio, name)
            XCTAssertTrue(receiver.warnings.allSatisfy { $0.hasPrefix("no deviceid") }, "\(name): \(receiver.warnings)")
        }
    }

    func testMalformedHexLeavesFieldsNilWithWarnings() {
        let receiver = ReceiverDescription(name: "Broken", airplay: [
            "deviceid": "not-a-mac", "features": "0xZZZ,0x1", "flags": "0xQ", "fex": "%%", "model": "",
        ])
        XCTAssertNil(receiver.deviceId)
        XCTAssertNil(receiver.features)
        XCTAssertEqual(receiver.featureNames, [])
        XCTAssertNil(receiver.flags)
        XCTAssertNil(receiver.model)
        XCTAssertEqual(receiver.capabilities, ReceiverCapabilities())
        XCTAssertEqual(receiver.warnings, [
            "deviceid 'not-a-mac' is not a MAC address (6 hex bytes)",
            "no model key",
            "features '0xZZZ,0x1' is not 0xLOW or 0xLOW,0xHIGH hex",
            "fex '%%' is not base64",
            "flags '0xQ' is not a hex number",
        ])
    }

    func testEmptyRecordWarnsAboutMissingKeys() {
        let receiver = ReceiverDescription(name: "Bare", airplay: [:])
        XCTAssertNil(receiver.features)
        XCTAssertEqual(receiver.warnings.count, 3)
        XCTAssertTrue(receiver.warnings.contains("no features key: capabilities are unknown"))
    }

    func testFexAddsBitsAbove63AndStandsInForMissingFeatures() {
        var txt = TXTFixtures.appleTV4K
        txt["fex"] = "9/9/St5fFQRB"
        let both = ReceiverDescription(name: "ATV", airplay: txt)
        XCTAssertEqual(both.features?.rawValue, 0x0415_5FDE_4A7F_FFF7)
        XCTAssertEqual(both.features?.extendedBits, [64, 70])
        XCTAssertEqual(both.warnings, [])

        txt["features"] = nil
        XCTAssertEqual(ReceiverDescription(name: "ATV", airplay: txt).features?.hex, "0x04155FDE4A7FFFF7")
    }

    func testPasswordFromPwKeyOrFlagAndPinFromFlag() {
        var txt = TXTFixtures.roku
        txt["pw"] = "true"
        XCTAssertTrue(ReceiverDescription(name: "R", airplay: txt).capabilities.passwordRequired)
        txt["pw"] = "false"
        txt["flags"] = "0x8C"
        let receiver = ReceiverDescription(name: "R", airplay: txt)
        XCTAssertTrue(receiver.capabilities.passwordRequired)
        XCTAssertTrue(receiver.capabilities.pinRequired)
    }

    func testBareKeysAndKeyCaseAreTolerated() {
        let receiver = ReceiverDescription(name: "X", airplay: [
            "DeviceID": "aa:bb:cc:dd:ee:ff", "Features": "0x1", "model": "AppleTV11,1", "pk": nil, "flags": nil,
        ])
        XCTAssertEqual(receiver.deviceId, "AA:BB:CC:DD:EE:FF")
        XCTAssertEqual(receiver.features?.rawValue, 1)
        XCTAssertNil(receiver.flags)
        XCTAssertEqual(receiver.product, "Apple TV 4K (2nd gen)")
        XCTAssertEqual(receiver.warnings, [])
    }

    func testRAOPRecordFillsWhatTheAirPlayRecordLacks() {
        let receiver = ReceiverDescription(
            name: "Speaker", airplay: nil,
            raop: ["am": "AudioAccessory5,1", "ft": "0x445F8A00,0x1C340", "sf": "0x4", "vs": "366.0", "ov": "16.1"],
            fallbackDeviceId: "A1B2C3D4E5F6")
        XCTAssertEqual(receiver.deviceId, "A1:B2:C3:D4:E5:F6")
        XCTAssertEqual(receiver.product, "HomePod mini")
        XCTAssertEqual(receiver.features?.hex, "0x0001C340445F8A00")
        XCTAssertEqual(receiver.flags?.rawValue, 4)
        XCTAssertEqual(receiver.sourceVersion, "366.0")
        XCTAssertEqual(receiver.osVersion, "16.1")
        XCTAssertTrue(receiver.capabilities.audio)
        XCTAssertEqual(receiver.warnings, [])
    }

    func testAirPlay1SpeakerWithoutFeaturesIsNotWarnedAbout() {
        // shairport-sync 3.3.8: a RAOP record without `ft` is what an AirPlay 1 speaker is.
        let speaker = ReceiverDescription(name: "Speaker", airplay: nil,
                                          raop: ["am": "ShairportSync", "sf": "0x4", "vs": "105.1", "cn": "0,1"],
                                          fallbackDeviceId: "476FDBC75ADA")
        XCTAssertNil(speaker.features)
        XCTAssertTrue(speaker.capabilities.audio)
        XCTAssertEqual(speaker.warnings, [])
        let airplay = ReceiverDescription(name: "TV", airplay: ["deviceid": "02:00:00:00:00:31", "model": "X"], raop: [:])
        XCTAssertEqual(airplay.warnings, ["no features key: capabilities are unknown"], "an AirPlay record without features is odd")
    }

    func testRAOPInstanceNameSplitsIntoDeviceIdAndName() {
        XCTAssertEqual(RAOPName("90DD5D98F00A@Living Room"), RAOPName.init("90dd5d98f00a@Living Room"))
        XCTAssertEqual(RAOPName("90DD5D98F00A@Living Room")?.deviceId, "90:DD:5D:98:F0:0A")
        XCTAssertEqual(RAOPName("90DD5D98F00A@Living @ Room")?.name, "Living @ Room")
        XCTAssertNil(RAOPName("Living Room"))
        XCTAssertNil(RAOPName("90DD5D98F0@Living Room"))
    }
}
