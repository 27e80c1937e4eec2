import Compatibility
import Discovery
import Foundation
import MediaProbe

/// The classes `discovered` stands for in one run, and the receivers behind them.
public struct DiscoveredClasses: Sendable, Equatable {
    /// Profile ids, sorted.
    public var classes: [String]
    /// "name: class (reason)" per receiver, for the run's log.
    public var receivers: [String]
    /// Receivers no profile (or inventory pin) classified: not run.
    public var unclassified: [String]

    public init(classes: [String], receivers: [String], unclassified: [String] = []) {
        self.classes = classes
        self.receivers = receivers
        self.unclassified = unclassified
    }
}

/// Why `discovered` could not be resolved.
public struct DiscoveryFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    /// True when avahi-daemon or D-Bus is missing (exit code 3); false for a bad inventory.
    public var serviceMissing: Bool

    public init(_ description: String, serviceMissing: Bool) {
        self.description = description
        self.serviceMissing = serviceMissing
    }
}

/// Finds the receivers on the LAN and classifies them; a seam so that tests can stand in
/// for a lab they do not have.
public protocol ClassDiscovering: Sendable {
    func discover(profiles: [DeviceProfile], settings: DiscoverySettings) async throws(DiscoveryFailure) -> DiscoveredClasses
}

/// `ClassDiscovering` through avahi-daemon: one browse (`AirPlayBrowser.discover`), each
/// receiver classified by `ReceiverClassifier` with the lab inventory when one is given.
/// Does not ask receivers for `/info` (that is `seamcheck discover --info`).
public struct AvahiClassDiscovery: ClassDiscovering {
    public init() {}

    public func discover(profiles: [DeviceProfile], settings: DiscoverySettings) async throws(DiscoveryFailure) -> DiscoveredClasses {
        var inventory: LabInventory?
        if let path = settings.inventory {
            do { inventory = try LabInventory.load(path, knownClasses: profiles.map(\.id)) } catch {
                throw DiscoveryFailure(error.description, serviceMissing: false)
            }
        }
        let result: BrowseResult
        do {
            result = try await AirPlayBrowser.discover(timeout: .milliseconds(Int64(min(settings.timeout, ProbeOptions.maxTimeout) * 1000)),
                                                       interface: settings.interface)
        } catch {
            throw DiscoveryFailure(error.description, serviceMissing: error.exitCode == 3)
        }
        let classifier = ReceiverClassifier(profiles: profiles, inventory: inventory)
        var classes = Set<String>(), lines: [String] = [], unclassified: [String] = []
        for receiver in result.receivers {
            let classification = classifier.classify(receiver)
            if let deviceClass = classification.deviceClass {
                classes.insert(deviceClass)
                lines.append("\(receiver.name): \(deviceClass) (\(classification.reason))")
            } else {
                unclassified.append("\(receiver.name): \(classification.reason)")
            }
        }
        return DiscoveredClasses(classes: classes.sorted(), receivers: lines, unclassified: unclassified)
    }
}

/// Turns a matrix's `deviceClasses` into the profiles of the run.
public enum DeviceClassResolver {
    /// Listed profiles in file order; `discovered` adds, at its place, the discovered classes
    /// not listed already. Fails when the result is empty.
    public static func resolve(_ spec: MatrixSpec, profiles: [DeviceProfile],
                               discovery: any ClassDiscovering) async throws(DiscoveryFailure) -> (profiles: [DeviceProfile], discovered: DiscoveredClasses?) {
        var ids: [String] = []
        var found: DiscoveredClasses?
        for selector in spec.deviceClasses {
            switch selector {
            case .profile(let id):
                if !ids.contains(id) { ids.append(id) }
            case .discovered:
                let classes = try await discovery.discover(profiles: profiles, settings: spec.discovery ?? DiscoverySettings())
                found = classes
                ids += classes.classes.filter { !ids.contains($0) }
            }
        }
        guard !ids.isEmpty else {
            let unclassified = found?.unclassified ?? []
            throw DiscoveryFailure("\(spec.file): deviceClasses: discovered found no classified receiver"
                + (unclassified.isEmpty ? " on the network" : " (unclassified: \(unclassified.joined(separator: "; ")))")
                + "; check that the receivers are on, pin them in a discovery.inventory file, or list profile ids",
                serviceMissing: false)
        }
        return (ids.compactMap { id in profiles.first { $0.id == id } }, found)
    }
}
