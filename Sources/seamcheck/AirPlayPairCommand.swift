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
        abstract: "HAP pair-setup with a receiver's code; the credentials are stored for later runs.",
        discussion: """
        Asks the receiver to show its code (POST /pair-pin-start), reads it from --pin or stdin, runs pair-setup \
        M1-M6, checks the new credentials with a pair-verify and one request over the encrypted channel, then stores \
        them (mode 0600). A wrong code is the receiver's refusal, exit 2, and nothing is stored.
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
        let code = try pin ?? Self.askCode(for: target.name)
        let credentials = try await AirPlayPairing.pair(target.endpoint, pin: code, pinStart: !noPinStart)
        let channel = try await AirPlayPairing.verify(target.endpoint, credentials: credentials)
        let answer: HAPAnswer
        do { answer = try await channel.send("GET", "/server-info") } catch {
            await channel.close()
            throw error
        }
        await channel.close()
        try credentialStore.store(StoredPairing(receiver: target.name, deviceId: target.deviceId,
                                                address: "\(target.endpoint.host):\(target.endpoint.port)",
                                                pairedAt: Date(), credentials: credentials))
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
        abstract: "HAP pair-verify with the stored credentials, then one request over the encrypted channel.")

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
        let channel = try await AirPlayPairing.verify(target.endpoint, credentials: stored.credentials)
        let answer: HAPAnswer
        do { answer = try await channel.send("GET", path) } catch {
            await channel.close()
            throw error
        }
        await channel.close()
        let document = Document(receiver: target.name, address: target.endpoint.description,
                                verifyMilliseconds: Self.milliseconds(channel.setupTime), path: path, status: answer.status)
        switch ListFormat.resolve(format) {
        case .json: try Output.write(JSONOutput.encode(document), to: nil)
        case .table:
            try Output.write("""
                receiver     \(VisibleText.escape(document.address))
                pair-verify  \(Self.millisecondsText(channel.setupTime)) ms
                GET \(VisibleText.escape(path))  \(answer.status) \(VisibleText.escape(answer.reason)) (encrypted)

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
            Entry(receiver: $0.receiver, deviceId: $0.deviceId, address: $0.address, pairingId: $0.credentials.accessoryId,
                  controllerId: $0.credentials.controllerId, pairedAt: ISO8601DateFormatter().string(from: $0.pairedAt))
        }
        let unusable = credentialStore.unusable.map { Unusable(receiver: $0.receiver, reason: $0.reason) }
        switch ListFormat.resolve(format) {
        case .json:
            try Output.write(JSONOutput.encode(Document(path: credentialStore.path, pairings: entries, unusable: unusable)), to: nil)
        case .table:
            var text = entries.isEmpty ? "no stored pairings in \(credentialStore.path)\n" : ""
            for entry in entries {
                text += "\(VisibleText.escape(entry.receiver))  \(VisibleText.escape(entry.address))  device \(VisibleText.escape(entry.deviceId ?? "-"))  "
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
