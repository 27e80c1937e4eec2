import Foundation
import LabCore
import LabRun
import LabServer
import MediaProbe

/// `lab run --capture [RECEIVER=]INPUT`: which capture input shows which receiver.
enum CaptureAssignment {
    /// Capture inputs by target name. A bare INPUT is the only receiver's; RECEIVER is a target's
    /// name, device id or address.
    static func assign(_ texts: [String], options: [String], to targets: [RunTarget]) throws -> [String: CaptureInput] {
        var inputs: [String: CaptureInput] = [:]
        for text in texts {
            var receiver: String?
            var inputText = text
            // RECEIVER=INPUT, unless what comes before "=" is itself an input (a path, a display, FORMAT:...).
            if let equals = text.firstIndex(of: "=") {
                let left = String(text[..<equals])
                let isInput = left.hasPrefix("/") || left.hasPrefix(":") || CaptureInput.parse(left).format != nil
                    && !targets.contains { $0.name == left || $0.deviceId == left || $0.address == left }
                if !isInput {
                    receiver = left
                    inputText = String(text[text.index(after: equals)...])
                }
            }
            var input = CaptureInput.parse(inputText)
            for option in options {
                let parts = option.split(separator: "=", maxSplits: 1).map(String.init)
                input.options[parts[0]] = parts.count > 1 ? parts[1] : ""
            }
            let target: RunTarget
            if let receiver {
                guard let found = targets.first(where: { $0.name == receiver || $0.deviceId == receiver || $0.address == receiver }) else {
                    throw CLIFailure.input("--capture \(text): no receiver '\(receiver)' in this run (\(targets.map(\.name).joined(separator: ", ")))")
                }
                target = found
            } else {
                guard targets.count == 1 else {
                    throw CLIFailure.input("--capture \(text): the run has \(targets.count) receivers; name the one it shows: --capture RECEIVER=\(text)")
                }
                target = targets[0]
            }
            inputs[target.name] = input
        }
        return inputs
    }
}
