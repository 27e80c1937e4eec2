import Foundation

/// Where a tool is: the one PATH lookup of Seamcheck and its tests.
public enum ToolPath {
    /// Folders searched after PATH: avahi and D-Bus tools live in sbin, which a user's PATH may lack.
    public static let fallbackFolders = ["/usr/sbin", "/sbin", "/usr/bin", "/bin"]

    /// `name`'s executable on PATH (then in `fallbackFolders`), or nil. A name with a slash is a
    /// path: itself when it is executable.
    public static func find(_ name: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        let files = FileManager.default
        if name.contains("/") { return files.isExecutableFile(atPath: name) ? name : nil }
        let folders = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init) + fallbackFolders
        return folders.lazy.map { "\($0)/\(name)" }.first { files.isExecutableFile(atPath: $0) }
    }
}
