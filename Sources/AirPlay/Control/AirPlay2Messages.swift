import Foundation

/// The plist bodies of the AirPlay 2 play flow, as pyatv's AirPlay 2 URL player sends them
/// (pyatv/protocols/raop/protocols/airplayv2.py). Pure, so the tests can read them key by key.
/// The sender describes itself as pyatv does (an iPhone model and OS): which of these keys a
/// receiver checks is unknown here (no Apple receiver was available).
enum AirPlay2Messages {
    static let userAgent = "AirPlay/550.10"

    /// The body of the first RTSP SETUP: who the sender is, and its timing responder
    /// (`timingProtocol: NTP` with the UDP port of `TimingServer`), as pyatv's URL player sends it.
    static func setup(sessionUUID: String, deviceId: String, name: String, timingPort: Int) -> [String: Any] {
        [
            "deviceID": deviceId,
            "sessionUUID": sessionUUID,
            "timingPort": timingPort,
            "timingProtocol": "NTP",
            "isMultiSelectAirPlay": true,
            "groupContainsGroupLeader": false,
            "macAddress": deviceId,
            "model": "iPhone14,3",
            "name": name,
            "osBuildVersion": "20F66",
            "osName": "iPhone OS",
            "osVersion": "16.5",
            "senderSupportsRelay": false,
            "sourceVersion": "690.7.1",
            "statsCollectionEnabled": false,
        ]
    }

    /// The `POST /play` body: the URL, the start in seconds (AirPlay 2 takes seconds, not a
    /// fraction), and the item's identity; pyatv's timing keys (`connectMs`...) are left out.
    static func play(url: URL, startSeconds: Double, uuid: String, deviceId: String) -> [String: Any] {
        [
            "Content-Location": url.absoluteString,
            "Start-Position-Seconds": startSeconds,
            "uuid": uuid,
            "streamType": 1,
            "mediaType": "file",
            "mightSupportStorePastisKeyRequests": true,
            "playbackRestrictions": 0,
            "volume": 1.0,
            "rate": 1.0,
            "referenceRestrictions": 3,
            "SenderMACAddress": deviceId,
            "model": "iPhone14,3",
            "clientBundleID": "org.seamcheck.lab",
            "clientProcName": "seamcheck",
        ]
    }

    /// The `PUT /setProperty?NAME` requests after `/play`, in pyatv's order, with their bodies;
    /// `rate` (`POST /rate?value=1.000000`) goes between the second and the third.
    static var propertiesBeforeRate: [(name: String, body: [String: Any])] {
        [("isInterestedInDateRange", ["value": true]), ("actionAtItemEnd", ["value": 0])]
    }

    static var propertiesAfterRate: [(name: String, body: [String: Any])] {
        let noTime: [String: Any] = ["flags": 0, "value": 0, "epoch": 0, "timescale": 0]
        return [("forwardEndTime", ["value": noTime]), ("reverseEndTime", ["value": noTime])]
    }

    /// A locally administered MAC-style identifier (`02:..`) for one session: the sender has no
    /// Apple device id, and its real interface address is nobody's business.
    static func randomDeviceId() -> String {
        var bytes = (0..<6).map { _ in UInt8.random(in: 0...255) }
        bytes[0] = (bytes[0] & 0xFC) | 0x02
        return bytes.map { String(format: "%02X", $0) }.joined(separator: ":")
    }

    /// The event port in a SETUP answer; nil when absent or not a TCP port.
    static func eventPort(_ answer: [String: Any]) -> Int? {
        guard let port = PropertyList.int(answer["eventPort"]), (1...65535).contains(port) else { return nil }
        return port
    }
}
