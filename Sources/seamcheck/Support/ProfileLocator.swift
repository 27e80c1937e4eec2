import Compatibility
import Foundation

/// Finds the DeviceProfiles directory: --profiles-dir, then SEAMCHECK_PROFILES_DIR, then
/// ./DeviceProfiles, then PREFIX/share/seamcheck/DeviceProfiles for a binary installed as
/// PREFIX/bin/seamcheck (scripts/install.sh), then the DeviceProfiles folder of the checkout
/// the binary was built in.
enum ProfileLocator {
    static func directory(explicit: String?) throws(CLIFailure) -> String {
        if let explicit { return explicit }
        if let env = ProcessInfo.processInfo.environment["SEAMCHECK_PROFILES_DIR"], !env.isEmpty { return env }
        let cwd = FileManager.default.currentDirectoryPath + "/DeviceProfiles"
        if isDirectory(cwd) { return cwd }
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            dir = URL(fileURLWithPath: exe).deletingLastPathComponent()
        }
        let installed = dir.deletingLastPathComponent().appendingPathComponent("share/seamcheck/DeviceProfiles").path
        if isDirectory(installed) { return installed }
        while dir.path != "/" {
            let candidate = dir.appendingPathComponent("DeviceProfiles").path
            if isDirectory(candidate) { return candidate }
            dir.deleteLastPathComponent()
        }
        throw CLIFailure.input("no DeviceProfiles directory found; pass --profiles-dir DIR or set SEAMCHECK_PROFILES_DIR")
    }

    /// The profiles to use: all of them, or the ones named with --profile (in the order given).
    static func load(explicitDirectory: String?, selecting ids: [String]) throws -> [DeviceProfile] {
        let all = try ProfileLoader.loadDirectory(try directory(explicit: explicitDirectory))
        guard !ids.isEmpty else { return all }
        var chosen: [DeviceProfile] = []
        for id in ids {
            guard let profile = all.first(where: { $0.id == id }) else {
                throw ProfileError.unknownProfile(id, available: all.map(\.id))
            }
            if !chosen.contains(where: { $0.id == id }) { chosen.append(profile) }
        }
        return chosen
    }

    private static func isDirectory(_ path: String) -> Bool {
        var flag: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &flag) && flag.boolValue
    }
}
