import Reporting
import Compatibility
import Foundation
import HLS
import Matrix
import MediaProbe

/// The run document of `seamcheck matrix run` (report.json). Fields: docs/matrix.md.
public struct MatrixRunDocument: Encodable, Sendable {
    public struct Run: Encodable, Sendable {
        var id: Int64
        var matrix: String
        var matrixFile: String
        var startedAt: Date
        var finishedAt: Date?
        var status: RunStatus
        var failOn: FailThreshold
        var jobs: Int
        var caseTimeout: Double
        var plannedCases: Int
        var finishedCases: Int
        var probesPerformed: Int?
        var distinctInputs: Int?
    }

    public struct Case: Encodable, Sendable {
        var id: String
        var kind: String
        var tags: [String]
        var primary: String
        var interstitials: [String]
        var seconds: Double
        var error: CaseFailure?
        var placements: [InterstitialPlacement]
        var assets: [Asset]
        var cells: [CellResult]

        enum CodingKeys: String, CodingKey { case id, kind, tags, primary, interstitials, seconds, error, placements, assets, cells }

        // `error` is written as null when the case ran.
        public func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(id, forKey: .id)
            try c.encode(kind, forKey: .kind)
            try c.encode(tags, forKey: .tags)
            try c.encode(primary, forKey: .primary)
            try c.encode(interstitials, forKey: .interstitials)
            try c.encode(seconds, forKey: .seconds)
            try c.encode(error, forKey: .error)
            try c.encode(placements, forKey: .placements)
            try c.encode(assets, forKey: .assets)
            try c.encode(cells, forKey: .cells)
        }
    }

    /// A probed asset of a case, with the same fields as in the audit JSON.
    public typealias Asset = AuditDocument.Asset

    var schemaVersion = matrixSchemaVersion
    var kind = "matrixRun"
    var run: Run
    var deviceClasses: [String]
    var summary: [String: Int]
    var cases: [Case]
    var unfinishedCases: [String]
    var encoder: EncoderCompatibility
    var changes: RunDiff?
    var expectedIssues: [ExpectedIssue]
    var unusedExpectedIssues: [ExpectedIssue]

    public init(_ report: MatrixReport) {
        let s = report.run.summary
        run = Run(id: s.id, matrix: s.matrixName, matrixFile: s.matrixFile, startedAt: s.startedAt, finishedAt: s.finishedAt,
                  status: s.status, failOn: s.failOn, jobs: report.run.jobs, caseTimeout: report.run.caseTimeout,
                  plannedCases: s.plannedCases, finishedCases: report.run.cases.count, probesPerformed: s.probesPerformed,
                  distinctInputs: s.distinctInputs)
        deviceClasses = s.deviceClasses
        summary = Dictionary(uniqueKeysWithValues: report.counts.map { ($0.key.rawValue, $0.value) })
        cases = report.run.cases.map { result in
            Case(id: result.caseId, kind: result.kind, tags: result.tags, primary: result.primary,
                 interstitials: result.interstitials, seconds: result.seconds, error: result.failure,
                 placements: result.placements,
                 assets: result.assets.map(Asset.init),
                 cells: result.cells)
        }
        unfinishedCases = report.unfinishedCases
        encoder = report.encoder
        changes = report.changes
        expectedIssues = report.run.expectedIssues
        unusedExpectedIssues = report.unusedExpectedIssues
    }

    enum CodingKeys: String, CodingKey {
        case schemaVersion, kind, run, deviceClasses, summary, cases, unfinishedCases, encoder, changes, expectedIssues, unusedExpectedIssues
    }

    // `changes` is null for the first run of a matrix, never absent.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeEveryKey(of: self)
    }
}

public struct MatrixJSONReporter: MatrixReporter {
    public init() {}

    public func render(_ report: MatrixReport) -> String {
        MatrixJSON.encode(MatrixRunDocument(report))
    }
}

/// `seamcheck matrix history --format json`.
public struct MatrixHistoryDocument: Encodable, Sendable {
    var schemaVersion = matrixSchemaVersion
    var runs: [RunSummary]

    public init(_ runs: [RunSummary]) { self.runs = runs }

    public var json: String { MatrixJSON.encode(self) }
}

/// `seamcheck matrix diff --format json`: the RunDiff fields with `schemaVersion`.
public struct MatrixDiffDocument: Encodable, Sendable {
    var diff: RunDiff

    public init(_ diff: RunDiff) { self.diff = diff }

    enum CodingKeys: String, CodingKey { case schemaVersion }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(matrixSchemaVersion, forKey: .schemaVersion)
        try diff.encode(to: encoder)
    }

    public var json: String { MatrixJSON.encode(self) }
}
