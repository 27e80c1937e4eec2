import AirPlay
import Compatibility
import Discovery
import Foundation
import LabCore
import LabServer

/// A receiver the run could play on, from discovery or an inventory pin, with why it cannot
/// when it cannot (a speaker, a mirroring-only receiver, asleep).
public struct ReceiverCandidate: Sendable, Equatable {
    public var name: String
    public var deviceId: String?
    public var deviceClass: String?
    public var addresses: [String]
    public var port: Int
    /// nil when it can play lab cases.
    public var notRunnable: String?
    /// What its TXT record says it wants before playing; nil when not discovered.
    public var pairing: PairingRequirement?
    /// What its TXT record says it runs (srcvers, osvers, fv, model); nil when not discovered.
    public var software: LabReceiverSoftware? = nil

    public init(name: String, deviceId: String? = nil, deviceClass: String? = nil, addresses: [String], port: Int,
                notRunnable: String? = nil, pairing: PairingRequirement? = nil) {
        self.name = name
        self.deviceId = deviceId
        self.deviceClass = deviceClass
        self.addresses = addresses
        self.port = port
        self.notRunnable = notRunnable
        self.pairing = pairing
    }

    /// Classes whose receivers have no URL playback.
    static let classesWithoutVideo: Set<String> = ["speaker-audio-only", "screen-mirroring"]

    /// A discovered receiver: runnable when it advertises `_airplay._tcp` with the AirPlay video bits.
    public init(discovered: ClassifiedReceiver) {
        let receiver = discovered.receiver
        let facts = ReceiverFacts(receiver: receiver, info: discovered.info)
        var why: String?
        if !receiver.services.contains("_airplay._tcp") {
            why = "advertises only \(receiver.services.joined(separator: ", ")): an audio receiver without AirPlay video"
        } else if facts.video == false {
            why = "no AirPlay video in its features (\(receiver.features?.hex ?? "?")): a speaker or a mirroring-only receiver has no URL playback"
        } else if let deviceClass = discovered.deviceClass, Self.classesWithoutVideo.contains(deviceClass) {
            why = "classed \(deviceClass): no URL playback"
        } else if receiver.isAsleep {
            why = "asleep (a sleep proxy answers for it, port 0); wake it and run again"
        } else if receiver.addresses.isEmpty {
            why = "no address resolved"
        }
        self.init(name: receiver.name, deviceId: receiver.deviceId, deviceClass: discovered.deviceClass,
                  addresses: receiver.addresses, port: receiver.port, notRunnable: why, pairing: receiver.pairing)
        let fv = ["_airplay._tcp", "_raop._tcp"].lazy.compactMap { receiver.txt[$0]?["fv"] ?? nil }.first { !$0.isEmpty }
        let software = LabReceiverSoftware(sourceVersion: receiver.sourceVersion, osVersion: receiver.osVersion,
                                           firmwareVersion: fv, model: receiver.model)
        self.software = software.isEmpty ? nil : software
    }

    /// An inventory pin with addresses that discovery did not find (AirPlay port 7000).
    public init(pinned entry: LabInventory.Entry, port: Int = 7000) {
        self.init(name: entry.name ?? entry.deviceId ?? entry.addresses.first ?? "?", deviceId: entry.deviceId,
                  deviceClass: entry.deviceClass, addresses: entry.addresses, port: port,
                  notRunnable: Self.classesWithoutVideo.contains(entry.deviceClass)
                      ? "pinned as \(entry.deviceClass) in \(entry.field): no URL playback" : nil)
    }
}

/// A receiver left out of the run, and why.
public struct SkippedReceiver: Sendable, Equatable, Codable {
    public var name: String
    public var address: String?
    public var reason: String

    public init(name: String, address: String?, reason: String) {
        self.name = name
        self.address = address
        self.reason = reason
    }
}

/// Picks a run's receivers: every candidate by default, or those `--receiver` names by name,
/// device id or address. An `ADDR[:PORT]` nothing else matches is a receiver of its own (no
/// discovery needed); anything else unknown is an error with a did-you-mean.
public enum ReceiverSelection {
    public static let defaultPort = 7000

    /// True when every wanted receiver is an address, so that no discovery is needed.
    public static func needsDiscovery(_ wanted: [String]) -> Bool {
        wanted.isEmpty || wanted.contains { address($0) == nil }
    }

    /// `192.0.2.1`, `192.0.2.1:7000`, `::1`, `[::1]:7000` as host and port.
    public static func address(_ text: String) -> (host: String, port: Int?)? {
        var host = text, port: Int?
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":"), let value = Int(rest.dropFirst()), (1...65535).contains(value) else { return nil }
                port = value
            }
        } else if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
            host = String(text[..<colon])
            guard let value = Int(text[text.index(after: colon)...]), (1...65535).contains(value) else { return nil }
            port = value
        }
        var v4 = in_addr(), v6 = in6_addr()
        let isAddress = inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
        return isAddress ? (host, port) : nil
    }

    public static func select(_ candidates: [ReceiverCandidate], wanted: [String]) throws(LabInputError)
        -> (targets: [RunTarget], skipped: [SkippedReceiver]) {
        var chosen: [(ReceiverCandidate, port: Int?)] = []
        if wanted.isEmpty {
            chosen = candidates.map { ($0, nil) }
        } else {
            for text in wanted {
                let trimmed = text.trimmingCharacters(in: .whitespaces)
                let id = ReceiverDescription.normalizedDeviceId(trimmed)
                let parsed = address(trimmed)
                if let found = candidates.first(where: { $0.name.caseInsensitiveCompare(trimmed) == .orderedSame })
                    ?? candidates.first(where: { id != nil && $0.deviceId == id })
                    ?? candidates.first(where: { candidate in parsed.map { candidate.addresses.contains($0.host) } ?? false }) {
                    chosen.append((found, parsed?.port))
                } else if let parsed {
                    chosen.append((ReceiverCandidate(name: trimmed, addresses: [parsed.host], port: parsed.port ?? defaultPort), nil))
                } else {
                    let known = candidates.map(\.name) + candidates.compactMap(\.deviceId)
                    throw .unknownReceiver(trimmed, hint: Suggestion.text(for: trimmed, in: known), known: candidates.map(\.name))
                }
            }
        }
        var targets: [RunTarget] = [], skipped: [SkippedReceiver] = []
        var seen = Set<String>()
        for (candidate, port) in chosen {
            guard seen.insert(candidate.deviceId ?? candidate.name.lowercased() + "@" + (candidate.addresses.first ?? "")).inserted else { continue }
            if let why = candidate.notRunnable {
                skipped.append(SkippedReceiver(name: candidate.name, address: candidate.addresses.first, reason: why))
                continue
            }
            guard let host = candidate.addresses.first else { continue }
            targets.append(RunTarget(name: candidate.name, deviceId: candidate.deviceId, deviceClass: candidate.deviceClass,
                                     endpoint: AirPlayEndpoint(host: host, port: port ?? candidate.port, name: candidate.name,
                                                               deviceId: candidate.deviceId), pairing: candidate.pairing))
            targets[targets.count - 1].software = candidate.software
        }
        return (targets, skipped)
    }
}

/// Picks cases by id or `*` glob; an id or glob that matches nothing is an error with a did-you-mean.
public enum CaseSelection {
    public static func select(_ patterns: [String], from manifest: LabManifest) throws(LabInputError) -> [LabCase] {
        guard !patterns.isEmpty else { return manifest.cases }
        var chosen: [LabCase] = []
        let ids = manifest.cases.map(\.id)
        for pattern in patterns {
            let matched = manifest.cases.filter { Glob.matches(pattern, $0.id) }
            guard !matched.isEmpty else {
                throw .unknownCase(pattern, hint: Suggestion.text(for: pattern, in: ids), known: ids)
            }
            for labCase in matched where !chosen.contains(where: { $0.id == labCase.id }) { chosen.append(labCase) }
        }
        return chosen
    }
}
