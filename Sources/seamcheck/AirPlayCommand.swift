import AirPlay
import ArgumentParser
import Foundation
import LabCore
import LabRun
import LabServer
import Reporting
import ResultsReporting

/// `seamcheck airplay`: drive one receiver by hand, through the same sender `lab run` uses.
struct AirPlayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "airplay",
        abstract: "Drive one AirPlay receiver by hand: play a URL, read its playback state, stop it.",
        discussion: """
        RECEIVER is a name or device id from discovery or the --inventory file, or ADDR[:PORT] (no discovery needed; \
        port 7000 by default). A receiver that wants pairing or a password, or has no URL playback, is exit 2 with \
        what it wants. Exit 3 when avahi-daemon is needed (a name or device id) and not running.
        """,
        subcommands: [AirPlayPlayCommand.self, AirPlayStatusCommand.self, AirPlayStopCommand.self, AirPlayPairCommand.self,
                      AirPlayVerifyCommand.self, AirPlayPairingsCommand.self, AirPlayUnpairCommand.self])

    /// True when the receiver answers again: a legacy receiver's RTSP `/info` (UxPlay), or an
    /// AirPlay 1 session that opens and gets any HTTP answer to `/playback-info`.
    static let answers: @Sendable (AirPlayEndpoint) async -> Bool = { endpoint in
        let configuration = AirPlayConfiguration(connectTimeout: 2, requestTimeout: 2)
        if await LegacyVideoSession.probeFlow(endpoint, configuration: configuration) == .legacy { return true }
        guard let session = try? await AirPlaySender.open(endpoint, configuration: configuration) else { return false }
        let answered: Bool
        do throws(AirPlayError) {
            _ = try await session.playbackInfo()
            answered = true
        } catch {
            switch error {
            case .connect, .connectionClosed, .timeout: answered = false
            default: answered = true  // an HTTP answer, even an error, is a receiver that is back
            }
        }
        await session.close()
        return answered
    }

    /// The one receiver `text` names, opened as its pairing says (stored credentials, transient,
    /// plain, or refused with what to run).
    static func session(_ text: String, lookup: ReceiverLookupOptions, credentials: CredentialsOption) async throws -> (RunTarget, any AirPlayPlayback) {
        let store = try credentials.load()
        let (targets, skipped) = try await lookup.resolve([text])
        guard let target = targets.first else {
            throw CLIFailure.input("\(text): " + (skipped.first?.reason ?? "not a receiver with AirPlay video"))
        }
        if let legacy = legacyCredentials(for: target, store: store) {
            return (target, try await AirPlaySender.openLegacy(target.endpoint, credentials: legacy))
        }
        let access = access(for: target, store: store)
        return (target, try await AirPlaySender.open(target.endpoint, access: access, flow: await flow(for: target, access: access)))
    }

    /// `target`'s stored legacy credentials (`airplay pair` against UxPlay or an Apple TV 3): its
    /// sessions pair-verify with them on their RTSP connection. nil for none, or HAP ones.
    static func legacyCredentials(for target: RunTarget, store: CredentialStore) -> LegacyCredentials? {
        (try? store.pairing(name: target.name, deviceId: target.deviceId,
                            address: "\(target.endpoint.host):\(target.endpoint.port)"))?.credentials.legacy
    }

    /// How to reach `target`: its stored pairing, else what its TXT record says. An unusable
    /// stored entry refuses this receiver only, with what to do.
    static func access(for target: RunTarget, store: CredentialStore) -> AirPlayAccess {
        do {
            let stored = try store.pairing(name: target.name, deviceId: target.deviceId,
                                           address: "\(target.endpoint.host):\(target.endpoint.port)")
            return PairingAccess.decide(for: target, stored: stored?.credentials.hap)
        } catch {
            return .refuse(.pairing(endpoint: target.endpoint.description, step: "stored credentials", reason: error.description))
        }
    }

    /// One stderr line per receiver that pairs or is refused for pairing: how the run reaches it.
    static func reportAccess(_ targets: [RunTarget], store: CredentialStore) {
        for target in targets {
            if legacyCredentials(for: target, store: store) != nil {
                Terminal.writeStderr("seamcheck: lab run: \(VisibleText.escape(target.name)): paired (legacy pair-verify with stored credentials)\n")
                continue
            }
            let access = access(for: target, store: store)
            if case .plain = access { continue }
            Terminal.writeStderr("seamcheck: lab run: \(VisibleText.escape(target.name)): \(PairingAccess.describe(access))\n")
        }
    }

    /// The requests after pairing: AirPlay 2's when discovery says so; otherwise, for a receiver
    /// reached without pairing, the legacy RTSP session when it answers an RTSP `GET /info` with
    /// a plist (UxPlay), else AirPlay 1's (Kodi).
    static func flow(for target: RunTarget, access: AirPlayAccess) async -> AirPlayFlow {
        await probedFlow(for: target, access: access) ?? .airPlay1
    }

    /// nil when the probe could not connect (the receiver is away: ask again at its next cell).
    static func probedFlow(for target: RunTarget, access: AirPlayAccess) async -> AirPlayFlow? {
        let flow = PairingAccess.flow(for: target)
        guard flow == .airPlay1, case .plain = access else { return flow }
        return await LegacyVideoSession.probeFlow(target.endpoint)
    }

    /// The opener `lab run` uses: each target reached as `access(for:store:)` says, with the flow
    /// `flow(for:access:)` found once per receiver (at its first cell that opens).
    static func opener(for targets: [RunTarget], store: CredentialStore) -> AirPlayOpener {
        var accessByEndpoint: [AirPlayEndpoint: (RunTarget, AirPlayAccess)] = [:]
        var legacyByEndpoint: [AirPlayEndpoint: LegacyCredentials] = [:]
        for target in targets {
            accessByEndpoint[target.endpoint] = (target, access(for: target, store: store))
            legacyByEndpoint[target.endpoint] = legacyCredentials(for: target, store: store)
        }
        let table = accessByEndpoint, legacy = legacyByEndpoint
        let flows = FlowCache()
        return { endpoint throws(AirPlayError) in
            if let credentials = legacy[endpoint] {
                return try await AirPlaySender.openLegacy(endpoint, credentials: credentials, configuration: AirPlayConfiguration())
            }
            guard let (target, access) = table[endpoint] else {
                return try await AirPlaySender.open(endpoint, access: .plain(pairingName: endpoint.name), configuration: AirPlayConfiguration())
            }
            let flow = await flows.flow(for: endpoint) { await Self.probedFlow(for: target, access: access) }
            return try await AirPlaySender.open(endpoint, access: access, flow: flow, configuration: AirPlayConfiguration())
        }
    }

    /// Each receiver's flow, found once: a receiver that did not answer the probe (away at the
    /// time) is asked again at its next cell.
    actor FlowCache {
        private var known: [AirPlayEndpoint: AirPlayFlow] = [:]

        func flow(for endpoint: AirPlayEndpoint, probe: @Sendable () async -> AirPlayFlow?) async -> AirPlayFlow {
            if let flow = known[endpoint] { return flow }
            guard let flow = await probe() else { return .airPlay1 }
            known[endpoint] = flow
            return flow
        }
    }
}

struct AirPlayPlayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "play", abstract: "POST /play: the receiver plays URL.")

    @Argument(help: "Name, device id or ADDR[:PORT].")
    var receiver: String

    @Argument(help: "The http(s) URL to play (an HLS playlist or a media file the receiver can fetch).")
    var url: String

    @Option(help: "Where to start, in seconds.")
    var start: Double = 0

    @OptionGroup var lookup: ReceiverLookupOptions
    @OptionGroup var credentials: CredentialsOption

    func validate() throws {
        _ = try Self.playURL(url)
        guard start >= 0 && start.isFinite else { throw ValidationError("--start must be 0 or more seconds") }
    }

    /// `text` as an http(s) URL with a host, else exit 2 with what to give instead.
    static func playURL(_ text: String) throws(ValidationError) -> URL {
        guard let parsed = URL(string: text), ["http", "https"].contains(parsed.scheme?.lowercased() ?? ""),
              !(parsed.host ?? "").isEmpty else {
            throw ValidationError("URL must be an http:// or https:// URL the receiver can fetch")
        }
        return parsed
    }

    func run() async throws {
        let playURL = try Self.playURL(url)
        let (target, session) = try await AirPlayCommand.session(receiver, lookup: lookup, credentials: credentials)
        do { try await session.play(url: playURL, startPosition: start) } catch {
            await session.close()
            throw error
        }
        Terminal.writeStderr("seamcheck: \(VisibleText.escape(target.endpoint.description)) is playing \(VisibleText.escape(url))\n")
        await session.close()
    }
}

struct AirPlayStatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "GET /playback-info once: duration, position, rate.")

    @Argument(help: "Name, device id or ADDR[:PORT].")
    var receiver: String

    @Option(help: "table (default on a terminal) or json.")
    var format: ListFormat?

    @OptionGroup var lookup: ReceiverLookupOptions
    @OptionGroup var credentials: CredentialsOption

    struct Document: Encodable {
        var schemaVersion = jsonSchemaVersion
        var receiver: String
        var address: String
        var playback: PlaybackInfo
    }

    func run() async throws {
        let (target, session) = try await AirPlayCommand.session(receiver, lookup: lookup, credentials: credentials)
        let info: PlaybackInfo
        do { info = try await session.playbackInfo() } catch {
            await session.close()
            throw error
        }
        await session.close()
        switch ListFormat.resolve(format) {
        case .json:
            try Output.write(JSONOutput.encode(Document(receiver: target.name, address: target.endpoint.description, playback: info)), to: nil)
        case .table:
            let number = { (value: Double?) in value.map { String(format: "%.3f", $0) } ?? "-" }
            var text = "receiver  \(VisibleText.escape(target.endpoint.description))\n"
            text += "duration  \(number(info.duration))\nposition  \(number(info.position))\nrate      \(number(info.rate))\n"
            if let ready = info.readyToPlay { text += "ready     \(ready)\n" }
            if let error = info.error { text += "error     \(VisibleText.escape(error.description))\n" }
            try Output.write(text, to: nil)
        }
    }
}

struct AirPlayStopCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "stop", abstract: "POST /stop: the receiver stops playing.")

    @Argument(help: "Name, device id or ADDR[:PORT].")
    var receiver: String

    @OptionGroup var lookup: ReceiverLookupOptions
    @OptionGroup var credentials: CredentialsOption

    func run() async throws {
        let (target, session) = try await AirPlayCommand.session(receiver, lookup: lookup, credentials: credentials)
        do { try await session.stop() } catch {
            await session.close()
            throw error
        }
        await session.close()
        Terminal.writeStderr("seamcheck: \(VisibleText.escape(target.endpoint.description)) stopped\n")
    }
}
