import Foundation

/// Writes a finished document to stdout or to `--output`, never half of one.
enum Output {
    static func write(_ text: String, to path: String?) throws(CLIFailure) {
        guard let path else {
            FileHandle.standardOutput.write(Data(text.utf8))
            return
        }
        let url = URL(fileURLWithPath: path)
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url, options: .atomic)
        } catch {
            throw CLIFailure.input("\(path): cannot write the report (\(error.localizedDescription)); check the directory exists and is writable")
        }
    }
}
