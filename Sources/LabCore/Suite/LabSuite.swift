import Foundation
import HLS

/// Why a suite folder cannot be used.
public enum LabSuiteError: Error, Sendable, Equatable, CustomStringConvertible {
    case missingManifest(folder: String)
    case unreadableManifest(path: String, reason: String)
    case unsupportedSchema(path: String, version: Int)
    case generationFailed(caseId: String, step: String, reason: String)
    case unknownCase(String, suggestion: String?, known: [String])
    case toolMissing(tool: String, hint: String)
    case cannotWrite(path: String, reason: String)

    public var description: String {
        switch self {
        case .missingManifest(let folder):
            return "\(folder): no \(LabManifest.fileName); generate the suite first with `seamcheck lab streams --output \(folder)`"
        case .unreadableManifest(let path, let reason):
            return "\(path): not a lab manifest (\(reason)); regenerate it with `seamcheck lab streams`"
        case .unsupportedSchema(let path, let version):
            return "\(path): schemaVersion \(version) is not supported (this seamcheck reads \(LabManifest.currentSchemaVersion)); regenerate the suite"
        case .generationFailed(let caseId, let step, let reason):
            return "lab case \(caseId): \(step) failed: \(reason)"
        case .unknownCase(let id, let suggestion, let known):
            let hint = suggestion.map { " (did you mean '\($0)'?)" } ?? ""
            return "no lab case '\(id)'\(hint); cases: \(known.joined(separator: ", "))"
        case .toolMissing(let tool, let hint):
            return "'\(tool)' is not installed: \(hint)"
        case .cannotWrite(let path, let reason):
            return "\(path): cannot write (\(reason)); check the folder exists and is writable"
        }
    }
}

/// A generated suite on disk: its folder and manifest.
public struct LabSuite: Sendable {
    /// The suite folder, absolute and with symbolic links resolved: the server's root.
    public let root: String
    public let manifest: LabManifest

    public init(root: String, manifest: LabManifest) {
        self.root = root
        self.manifest = manifest
    }

    /// Reads `folder/lab.json` (at most `LabManifest.maxBytes`).
    public static func load(_ folder: String) throws(LabSuiteError) -> LabSuite {
        let path = (folder as NSString).appendingPathComponent(LabManifest.fileName)
        let data: Data
        do { data = Data(try TextFile.read(path, limit: LabManifest.maxBytes).utf8) } catch {
            if error.problem == .notFound { throw .missingManifest(folder: folder) }
            throw .unreadableManifest(path: path, reason: error.reason)
        }
        let manifest: LabManifest
        do { manifest = try JSONDecoder().decode(LabManifest.self, from: data) } catch {
            throw .unreadableManifest(path: path, reason: BoundedText.clip(String(describing: error)))
        }
        guard manifest.schemaVersion == LabManifest.currentSchemaVersion else {
            throw .unsupportedSchema(path: path, version: manifest.schemaVersion)
        }
        let root = URL(fileURLWithPath: folder).resolvingSymlinksInPath().standardizedFileURL.path
        return LabSuite(root: root, manifest: manifest)
    }
}
