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

    /// Stations (docs/lab-stations.md): every lab row says which station wrote it, so that several
    /// stations share one database without one's client 10.0.0.5 being another's. Rows from before
    /// get the station a station defaults to, its host name: the host their serve or run recorded;
    /// verdicts without a run, and receivers, the newest serve's host; '' (unknown) where nothing
    /// recorded a host. `labReceiver` is rebuilt to key on (station, address).
    static let stationMigrations: [Migration] = [
        Migration("lab-stations", """
            ALTER TABLE labServe ADD COLUMN station TEXT NOT NULL DEFAULT '';
            UPDATE labServe SET station = host;
            ALTER TABLE labRequest ADD COLUMN station TEXT NOT NULL DEFAULT '';
            UPDATE labRequest SET station = COALESCE((SELECT s.host FROM labServe s WHERE s.id = labRequest.serveId), '');
            CREATE INDEX labRequestByStation ON labRequest(station, client, at);
            ALTER TABLE labRun ADD COLUMN station TEXT NOT NULL DEFAULT '';
            UPDATE labRun SET station = host;
            ALTER TABLE labCell ADD COLUMN station TEXT NOT NULL DEFAULT '';
            UPDATE labCell SET station = COALESCE((SELECT r.host FROM labRun r WHERE r.id = labCell.runId), '');
            CREATE INDEX labCellByStation ON labCell(station, receiver, caseId, finishedAt);
            ALTER TABLE labVerdict ADD COLUMN station TEXT NOT NULL DEFAULT '';
            UPDATE labVerdict SET station = COALESCE((SELECT r.host FROM labRun r WHERE r.id = labVerdict.runId),
                                                     (SELECT s.host FROM labServe s ORDER BY s.id DESC LIMIT 1), '');
            ALTER TABLE labReceiverHistory ADD COLUMN station TEXT NOT NULL DEFAULT '';
            UPDATE labReceiverHistory SET station = COALESCE((SELECT s.host FROM labServe s ORDER BY s.id DESC LIMIT 1), '');
            CREATE INDEX labReceiverHistoryByStation ON labReceiverHistory(station, address, seenAt);
            CREATE TABLE labStationReceiver (
              station TEXT NOT NULL DEFAULT '', address TEXT NOT NULL,
              name TEXT NOT NULL, deviceId TEXT, model TEXT, deviceClass TEXT, classifiedBy TEXT,
              reason TEXT NOT NULL, source TEXT NOT NULL, seenAt REAL NOT NULL,
              declaredHDRFormats TEXT, declaredCodecs TEXT, supportsInterstitials INTEGER, goneAt REAL,
              PRIMARY KEY (station, address));
            INSERT INTO labStationReceiver (station, address, name, deviceId, model, deviceClass, classifiedBy, reason, source, seenAt,
                                            declaredHDRFormats, declaredCodecs, supportsInterstitials, goneAt)
              SELECT COALESCE((SELECT s.host FROM labServe s ORDER BY s.id DESC LIMIT 1), ''), address, name, deviceId, model,
                     deviceClass, classifiedBy, reason, source, seenAt, declaredHDRFormats, declaredCodecs, supportsInterstitials, goneAt
              FROM labReceiver;
            DROP TABLE labReceiver;
            ALTER TABLE labStationReceiver RENAME TO labReceiver
            """),
    ]

    /// What each cell's receiver ran (`LabReceiverSoftware` as JSON: TXT srcvers, osvers, fv, model;
    /// `/server-info`), for firmware-aware history and `lab report --compare`; null in older cells.
    static let softwareMigrations: [Migration] = [
        Migration("lab-cell-receiver-software", """
            ALTER TABLE labCell ADD COLUMN software TEXT
            """),
    ]

    /// Write keys (`LabWriteKey`): a request, a verdict and a cell carry a key made from what
    /// identifies them, unique, and are written with `ON CONFLICT DO NOTHING`, so a write retried
    /// after its COMMIT's answer was lost (`StoreFailure.outcomeUnknown`) cannot store a row twice.
    /// Rows from before keep a null key (a unique index lets nulls repeat).
    static let keyMigrations: [Migration] = [
        Migration("lab-write-keys", """
            ALTER TABLE labRequest ADD COLUMN writeKey TEXT;
            CREATE UNIQUE INDEX labRequestByWriteKey ON labRequest(writeKey);
            ALTER TABLE labVerdict ADD COLUMN writeKey TEXT;
            CREATE UNIQUE INDEX labVerdictByWriteKey ON labVerdict(writeKey);
            ALTER TABLE labCell ADD COLUMN writeKey TEXT;
            CREATE UNIQUE INDEX labCellByWriteKey ON labCell(writeKey)
            """),
    ]
}
