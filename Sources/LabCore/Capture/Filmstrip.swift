import Foundation
import MediaProbe

/// A few captured pictures around one transition, for people to look at: the pictures before the
/// next stream's first frame (the last of the first stream, and any black or other picture
/// between) and the first pictures after it. Images are small grey BMPs, base64 (a data: URL
/// away from an `<img>`), about 13 KB each.
public struct Filmstrip: Codable, Sendable, Equatable {
    public struct Frame: Codable, Sendable, Equatable {
        /// Seconds from the capture's first frame.
        public var at: Double
        /// "primary #179", "black", "other", "ad of control #0".
        public var label: String
        /// 8-bit grey BMP, base64.
        public var bmp: String

        public init(at: Double, label: String, bmp: String) {
            self.at = at
            self.label = label
            self.bmp = bmp
        }
    }

    public var frames: [Frame]

    public init(frames: [Frame]) {
        self.frames = frames
    }

    /// Thumbnail width in pixels.
    static let width = 128
    /// Pictures kept before the switch and taken after it.
    static let before = 3
    static let after = 2
    /// At most this many filmstrips a capture (about 1.5 MB): a capture that flips between streams
    /// every frame must not grow without bound.
    static let limit = 20
}

/// Collects filmstrips while a capture is read: a ring of the last pictures that differed from the
/// one before, snapshotted when a coded frame of another stream appears, and completed with the
/// next pictures. Transitions are found by the same rule as `CaptureTimeline` (a coded frame whose
/// stream is not the last coded frame's), so the n-th filmstrip is the n-th transition's.
struct FilmstripCollector {
    private var ring: [(time: Double, reading: FrameReading, image: GrayImage)] = []
    private var lastStream: Int?
    private var open: (strip: [Filmstrip.Frame], missing: Int)?
    private(set) var strips: [Filmstrip] = []
    let label: (FrameReading) -> String

    init(label: @escaping (FrameReading) -> String) {
        self.label = label
    }

    mutating func add(time: Double, reading: FrameReading, image: GrayImage) {
        if let last = ring.last, last.reading == reading { return }
        if var current = open {
            current.strip.append(frame(time, reading, image))
            current.missing -= 1
            open = current.missing > 0 ? current : nil
            if open == nil { strips.append(Filmstrip(frames: current.strip)) }
        }
        if case .code(let stream, _) = reading {
            if let lastStream, lastStream != stream, strips.count + (open == nil ? 0 : 1) < Filmstrip.limit {
                if let unfinished = open { strips.append(Filmstrip(frames: unfinished.strip)) }
                let before = ring.suffix(Filmstrip.before).map { frame($0.time, $0.reading, $0.image) }
                open = (before + [frame(time, reading, image)], Filmstrip.after)
            }
            lastStream = stream
        }
        ring.append((time, reading, image))
        if ring.count > Filmstrip.before { ring.removeFirst() }
    }

    /// The strips, with a last one cut short by the end of the capture.
    func finished() -> [Filmstrip] { strips + (open.map { [Filmstrip(frames: $0.strip)] } ?? []) }

    private func frame(_ time: Double, _ reading: FrameReading, _ image: GrayImage) -> Filmstrip.Frame {
        Filmstrip.Frame(at: (time * 1000).rounded() / 1000, label: label(reading),
                        bmp: GrayBMP.encode(GrayBMP.thumbnail(image, width: Filmstrip.width)).base64EncodedString())
    }
}

/// Grey pictures as 8-bit paletted BMP files (what every browser shows without a PNG encoder here).
enum GrayBMP {
    static func thumbnail(_ image: GrayImage, width: Int) -> GrayImage {
        guard image.width > width else { return image }
        let height = max(1, image.height * width / image.width)
        var pixels = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            let y0 = y * image.height / height, y1 = max(y0 + 1, (y + 1) * image.height / height)
            for x in 0..<width {
                let x0 = x * image.width / width, x1 = max(x0 + 1, (x + 1) * image.width / width)
                var total = 0
                for sy in y0..<y1 { for sx in x0..<x1 { total += Int(image.pixels[sy * image.width + sx]) } }
                pixels[y * width + x] = UInt8(total / ((y1 - y0) * (x1 - x0)))
            }
        }
        return GrayImage(width: width, height: height, pixels: pixels)
    }

    static func encode(_ image: GrayImage) -> Data {
        let stride = (image.width + 3) / 4 * 4
        let offset = 14 + 40 + 256 * 4
        let size = offset + stride * image.height
        var data = Data(capacity: size)
        func u16(_ v: Int) { data.append(contentsOf: [UInt8(v & 0xff), UInt8((v >> 8) & 0xff)]) }
        func u32(_ v: Int) { for shift in [0, 8, 16, 24] { data.append(UInt8((v >> shift) & 0xff)) } }
        data.append(contentsOf: Array("BM".utf8))
        u32(size); u32(0); u32(offset)
        u32(40); u32(image.width); u32(image.height); u16(1); u16(8); u32(0); u32(stride * image.height)
        u32(2835); u32(2835); u32(256); u32(0)
        for level in 0..<256 { data.append(contentsOf: [UInt8(level), UInt8(level), UInt8(level), 0]) }
        let padding = [UInt8](repeating: 0, count: stride - image.width)
        for row in (0..<image.height).reversed() {  // bottom-up
            data.append(contentsOf: image.pixels[(row * image.width)..<((row + 1) * image.width)])
            data.append(contentsOf: padding)
        }
        return data
    }
}
