import Foundation

/// The SARIF 2.1.0 validator of scripts/sarif-validate.py (pydantic-sarif's schema models
/// and the checks they drop), in the venv `scripts/python-venv.sh sarif` makes (or reuses).
public enum SARIFValidator {
    /// The venv's python: `SEAMCHECK_SARIF_PYTHON` (scripts/test.sh sets it), else the script's answer.
    static func python() throws -> String {
        if let python = ProcessInfo.processInfo.environment["SEAMCHECK_SARIF_PYTHON"], !python.isEmpty { return python }
        let made = try Command.run(MediaFixture.packageRoot + "/scripts/python-venv.sh", ["sarif"])
        guard made.status == 0 else { throw CommandError.failed("scripts/python-venv.sh sarif", made) }
        return made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Validates the file at `path`: status 0 and "PATH: valid", or 1 and one line per problem.
    public static func validate(_ path: String) throws -> CommandResult {
        try Command.run(try python(), [MediaFixture.packageRoot + "/scripts/sarif-validate.py", path])
    }

    /// Validates `text`, written to a temporary file.
    public static func validate(text: String) throws -> CommandResult {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("seamcheck-\(UUID().uuidString).sarif").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try validate(path)
    }
}
