import Foundation
import Processes

/// The result of running a program to completion.
public typealias CommandResult = ProcessResult

public enum CommandError: Error, CustomStringConvertible {
    case notFound(String)
    case failed(String, CommandResult)
    /// A helper server the test starts did not say it was ready: what it printed is in the text.
    case didNotStart(String)

    public var description: String {
        switch self {
        case .notFound(let name): return "\(name): not found on PATH"
        case .failed(let command, let result): return "\(command) exited \(result.status): \(result.stderr)"
        case .didNotStart(let what): return what
        }
    }
}

/// Runs programs for tests (the built seamcheck binary, ffmpeg, ffprobe, curl) with the
/// product's runner, `ProcessRunner`: a name is looked up on PATH, `environment` is added to
/// this process's, and a child still running after `timeout` seconds is SIGKILLed, so that a
/// regression that hangs fails its test instead of running into CI's own limit.
public enum Command {
    @discardableResult
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                           currentDirectory: URL? = nil, timeout: Double = 300) throws -> CommandResult {
        guard let path = ToolPath.find(executable) else { throw CommandError.notFound(executable) }
        let child = try RunningProcess(path, arguments,
                                       environment: environment.map { ProcessInfo.processInfo.environment.merging($0) { _, new in new } },
                                       directory: currentDirectory?.path)
        return child.result(timeout: timeout)
    }
}
