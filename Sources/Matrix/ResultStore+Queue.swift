import Foundation
import Store

/// Where a shared run's cases stand.
public struct RunQueueState: Sendable, Equatable {
    public var waiting: Int
    public var claimed: Int
    public var done: Int
    public var total: Int { waiting + claimed + done }
}

/// Why a worker cannot join a shared run.
public enum RunJoinError: Error, Sendable, Equatable, CustomStringConvertible {
    case otherMatrix(name: String, runId: Int64)

    public var description: String {
        switch self {
        case .otherMatrix(let name, let runId):
            return "run \(runId) (--run-name \(name)) was started from a different matrix file; give this matrix another --run-name, "
                + "or run the same file on every worker"
        }
    }
}

/// The work queue of a run drained by several workers (`matrix run --worker`, docs/postgres.md):
/// the first worker records the run and queues its cases in one transaction; each worker claims
/// cases (`FOR UPDATE SKIP LOCKED` on PostgreSQL) under a lease it renews while it works, and
/// records each finished case and marks it done in one transaction. A case whose worker died is
/// claimed again once its lease lapses; the case row's unique (run, case) key keeps it once.
extension ResultStore {
    /// Joins the run named `name` (its `runKey`), recording it and queueing `start.plannedCases`
    /// when no worker has yet. Returns its id and whether this call created it.
    public func joinRun(_ start: RunStart, name: String, matrixHash: String, lease: RunLease) throws -> (id: Int64, created: Bool) {
        let values: [any SQLBindable] = [start.matrixName, start.matrixFile, Timestamp.text(start.startedAt), start.failOn.rawValue,
                                         start.jobs, start.caseTimeout, try JSONText.encode(start.profiles.map(\.id)),
                                         try JSONText.encode(start.plannedCases), try JSONText.encode(start.expectedIssues),
                                         try JSONText.encode(start.profiles), Int(getpid()), ProcessInfo.processInfo.hostName,
                                         Date().timeIntervalSince1970, lease.seconds, name, matrixHash]
        let joined: (Int64, Bool, String?) = try write("join run \(name)") { db in
            let created: Int64? = try db.scalar("""
                INSERT INTO run (matrixName, matrixFile, startedAt, status, failOn, jobs, caseTimeout, deviceClasses, plannedCases,
                                 expectedIssues, profiles, pid, host, heartbeatAt, leaseSeconds, runKey, runHash)
                VALUES (?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (runKey) DO NOTHING RETURNING id
                """, values)
            if let created {
                for (position, caseId) in start.plannedCases.enumerated() {
                    try db.execute("INSERT INTO runQueue (runId, caseId, position, state) VALUES (?, ?, ?, 'waiting')",
                                   [created, caseId, position])
                }
                return (created, true, matrixHash)
            }
            guard let row = try db.queryOne("SELECT id, runHash FROM run WHERE runKey = ?", [name]) else {
                throw StoreError.failed(path: path, operation: "join run \(name)", reason: "the run vanished while joining it")
            }
            return (row["id"], false, row["runHash"])
        }
        guard joined.2 == matrixHash else { throw RunJoinError.otherMatrix(name: name, runId: joined.0) }
        return (joined.0, joined.1)
    }

    /// Claims up to `count` cases of run `runId` for `worker` until now + lease: waiting ones, and
    /// claimed ones whose lease lapsed (their worker died), in the matrix file's order.
    public func claim(runId: Int64, worker: String, count: Int, lease: RunLease) throws(StoreError) -> [String] {
        guard count > 0 else { return [] }
        let now = Date().timeIntervalSince1970
        return try write("claim cases of run \(runId)") { db in
            let lock = db.dialect == .postgres ? " FOR UPDATE SKIP LOCKED" : ""
            return try db.query("""
                UPDATE runQueue SET state = 'claimed', worker = ?, leasedUntil = ?, attempts = attempts + 1
                WHERE runId = ? AND caseId IN (
                  SELECT caseId FROM runQueue WHERE runId = ? AND (state = 'waiting' OR (state = 'claimed' AND leasedUntil < ?))
                  ORDER BY position LIMIT \(count)\(lock))
                RETURNING caseId
                """, [worker, now + lease.seconds, runId, runId, now]).map { $0[0] as String }
        }
    }

    /// Records a finished case and marks it done, in one transaction. False when another worker
    /// had recorded it already (its lease had lapsed under a slow worker): kept once, as it was.
    @discardableResult
    public func complete(_ result: CaseResult, runId: Int64, worker: String) throws(StoreError) -> Bool {
        try write("record case \(result.caseId)") { db in
            let inserted = try Self.insert(result, runId: runId, db)
            try db.execute("UPDATE runQueue SET state = 'done', worker = ?, leasedUntil = NULL WHERE runId = ? AND caseId = ?",
                           [worker, runId, result.caseId])
            return inserted
        }
    }

    /// Gives back the cases `worker` holds and has not finished (all of them, or `caseIds`).
    public func release(runId: Int64, worker: String, caseIds: [String]? = nil) throws(StoreError) {
        try write("release the cases of \(worker)") { db in
            let sql = "UPDATE runQueue SET state = 'waiting', worker = NULL, leasedUntil = NULL WHERE runId = ? AND worker = ? AND state = 'claimed'"
            if let caseIds {
                for id in caseIds { try db.execute(sql + " AND caseId = ?", [runId, worker, id]) }
            } else {
                try db.execute(sql, [runId, worker])
            }
        }
    }

    /// The worker is alive: its claims last another lease, and the run's heartbeat moves.
    public func renew(runId: Int64, worker: String, lease: RunLease, at date: Date = Date()) throws(StoreError) {
        try write("renew the lease of \(worker)") { db in
            try db.execute("UPDATE runQueue SET leasedUntil = ? WHERE runId = ? AND worker = ? AND state = 'claimed'",
                           [date.timeIntervalSince1970 + lease.seconds, runId, worker])
            try db.execute("UPDATE run SET heartbeatAt = ? WHERE id = ? AND status = 'running'", [date.timeIntervalSince1970, runId])
        }
    }

    public func queueState(runId: Int64) throws(StoreError) -> RunQueueState {
        try read("read the queue of run \(runId)") { db in
            var state = RunQueueState(waiting: 0, claimed: 0, done: 0)
            for row in try db.query("SELECT state, count(*) AS n FROM runQueue WHERE runId = ? GROUP BY state", [runId]) {
                switch row["state"] as String {
                case "waiting": state.waiting = row["n"]
                case "claimed": state.claimed = row["n"]
                default: state.done += row["n"] as Int
                }
            }
            return state
        }
    }

    /// Adds a worker's probe counts to the run, and marks it completed when every case is done
    /// (whichever worker sees it first).
    public func finishWorker(runId: Int64, probesPerformed: Int, distinctInputs: Int, at date: Date = Date()) throws(StoreError) {
        try write("record the worker's end") { db in
            try db.execute("""
                UPDATE run SET probesPerformed = COALESCE(probesPerformed, 0) + ?, distinctInputs = COALESCE(distinctInputs, 0) + ?
                WHERE id = ?
                """, [probesPerformed, distinctInputs, runId])
            let open: Int = try db.scalar("SELECT count(*) FROM runQueue WHERE runId = ? AND state <> 'done'", [runId]) ?? 0
            if open == 0 {
                try db.execute("UPDATE run SET status = 'completed', finishedAt = ? WHERE id = ? AND status = 'running'",
                               [Timestamp.text(date), runId])
            }
        }
    }
}
