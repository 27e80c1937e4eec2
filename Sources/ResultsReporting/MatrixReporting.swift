import Reporting
import Compatibility
import Foundation
import HLS
import Matrix

/// Renders a matrix run as one document.
public protocol MatrixReporter: Sendable {
    func render(_ report: MatrixReport) -> String
}

/// Formats of `seamcheck matrix run`: every file format is written to the report folder; the
/// `--format` one is also printed on stdout.
public enum MatrixReportFormat: String, CaseIterable, Sendable {
    case table, json, markdown, junit, html, encoder, sarif

    public var reporter: any MatrixReporter {
        switch self {
        case .table: return MatrixTableReporter()
        case .json: return MatrixJSONReporter()
        case .markdown: return MatrixMarkdownReporter()
        case .junit: return MatrixJUnitReporter()
        case .html: return MatrixHTMLReporter()
        case .encoder: return MatrixEncoderReporter()
        case .sarif: return MatrixSARIFReporter()
        }
    }

    /// The file name in the report folder; nil for formats only printed (table, encoder).
    public var fileName: String? {
        switch self {
        case .json: return "report.json"
        case .markdown: return "report.md"
        case .junit: return "junit.xml"
        case .html: return "report.html"
        case .sarif: return "report.sarif"
        case .table, .encoder: return nil
        }
    }

    public static var fileFormats: [MatrixReportFormat] { allCases.filter { $0.fileName != nil } }
}

/// Version of the matrix JSON documents (run, history, diff); bumped only when a field changes
/// meaning or disappears.
public let matrixSchemaVersion = 1

/// JSON as `JSONOutput` writes it, with dates as ISO 8601 text.
enum MatrixJSON {
    static func encode<T: Encodable>(_ value: T) -> String {
        // As `JSONOutput`: encoding plain value types cannot fail.
        let data = try! JSONDocument.encoder(dates: .iso8601).encode(value)
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}

extension MatrixReport {
    var threshold: Severity? { run.summary.failOn.severity }

    /// The worst status of one interstitial over the run's classes (for timelines).
    func status(of asset: AuditedAsset, in result: CaseResult) -> CellStatus {
        guard result.failure == nil else { return .error }
        let grader = CellGrader(expectedIssues: [], threshold: threshold)
        let prefix = asset.role + " ("
        return result.cells.map { cell in grader.grade(cell.findings.filter { $0.finding.subject.hasPrefix(prefix) }) }.max() ?? .pass
    }

    /// "12 pass, 3 warn, 1 fail, 0 known, 2 error".
    var countsText: String {
        CellStatus.allCases.map { "\(counts[$0] ?? 0) \($0.rawValue)" }.joined(separator: ", ")
    }

    var headline: String {
        let s = run.summary
        var text = "run \(s.id) of \(s.matrixName): \(s.status.rawValue); \(run.cases.count) of \(s.plannedCases) case(s) x "
            + "\(s.deviceClasses.count) device class(es)"
        if let probes = s.probesPerformed { text += "; \(probes) probe(s) for \(s.distinctInputs ?? probes) distinct input(s)" }
        return text
    }
}

extension CellStatus {
    /// The label people read in grids: FAIL and ERROR stand out.
    var label: String {
        switch self {
        case .fail: return "FAIL"
        case .error: return "ERROR"
        default: return rawValue
        }
    }
}

/// "ad.mp4" for "/media/ads/ad.mp4" or "http://host/x/ad.mp4".
func shortName(_ input: String) -> String {
    let name = PathText.fileName(ofInput: input)
    return name.isEmpty ? input : name
}

func formatSeconds(_ seconds: Double) -> String {
    seconds < 10 ? String(format: "%.2f s", seconds) : String(format: "%.1f s", seconds)
}
