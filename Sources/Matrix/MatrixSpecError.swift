import HLS

/// Why a matrix file cannot be run. Names the file, the field and the problem.
public enum MatrixSpecError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(file: String, reason: String)
    case invalid(file: String, field: String, problem: String)

    public var description: String {
        switch self {
        case .unreadable(let file, let reason):
            return "\(file): cannot read the matrix file (\(reason))"
        case .invalid(let file, let field, let problem):
            return "\(file): \(BoundedText.clip(field)): \(BoundedText.clip(problem, maxBytes: 2_000))"
        }
    }
}
