import Foundation

/// Property-list bodies, binary (`application/x-apple-binary-plist`) or XML
/// (`text/x-apple-plist+xml`, as Kodi answers), through Foundation. `Any` never leaves this
/// module: callers turn a dictionary into a value type at once.
enum PropertyList {
    static let binaryContentType = "application/x-apple-binary-plist"

    /// A binary plist of `dictionary` (strings, numbers, booleans, data, arrays, dictionaries).
    static func binary(_ dictionary: [String: Any]) -> Data {
        // Only fails for values that are not plist types, which callers never pass.
        (try? PropertyListSerialization.data(fromPropertyList: dictionary, format: .binary, options: 0)) ?? Data()
    }

    static func xml(_ dictionary: [String: Any]) -> Data {
        (try? PropertyListSerialization.data(fromPropertyList: dictionary, format: .xml, options: 0)) ?? Data()
    }

    /// The top-level dictionary of a binary or XML plist; the reason otherwise.
    static func dictionary(from data: Data) -> Result<[String: Any], PlistReadError> {
        let object: Any
        do {
            object = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            let head = String(decoding: data.prefix(24), as: UTF8.self).filter { !$0.isNewline }
            return .failure(PlistReadError(reason: "not a property list (\(data.count) bytes starting '\(head)')"))
        }
        guard let dictionary = object as? [String: Any] else {
            return .failure(PlistReadError(reason: "a property list whose top level is \(type(of: object)), not a dictionary"))
        }
        return .success(dictionary)
    }

    /// A number as Double: NSNumber, integer, or a numeric string ("12.5").
    static func double(_ value: Any?) -> Double? {
        switch value {
        case let number as Double: return number.isFinite ? number : nil
        case let number as Int: return Double(number)
        case let number as NSNumber: return number.doubleValue.isFinite ? number.doubleValue : nil
        case let text as String: return Double(text.trimmingCharacters(in: .whitespaces)).flatMap { $0.isFinite ? $0 : nil }
        default: return nil
        }
    }

    /// An integer, also from a real with no fraction, a decimal string or a "0x" hex string.
    static func int(_ value: Any?) -> Int? {
        switch value {
        case let text as String:
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if trimmed.lowercased().hasPrefix("0x") { return Int(trimmed.dropFirst(2), radix: 16) }
            return Int(trimmed)
        default:
            guard let number = double(value), number.rounded() == number, abs(number) < 9.0e18 else { return nil }
            return Int(number)
        }
    }

    /// A boolean from `<true/>`, an NSNumber 0/1, or "true"/"false"/"1"/"0".
    static func bool(_ value: Any?) -> Bool? {
        switch value {
        case let flag as Bool: return flag
        case let number as NSNumber: return number.doubleValue != 0
        case let text as String:
            switch text.lowercased() {
            case "true", "yes", "1": return true
            case "false", "no", "0": return false
            default: return nil
            }
        default: return nil
        }
    }

    static func string(_ value: Any?) -> String? {
        switch value {
        case let text as String: return text
        case let number as NSNumber: return number.stringValue
        default: return nil
        }
    }
}

struct PlistReadError: Error, Equatable {
    var reason: String
}
