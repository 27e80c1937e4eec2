import Foundation

/// " (did you mean 'x'?)" for a near miss in a profile, inventory or matrix file.
public enum Suggestion {
    public static func text(for word: String, in candidates: some Collection<String>) -> String {
        guard let best = best(for: word, in: candidates) else { return "" }
        return " (did you mean '\(best)'?)"
    }

    /// The candidate nearest to `word`, when it is near enough to be a typo of it.
    public static func best(for word: String, in candidates: some Collection<String>) -> String? {
        let best = candidates.min { distance(word, $0) < distance(word, $1) }
        guard let best, distance(word, best) <= max(2, word.count / 4) else { return nil }
        return best
    }

    /// Levenshtein distance, case-insensitive (a wrongly capitalised key is a near miss).
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a.lowercased()), b = Array(b.lowercased())
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var row = Array(0...b.count)
        for i in 1...a.count {
            var previous = row[0]
            row[0] = i
            for j in 1...b.count {
                let current = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = current
            }
        }
        return row[b.count]
    }
}
