import ArgumentParser
import Compatibility
import Foundation
import Reporting
import ResultsReporting

struct RulesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rules",
        abstract: "List the rules and show what each checks, why, and its examples.",
        subcommands: [List.self, Show.self])

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the rules with their default severity.")
        @Option(help: "table (default on a terminal) or json.") var format: ListFormat?

        func run() throws {
            let rules = RuleCatalog.allDescriptions
            switch ListFormat.resolve(format) {
            case .json:
                try Output.write(JSONOutput.encode(RulesDocument(rules: rules)), to: nil)
            case .table:
                let width = rules.map(\.id.count).max() ?? 2
                let lines = rules.map {
                    $0.id.padding(toLength: width, withPad: " ", startingAt: 0) + "  "
                        + $0.defaultSeverity.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0) + "  " + $0.title
                }
                try Output.write(lines.joined(separator: "\n") + "\n", to: nil)
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one rule: rationale, source, examples.")
        @Argument(help: "The rule id.") var id: String
        @Option(help: "table (default on a terminal) or json.") var format: ListFormat?

        func run() throws {
            let examples: [RuleDocument.Example]
            let d: RuleDescription
            if let rule = RuleCatalog.rule(id) {
                d = rule.description
                examples = rule.examples.map { RuleDocument.Example(name: $0.name, triggers: $0.triggers) }
            } else if let rule = RuleCatalog.capabilityRule(id) {
                d = rule.description
                examples = rule.examples.map { RuleDocument.Example(name: $0.name, triggers: $0.triggers) }
            } else if let rule = RuleCatalog.declaredRule(id) {
                d = rule.description
                examples = rule.examples.map { RuleDocument.Example(name: $0.name, triggers: $0.triggers) }
            } else if let rule = SpecCatalog.rule(id) {
                d = rule.description
                examples = rule.examples.map { RuleDocument.Example(name: $0.name, triggers: $0.triggers) }
            } else if id == LadderRule.description.id {
                d = LadderRule.description
                examples = LadderRule.examples.map { RuleDocument.Example(name: $0.name, triggers: $0.triggers) }
            } else if let rule = LocalizationRules.rule(id) {
                d = rule.description
                examples = rule.examples.map { RuleDocument.Example(name: $0.name, triggers: $0.triggers) }
            } else if id == BoundaryRule.description.id {
                d = BoundaryRule.description
                examples = BoundaryRule.examples.map { RuleDocument.Example(name: $0.name, triggers: $0.triggers) }
            } else if id == PlaylistRules.noPlayableVariant.id {
                d = PlaylistRules.noPlayableVariant
                examples = []
            } else {
                let known = RuleCatalog.allDescriptions.map(\.id)
                let planned = RuleIdentifiers.all.contains(id) ? " (a planned rule, not implemented yet)" : ""
                throw CLIFailure.input("unknown rule '\(id)'\(planned); known rules: \(known.joined(separator: ", "))")
            }
            switch ListFormat.resolve(format) {
            case .json:
                try Output.write(JSONOutput.encode(RuleDocument(rule: d, examples: examples)), to: nil)
            case .table:
                var lines = ["\(d.id): \(d.title)", "", d.rationale, "", "source: \(d.source)",
                             "default severity: \(d.defaultSeverity.rawValue)", "inputs: \(d.inputs)", "", "examples:"]
                for example in examples {
                    lines.append("  \(example.triggers ? "fires     " : "does not  ") \(example.name)")
                }
                try Output.write(lines.joined(separator: "\n") + "\n", to: nil)
            }
        }
    }
}

struct RulesDocument: Encodable {
    var schemaVersion = jsonSchemaVersion
    var rules: [RuleDescription]
}

struct RuleDocument: Encodable {
    struct Example: Encodable {
        var name: String
        var triggers: Bool
    }

    var schemaVersion = jsonSchemaVersion
    var rule: RuleDescription
    var examples: [Example]
}
