import Foundation

/// The built `seamcheck` executable, run as a user would.
public enum SeamcheckBinary {
    /// `.build/<config>/seamcheck`: next to the test bundle on Linux.
    public static var path: String {
        if let custom = ProcessInfo.processInfo.environment["SEAMCHECK_BINARY"] { return custom }
        #if os(macOS)
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            return bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("seamcheck").path
        }
        #endif
        return Bundle.main.bundleURL.appendingPathComponent("seamcheck").path
    }

    @discardableResult
    public static func run(_ arguments: [String], environment: [String: String] = [:],
                           currentDirectory: URL? = nil) throws -> CommandResult {
        try Command.run(path, arguments, environment: ["NO_COLOR": "1"].merging(environment) { _, new in new },
                        currentDirectory: currentDirectory ?? URL(fileURLWithPath: MediaFixture.packageRoot))
    }
}
