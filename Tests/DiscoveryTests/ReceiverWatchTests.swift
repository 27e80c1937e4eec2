@testable import Discovery
import Foundation
import XCTest

/// The event layer: snapshots of services in, added / updated / removed receivers out.
final class ReceiverDiffTests: XCTestCase {
    private func service(_ type: String, _ name: String, txt: TXTRecord, port: Int = 7000) -> ResolvedService {
        ResolvedService(type: type, name: name, interface: "lo", hostName: "h.local", address: "127.0.0.1", port: port, txt: txt)
    }

    private var airplay: ResolvedService { service("_airplay._tcp", "Living Room", txt: TXTFixtures.appleTV4K) }
    private var raop: ResolvedService { service("_raop._tcp", "90DD5D98F00A@Living Room", txt: ["am": "AppleTV6,2"]) }

    func testFirstSnapshotAddsEveryReceiver() {
        let other = service("_airplay._tcp", "Kitchen", txt: TXTFixtures.homePod)
        let (events, listed) = ReceiverDiffer.changes(from: [:], to: Receiver.merge([airplay, other]))
        XCTAssertEqual(events.map(\.kind), ["added Kitchen", "added Living Room"])
        XCTAssertEqual(Set(listed.keys), ["device:90:DD:5D:98:F0:0A@Living Room", "service:_airplay._tcp:Kitchen"])
    }

    func testSecondServiceOfAReceiverIsAnUpdateNotANewReceiver() {
        let before = ReceiverDiffer.changes(from: [:], to: Receiver.merge([airplay])).listed
        let (events, _) = ReceiverDiffer.changes(from: before, to: Receiver.merge([airplay, raop]))
        XCTAssertEqual(events.map(\.kind), ["updated Living Room"])
        if case .updated(let receiver) = events.first {
            XCTAssertEqual(receiver.services, ["_airplay._tcp", "_raop._tcp"])
        }
    }

    func testUnchangedSnapshotYieldsNothingAndTXTChangeYieldsUpdate() {
        let before = ReceiverDiffer.changes(from: [:], to: Receiver.merge([airplay])).listed
        XCTAssertEqual(ReceiverDiffer.changes(from: before, to: Receiver.merge([airplay])).events, [])
        var playing = TXTFixtures.appleTV4K
        playing["flags"] = "0x30644"
        let events = ReceiverDiffer.changes(from: before, to: Receiver.merge([service("_airplay._tcp", "Living Room", txt: playing)])).events
        XCTAssertEqual(events.map(\.kind), ["updated Living Room"])
    }

    func testRemovalsComeFirstAndCarryTheLastKnownState() {
        let before = ReceiverDiffer.changes(from: [:], to: Receiver.merge([airplay, raop])).listed
        let newcomer = service("_airplay._tcp", "Den", txt: TXTFixtures.roku)
        let (events, listed) = ReceiverDiffer.changes(from: before, to: Receiver.merge([newcomer]))
        XCTAssertEqual(events.map(\.kind), ["removed Living Room", "added Den"])
        if case .removed(let gone) = events.first {
            XCTAssertEqual(gone.services, ["_airplay._tcp", "_raop._tcp"])
        }
        XCTAssertEqual(Array(listed.keys), ["service:_airplay._tcp:Den"])
    }

    func testLostDaemonSignalBecomesRemovalsThenDaemonLost() {
        let differ = ReceiverDiffer()
        _ = differ.events(for: .services([airplay]))
        let events = differ.events(for: .services([])) + differ.events(for: .lost(.daemonNotRunning(reason: "Daemon connection failed")))
        XCTAssertEqual(events.map(\.kind), ["removed Living Room", "daemonLost"])
    }
}

/// The watch against the real avahi-daemon (scripts/services.sh) and avahi-publish.
final class ReceiverWatchTests: XCTestCase {
    private func randomDeviceId() -> (colons: String, plain: String) {
        var bytes = (0..<6).map { _ in UInt8.random(in: 0...255) }
        bytes[0] = (bytes[0] | 0x02) & 0xFE
        let hex = bytes.map { String(format: "%02X", $0) }
        return (hex.joined(separator: ":"), hex.joined())
    }

    /// Collects events until `until` holds for one, `timeout` passes, or the sequence ends.
    private func next(_ iterator: inout ReceiverWatch.AsyncIterator, timeout: TimeInterval,
                      until: (DiscoveryEvent) -> Bool) async -> [DiscoveryEvent] {
        let deadline = Date().addingTimeInterval(timeout)
        var seen: [DiscoveryEvent] = []
        while Date() < deadline, let event = await iterator.next() {
            seen.append(event)
            if until(event) { break }
        }
        return seen
    }

    func testWatchReportsAddedThenRemovedWhenThePublisherStops() async throws {
        _ = try AvahiTestEnvironment.requireDaemon()
        let id = randomDeviceId()
        let name = "Seamcheck Watch \(id.plain.suffix(4))"
        let watch = try await AirPlayBrowser.watch(interface: "lo")
        let watchdog = Task {  // ends the sequence, and so the test, if an event never comes
            try await Task.sleep(for: .seconds(30))
            watch.stop()
        }
        defer {
            watchdog.cancel()
            watch.stop()
        }
        var events = watch.makeAsyncIterator()
        let initial = await next(&events, timeout: 10) { $0 == .browseComplete }
        XCTAssertEqual(initial.last, .browseComplete)

        let publisher = try AvahiPublisher(name: name, type: "_airplay._tcp", port: 7000, txt: [
            "deviceid=\(id.colons)", "features=0x445F8A00,0x1C340", "model=Bookshelf", "manufacturer=Sonos",
        ])
        let added = await next(&events, timeout: 10) { if case .added(let r) = $0 { r.deviceId == id.colons } else { false } }
        guard case .added(let receiver)? = added.last else { return XCTFail("no added event: \(added)") }
        XCTAssertEqual(receiver.name, name)
        XCTAssertEqual(receiver.model, "Bookshelf")
        XCTAssertFalse(receiver.capabilities.video)

        publisher.stop()
        let removed = await next(&events, timeout: 10) { if case .removed(let r) = $0 { r.deviceId == id.colons } else { false } }
        guard case .removed(let gone)? = removed.last else { return XCTFail("no removed event: \(removed)") }
        XCTAssertEqual(gone.name, name)
    }

    func testStopEndsTheSequence() async throws {
        _ = try AvahiTestEnvironment.requireDaemon()
        let watch = try await AirPlayBrowser.watch()
        let started = Date()
        Task {
            try await Task.sleep(for: .milliseconds(200))
            watch.stop()
        }
        var count = 0
        for await _ in watch { count += 1 }
        XCTAssertLessThan(Date().timeIntervalSince(started), 2, "the sequence must end soon after stop()")
    }

    func testDiscoverReportsCompletenessAndTheTimeoutCutsTheWaitShort() async throws {
        _ = try AvahiTestEnvironment.requireDaemon()
        let complete = try await AirPlayBrowser.discover(timeout: .seconds(10))
        XCTAssertTrue(complete.isComplete)
        let started = Date()
        let cut = try await AirPlayBrowser.discover(timeout: .milliseconds(100))
        // ALL_FOR_NOW comes 1 s after Avahi starts querying a type (or at once when another client
        // of the daemon browses it already): the timeout must cut that wait short, which the
        // incomplete list says (the wall bound only has to tell it from the 10 s of the first call).
        XCTAssertLessThan(Date().timeIntervalSince(started), 3)
        guard !cut.isComplete else {
            throw XCTSkip("another client of this avahi-daemon browses the AirPlay types: the browse completed at once")
        }
    }
}

extension DiscoveryEvent {
    /// "added Living Room", "browseComplete": enough to compare sequences of events.
    var kind: String {
        switch self {
        case .added(let r): "added \(r.name)"
        case .updated(let r): "updated \(r.name)"
        case .removed(let r): "removed \(r.name)"
        case .browseComplete: "browseComplete"
        case .unresolved(let service, _, _): "unresolved \(service)"
        case .daemonLost: "daemonLost"
        case .daemonReconnected: "daemonReconnected"
        case .failed: "failed"
        }
    }
}
