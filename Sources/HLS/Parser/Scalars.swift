import Foundation

/// Decimal numbers as HLS writes them, parsed straight from UTF-8 bytes.
public enum HLSNumber {
    private static let powersOfTen: [Double] = (0...22).map { pow(10.0, Double($0)) }

    /// A decimal-integer or signed decimal-floating-point (`-12.5`, `6`, `6.006`); nil for anything
    /// else (exponents, hex, spaces). Up to 15 significant digits take an exact fast path
    /// (mantissa and power of ten both exact in a Double), longer ones go through strtod.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        var i = 0
        let n = bytes.count
        guard n > 0 else { return nil }
        var negative = false
        if bytes[0] == UInt8(ascii: "-") { negative = true; i = 1 }
        var mantissa: UInt64 = 0
        var digits = 0
        var fraction = 0
        var sawPoint = false
        var sawDigit = false
        while i < n {
            let c = bytes[i]
            if c >= 48 && c <= 57 {
                sawDigit = true
                if digits < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(c - 48)
                    if mantissa != 0 { digits += 1 }
                    if sawPoint { fraction += 1 }
                } else if !sawPoint {
                    return slowParse(bytes)
                }
            } else if c == UInt8(ascii: ".") && !sawPoint {
                sawPoint = true
            } else {
                return nil
            }
            i += 1
        }
        guard sawDigit else { return nil }
        if digits > 15 || fraction > 22 { return slowParse(bytes) }
        let value = Double(mantissa) / powersOfTen[fraction]
        return negative ? -value : value
    }

    /// Long numbers: still only `-`, digits and one `.` (strtod alone would take exponents,
    /// `inf` and hex), and only finite values.
    private static func slowParse(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        var points = 0
        for (index, c) in bytes.enumerated() {
            if c == UInt8(ascii: ".") { points += 1; continue }
            if c == UInt8(ascii: "-"), index == 0 { continue }
            guard c >= 48 && c <= 57 else { return nil }
        }
        guard points <= 1, let value = Double(String(decoding: bytes, as: UTF8.self)), value.isFinite else { return nil }
        return value
    }

    public static func parse(_ text: String) -> Double? {
        var copy = text
        return copy.withUTF8 { parse($0) }
    }

    /// A non-negative decimal-integer that fits in an Int.
    static func parseInteger(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard !bytes.isEmpty, bytes.count <= 18 else {
            return bytes.isEmpty ? nil : Int(String(decoding: bytes, as: UTF8.self))
        }
        var value = 0
        for c in bytes {
            guard c >= 48 && c <= 57 else { return nil }
            value = value * 10 + Int(c - 48)
        }
        return value
    }

    /// Seconds for people and messages: `15`, `6.006`, `-2.5`.
    /// The one place numbers in messages are formatted (the boundary rule writes eight per break).
    public static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        guard value.isFinite else { return trimmed(String(format: "%.3f", value)) }
        if let text = thousandths(value) { return text }
        // `%.3f` from the C library, as String(format:) gives it (exact decimal rounding), without
        // Foundation's format parser; HLSNumberFormatTests compares the two.
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 352) { buffer in
            let written = withVaList([value]) { vsnprintf(buffer.baseAddress, buffer.count, "%.3f", $0) }
            var end = Int(min(max(written, 0), Int32(buffer.count - 1)))
            while end > 0, buffer[end - 1] == 0x30 { end -= 1 }
            if end > 0, buffer[end - 1] == 0x2E { end -= 1 }
            return String(decoding: UnsafeRawBufferPointer(start: buffer.baseAddress, count: end), as: UTF8.self)
        }
    }

    /// `%.3f` trimmed, worked out in integers when the product by 1,000 cannot round to the
    /// other side of a half (what the C library's exact rounding would decide); nil otherwise.
    /// The C call cost a microsecond a number, and its first `CVarArg` lookup a scan of the
    /// binary's conformances (issue 36).
    private static func thousandths(_ value: Double) -> String? {
        let magnitude = abs(value)
        guard magnitude < 1e12 else { return nil }
        let scaled = magnitude * 1000
        let whole = scaled.rounded(.down)
        // The exact product is within half an ulp of `scaled`: more than an ulp from the half, it rounds the same way.
        guard abs(scaled - whole - 0.5) > 2 * scaled.ulp else { return nil }
        var units = UInt64(whole) + (scaled - whole > 0.5 ? 1 : 0)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        if value < 0 { bytes.append(0x2D) }
        var fraction = Int(units % 1000)
        units /= 1000
        var digits: [UInt8] = []
        repeat { digits.append(UInt8(48 + units % 10)); units /= 10 } while units > 0
        bytes.append(contentsOf: digits.reversed())
        if fraction > 0 {
            bytes.append(0x2E)
            var width = 3
            while fraction % 10 == 0 { fraction /= 10; width -= 1 }
            var divisor = 1
            for _ in 1..<width { divisor *= 10 }
            while divisor > 0 { bytes.append(UInt8(48 + fraction / divisor % 10)); divisor /= 10 }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func trimmed(_ formatted: String) -> String {
        var text = formatted
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}

/// ISO 8601 dates of EXT-X-PROGRAM-DATE-TIME and EXT-X-DATERANGE, parsed without a formatter.
///
/// Accepts `YYYY-MM-DDThh:mm:ss[.fraction](Z|±hh:mm|±hhmm|±hh)`, with fractions of any length,
/// a space or lowercase `t` for `T` and lowercase `z`. `parse` refuses a missing time zone (the
/// spec requires one); `parseAssumingUTC` reads it as UTC, as players (Media3) do, and says so.
public enum HLSDate {
    public static func parse(_ text: String) -> Date? {
        guard let read = parseAssumingUTC(text), read.hasTimeZone else { return nil }
        return read.date
    }

    /// The date, read as UTC when it has no time zone; `hasTimeZone` tells which.
    public static func parseAssumingUTC(_ text: String) -> (date: Date, hasTimeZone: Bool)? {
        var copy = text
        return copy.withUTF8 { parseAssumingUTC($0) }
    }

    static func parse(_ b: UnsafeBufferPointer<UInt8>) -> Date? {
        guard let read = parseAssumingUTC(b), read.hasTimeZone else { return nil }
        return read.date
    }

    static func parseAssumingUTC(_ b: UnsafeBufferPointer<UInt8>) -> (date: Date, hasTimeZone: Bool)? {
        let n = b.count
        guard n >= 19 else { return nil }
        func digits(_ at: Int, _ count: Int) -> Int? {
            guard at + count <= n else { return nil }
            var v = 0
            for k in at..<(at + count) {
                let c = b[k]
                guard c >= 48 && c <= 57 else { return nil }
                v = v * 10 + Int(c - 48)
            }
            return v
        }
        guard let year = digits(0, 4), b[4] == UInt8(ascii: "-"), let month = digits(5, 2), b[7] == UInt8(ascii: "-"),
              let day = digits(8, 2), b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: "t") || b[10] == UInt8(ascii: " "),
              let hour = digits(11, 2), b[13] == UInt8(ascii: ":"), let minute = digits(14, 2), b[16] == UInt8(ascii: ":"),
              let second = digits(17, 2),
              (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year), hour < 24, minute < 60, second <= 60
        else { return nil }
        var i = 19
        var fraction = 0.0
        if i < n, b[i] == UInt8(ascii: ".") || b[i] == UInt8(ascii: ",") {
            i += 1
            // Up to 15 digits as one integer (exact); further digits are below a femtosecond.
            var digitsValue: UInt64 = 0
            var scale = 1.0
            let start = i
            while i < n, b[i] >= 48, b[i] <= 57 {
                if i - start < 15 {
                    digitsValue = digitsValue * 10 + UInt64(b[i] - 48)
                    scale *= 10
                }
                i += 1
            }
            guard i > start else { return nil }
            fraction = Double(digitsValue) / scale
        }
        var offsetSeconds = 0
        var hasTimeZone = true
        let zone: UInt8 = i < n ? b[i] : 0
        if i == n {
            hasTimeZone = false
        } else if zone == UInt8(ascii: "Z") || zone == UInt8(ascii: "z") {
            i += 1
        } else if zone == UInt8(ascii: "+") || zone == UInt8(ascii: "-") {
            guard let hh = digits(i + 1, 2) else { return nil }
            i += 3
            var mm = 0
            if i < n, b[i] == UInt8(ascii: ":") {
                guard let m = digits(i + 1, 2) else { return nil }
                mm = m
                i += 3
            } else if i + 2 <= n, let m = digits(i, 2) {
                mm = m
                i += 2
            }
            guard hh < 24, mm < 60 else { return nil }
            offsetSeconds = (hh * 3600 + mm * 60) * (zone == UInt8(ascii: "-") ? -1 : 1)
        } else {
            return nil
        }
        guard i == n else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = Double(days * 86400 + hour * 3600 + minute * 60 + second - offsetSeconds) + fraction
        return (Date(timeIntervalSince1970: seconds), hasTimeZone)
    }

    /// Days since 1970-01-01 (Howard Hinnant's days_from_civil).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// `2020-01-02T21:55:44.000Z`: UTC with milliseconds, as reports print dates.
    public static func format(_ date: Date) -> String {
        // Years 1 to 9999; a date a hostile playlist pushed beyond (EXTINF:999999999999999
        // before the first PROGRAM-DATE-TIME) is written as seconds, not trapped on.
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite, seconds >= -62_135_596_800, seconds < 253_402_300_800 else {
            return "\(HLSNumber.format(seconds)) s from 1970-01-01T00:00:00Z"
        }
        let millis = Int64((seconds * 1000).rounded())
        let days = Int(floorDiv(millis, 86_400_000))
        let msOfDay = Int(millis - Int64(days) * 86_400_000)
        let (y, m, d) = civil(fromDays: days)
        // What `%04d-%02d-%02dT%02d:%02d:%02d.%03dZ` gives, digit by digit (a report writes one per break).
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        func digits(_ value: Int, _ width: Int) {
            var divisor = 1
            for _ in 1..<width { divisor *= 10 }
            while divisor > 0 { bytes.append(UInt8(48 + value / divisor % 10)); divisor /= 10 }
        }
        digits(y, 4); bytes.append(0x2D); digits(m, 2); bytes.append(0x2D); digits(d, 2); bytes.append(0x54)
        digits(msOfDay / 3_600_000, 2); bytes.append(0x3A); digits(msOfDay / 60000 % 60, 2); bytes.append(0x3A)
        digits(msOfDay / 1000 % 60, 2); bytes.append(0x2E); digits(msOfDay % 1000, 3); bytes.append(0x5A)
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }

    private static func civil(fromDays z0: Int) -> (Int, Int, Int) {
        let z = z0 + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}

/// Recognises what a body is before parsing it as a playlist or JSON.
public enum PlaylistSniffer {
    /// An HTML page: `<!DOCTYPE html`, `<html`, `<head` or `<body` after optional BOM and whitespace.
    public static func looksLikeHTML(_ data: Data) -> Bool {
        var start = data.startIndex
        if data.starts(with: [0xEF, 0xBB, 0xBF]) { start += 3 }
        while start < data.endIndex, [0x20, 0x09, 0x0A, 0x0D].contains(data[start]) { start += 1 }
        let head = String(decoding: data[start..<min(data.endIndex, start + 64)], as: UTF8.self).lowercased()
        return ["<!doctype html", "<html", "<head", "<body", "<!--"].contains { head.hasPrefix($0) }
    }
}
