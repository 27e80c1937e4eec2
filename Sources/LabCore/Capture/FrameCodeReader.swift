import Foundation
import MediaProbe

/// What one captured frame showed.
public enum FrameReading: Sendable, Equatable {
    /// Frame `frame` of coded stream `stream`.
    case code(stream: Int, frame: Int)
    /// A black picture (no code, mean level near black).
    case black
    /// Neither: no band found, or a band whose check failed (a blend of two frames, a misread).
    case unreadable
}

/// Reads a `LabFrameCode` from grey pictures at any scale, shift or pillarbox: each row is read
/// like a 1-D barcode between the two guards, every bit from its own two halves. A reading is
/// kept only when its check holds on two rows of the band. Holds the row that worked last, so
/// that a steady capture costs two rows a frame; a frame whose band moved costs a scan of all
/// rows (a few hundred microseconds at 480x270).
public struct FrameCodeReader: Sendable {
    public let code: LabFrameCode
    /// Mean level below which a picture without a code counts as black.
    public var blackLevel: Double = 24
    private var lastRow: Int?

    public init(code: LabFrameCode) {
        self.code = code
    }

    public mutating func read(_ image: GrayImage) -> FrameReading {
        var rows: [Int] = []
        if let lastRow, lastRow < image.height { rows.append(lastRow) }
        rows += Array(stride(from: 1, to: image.height, by: 2))
        for row in rows {
            guard let found = readRow(image, row) else { continue }
            // A second row of the band must agree: a misread passes a check 1 time in 2^checkBits.
            let step = max(2, Int(found.module / 2))
            let confirmed = [row + step, row - step].contains { other in
                other >= 0 && other < image.height && readRow(image, other)?.word == found.word
            }
            guard confirmed, let decoded = code.decode(word: found.word) else { continue }
            lastRow = row
            return .code(stream: decoded.stream, frame: decoded.frame)
        }
        return image.meanLevel() < blackLevel ? .black : .unreadable
    }

    /// The word of the band crossing `row`, if a band with a sure reading of every bit crosses it.
    func readRow(_ image: GrayImage, _ row: Int) -> (word: Int, module: Double)? {
        let base = row * image.width
        let runs = Self.runs(image.pixels, from: base, count: image.width)
        let guardModules = Double(code.startGuard.prefix { $0 == "1" }.count)
        let endModules = Double(code.endGuard.reversed().prefix { $0 == "1" }.count)
        let bandModules = Double(code.bandModules)
        for (i, start) in runs.enumerated() where start.white && start.length >= 3 && i > 0 {
            let module = Double(start.length) / guardModules
            // The quiet zone before the start guard.
            guard Double(runs[i - 1].length) >= module * 1.2 else { continue }
            let expectedEnd = Double(start.start) + bandModules * module
            for j in (i + 1)..<runs.count {
                let end = runs[j]
                let endEdge = Double(end.start + end.length)
                if endEdge > expectedEnd * 1.0 + bandModules * module * 0.2 { break }
                guard end.white, endEdge >= Double(start.start) + bandModules * module * 0.8 else { continue }
                let measured = (endEdge - Double(start.start)) / bandModules
                guard abs(Double(end.length) / endModules - measured) <= measured * 0.45,
                      abs(Double(start.length) / guardModules - measured) <= measured * 0.45,
                      let word = readWord(image.pixels, base: base, width: image.width, left: Double(start.start), module: measured)
                else { continue }
                return (word, measured)
            }
        }
        return nil
    }

    /// Bits between the guards: the mean of each half's middle, compared; nil if any bit is unsure.
    private func readWord(_ pixels: [UInt8], base: Int, width: Int, left: Double, module: Double) -> Int? {
        let guardCount = code.startGuard.count
        let white = mean(pixels, base: base, width: width, center: left + module * 0.5 * Double(code.startGuard.prefix { $0 == "1" }.count),
                         half: module * 0.5)
        let black = mean(pixels, base: base, width: width, center: left + (Double(guardCount) - 0.5) * module, half: module * 0.25)
        let contrast = white - black
        guard contrast > 40 else { return nil }
        var word = 0
        for bit in 0..<code.wordBits {
            let first = left + (Double(guardCount + 2 * bit) + 0.5) * module
            let a = mean(pixels, base: base, width: width, center: first, half: module * 0.25)
            let b = mean(pixels, base: base, width: width, center: first + module, half: module * 0.25)
            guard abs(a - b) >= contrast * 0.3 else { return nil }
            word = word << 1 | (a > b ? 1 : 0)
        }
        return word
    }

    private func mean(_ pixels: [UInt8], base: Int, width: Int, center: Double, half: Double) -> Double {
        let from = min(width - 1, max(0, Int((center - half).rounded())))
        let to = min(width - 1, max(from, Int((center + half).rounded()) - 1))
        var total = 0
        for x in from...to { total += Int(pixels[base + x]) }
        return Double(total) / Double(to - from + 1)
    }

    struct Run {
        var white: Bool
        var start: Int
        var length: Int
    }

    /// Runs of dark and light pixels of one row, split at mid-grey.
    static func runs(_ pixels: [UInt8], from base: Int, count: Int) -> [Run] {
        var runs: [Run] = []
        runs.reserveCapacity(64)
        var current = Run(white: pixels[base] >= 128, start: 0, length: 0)
        for x in 0..<count {
            let white = pixels[base + x] >= 128
            if white == current.white {
                current.length += 1
            } else {
                runs.append(current)
                current = Run(white: white, start: x, length: 1)
            }
        }
        runs.append(current)
        return runs
    }
}
