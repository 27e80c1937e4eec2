import Foundation

/// The bodies and rules of the legacy video session (UxPlay 1.74, the Apple TV 3 generation):
/// RTSP SETUP with `ekey`/`eiv` and NTP timing, RECORD, `/feedback`, and `/play` on a plain HTTP
/// connection of its own. Pure, so the tests read them key by key. Read from UxPlay's
/// lib/raop_handlers.h and lib/http_handlers.h and checked against it running (docs/airplay.md).
enum LegacyMessages {
    static let userAgent = "AirPlay/550.10"
    /// The `clientProcName` of `/play` (UxPlay logs it; only for `mlhls://` playlists does it check it).
    static let clientProcName = "seamcheck"

    /// The first RTSP SETUP: UxPlay handles it only when `ekey` (72 bytes) and `eiv` (16 bytes) are
    /// both present; they key FairPlay-encrypted mirroring audio, which URL playback never sends, so
    /// random bytes do. `timingPort` is the UDP port of the sender's NTP responder (`TimingServer`).
    static func setup(sessionUUID: String, deviceId: String, name: String, timingPort: Int,
                      ekey: Data = randomBytes(72), eiv: Data = randomBytes(16)) -> [String: Any] {
        [
            "ekey": ekey,
            "eiv": eiv,
            "timingProtocol": "NTP",
            "timingPort": timingPort,
            "deviceID": deviceId,
            "macAddress": deviceId,
            "sessionUUID": sessionUUID,
            "name": name,
            "model": "iPhone14,3",
            "osName": "iPhone OS",
            "osVersion": "16.5",
            "osBuildVersion": "20F66",
            "sourceVersion": "550.10",
            "isScreenMirroringSession": false,
        ]
    }

    /// The `/play` body: UxPlay wants a binary plist with `uuid` and `Content-Location` (400 and a
    /// reset of its session without them); the start goes in seconds.
    static func play(url: URL, startSeconds: Double, uuid: String) -> [String: Any] {
        [
            "Content-Location": url.absoluteString,
            "Start-Position-Seconds": startSeconds,
            "uuid": uuid,
            "clientProcName": clientProcName,
        ]
    }

    /// Headers a receiver of this kind is known to choke on, per protocol: UxPlay asserts (and
    /// dies) when an RTSP request carries `X-Apple-Session-ID` (lib/raop.c, the session check),
    /// and reads an HTTP request with a `CSeq` as an RTSP one.
    static let forbiddenOnRTSP: Set<String> = ["x-apple-session-id"]
    static let forbiddenOnHTTP: Set<String> = ["cseq"]

    /// Whether `headers` may go out on `protocol` ("RTSP" or "HTTP"): the one check every request passes.
    static func allowed(_ headers: [(String, String)], rtsp: Bool) -> Bool {
        let forbidden = rtsp ? forbiddenOnRTSP : forbiddenOnHTTP
        return !headers.contains { forbidden.contains($0.0.lowercased()) }
    }

    /// What an RTSP `GET /info` answer says about the session a receiver wants: a plist with
    /// `features` from a receiver that is not AirPlay 2 (bits 38 and 48 clear) is one that keeps
    /// its video behind an RTSP session (UxPlay answers so; Kodi, an AirPlay 1 receiver, has no
    /// RTSP `/info`: 501). 409 is a receiver of this kind that another sender holds.
    static func flow(infoStatus: Int, body: Data) -> AirPlayFlow? {
        if infoStatus == 409 { return .legacy }
        guard (200..<300).contains(infoStatus), case .success(let plist) = PropertyList.dictionary(from: body) else { return nil }
        guard let features = features(plist["features"]) else { return nil }
        let airPlay2 = features & (1 << 38) != 0 || features & (1 << 48) != 0
        return airPlay2 ? .airPlay2 : .legacy
    }

    /// `features` as UxPlay's `/info` gives it (an integer, the 64 bits in one) or as TXT gives it ("0x..,0x..").
    static func features(_ value: Any?) -> UInt64? {
        if let number = PropertyList.int(value) { return UInt64(truncatingIfNeeded: number) }
        guard let text = PropertyList.string(value) else { return nil }
        let parts = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard let low = parts.first.flatMap({ UInt64($0.replacingOccurrences(of: "0x", with: ""), radix: 16) }) else { return nil }
        let high = parts.count > 1 ? UInt64(parts[1].replacingOccurrences(of: "0x", with: ""), radix: 16) ?? 0 : 0
        return low | high << 32
    }

    static func randomBytes(_ count: Int) -> Data {
        Data((0..<count).map { _ in UInt8.random(in: 0...255) })
    }

    /// A device id in the MAC form UxPlay logs ("AA:BB:..."), locally administered.
    static func randomDeviceId() -> String {
        var bytes = (0..<6).map { _ in UInt8.random(in: 0...255) }
        bytes[0] = (bytes[0] & 0xFC) | 0x02
        return bytes.map { String(format: "%02X", $0) }.joined(separator: ":")
    }
}
