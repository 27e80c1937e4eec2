import Foundation
import Logging
import Processes

/// Runs the ffmpeg command for encode jobs, skipping those whose recipe (arguments and ffmpeg
/// version) is unchanged since the folder was made. It cannot tell a folder edited by hand from
/// the one it made: the recipe file is trusted.
struct FFmpegRunner: Sendable {
    let executable: String
    /// ffmpeg's first `-version` line: part of every recipe, so an upgraded ffmpeg re-encodes.
    let version: String
    let logger: Logger

    static let recipeFile = "recipe.txt"
    /// An encode still running after this is killed: a full-scale case takes a few minutes.
    static let encodeTimeout: TimeInterval = 30 * 60

    /// Finds ffmpeg on PATH and the label font, or says which Debian package to install.
    static func locate(logger: Logger) throws(LabSuiteError) -> FFmpegRunner {
        guard let executable = ToolPath.find("ffmpeg") else {
            throw .toolMissing(tool: "ffmpeg", hint: "install Debian's '\(LabTools.ffmpegPackage)' package (scripts/setup-deps.sh does)")
        }
        guard FileManager.default.fileExists(atPath: LabTools.fontPath) else {
            throw .toolMissing(tool: LabTools.fontPath,
                               hint: "install Debian's '\(LabTools.fontPackage)' package (scripts/setup-deps.sh does)")
        }
        let result = ProcessRunner.runAndWait(executable, ["-hide_banner", "-version"], timeout: 30)
        guard result.status == 0, let first = result.stdout.split(separator: "\n").first else {
            throw .toolMissing(tool: executable, hint: "'ffmpeg -version' failed (\(lastLines(result.stderr))); reinstall '\(LabTools.ffmpegPackage)'")
        }
        return FFmpegRunner(executable: executable, version: String(first), logger: logger)
    }

    func recipe(_ job: EncodeJob) -> String {
        ([version, "ffmpeg -nostdin -y"] + job.arguments).joined(separator: "\n") + "\n" + job.inputs
    }

    /// True when the job's folder already holds what its recipe makes.
    func isCached(_ job: EncodeJob, root: String) -> Bool {
        let folder = root + "/" + job.folder
        guard let text = try? String(contentsOfFile: folder + "/" + Self.recipeFile, encoding: .utf8) else { return false }
        return text == recipe(job) && FileManager.default.fileExists(atPath: folder + "/" + EncodeJob.playlist)
    }

    /// Encodes into a scratch folder next to the target, then publishes it (`publish`): a failed or
    /// interrupted run never leaves a half-made folder that looks cached.
    /// Returns false when the folder was cached and nothing ran.
    @discardableResult
    func run(_ job: EncodeJob, root: String) async throws(LabSuiteError) -> Bool {
        if isCached(job, root: root) {
            logger.debug("cached", metadata: ["case": "\(job.caseId)", "folder": "\(job.folder)"])
            return false
        }
        let target = root + "/" + job.folder
        let scratch = target + ".partial-\(ProcessInfo.processInfo.processIdentifier)"
        let fm = FileManager.default
        try? fm.removeItem(atPath: scratch)
        do { try fm.createDirectory(atPath: scratch, withIntermediateDirectories: true) } catch {
            throw .cannotWrite(path: scratch, reason: error.localizedDescription)
        }
        logger.info("encoding", metadata: ["case": "\(job.caseId)", "step": "\(job.step)"])
        let started = Date()
        let result = await ProcessRunner.run(executable, ["-nostdin", "-v", "error", "-y"] + job.arguments, directory: scratch,
                                             timeout: Self.encodeTimeout)
        guard result.status == 0 else {
            try? fm.removeItem(atPath: scratch)
            let killed = result.timedOut ? " (killed after \(Int(Self.encodeTimeout)) s)" : ""
            throw .generationFailed(caseId: job.caseId, step: job.step,
                                    reason: "ffmpeg exited with \(result.status)\(killed): \(Self.lastLines(result.stderr))")
        }
        do { try recipe(job).write(toFile: scratch + "/" + Self.recipeFile, atomically: true, encoding: .utf8) } catch {
            throw .cannotWrite(path: scratch, reason: error.localizedDescription)
        }
        try publish(scratch, as: target, job: job, root: root)
        logger.info("encoded", metadata: ["case": "\(job.caseId)", "step": "\(job.step)",
                                          "seconds": "\(String(format: "%.1f", Date().timeIntervalSince(started)))"])
        return true
    }

    /// Puts the finished `scratch` folder in place with rename(2), so that another process serving
    /// or reading `target` sees the old folder or the new one, never a half or a missing one. When
    /// another process (a second `lab streams` into the same suite) published a complete folder
    /// first, that one stays and `scratch` is dropped; a stale one (another recipe) is renamed
    /// aside and removed.
    private func publish(_ scratch: String, as target: String, job: EncodeJob, root: String) throws(LabSuiteError) {
        let fm = FileManager.default
        for attempt in 1...5 {
            if rename(scratch, target) == 0 { return }
            let code = errno
            guard code == EEXIST || code == ENOTEMPTY || code == EISDIR || code == ENOTDIR else {
                try? fm.removeItem(atPath: scratch)
                throw .cannotWrite(path: target, reason: String(cString: strerror(code)))
            }
            if isCached(job, root: root) {
                logger.debug("published by another run", metadata: ["case": "\(job.caseId)", "folder": "\(job.folder)"])
                try? fm.removeItem(atPath: scratch)
                return
            }
            let aside = target + ".stale-\(ProcessInfo.processInfo.processIdentifier)-\(attempt)"
            if rename(target, aside) == 0 { try? fm.removeItem(atPath: aside) }
        }
        try? fm.removeItem(atPath: scratch)
        throw .cannotWrite(path: target, reason: "another process kept replacing it; run 'lab streams' again")
    }

    /// Runs `jobs` with at most `width` ffmpeg processes at once; the first failure ends the run.
    func runAll(_ jobs: [EncodeJob], root: String, width: Int) async throws(LabSuiteError) -> Int {
        do {
            return try await withThrowingTaskGroup(of: Bool.self) { group in
                var pending = jobs[...]
                var ran = 0
                for _ in 0..<max(1, width) {
                    guard let job = pending.popFirst() else { break }
                    group.addTask { try await run(job, root: root) }
                }
                while let didRun = try await group.next() {
                    if didRun { ran += 1 }
                    if let job = pending.popFirst() { group.addTask { try await run(job, root: root) } }
                }
                return ran
            }
        } catch let error as LabSuiteError {
            throw error
        } catch {
            throw .generationFailed(caseId: "suite", step: "encode", reason: String(describing: error))
        }
    }

    /// The last few lines of ffmpeg's stderr: where it says what went wrong.
    static func lastLines(_ text: String, count: Int = 4) -> String {
        let lines = text.split(separator: "\n").suffix(count)
        return lines.isEmpty ? "no output" : lines.joined(separator: " | ")
    }
}
