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
            let (target, inputText) = try receiver(of: text, flag: "--capture", to: targets)
            var input = CaptureInput.parse(inputText)
            for option in options {
                let parts = option.split(separator: "=", maxSplits: 1).map(String.init)
                input.options[parts[0]] = parts.count > 1 ? parts[1] : ""
            }
            inputs[target.name] = input
        }
        return inputs
    }

    /// `--capture-audio [RECEIVER=]INPUT`: sound inputs by target name (`AudioInput.parse`). `same`
    /// needs the receiver's `--capture` to be a recording or device with sound.
    static func assignAudio(_ texts: [String], pictures: [String: CaptureInput], to targets: [RunTarget]) throws -> [String: AudioInput] {
        var inputs: [String: AudioInput] = [:]
        for text in texts {
            let (target, inputText) = try receiver(of: text, flag: "--capture-audio", to: targets)
            let input = AudioInput.parse(inputText)
            if input == .sameAsPicture, pictures[target.name] == nil {
                throw CLIFailure.input("--capture-audio \(text): 'same' is the audio of \(target.name)'s --capture, and it has none; "
                    + "give --capture \(target.name)=INPUT, or its sound as pulse:SOURCE or alsa:DEVICE")
            }
            inputs[target.name] = input
        }
        return inputs
    }

    /// The receiver a `[RECEIVER=]INPUT` names and its INPUT. A bare INPUT is the only receiver's;
    /// RECEIVER is a target's name, device id or address. What comes before "=" is the input itself
    /// when it reads as one (a path, a display, FORMAT:..., pulse:SOURCE?server=...).
    static func receiver(of text: String, flag: String, to targets: [RunTarget]) throws -> (RunTarget, String) {
        var receiver: String?
        var inputText = text
        if let equals = text.firstIndex(of: "=") {
            let left = String(text[..<equals])
            let isInput = left.hasPrefix("/") || left.hasPrefix(":") || CaptureInput.parse(left).format != nil
                && !targets.contains { $0.name == left || $0.deviceId == left || $0.address == left }
            if !isInput {
                receiver = left
                inputText = String(text[text.index(after: equals)...])
            }
        }
        if let receiver {
            guard let found = targets.first(where: { $0.name == receiver || $0.deviceId == receiver || $0.address == receiver }) else {
                throw CLIFailure.input("\(flag) \(text): no receiver '\(receiver)' in this run (\(targets.map(\.name).joined(separator: ", ")))")
            }
            return (found, inputText)
        }
        guard targets.count == 1 else {
            throw CLIFailure.input("\(flag) \(text): the run has \(targets.count) receivers; name the one it is: \(flag) RECEIVER=\(text)")
        }
        return (targets[0], inputText)
    }
}
