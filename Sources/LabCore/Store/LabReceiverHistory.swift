import Foundation
import Store

/// What the lab knew of each receiver over time, so that a session shows the class its receiver
/// had while it played (not the one it has now), and which receivers Avahi has since removed.
/// `labReceiverHistory` gets a row whenever an address's receiver, name or class changes;
/// `labReceiver.goneAt` is set when Avahi removes it, cleared when it returns.
extension LabStore {
    /// Appends `record` to the history of its address at `station` when what it says differs from the last entry.
    static func appendHistory(_ db: any SQLConnection, _ record: LabReceiverRecord, station: String) throws {
        let last = try db.queryOne("""
            SELECT name, deviceId, deviceClass, classifiedBy, declaredHDRFormats FROM labReceiverHistory
            WHERE station = ? AND address = ? ORDER BY seenAt DESC, id DESC LIMIT 1
            """, [station, record.address])
        let hdr = record.declaredHDRFormats?.joined(separator: ",")
        if let last, last["name"] == record.name, last["deviceId"] == record.deviceId, last["deviceClass"] == record.deviceClass,
           last["classifiedBy"] == record.classifiedBy, last["declaredHDRFormats"] as String? == hdr {
            return
        }
        try db.execute("""
            INSERT INTO labReceiverHistory (station, address, name, deviceId, model, deviceClass, classifiedBy, reason, source, seenAt,
                                            declaredHDRFormats, declaredCodecs, supportsInterstitials)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [station, record.address, record.name, record.deviceId, record.model, record.deviceClass, record.classifiedBy,
                             record.reason, record.source.rawValue, record.seenAt.timeIntervalSince1970, hdr,
                             record.declaredCodecs?.joined(separator: ","), record.supportsInterstitials])
    }

    /// Marks this station's receivers at `addresses` as removed by Avahi at `date` (kept: earlier requests need them).
    public func markGone(addresses: [String], at date: Date = Date()) throws(LabStoreError) {
        guard !addresses.isEmpty else { return }
        try write("mark receivers gone") { db in
            for address in addresses {
                try db.execute("UPDATE labReceiver SET goneAt = ? WHERE station = ? AND address = ? AND source = 'avahi'",
                               [date.timeIntervalSince1970, station, address])
            }
        }
    }

    /// Every entry of every address's history (at `station`, or at every station), oldest first.
    public func receiverHistory(station: String? = nil) throws(LabStoreError) -> [LabReceiverRecord] {
        let filter = Self.stationClause(station, joiner: "WHERE")
        return try read("read the receiver history") { db in
            try db.query("SELECT * FROM labReceiverHistory\(filter.sql) ORDER BY station, address, seenAt, id", filter.arguments)
                .map(Self.receiver)
        }
    }

    /// A receiver record from a `labReceiver` or `labReceiverHistory` row.
    static func receiver(_ row: SQLRow) -> LabReceiverRecord {
        var record = LabReceiverRecord(address: row["address"], name: row["name"], deviceId: row["deviceId"], model: row["model"],
                                       deviceClass: row["deviceClass"], classifiedBy: row["classifiedBy"], reason: row["reason"],
                                       source: LabReceiverRecord.Source(rawValue: row["source"]) ?? .avahi,
                                       seenAt: Date(timeIntervalSince1970: row["seenAt"]),
                                       declaredHDRFormats: (row["declaredHDRFormats"] as String?).map(Self.list),
                                       declaredCodecs: (row["declaredCodecs"] as String?).map(Self.list),
                                       supportsInterstitials: row["supportsInterstitials"])
        if row.hasColumn("goneAt"), let gone: Double = row["goneAt"] { record.goneAt = Date(timeIntervalSince1970: gone) }
        record.station = LabStation.read(row["station"])
        return record
    }
}
