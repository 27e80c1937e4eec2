/// The lab's tables (docs/lab.md, docs/lab-run.md): serve runs with their suite manifest, every
/// request the server answered, the receivers client addresses map to and their history, the
/// verdicts, and the unattended runs with their cells.
enum LabSchema {
    static let migrations: [Migration] = [
        Migration("lab-v1-serves-requests-receivers-verdicts", """
            CREATE TABLE labServe (
              id INTEGER PRIMARY KEY AUTOINCREMENT,
              startedAt TEXT NOT NULL, stoppedAt TEXT,
              bind TEXT NOT NULL, port INTEGER NOT NULL, streams TEXT NOT NULL, manifest TEXT NOT NULL,
              pid INTEGER NOT NULL, host TEXT NOT NULL);
            CREATE TABLE labRequest (
              id INTEGER PRIMARY KEY AUTOINCREMENT,
              serveId INTEGER NOT NULL,
              at REAL NOT NULL,
              client TEXT NOT NULL, clientPort INTEGER,
              method TEXT NOT NULL, path TEXT NOT NULL, query TEXT,
              range TEXT, status INTEGER NOT NULL, bytes INTEGER NOT NULL, expectedBytes INTEGER,
              durationMs REAL NOT NULL, userAgent TEXT, caseId TEXT, completed INTEGER NOT NULL);
            CREATE INDEX labRequestByClient ON labRequest(client, at);
            CREATE TABLE labReceiver (
              address TEXT PRIMARY KEY,
              name TEXT NOT NULL, deviceId TEXT, model TEXT, deviceClass TEXT, classifiedBy TEXT,
              reason TEXT NOT NULL, source TEXT NOT NULL, seenAt REAL NOT NULL);
            CREATE TABLE labVerdict (
              id INTEGER PRIMARY KEY AUTOINCREMENT,
              recordedAt REAL NOT NULL,
              receiver TEXT NOT NULL, deviceId TEXT, deviceClass TEXT, client TEXT,
              caseId TEXT NOT NULL, verdict TEXT NOT NULL, seconds REAL, note TEXT, source TEXT NOT NULL);
            CREATE INDEX labVerdictByCase ON labVerdict(caseId, receiver)
            """),
        Migration("lab-v2-receiver-info", """
            ALTER TABLE labReceiver ADD COLUMN declaredHDRFormats TEXT;
            ALTER TABLE labReceiver ADD COLUMN declaredCodecs TEXT;
            ALTER TABLE labReceiver ADD COLUMN supportsInterstitials INTEGER
            """),
        // Unattended runs (`lab run`).
        Migration("lab-v3-runs", """
            CREATE TABLE labRun (
              id TEXT PRIMARY KEY,
              startedAt REAL NOT NULL, finishedAt REAL,
              state TEXT NOT NULL,
              heartbeatAt REAL NOT NULL, leaseSeconds REAL NOT NULL,
              server TEXT NOT NULL, receivers TEXT NOT NULL, cases TEXT NOT NULL,
              pollIntervalMs REAL NOT NULL, cellsTotal INTEGER NOT NULL, host TEXT NOT NULL);
            CREATE TABLE labCell (
              id INTEGER PRIMARY KEY AUTOINCREMENT,
              runId TEXT NOT NULL REFERENCES labRun(id),
              receiver TEXT NOT NULL, deviceId TEXT, deviceClass TEXT, address TEXT NOT NULL,
              caseId TEXT NOT NULL, attempt INTEGER NOT NULL,
              startedAt REAL NOT NULL, finishedAt REAL NOT NULL, url TEXT NOT NULL,
              outcome TEXT NOT NULL, done INTEGER NOT NULL,
              series TEXT NOT NULL, requests TEXT NOT NULL, measurement TEXT NOT NULL);
            CREATE INDEX labCellByRun ON labCell(runId, receiver, caseId);
            CREATE INDEX labCellByCase ON labCell(receiver, caseId, finishedAt)
            """),
        // Verdicts' via and runId (rows written before keep them null, their source "page"/"cli").
        Migration("lab-v4-verdict-via-run", """
            ALTER TABLE labVerdict ADD COLUMN via TEXT;
            ALTER TABLE labVerdict ADD COLUMN runId TEXT
            """),
        // What the lab knew of each receiver over time (LabReceiverHistory.swift).
        Migration("lab-receiver-history-and-presence", """
            ALTER TABLE labReceiver ADD COLUMN goneAt REAL;
            CREATE TABLE labReceiverHistory (
              id INTEGER PRIMARY KEY AUTOINCREMENT,
              address TEXT NOT NULL, name TEXT NOT NULL, deviceId TEXT, model TEXT, deviceClass TEXT,
              classifiedBy TEXT, reason TEXT NOT NULL, source TEXT NOT NULL, seenAt REAL NOT NULL,
              declaredHDRFormats TEXT, declaredCodecs TEXT, supportsInterstitials INTEGER);
            CREATE INDEX labReceiverHistoryByAddress ON labReceiverHistory(address, seenAt);
            INSERT INTO labReceiverHistory (address, name, deviceId, model, deviceClass, classifiedBy, reason, source, seenAt,
                                            declaredHDRFormats, declaredCodecs, supportsInterstitials)
              SELECT address, name, deviceId, model, deviceClass, classifiedBy, reason, source, seenAt,
                     declaredHDRFormats, declaredCodecs, supportsInterstitials FROM labReceiver
            """),
    ]
}
