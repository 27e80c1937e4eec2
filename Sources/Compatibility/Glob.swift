/// `*` wildcards, nothing else: no character classes, no escapes (`?` is a literal). Used by
/// profile `match` models, matrix expected issues and matrix class patterns.
public enum Glob {
    public static func matches(_ pattern: String, _ text: String, caseInsensitive: Bool = false) -> Bool {
        let pattern = caseInsensitive ? pattern.lowercased() : pattern
        let text = caseInsensitive ? text.lowercased() : text
        guard pattern.contains("*") else { return pattern == text }
        let parts = pattern.split(separator: "*", omittingEmptySubsequences: false).map(String.init)
        var rest = Substring(text)
        guard rest.hasPrefix(parts[0]) else { return false }
        rest = rest.dropFirst(parts[0].count)
        for part in parts.dropFirst().dropLast() where !part.isEmpty {
            guard let range = rest.range(of: part) else { return false }
            rest = rest[range.upperBound...]
        }
        return rest.hasSuffix(parts[parts.count - 1])
    }
}
