import Foundation
@testable import HLS
import XCTest

/// `HLSNumber.format` and `HLSDate.format` (the messages' numbers and dates) give the bytes the
/// `String(format:)` versions gave, on edges and on many random values.
final class HLSNumberFormatTests: XCTestCase {
    private func formerNumber(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        var text = String(format: "%.3f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    private func formerDate(_ seconds: Double) -> String {
        let millis = Int64((seconds * 1000).rounded())
        let days = Int((millis >= 0 ? millis / 86_400_000 : -((-millis + 86_400_000 - 1) / 86_400_000)))
        let msOfDay = Int(millis - Int64(days) * 86_400_000)
        // Foundation's Gregorian calendar (Julian before 1582: the samples start in 1600).
        let calendar = Calendar(identifier: .gregorian)
        let day = calendar.dateComponents(in: TimeZone(identifier: "UTC")!, from: Date(timeIntervalSince1970: Double(days) * 86400))
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", day.year!, day.month!, day.day!, msOfDay / 3_600_000,
                      msOfDay / 60000 % 60, msOfDay / 1000 % 60, msOfDay % 1000)
    }

    func testNumbersAreWhatStringFormatGave() {
        var values: [Double] = [0, -0.0, 0.1, 0.0005, 0.0015, 0.0025, 1.0005, 2.002, 6.006, 1e-7, -1e-7, 0.9995, 0.9994999,
                                999_999_999_999_999.5, 1e15, 1e15 + 0.5, 1e16, 1e300, -1e300, .greatestFiniteMagnitude,
                                .leastNonzeroMagnitude, -2.5, 200.2, 123456.789, .nan, .infinity, -.infinity]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            values.append(Double.random(in: -1e6...1e6, using: &generator))
            values.append(Double(Int.random(in: -100_000...100_000, using: &generator)) / 1000 + 0.0005)
            values.append(Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &generator)))
            // Up to and past 1e12, where format stops working in integers, and halves of a thousandth there.
            values.append(Double.random(in: -2e12...2e12, using: &generator))
            values.append(Double(Int.random(in: 0...2_000_000_000_000, using: &generator)) / 1000 + 0.0005)
        }
        for value in values {
            XCTAssertEqual(HLSNumber.format(value), formerNumber(value), "\(value)")
        }
    }

    func testDatesAreWhatStringFormatGave() {
        var seconds: [Double] = [0, -0.0005, 0.0005, 1_704_067_200.123, 1_704_067_200.9995, -11_676_096_000, 253_402_300_799.999, 951_782_400]
        for _ in 0..<5_000 { seconds.append(Double.random(in: -11_676_096_000..<253_402_300_799)) }
        for value in seconds {
            let date = Date(timeIntervalSince1970: value)  // stored since 2001: not always `value` exactly
            XCTAssertEqual(HLSDate.format(date), formerDate(date.timeIntervalSince1970), "\(value)")
        }
    }
}
