import Foundation

/// A request path as it came (before `?`), percent-decoded and with its lab case, worked out once
/// per distinct path: receivers poll the same few playlists, the bench the suite's 420. Both are
/// functions of the path's bytes alone, so a kept entry can never go stale; an encoded variant
/// (`%2D` for `-`) is a path of its own, decoded on its own. Bounded: past `capacity` distinct
/// paths the cache starts again (a client asking for ever new paths costs what it did before).
final class DecodedTargets: @unchecked Sendable {
    struct Decoded: Equatable {
        /// The percent-decoded path; nil when it is refused (bad encoding, `..`).
        var decoded: String?
        /// The case the path belongs to, when the suite has it.
        var caseId: String?
    }

    static let capacity = 4_096
    let knownCases: Set<String>
    private let lock = NSLock()
    private var entries: [String: Decoded] = [:]

    init(knownCases: Set<String>) {
        self.knownCases = knownCases
    }

    func decode(_ path: String) -> Decoded {
        if let known = lock.withLock({ entries[path] }) { return known }
        let made = Decoded(decoded: SuiteFiles.requestPath(path),
                           caseId: SuiteFiles.caseId(of: path).flatMap { knownCases.contains($0) ? $0 : nil })
        lock.withLock {
            if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[path] = made
        }
        return made
    }

    var count: Int { lock.withLock { entries.count } }
}
