import ArgumentParser
import Foundation

/// The checks of numeric and address options, in one wording for every command: a value out of
/// range (NaN, infinity, negative, 0 jobs) is exit 2 naming the option, the range and what was given.
enum OptionChecks {
    /// More concurrent fetches or processes than this is a typo, not a plan.
    static let maxJobs = 1_024

    static func jobs(_ value: Int?, _ name: String = "--jobs") throws {
        try count(value, name, in: 1...maxJobs)
    }

    static func count(_ value: Int?, _ name: String, in range: ClosedRange<Int>) throws {
        guard let value, !range.contains(value) else { return }
        throw ValidationError("\(name) must be \(range.lowerBound) to \(range.upperBound) (given \(value))")
    }

    /// A finite number within `range`, in `unit` ("s", "LU").
    static func number(_ value: Double?, _ name: String, in range: ClosedRange<Double>, unit: String) throws {
        guard let value, !(value.isFinite && range.contains(value)) else { return }
        throw ValidationError("\(name) must be a number from \(format(range.lowerBound)) to \(format(range.upperBound)) \(unit) (given \(value))")
    }

    /// A numeric IPv4 or IPv6 address this host has (or a wildcard), so that a typo is exit 2
    /// with what to give rather than a socket error once the suite is loaded.
    static func bindAddress(_ text: String, _ name: String = "--bind") throws {
        let advice = "give an IP address of this host: 0.0.0.0 (every interface), 127.0.0.1 (this host only), :: or ::1"
        var family: Int32 = AF_INET
        var storage = sockaddr_storage()
        let parsed = withUnsafeMutableBytes(of: &storage) { raw -> Bool in
            let v4 = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self)
            if inet_pton(AF_INET, text, &v4.pointee.sin_addr) == 1 {
                v4.pointee.sin_family = sa_family_t(AF_INET)
                return true
            }
            let v6 = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self)
            if inet_pton(AF_INET6, text, &v6.pointee.sin6_addr) == 1 {
                v6.pointee.sin6_family = sa_family_t(AF_INET6)
                family = AF_INET6
                return true
            }
            return false
        }
        guard parsed else { throw ValidationError("\(name) '\(text)' is not an IP address; \(advice)") }
        // Port 0: is the address one of this host's? (Binding the port itself is the server's job.)
        let socket = Foundation.socket(family, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return }
        defer { close(socket) }
        let length = socklen_t(family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) }
        }
        if bound != 0, errno == EADDRNOTAVAIL {
            throw ValidationError("\(name) \(text) is not an address of this host; \(advice), or one `ip -brief address` lists")
        }
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
