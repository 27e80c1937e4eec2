import Foundation

/// The bytes of one playlist body, kept by the parsed values that are made text only when read:
/// a segment's URI (`lint` of a 50,000-segment playlist made 50,000 `String`s and read none).
final class PlaylistText: Sendable {
    let data: Data

    init(_ data: Data) { self.data = data }

    /// A range of a body's bytes; as a `String`, what `String(decoding:as: UTF8.self)` of the
    /// bytes gives (invalid UTF-8 repaired), each time it is read.
    struct Slice: Sendable, Equatable {
        private let text: PlaylistText
        private let start: Int32
        private let count: Int32

        /// nil when the range does not fit the compact form (a body over 2 GiB).
        init?(_ text: PlaylistText, start: Int, count: Int) {
            guard start >= 0, count >= 0, start <= Int(Int32.max), count <= Int(Int32.max) else { return nil }
            self.text = text
            self.start = Int32(start)
            self.count = Int32(count)
        }

        /// A string of its own (a URI given, substituted or decoded rather than parsed).
        init(_ string: String) {
            let data = Data(string.utf8)
            text = PlaylistText(data)
            start = 0
            count = Int32(clamping: data.count)
        }

        var string: String {
            text.data.withUnsafeBytes { raw in
                String(decoding: UnsafeRawBufferPointer(rebasing: raw[Int(start)..<(Int(start) + Int(count))]), as: UTF8.self)
            }
        }

        /// Equal as the strings are (`String`'s equality), the same range of the same body at once.
        static func == (lhs: Slice, rhs: Slice) -> Bool {
            (lhs.text === rhs.text && lhs.start == rhs.start && lhs.count == rhs.count) || lhs.string == rhs.string
        }
    }
}
