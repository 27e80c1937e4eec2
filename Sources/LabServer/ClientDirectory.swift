import Compatibility
import Discovery
import Foundation
import LabCore
import Store
import Logging

/// Keeps the lab's receiver table current, so that each client address maps to a receiver and a
/// device class: inventory pins by address at once, Avahi's receivers as they appear or change.
/// Rows are never removed (requests logged earlier still need their receiver): one Avahi removed is
/// marked gone, and every change of class is kept in the receiver history (LabReceiverHistory).
final class ClientDirectory: @unchecked Sendable {
    private let store: LabStore
    private let classifier: ReceiverClassifier
    private let inventory: LabInventory?
    private let logger: Logger
    private let lock = NSLock()
    private var watch: ReceiverWatch?
    private var stopped = false
    /// The latest /info answer per receiver id, so that a TXT update keeps what /info said.
    private var infos: [String: ReceiverInfo] = [:]
    /// Addresses the inventory pins: Avahi does not overwrite them.
    private let pinned: Set<String>
    /// Ask each receiver GET /info.
    private let asking: Bool

    init(store: LabStore, profiles: [DeviceProfile], inventory: LabInventory?, askInfo: Bool, logger: Logger) {
        self.store = store
        self.pinned = Set(inventory?.entries.flatMap(\.addresses) ?? [])
        self.asking = askInfo
        self.classifier = ReceiverClassifier(profiles: profiles, inventory: inventory)
        self.inventory = inventory
        self.logger = logger
    }

    /// Records the inventory's address pins.
    func pinInventory() {
        for entry in inventory?.entries ?? [] {
            for address in entry.addresses {
                let record = LabReceiverRecord(address: address, name: entry.name ?? entry.deviceId ?? address, deviceId: entry.deviceId,
                                               deviceClass: entry.deviceClass, classifiedBy: Classification.Source.inventory.rawValue,
                                               reason: "pinned by address in \(inventory?.file ?? "the inventory") \(entry.field)"
                                                   + (entry.note.map { " (\($0))" } ?? ""),
                                               source: .inventory)
                do { try store.upsert(record) } catch { logger.error("\(error.description)") }
            }
        }
    }

    /// Browses through avahi-daemon until `stop()`; returns at once, with why, when it cannot.
    func run(interface: String?) async -> DiscoveryError? {
        let receivers: ReceiverWatch
        do { receivers = try await AirPlayBrowser.watch(interface: interface) } catch { return error }
        if !adopt(receivers) { receivers.stop(); return nil }
        var asked: [String: String] = [:]  // receiver id -> the addresses and port /info was asked on
        var recorded: [String: Receiver] = [:]  // receiver id -> as last recorded
        for await event in receivers {
            switch event {
            case .added(let receiver), .updated(let receiver):
                if let before = recorded[receiver.id], Self.isLeaving(before: before, now: receiver) {
                    // A receiver shutting down withdraws its records one by one (AirPlay, then RAOP): what
                    // is left says less about it, not that it changed. Keep its class.
                    logger.debug("receiver \(receiver.name) withdrew \(Set(before.services).subtracting(receiver.services).sorted()): class kept")
                    continue
                }
                recorded[receiver.id] = receiver
                await record(receiver, info: lock.withLock { infos[receiver.id] })
                let target = receiver.addresses.joined(separator: ",") + ":\(receiver.port)"
                if asking, asked[receiver.id] != target {
                    asked[receiver.id] = target
                    // /info refines the class (HDR modes) and says what the receiver declares; a
                    // receiver that never answers costs its own timeout, nothing else.
                    Task { [weak self] in
                        let outcome = await AirPlayInfoClient.fetch(receiver)
                        guard let self, let info = outcome.info else { return }
                        self.lock.withLock { self.infos[receiver.id] = info }
                        await self.record(receiver, info: info)
                    }
                }
            case .removed(let receiver):
                recorded[receiver.id] = nil
                asked[receiver.id] = nil
                let addresses = receiver.addresses.filter { !pinned.contains($0) }
                let store = self.store
                do { try await StoreThreads.shared.call { () throws(StoreError) in try store.markGone(addresses: addresses) } } catch {
                    logger.error("\(error.description)")
                }
                logger.info("receiver \(receiver.name) at \(receiver.addresses.joined(separator: ", ")) is gone (Avahi removed it); its sessions keep it")
            case .daemonLost(let error):
                logger.warning("avahi-daemon went away (\(error.description)); new receivers are not mapped until it returns")
            case .daemonReconnected:
                logger.info("avahi-daemon is back; mapping receivers again")
            case .failed(let error):
                return error
            default:
                break
            }
        }
        return nil
    }

    /// Whether `now` is `before` with services withdrawn and nothing new: a receiver going away.
    static func isLeaving(before: Receiver, now: Receiver) -> Bool {
        Set(now.services).isStrictSubset(of: Set(before.services))
    }

    /// Keeps `receivers` to stop later; false when `stop()` came first.
    private func adopt(_ receivers: ReceiverWatch) -> Bool {
        lock.withLock {
            if stopped { return false }
            watch = receivers
            return true
        }
    }

    /// Records every address of `receiver`, classified with `info` when there is one.
    private func record(_ receiver: Receiver, info: ReceiverInfo?) async {
        let classification = classifier.classify(receiver, info: info)
        for address in receiver.addresses where !pinned.contains(address) {
            let record = LabReceiverRecord(address: address, name: receiver.name, deviceId: receiver.deviceId,
                                           model: receiver.model, deviceClass: classification.deviceClass,
                                           classifiedBy: classification.classifiedBy?.rawValue, reason: classification.reason,
                                           source: .avahi, declaredHDRFormats: info?.hdrFormats, declaredCodecs: info?.codecs,
                                           supportsInterstitials: info?.supportsInterstitials)
            let store = self.store
            do { try await StoreThreads.shared.call { () throws(StoreError) in try store.upsert(record) } } catch {
                logger.error("\(error.description)")
            }
        }
        logger.info("receiver \(receiver.name) at \(receiver.addresses.joined(separator: ", ")): \(classification.deviceClass ?? "unclassified") (\(classification.reason))\(info == nil ? "" : " with /info")")
    }

    func stop() {
        lock.lock()
        stopped = true
        let current = watch
        lock.unlock()
        current?.stop()
    }
}
