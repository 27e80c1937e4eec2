import Foundation
import Processes

/// The old name of `RunningProcess` (import Processes), kept while files written before it
/// (Tests/AirPlayTests/ReceiverServer.swift) move over.
@available(*, deprecated, renamed: "RunningProcess")
public typealias ChildProcess = RunningProcess

extension RunningProcess {
    @available(*, deprecated, message: "use RunningProcess(path, arguments, environment:) (import Processes)")
    public convenience init(executable: URL, arguments: [String], environment: [String: String]? = nil) throws {
        try self.init(executable.path, arguments, environment: environment)
    }
}
