/// A small 8-bit grey picture (full range: 0 black, 255 white), rows packed without padding:
/// what the capture reader hands on for each decoded frame.
public struct GrayImage: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height, "a grey image has width x height pixels")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// Mean level of every `step`-th pixel of every `step`-th row.
    public func meanLevel(step: Int = 4) -> Double {
        var total = 0
        var count = 0
        for y in stride(from: 0, to: height, by: step) {
            let row = y * width
            for x in stride(from: 0, to: width, by: step) {
                total += Int(pixels[row + x])
                count += 1
            }
        }
        return count == 0 ? 0 : Double(total) / Double(count)
    }
}
