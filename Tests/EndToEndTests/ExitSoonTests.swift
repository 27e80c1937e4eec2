import ArgumentParser
@testable import seamcheck
import XCTest

/// `ExitSoon.quick` reads the common shapes of `lint` and `inspect` by hand: every field must be
/// what ArgumentParser reads from the same words, and every other shape must be left to it.
final class ExitSoonTests: XCTestCase {
    /// The command as ArgumentParser's wrappers hold it: a field the quick path forgot to set is
    /// still a definition there, not a value, and the dumps differ.
    private func fields(_ command: Any) -> String {
        var text = ""
        dump(command, to: &text)
        return text
    }

    func testQuickLintAndInspectAreWhatArgumentParserReads() throws {
        let shapes = [["lint", "x.m3u8"], ["lint", "x.m3u8", "--offline", "--format", "json", "--fail-on", "never"],
                      ["lint", "--offline", "--format", "sarif", "dir/x.m3u8"], ["lint", "--fail-on", "warning", "https://a.example/x.m3u8"],
                      ["lint", "x.m3u8", "--format", "table"], ["inspect", "x.m3u8"], ["inspect", "--offline", "x.m3u8", "--format", "json"],
                      ["inspect", "x.m3u8", "--format", "table"]]
        for arguments in shapes {
            let quick = try XCTUnwrap(ExitSoon.quick(arguments), "\(arguments)")
            let tree = try Seamcheck.parseAsRoot(arguments)
            switch quick {
            case .lint(let command): XCTAssertEqual(fields(command), fields(try XCTUnwrap(tree as? LintCommand)), "\(arguments)")
            case .inspect(let command): XCTAssertEqual(fields(command), fields(try XCTUnwrap(tree as? InspectCommand)), "\(arguments)")
            }
        }
    }

    func testOtherShapesAreLeftToArgumentParser() {
        let others = [["lint"], ["lint", "--help"], ["lint", "-h"], ["lint", "help"], ["lint", "a", "b"], ["lint", "x", "--format", "bogus"],
                      ["lint", "x", "--format"], ["lint", "x", "--format", "--offline"], ["lint", "x", "--format=json"],
                      ["lint", "x", "--offline", "--offline"], ["lint", "x", "--format", "json", "--format", "table"],
                      ["lint", "x", "--fail-on", "sometimes"], ["lint", "x", "--timeout", "3"], ["lint", "x", "--output", "o.json"],
                      ["lint", "x", "--write-accepted"], ["lint", "x", "--config", "c.yml"], ["lint", "-", "--offline"], ["lint", ""],
                      ["inspect", "x", "--fail-on", "never"], ["inspect", "x", "--format", "sarif"], ["inspect", "--bench-parse", "3", "x"],
                      ["inspect", "--version"], ["lint", "--generate-completion-script", "bash"], ["help", "lint"], ["audit", "x"], []]
        for arguments in others {
            XCTAssertNil(ExitSoon.quick(arguments), "\(arguments)")
        }
    }
}
