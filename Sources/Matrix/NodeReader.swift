import Compatibility
import Foundation
import Yams

/// Typed access to a composed YAML tree, each failure a `MatrixSpecError` naming the field.
struct NodeReader {
    let file: String

    func invalid(_ field: String, _ problem: String) -> MatrixSpecError {
        .invalid(file: file, field: field, problem: problem)
    }

    func checkKeys(_ map: Node.Mapping, allowed: [String], prefix: String) throws(MatrixSpecError) {
        for key in map.keys {
            guard let name = key.string else { throw invalid(prefix + "(key)", "keys must be strings") }
            guard allowed.contains(name) else {
                throw invalid(prefix + name, "unknown key\(Suggestion.text(for: name, in: allowed)); allowed: \(allowed.joined(separator: ", "))")
            }
        }
    }

    func mapping(_ node: Node, field: String) throws(MatrixSpecError) -> Node.Mapping {
        guard let map = node.mapping else { throw invalid(field, "expected a mapping") }
        return map
    }

    func sequence(_ node: Node, field: String) throws(MatrixSpecError) -> [Node] {
        guard let list = node.sequence else { throw invalid(field, "expected a list") }
        return Array(list)
    }

    /// A scalar's text as written (so `1.10` stays "1.10" and an all-digit id stays a string).
    func string(_ node: Node, field: String) throws(MatrixSpecError) -> String {
        guard let scalar = node.scalar else { throw invalid(field, "expected a string") }
        let text = scalar.string.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty, !(scalar.style == .plain && text == "~") else { throw invalid(field, "expected a non-empty string") }
        return text
    }

    func requiredString(_ map: Node.Mapping, _ key: String, prefix: String) throws(MatrixSpecError) -> String {
        guard let node = map[key] else { throw invalid(prefix + key, "required key is missing") }
        return try string(node, field: prefix + key)
    }

    func optionalString(_ map: Node.Mapping, _ key: String, prefix: String) throws(MatrixSpecError) -> String? {
        guard let node = map[key] else { return nil }
        return try string(node, field: prefix + key)
    }

    func optionalNumber(_ map: Node.Mapping, _ key: String, prefix: String) throws(MatrixSpecError) -> Double? {
        guard let node = map[key] else { return nil }
        let text = try string(node, field: prefix + key)
        guard let value = Double(text), value.isFinite else { throw invalid(prefix + key, "expected a number, found '\(text)'") }
        return value
    }
}
