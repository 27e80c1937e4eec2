import ArgumentParser
import Compatibility
import Discovery
import Foundation
import HLS
import Reporting
import ResultsReporting

struct DiscoverCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "discover",
        abstract: "Find AirPlay receivers through avahi-daemon and put each in a device class.",
        discussion: """
        Browses _airplay._tcp and _raop._tcp, merges both services of a receiver, decodes their TXT records and \
        classifies each receiver: a pin in the --inventory file first, else the device profile whose `match` fits \
        best (DeviceProfiles/README.md); a receiver nothing fits is listed with deviceClass null. Returns as soon \
        as Avahi reports the initial browse complete (about 1 s), or at --timeout with what was found by then. \
        With --watch, prints add, update and remove events until SIGINT or SIGTERM (exit 0); in JSON one object \
        per line: {"event": "added"|"updated"|"removed", "receiver": {...}}, {"event": "browseComplete", \
        "receivers": N}, {"event": "daemonLost"|"daemonReconnected"}. If avahi-daemon dies meanwhile, its receivers \
        are removed and the watch waits for it to come back. Exit code 3 when avahi-daemon or D-Bus is not running.
        """)

    @Option(help: "Seconds to wait for the initial browse (default 10). With --watch: stop after this many seconds (default: until interrupted).")
    var timeout: Double?

    @Flag(help: "Keep running and print receivers as they are added, updated and removed.")
    var watch = false

    @Option(help: "Browse on this network interface only, such as eth0.")
    var interface: String?

    @Flag(help: "Ask each receiver GET /info (2 s timeout; its AirPlay port over HTTP, then RTSP, then its RAOP port) for its displays, HDR modes and codecs, and refine its class with them.")
    var info = false

    @Option(help: "table (default on a terminal) or json.")
    var format: ListFormat?

    @OptionGroup var profilesDir: ProfilesDirOption

    @Option(help: "A lab inventory YAML file that pins receivers (by deviceId or name) to device classes.")
    var inventory: String?

    func validate() throws {
        if let timeout, !(timeout > 0 && timeout <= 1_000_000) {
            throw ValidationError("--timeout must be a positive number of seconds (at most 1000000)")
        }
    }

    func run() async throws {
        let format = ListFormat.resolve(format)
        if watch {
            try await runWatch(format: format)
        } else {
            try await runOnce(format: format)
        }
    }

    private func runOnce(format: ListFormat) async throws {
        let started = ContinuousClock.now
        let wait = Duration.milliseconds(Int64((timeout ?? 10) * 1000))
        // Avahi needs about a second for ALL_FOR_NOW: profiles load meanwhile.
        async let browsing = Self.browse(timeout: wait, interface: interface)
        let classifier = try loadClassifier()
        let result = try await browsing.get()
        let elapsed = ContinuousClock.now - started
        let infos = info ? await Self.fetchInfo(result.receivers) : [:]
        let receivers = result.receivers.map { classifier.classified($0, info: infos[$0.id]) }

        var warnings = result.unresolved.map { "not resolved: \($0)" }
        if !result.isComplete {
            warnings.insert("the initial browse was not complete after \(String(format: "%g", timeout ?? 10)) s; "
                + "receivers that had not answered yet are missing (raise --timeout)", at: 0)
        }
        for warning in warnings { Terminal.writeStderr("seamcheck: warning: \(VisibleText.escape(warning))\n") }
        switch format {
        case .json:
            try Output.write(JSONOutput.encode(DiscoverDocument(complete: result.isComplete, interface: interface,
                                                                receivers: receivers, warnings: warnings)), to: nil)
        case .table:
            try Output.write(DiscoverTable.render(receivers, info: info, elapsed: elapsed, complete: result.isComplete), to: nil)
        }
    }

    private func runWatch(format: ListFormat) async throws {
        let classifier = try loadClassifier()
        let receivers = try await AirPlayBrowser.watch(interface: interface)
        let signals = SignalTrap { _ in receivers.stop() }
        let timer = timeout.map { seconds in
            Task {
                try? await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
                receivers.stop()
            }
        }
        defer { timer?.cancel() }

        // `/info` requests start as soon as their event is read and run side by side; events are
        // still printed in order, each once its own answer is in.
        typealias Pending = (id: String, answer: Task<InfoOutcome, Never>)
        let (queue, feed) = AsyncStream.makeStream(of: (event: DiscoveryEvent, info: Pending?).self)
        let asking = info
        let reader = Task {
            var asked: [String: String] = [:]  // receiver id -> the address:port last asked
            for await event in receivers {
                var pending: Pending?
                switch event {
                case .added(let receiver), .updated(let receiver):
                    let target = DiscoverTable.address(receiver)
                    if asking, asked[receiver.id] != target {
                        asked[receiver.id] = target
                        pending = (receiver.id, Task { await AirPlayInfoClient.fetch(receiver) })
                    }
                case .removed(let receiver):
                    asked[receiver.id] = nil
                default:
                    break
                }
                feed.yield((event, pending))
            }
            feed.finish()
        }
        defer { reader.cancel() }

        var infos: [String: InfoOutcome] = [:]
        var listed = Set<String>()
        let printer = WatchPrinter(format: format, info: info)
        for await (event, pending) in queue {
            if let pending { infos[pending.id] = await pending.answer.value }
            switch event {
            case .added(let receiver), .updated(let receiver):
                let isNew = listed.insert(receiver.id).inserted
                try printer.receiver(isNew ? "added" : "updated", classifier.classified(receiver, info: infos[receiver.id]))
            case .removed(let receiver):
                listed.remove(receiver.id)
                try printer.receiver("removed", classifier.classified(receiver, info: infos.removeValue(forKey: receiver.id)))
            case .browseComplete:
                try printer.browseComplete(count: listed.count)
            case let .unresolved(service, type, reason):
                Terminal.writeStderr("seamcheck: warning: " + VisibleText.escape("not resolved: \(service) (\(type)): \(reason)") + "\n")
            case .daemonLost(let error):
                Terminal.writeStderr("seamcheck: avahi-daemon went away (\(error.reason)); its receivers were dropped. Waiting "
                    + "for it to come back (start it with scripts/services.sh start, or `service avahi-daemon start`)\n")
                try printer.daemon("daemonLost", message: error.description)
            case .daemonReconnected:
                Terminal.writeStderr("seamcheck: avahi-daemon is back; browsing again\n")
                try printer.daemon("daemonReconnected", message: nil)
            case .failed(let error):
                throw error
            }
        }
        withExtendedLifetime(signals) {}
    }

    /// Profiles (with their `match` sections) and the inventory; both fail with exit code 2.
    private func loadClassifier() throws -> ReceiverClassifier {
        let profiles = try ProfileLocator.load(explicitDirectory: profilesDir.path, selecting: [])
        guard let inventory else { return ReceiverClassifier(profiles: profiles) }
        return ReceiverClassifier(profiles: profiles, inventory: try LabInventory.load(inventory, knownClasses: profiles.map(\.id)))
    }

    private static func browse(timeout: Duration, interface: String?) async -> Result<BrowseResult, DiscoveryError> {
        do throws(DiscoveryError) {
            return .success(try await AirPlayBrowser.discover(timeout: timeout, interface: interface))
        } catch {
            return .failure(error)
        }
    }

    /// `GET /info` on every receiver at once; each receiver's requests have their own 2 s timeout.
    private static func fetchInfo(_ receivers: [Receiver]) async -> [String: InfoOutcome] {
        await withTaskGroup(of: (String, InfoOutcome).self) { group in
            for receiver in receivers {
                group.addTask { (receiver.id, await AirPlayInfoClient.fetch(receiver)) }
            }
            var results: [String: InfoOutcome] = [:]
            for await (id, result) in group { results[id] = result }
            return results
        }
    }
}

/// The JSON document of a one-shot `seamcheck discover`.
struct DiscoverDocument: Encodable {
    var schemaVersion = jsonSchemaVersion
    /// False when --timeout came before Avahi reported the initial browse complete.
    var complete: Bool
    var interface: String?
    var receivers: [ClassifiedReceiver]
    var warnings: [String]
}

/// One line per event on stdout, written at once (a pipe reader sees each event as it happens).
/// A line that cannot be written ends the watch (exit 2; quietly when the reader has gone).
struct WatchPrinter {
    let format: ListFormat
    let info: Bool

    private struct Event: Encodable {
        var schemaVersion = jsonSchemaVersion
        var event: String
        var receiver: ClassifiedReceiver?
        var receivers: Int?
        var message: String?
    }

    func receiver(_ kind: String, _ receiver: ClassifiedReceiver) throws(OutputError) {
        switch format {
        case .json: try write(Event(event: kind, receiver: receiver))
        case .table:
            let mark = ["added": "+", "updated": "~", "removed": "-"][kind] ?? "?"
            let line = "\(mark) \(kind.padding(toLength: 8, withPad: " ", startingAt: 0)) " + DiscoverTable.summary(receiver, info: info)
            try Output.writeStandardOutput(line + "\n")
        }
    }

    func browseComplete(count: Int) throws(OutputError) {
        switch format {
        case .json: try write(Event(event: "browseComplete", receivers: count))
        case .table: try Output.writeStandardOutput("= initial browse complete: \(count) receiver(s)\n")
        }
    }

    func daemon(_ kind: String, message: String?) throws(OutputError) {
        if format == .json { try write(Event(event: kind, message: message)) }
    }

    private func write(_ event: Event) throws(OutputError) {
        guard let data = try? JSONDocument.encoder(pretty: false).encode(event) else { return }
        try Output.writeStandardOutput(String(decoding: data, as: UTF8.self) + "\n")
    }
}

/// The table of `seamcheck discover --format table`. Names, models and TXT values come from the
/// network: their control characters are made visible, in cells before widths are measured.
enum DiscoverTable {
    static func render(_ receivers: [ClassifiedReceiver], info: Bool, elapsed: Duration, complete: Bool) -> String {
        var rows = [["NAME", "CLASS", "BY", "MODEL", "MANUFACTURER", "ADDRESS", "PAIRING", "CAPABILITIES"] + (info ? ["INFO"] : [])]
        for entry in receivers {
            let model = (entry.receiver.model ?? "?") + (entry.receiver.modelDoubts.isEmpty ? "" : " (claimed)")
            rows.append([entry.receiver.name, entry.deviceClass ?? "(unclassified)", entry.classification.classifiedBy?.rawValue ?? "-",
                         model, entry.receiver.manufacturer ?? "?", address(entry.receiver), pairing(entry.receiver),
                         capabilities(entry.receiver)] + (info ? [infoSummary(entry)] : []))
        }
        rows = rows.map { $0.map(VisibleText.escape) }
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        var lines = rows.map { row in
            zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
                .trimmingCharacters(in: .whitespaces)
        }
        let seconds = String(format: "%.2f", Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        lines.append("")
        lines.append("\(receivers.count) receiver(s); " + (complete ? "initial browse complete in \(seconds) s" : "browse incomplete after \(seconds) s"))
        for entry in receivers {
            lines.append("  \(entry.receiver.name): \(entry.deviceClass ?? "unclassified") - \(entry.classification.reason)")
            if let pin = entry.inventoryPin {
                lines.append("    pin: add \(pin) under receivers: in an --inventory file, CLASS one of `seamcheck profiles list`")
            }
            if let attempts = entry.infoOutcome?.attempts, !attempts.isEmpty {
                lines.append("    /info: " + attempts.map(\.summary).joined(separator: "; "))
            }
            if !entry.receiver.modelDoubts.isEmpty {
                lines.append("    model \(entry.receiver.model ?? "?") is not proof of an Apple device: "
                    + entry.receiver.modelDoubts.joined(separator: "; "))
            }
            lines.append("    pairing: \(entry.receiver.pairing.scheme) (\(entry.receiver.pairing.reason))")
            for warning in entry.warnings { lines.append("    warning: \(warning)") }
        }
        return VisibleText.escape(lines: lines).joined(separator: "\n") + "\n"
    }

    /// One line for a watch event.
    static func summary(_ entry: ClassifiedReceiver, info: Bool) -> String {
        var parts = [entry.receiver.name, entry.deviceClass ?? "(unclassified)", entry.receiver.model ?? "?",
                     address(entry.receiver), capabilities(entry.receiver)]
        if info { parts.append(infoSummary(entry)) }
        if let deviceId = entry.receiver.deviceId { parts.insert(deviceId, at: 1) }
        return VisibleText.escape(parts.joined(separator: "  "))
    }

    static func address(_ receiver: Receiver) -> String {
        guard let first = receiver.addresses.first else { return "-" }
        return (first.contains(":") ? "[\(first)]" : first) + ":\(receiver.port)" + (receiver.isAsleep ? " (asleep)" : "")
    }

    /// The pairing scheme with features bit 27 and `pw` when they are set: "legacy-pin (bit 27, pw)".
    static func pairing(_ receiver: Receiver) -> String {
        let marks = [receiver.pairing.legacyPairingBit == true ? "bit 27" : nil, receiver.pairing.pw == true ? "pw" : nil].compactMap { $0 }
        return receiver.pairing.scheme + (marks.isEmpty ? "" : " (\(marks.joined(separator: ", ")))")
    }

    static func capabilities(_ receiver: Receiver) -> String {
        guard receiver.features != nil else { return receiver.services == ["_raop._tcp"] ? "audio only (RAOP)" : "unknown" }
        let c = receiver.capabilities
        return [c.video ? "video" : c.screenMirroring ? "no URL video" : "audio only", c.airPlay2 ? "AirPlay 2" : nil, c.screenMirroring ? "mirroring" : nil,
                c.passwordRequired ? "password" : nil, c.pinRequired ? "PIN" : nil,
                [.none, .password].contains(receiver.pairing.kind) ? nil : receiver.pairing.summary].compactMap { $0 }.joined(separator: ", ")
    }

    static func infoSummary(_ entry: ClassifiedReceiver) -> String {
        guard let info = entry.info else {
            switch entry.infoError {
            case nil: return "-"
            case .asleep?: return "asleep"
            case .noAddress?: return "no address"
            case .unreachable?: return "unreachable"
            case .timedOut?: return "no answer"
            case .refused(let status, _)?: return "refused (\(status))"
            case .badResponse?: return "bad answer"
            }
        }
        var parts: [String] = []
        if let display = info.displays.first, let width = display.widthPixels, let height = display.heightPixels {
            parts.append("\(width)x\(height)" + (display.maxFPS.map { "@\($0)" } ?? ""))
        }
        parts.append(info.hdrFormats.isEmpty ? "SDR" : info.hdrFormats.joined(separator: "/"))
        if let interstitials = info.supportsInterstitials { parts.append(interstitials ? "interstitials" : "no interstitials") }
        return parts.joined(separator: " ")
    }
}
