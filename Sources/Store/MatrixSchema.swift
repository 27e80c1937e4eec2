/// The matrix's tables (docs/matrix.md): runs, their cases, a cell per case and device class, the
/// findings; and the work queue of runs drained by several workers (docs/postgres.md).
enum MatrixSchema {
    static let migrations: [Migration] = [
        Migration("v1-runs-cases-cells-findings", """
            CREATE TABLE run (
              id INTEGER PRIMARY KEY AUTOINCREMENT,
              matrixName TEXT NOT NULL, matrixFile TEXT NOT NULL,
              startedAt TEXT NOT NULL, finishedAt TEXT,
              status TEXT NOT NULL, failOn TEXT NOT NULL, jobs INTEGER NOT NULL, caseTimeout REAL NOT NULL,
              deviceClasses TEXT NOT NULL, plannedCases TEXT NOT NULL, expectedIssues TEXT NOT NULL,
              profiles TEXT NOT NULL, probesPerformed INTEGER, distinctInputs INTEGER,
              pid INTEGER NOT NULL, host TEXT NOT NULL);
            CREATE TABLE matrixCase (
              id INTEGER PRIMARY KEY AUTOINCREMENT,
              runId INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
              caseId TEXT NOT NULL, kind TEXT NOT NULL, primaryInput TEXT NOT NULL,
              interstitials TEXT NOT NULL, tags TEXT NOT NULL, startedAt TEXT NOT NULL, seconds REAL NOT NULL,
              errorKind TEXT, errorInput TEXT, errorReason TEXT,
              assets TEXT NOT NULL, placements TEXT NOT NULL,
              UNIQUE (runId, caseId));
            CREATE TABLE cell (
              id INTEGER PRIMARY KEY AUTOINCREMENT,
              caseRowId INTEGER NOT NULL REFERENCES matrixCase(id) ON DELETE CASCADE,
              runId INTEGER NOT NULL, caseId TEXT NOT NULL, deviceClass TEXT NOT NULL, status TEXT NOT NULL,
              UNIQUE (caseRowId, deviceClass));
            CREATE INDEX cellByRun ON cell(runId, status);
            CREATE TABLE finding (
              id INTEGER PRIMARY KEY AUTOINCREMENT,
              caseRowId INTEGER NOT NULL REFERENCES matrixCase(id) ON DELETE CASCADE,
              runId INTEGER NOT NULL, caseId TEXT NOT NULL, deviceClass TEXT,
              rule TEXT NOT NULL, severity TEXT NOT NULL, subject TEXT NOT NULL,
              expected TEXT, actual TEXT, message TEXT NOT NULL, remediation TEXT,
              knownReason TEXT, expectedIssue INTEGER, fingerprint TEXT NOT NULL);
            CREATE INDEX findingByRun ON finding(runId, fingerprint);
            CREATE INDEX findingByCase ON finding(caseRowId)
            """),
        // Runs from before have neither: their liveness is judged by PID, as it was.
        Migration("v2-run-heartbeat-lease", """
            ALTER TABLE run ADD COLUMN heartbeatAt REAL;
            ALTER TABLE run ADD COLUMN leaseSeconds REAL
            """),
    ]

    /// Runs shared by workers: `runKey` names the run every worker joins (`--run-name`) and
    /// `runHash` is its matrix file's content hash; `runQueue` holds its cases, each `waiting`,
    /// `claimed` by a worker until `leasedUntil` (seconds since 1970), or `done`.
    static let queueMigrations: [Migration] = [
        Migration("v3-run-queue", """
            ALTER TABLE run ADD COLUMN runKey TEXT;
            ALTER TABLE run ADD COLUMN runHash TEXT;
            CREATE UNIQUE INDEX runByKey ON run(runKey);
            CREATE TABLE runQueue (
              runId INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
              caseId TEXT NOT NULL, position INTEGER NOT NULL, state TEXT NOT NULL,
              worker TEXT, leasedUntil REAL, attempts INTEGER NOT NULL DEFAULT 0,
              PRIMARY KEY (runId, caseId));
            CREATE INDEX runQueueByState ON runQueue(runId, state, position)
            """),
    ]
}
