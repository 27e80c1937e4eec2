import Foundation

/// Edits MP4 boxes of generated fixtures, for media the ffmpeg command cannot make here.
enum ISOBMFFPatcher {
    struct PatchError: Error, CustomStringConvertible {
        var description: String
    }

    /// Renames the first hvc1/hev1 sample entry to dvh1/dvhe and appends a dvcC box to it.
    /// Needs moov after mdat (ffmpeg's default) or no mdat at all (an fMP4 init section), so
    /// that no chunk offset moves.
    static func markDolbyVision(path: String, profile: Int, level: Int, compatibilityId: Int) throws {
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        let containers: Set<String> = ["moov", "trak", "mdia", "minf", "stbl"]
        var chain: [Int] = []   // offsets of the enclosing boxes, outermost first
        guard let entry = findSampleEntry(in: data, range: 0..<data.count, containers: containers, chain: &chain) else {
            throw PatchError(description: "\(path): no hvc1/hev1 sample entry")
        }
        guard let moov = findTopLevel("moov", in: data) else { throw PatchError(description: "\(path): no moov") }
        if let mdat = findTopLevel("mdat", in: data), moov < mdat {
            throw PatchError(description: "\(path): moov must follow mdat for this patch")
        }
        var record = Data([1, 0])  // dv_version_major, dv_version_minor
        let bits = UInt16(profile) << 9 | UInt16(level) << 3 | 1 << 2 | 0 << 1 | 1  // rpu, no el, bl
        record.append(contentsOf: [UInt8(bits >> 8), UInt8(bits & 0xFF), UInt8(compatibilityId << 4)])
        record.append(Data(count: 24 - record.count))
        var box = Data()
        box.append(contentsOf: be32(UInt32(8 + record.count)))
        box.append(contentsOf: Array("dvcC".utf8))
        box.append(record)

        let entryType = String(decoding: data[entry + 4..<entry + 8], as: UTF8.self)
        data.replaceSubrange(entry + 4..<entry + 8, with: Array((entryType == "hev1" ? "dvhe" : "dvh1").utf8))
        let entrySize = Int(readBE32(data, entry))
        data.insert(contentsOf: box, at: entry + entrySize)
        for offset in chain + [entry] {
            let size = readBE32(data, offset)
            data.replaceSubrange(offset..<offset + 4, with: be32(size + UInt32(box.count)))
        }
        try data.write(to: URL(fileURLWithPath: path))
    }

    private static func findSampleEntry(in data: Data, range: Range<Int>, containers: Set<String>, chain: inout [Int]) -> Int? {
        var offset = range.lowerBound
        while offset + 8 <= range.upperBound {
            let size = Int(readBE32(data, offset))
            guard size >= 8, offset + size <= range.upperBound else { return nil }
            let type = String(decoding: data[offset + 4..<offset + 8], as: UTF8.self)
            if containers.contains(type) {
                chain.append(offset)
                if let found = findSampleEntry(in: data, range: offset + 8..<offset + size, containers: containers, chain: &chain) {
                    return found
                }
                chain.removeLast()
            } else if type == "stsd" {
                // full box header (4) + entry count (4), then sample entries
                let first = offset + 16
                let entryType = String(decoding: data[first + 4..<first + 8], as: UTF8.self)
                if entryType == "hvc1" || entryType == "hev1" {
                    chain.append(offset)
                    return first
                }
            }
            offset += size
        }
        return nil
    }

    private static func findTopLevel(_ type: String, in data: Data) -> Int? {
        var offset = 0
        while offset + 8 <= data.count {
            let size = Int(readBE32(data, offset))
            if String(decoding: data[offset + 4..<offset + 8], as: UTF8.self) == type { return offset }
            guard size >= 8 else { return nil }
            offset += size
        }
        return nil
    }

    private static func readBE32(_ data: Data, _ offset: Int) -> UInt32 {
        data[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    private static func be32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}
