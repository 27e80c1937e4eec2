import Foundation

/// The machine-readable code drawn into every frame of every lab stream, as data: the generator
/// draws it from this description and the capture analyzer reads it with the same one (it is
/// written into `lab.json`).
///
/// A band of black and white modules near the top of the picture, like a 1-D barcode repeated on
/// `rows` module rows: `quietModules` black, the start guard, each bit of the word as two modules
/// (1 = white then black, 0 = black then white: every bit is read by comparing its own two halves,
/// so no threshold depends on the receiver's levels), the end guard, `quietModules` black. The
/// guards hold runs of three white modules, which the bits never make, so a reader finds the band
/// at any scale, shift or pillarbox from its two ends. The word is, most significant bit first,
/// the stream id, the frame index, and a CRC of both: a misread is rejected, never taken for
/// another frame.
public struct LabFrameCode: Codable, Sendable, Equatable {
    public var version: Int
    public var streamBits: Int
    public var frameBits: Int
    /// CRC over the stream id and frame index (MSB first, initial value 0, no final XOR).
    public var checkBits: Int
    public var checkPolynomial: Int
    /// Modules as "1" (white) and "0" (black).
    public var startGuard: String
    public var endGuard: String
    /// Black modules on each side of the band (and one module row above and below it).
    public var quietModules: Int
    /// Module rows of the band.
    public var rows: Int
    /// Where the band's top sits, as a fraction of the picture height (inside a 5% overscan).
    public var top: Double
    /// At most this fraction of the picture width is the band with its quiet zones.
    public var widthFraction: Double
    /// The audio mark: stream `id` plays a sine of `toneBase + id * toneStep` Hz.
    public var toneBase: Int
    public var toneStep: Int

    public static let current = LabFrameCode(
        version: 1, streamBits: 7, frameBits: 13, checkBits: 8, checkPolynomial: 0x07, startGuard: "1110", endGuard: "0111",
        quietModules: 2, rows: 4, top: 0.06, widthFraction: 0.85, toneBase: 440, toneStep: 60)

    public var wordBits: Int { streamBits + frameBits + checkBits }
    /// Modules from the first of the start guard to the last of the end guard.
    public var bandModules: Int { startGuard.count + 2 * wordBits + endGuard.count }
    /// Modules across the band with its quiet zones.
    public var totalModules: Int { bandModules + 2 * quietModules }
    /// Frame indexes wrap after this many frames (about 273 s at 29.97 fps).
    public var frameModulus: Int { 1 << frameBits }

    public func tone(stream: Int) -> Int { toneBase + stream * toneStep }

    /// The check of `stream` and `frame`.
    public func check(stream: Int, frame: Int) -> Int {
        crc(value: (stream << frameBits) | frame, bits: streamBits + frameBits)
    }

    /// The word drawn for `frame` of `stream` (the frame index wraps at `frameModulus`).
    public func word(stream: Int, frame: Int) -> Int {
        let index = frame % frameModulus
        return (stream << (frameBits + checkBits)) | (index << checkBits) | check(stream: stream, frame: index)
    }

    /// The stream id and frame index of a word whose check holds, nil otherwise.
    public func decode(word: Int) -> (stream: Int, frame: Int)? {
        guard word >= 0, word < 1 << wordBits else { return nil }
        let check = word & ((1 << checkBits) - 1)
        let frame = (word >> checkBits) & (frameModulus - 1)
        let stream = word >> (frameBits + checkBits)
        return self.check(stream: stream, frame: frame) == check ? (stream, frame) : nil
    }

    /// The band's modules left to right, without quiet zones: true is white.
    public func modules(word: Int) -> [Bool] {
        var modules = startGuard.map { $0 == "1" }
        for bit in (0..<wordBits).reversed() {
            let one = (word >> bit) & 1 == 1
            modules += [one, !one]
        }
        return modules + endGuard.map { $0 == "1" }
    }

    func crc(value: Int, bits: Int) -> Int {
        let mask = (1 << checkBits) - 1
        var register = 0
        for index in (0..<bits).reversed() {
            let top = (register >> (checkBits - 1)) & 1
            register = (register << 1) & mask
            if top ^ ((value >> index) & 1) == 1 { register ^= checkPolynomial }
        }
        return register
    }
}

/// One coded stream of a suite: what a code's stream id stands for.
public struct LabCodedStream: Codable, Sendable, Equatable {
    public enum Role: String, Codable, Sendable {
        case primary, ad, videoTier, audioGroup
    }

    public var id: Int
    /// The encode folder, relative to the suite ("primary", "cases/frame-rate-25/ad").
    public var folder: String
    /// The case that encodes it ("primary" for the shared primary); stitched cases use their source's.
    public var caseId: String
    public var role: Role
    /// The tier or group name for capability streams ("hevc-hdr10").
    public var tier: String?
    /// Exact frame rate ("30000/1001"); nil for audio-only streams.
    public var frameRate: String?
    /// Sine frequency of its audio in Hz; nil for video-only streams.
    public var tone: Int?
    public var duration: Double

    public init(id: Int, folder: String, caseId: String, role: Role, tier: String? = nil, frameRate: String?, tone: Int?,
                duration: Double) {
        self.id = id
        self.folder = folder
        self.caseId = caseId
        self.role = role
        self.tier = tier
        self.frameRate = frameRate
        self.tone = tone
        self.duration = duration
    }

    /// Frames a second, 0 for audio-only streams.
    public var framesPerSecond: Double { frameRate.map(LabRecipes.frameRate) ?? 0 }

    /// "primary", "ad of frame-rate-25", "capability-ladder hevc-hdr10".
    public var label: String {
        switch role {
        case .primary: return "primary"
        case .ad: return "ad of \(caseId)"
        case .videoTier, .audioGroup: return "\(caseId) \(tier ?? role.rawValue)"
        }
    }
}
