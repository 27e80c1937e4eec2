import Foundation
import Processes
import XCTest

/// What tests need from the machine: tools scripts/setup-deps.sh installs, and services
/// scripts/services.sh starts (avahi, Kodi, UxPlay, PostgreSQL, Chromium). Missing, a test skips;
/// with SEAMCHECK_REQUIRE_SERVICES=1 (CI, scripts/test.sh) it fails, so that a broken install step
/// cannot pass as a skip. SEAMCHECK_REQUIRE_AVAHI=1, its old name, still works.
public enum TestEnvironment {
    public static let variable = "SEAMCHECK_REQUIRE_SERVICES"
    /// The variable's old name, from when avahi was the only service.
    public static let oldVariable = "SEAMCHECK_REQUIRE_AVAHI"

    public static var required: Bool {
        let environment = ProcessInfo.processInfo.environment
        return environment[variable] == "1" || environment[oldVariable] == "1"
    }

    /// `tool`'s path (a name looked up with `ToolPath.find`, or an absolute path that must be
    /// executable), or a skip (a failure when required) that names `installedBy`.
    public static func require(_ tool: String, installedBy: String = "scripts/setup-deps.sh") throws -> String {
        guard let path = ToolPath.find(tool) else { throw missing("\(tool) is not installed (run \(installedBy))") }
        return path
    }

    /// A skip, or with SEAMCHECK_REQUIRE_SERVICES=1 a failure, saying what is missing and how to get it.
    public static func missing(_ message: String) -> Error {
        required ? Missing(message: message) : XCTSkip(message)
    }

    public struct Missing: Error, CustomStringConvertible {
        public let message: String
        public var description: String { "SEAMCHECK_REQUIRE_SERVICES=1 but \(message)" }
    }
}
