import Foundation

/// Where `lab serve` writes the verdict token when `--token-file` is not given: beside a SQLite
/// database (`Reports/seamcheck.sqlite.lab-token`), and for a PostgreSQL database, which has no
/// folder of its own, in the user's state folder (`$XDG_STATE_HOME/seamcheck`, else
/// `~/.local/state/seamcheck`, made 0700), so that the server starts from any working folder.
enum LabTokenPath {
    static let fileName = "seamcheck.lab-token"

    /// The path, and the folder to create first (nil beside a SQLite database).
    static func resolve(given: String?, databasePath: String, isPostgres: Bool,
                        environment: [String: String] = ProcessInfo.processInfo.environment) -> (path: String, folder: String?) {
        if let given { return (given, nil) }
        guard isPostgres else { return (databasePath + ".lab-token", nil) }
        let folder = stateFolder(environment)
        return ((folder as NSString).appendingPathComponent(fileName), folder)
    }

    /// `$XDG_STATE_HOME/seamcheck` when that is an absolute path (the XDG Base Directory rule:
    /// a relative one is ignored), else `$HOME/.local/state/seamcheck`.
    static func stateFolder(_ environment: [String: String]) -> String {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            return (state as NSString).appendingPathComponent("seamcheck")
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return (home as NSString).appendingPathComponent(".local/state/seamcheck")
    }

    /// Makes the state folder (readable by the user only); a failure names the folder and the fix.
    static func prepare(_ folder: String?) throws {
        guard let folder else { return }
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw CLIFailure.input("cannot create \(folder) for the lab token (\(error.localizedDescription)); choose a writable place with --token-file")
        }
    }
}
