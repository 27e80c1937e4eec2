import Reporting
import Compatibility
import Matrix

/// A matrix run as SARIF 2.1.0 (`SARIFReporter`): one result per finding and case; a finding
/// without a class, graded in every cell, is one result. Known issues are suppressed results.
public struct MatrixSARIFReporter: MatrixReporter {
    public init() {}

    public func render(_ report: MatrixReport) -> String {
        var items: [SARIFItem] = []
        for result in report.run.cases {
            var seen: [Finding: Int] = [:]
            for matrixFinding in result.cells.flatMap(\.findings) {
                if let index = seen[matrixFinding.finding] {
                    // Accepted in one cell is not accepted everywhere: the result stays open.
                    if !matrixFinding.isKnown { items[index].acceptedReason = nil }
                    continue
                }
                seen[matrixFinding.finding] = items.count
                items.append(SARIFItem(finding: matrixFinding.finding, input: result.primary,
                                       acceptedReason: matrixFinding.knownReason, caseId: result.caseId))
            }
        }
        return SARIFReporter().render(items)
    }
}
