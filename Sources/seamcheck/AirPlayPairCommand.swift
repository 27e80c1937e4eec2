import AirPlay
import ArgumentParser
import Foundation
import LabCore
import LabRun
import LabServer
import Reporting
import ResultsReporting

/// Where `airplay pair|pairings|unpair|verify` keep credentials.
struct CredentialsOption: ParsableArguments {
    @Option(help: "The AirPlay credentials file (default: SEAMCHECK_AIRPLAY_CREDENTIALS, else ~/.config/seamcheck/airplay-credentials.json; mode 0600).")
    var credentials: String?

    func load() throws -> CredentialStore { try CredentialStore(path: credentials ?? CredentialStore.defaultPath()) }
}

struct AirPlayPairCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pair",
        abstract: "Pair with a receiver (HAP, or legacy with or without a code); the credentials are stored for later runs.",
        discussion: """
        The kind of pairing comes from what the receiver advertises (features bit 27 without HAP's bits: legacy; \
        with flag 0x8: legacy with a code; else HAP), never from trying codes. HAP: asks the receiver to show its code \
        (POST /pair-pin-start), reads it from --pin or stdin, runs pair-setup M1-M6, checks the new credentials with a \
        pair-verify and one request over the encrypted channel. Legacy (UxPlay, Apple TV 3): /pair-pin-start and three \
        /pair-setup-pin rounds with the code, or /pair-setup without one, then a pair-verify. Only then are they stored \
        (mode 0600). A wrong code is exit 2 naming the step, and nothing is stored.
        """)

    @Argument(help: "Name, device id or ADDR[:PORT].")
    var receiver: String

    @Option(help: "The code the receiver shows (asked for on stdin when not given).")
    var pin: String?

    @Flag(name: .customLong("no-pin-start"), help: "Skip POST /pair-pin-start: a HAP accessory with its code printed on it.")
    var noPinStart = false

    @OptionGroup var store: CredentialsOption
    @OptionGroup var lookup: ReceiverLookupOptions

    func run() async throws {
        var credentialStore = try store.load()  // a file with wrong permissions is refused before any pairing
        let (targets, skipped) = try await lookup.resolve([receiver])
        guard let target = targets.first else {
            throw CLIFailure.input("\(receiver): " + (skipped.first?.reason ?? "not a receiver with AirPlay video"))
        }
        let (scheme, why) = await PairScheme.choose(for: target)
        let address = "\(target.endpoint.host):\(target.endpoint.port)"
        switch scheme {
        case .refused(let reason): throw CLIFailure.input("\(target.endpoint.description): \(reason)")
        case .legacy, .legacyPin:
            Terminal.writeStderr("seamcheck: \(VisibleText.escape(target.name)): legacy pairing: \(VisibleText.escape(why))\n")
            let paired = try await LegacyPairCommands.pair(target, scheme: scheme, pin: pin, pinStart: !noPinStart)
            try credentialStore.store(StoredPairing(receiver: target.name, deviceId: target.deviceId, address: address,
                                                    pairedAt: Date(), credentials: .legacy(paired.credentials)))
            Terminal.writeStderr("""
                seamcheck: paired with \(VisibleText.escape(target.endpoint.description)) (\(paired.credentials.method == .pin ? "legacy, with its code" : "legacy, no code"); \
                its key \(paired.credentials.receiverKeyFingerprint)); pair-verify \(AirPlayVerifyCommand.millisecondsText(paired.verify)) ms, \
                RTSP GET /info after it answered \(paired.infoStatus); stored in \(credentialStore.path)

                """)
            return
        case .hap: break
        }
        let code = try pin ?? Self.askCode(for: target.name)
        let credentials = try await AirPlayPairing.pair(target.endpoint, pin: code, pinStart: !noPinStart,
                                                        notice: { Terminal.writeStderr("seamcheck: \(VisibleText.escape($0))\n") })
        let channel = try await AirPlayPairing.verify(target.endpoint, credentials: credentials)
        let answer: HAPAnswer
        do { answer = try await channel.send("GET", "/server-info") } catch {
            await channel.close()
            throw error
        }
        await channel.close()
        try credentialStore.store(StoredPairing(receiver: target.name, deviceId: target.deviceId, address: address,
                                                pairedAt: Date(), credentials: .hap(credentials)))
        Terminal.writeStderr("""
            seamcheck: paired with \(VisibleText.escape(target.endpoint.description)) (its pairing id \(VisibleText.escape(credentials.accessoryId))); \
            pair-verify \(AirPlayVerifyCommand.millisecondsText(channel.setupTime)) ms, GET /server-info over the encrypted channel answered \(answer.status); \
            stored in \(credentialStore.path)

            """)
    }

    /// One line from stdin: the code the receiver shows.
    static func askCode(for name: String) throws -> String {
        if Terminal.stdinIsTerminal { Terminal.writeStderr("Code shown by \(VisibleText.escape(name)): ") }
        guard let line = readLine(strippingNewline: true)?.trimmingCharacters(in: .whitespaces), !line.isEmpty else {
            throw CLIFailure.input("no code given: type the code the receiver shows, or pass --pin CODE")
        }
        guard line.count <= 64 else { throw CLIFailure.input("the code is longer than 64 characters: give the code the receiver shows") }
        return line
    }
}

struct AirPlayVerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Pair-verify with the stored credentials (HAP: then one request over the encrypted channel; legacy: then RTSP GET /info).")

    @Argument(help: "Name, device id or ADDR[:PORT].")
    var receiver: String

    @Option(help: "The path of the GET sent over the encrypted channel.")
    var path = "/server-info"

    @Option(help: "table (default on a terminal) or json.")
    var format: ListFormat?

    @OptionGroup var store: CredentialsOption
    @OptionGroup var lookup: ReceiverLookupOptions

    struct Document: Encodable {
        var schemaVersion = jsonSchemaVersion
        var receiver: String
        var address: String
        /// `hap`, `legacy-pin` or `legacy`.
        var kind: String
        var verifyMilliseconds: Double
        var path: String
        var status: Int
    }

    static func millisecondsText(_ duration: Duration) -> String { String(format: "%.1f", milliseconds(duration)) }

    static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }

    func validate() throws {
        guard path.hasPrefix("/"), !path.contains(where: { $0.isWhitespace || $0.isNewline }) else {
            throw ValidationError("--path must start with / and contain no spaces")
        }
    }

    func run() async throws {
        let credentialStore = try store.load()
        let named = try credentialStore.pairing(for: receiver)  // a corrupt entry is refused before any lookup
        let (targets, skipped) = try await lookup.resolve([receiver])
        guard let target = targets.first else {
            throw CLIFailure.input("\(receiver): " + (skipped.first?.reason ?? "not a receiver with AirPlay video"))
        }
        guard let stored = try credentialStore.pairing(name: target.name, deviceId: target.deviceId,
                                                       address: "\(target.endpoint.host):\(target.endpoint.port)") ?? named else {
            throw AirPlayError.needsPairing(endpoint: target.endpoint.description, receiver: receiver)
        }
        let hapCredentials: HAPCredentials
        switch stored.credentials {
        case .legacy(let legacy):
            let check = try await LegacyPairing.check(target.endpoint, credentials: legacy)
            try output(Document(receiver: target.name, address: target.endpoint.description, kind: stored.kind.rawValue,
                                verifyMilliseconds: Self.milliseconds(check.verify), path: "RTSP GET /info", status: check.infoStatus),
                       verify: check.verify, line: "RTSP GET /info  \(check.infoStatus) (not encrypted: legacy pairing)")
            return
        case .hap(let hap): hapCredentials = hap
        }
        let channel = try await AirPlayPairing.verify(target.endpoint, credentials: hapCredentials)
        let answer: HAPAnswer
        do { answer = try await channel.send("GET", path) } catch {
            await channel.close()
            throw error
        }
        await channel.close()
        let document = Document(receiver: target.name, address: target.endpoint.description, kind: stored.kind.rawValue,
                                verifyMilliseconds: Self.milliseconds(channel.setupTime), path: path, status: answer.status)
        try output(document, verify: channel.setupTime,
                   line: "GET \(VisibleText.escape(path))  \(answer.status) \(VisibleText.escape(answer.reason)) (encrypted)")
    }

    private func output(_ document: Document, verify: Duration, line: String) throws {
        switch ListFormat.resolve(format) {
        case .json: try Output.write(JSONOutput.encode(document), to: nil)
        case .table:
            try Output.write("""
                receiver     \(VisibleText.escape(document.address))
                kind         \(document.kind)
                pair-verify  \(Self.millisecondsText(verify)) ms
                \(line)

                """, to: nil)
        }
    }
}

struct AirPlayPairingsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "pairings", abstract: "List stored AirPlay pairings (no keys).")

    @Option(help: "table (default on a terminal) or json.")
    var format: ListFormat?

    @OptionGroup var store: CredentialsOption

    struct Entry: Encodable {
        /// `hap`, `legacy-pin` or `legacy`.
        var kind: String
        var receiver: String
        var deviceId: String?
        var address: String
        var pairingId: String
        var controllerId: String
        var pairedAt: String
    }

    struct Unusable: Encodable {
        var receiver: String
        var reason: String
    }

    struct Document: Encodable {
        var schemaVersion = jsonSchemaVersion
        var path: String
        var pairings: [Entry]
        var unusable: [Unusable]
    }

    func run() async throws {
        let credentialStore = try store.load()
        let entries = credentialStore.pairings.map {
            Entry(kind: $0.kind.rawValue, receiver: $0.receiver, deviceId: $0.deviceId, address: $0.address, pairingId: $0.credentials.receiverId,
                  controllerId: $0.credentials.controllerId, pairedAt: ISO8601DateFormatter().string(from: $0.pairedAt))
        }
        let unusable = credentialStore.unusable.map { Unusable(receiver: $0.receiver, reason: $0.reason) }
        switch ListFormat.resolve(format) {
        case .json:
            try Output.write(JSONOutput.encode(Document(path: credentialStore.path, pairings: entries, unusable: unusable)), to: nil)
        case .table:
            var text = entries.isEmpty ? "no stored pairings in \(credentialStore.path)\n" : ""
            for entry in entries {
                text += "\(VisibleText.escape(entry.receiver))  \(entry.kind)  \(VisibleText.escape(entry.address))  device \(VisibleText.escape(entry.deviceId ?? "-"))  "
                    + "pairing id \(VisibleText.escape(entry.pairingId))  paired \(entry.pairedAt)\n"
            }
            for entry in unusable {
                text += "\(VisibleText.escape(entry.receiver))  UNUSABLE: \(VisibleText.escape(entry.reason)) (seamcheck airplay unpair it)\n"
            }
            try Output.write(text, to: nil)
        }
    }
}

struct AirPlayUnpairCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unpair",
        abstract: "Remove a receiver's stored pairing (this machine forgets it; the receiver's list is not changed).")

    @Argument(help: "The receiver's name, device id, address or pairing id as `airplay pairings` shows it.")
    var receiver: String

    @OptionGroup var store: CredentialsOption

    func run() async throws {
        var credentialStore = try store.load()
        let removed = try credentialStore.remove(receiver)
        Terminal.writeStderr("seamcheck: removed \(max(removed.count, 1)) pairing(s) for \(VisibleText.escape(receiver)) from \(credentialStore.path)\n")
    }
}
