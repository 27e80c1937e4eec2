import AirPlay
import Compatibility
import Discovery
import HLS
import LabCore
import LabRun
import LabServer
import Matrix
import MediaProbe
import Store

/// An error that ends a command: `description` goes to stderr (one `seamcheck: error:` line per
/// line) and `exitCode` is the process status, as docs/interface.md says: 1 findings, 2 bad usage or
/// unusable input, 3 a needed service (avahi-daemon, D-Bus) missing. `Seamcheck.main` reads it,
/// and nothing else maps errors to exit codes.
///
/// How a command uses it: `try` the modules' calls as they are, with no `do`/`catch` around them
/// (`let store = try LabStore(path: db)`); every module error type adopts `ExitCoded` below, and
/// unusable input (2) is the default. Cleanup first: `catch { await session.close(); throw error }`.
/// Findings: `throw ExitCode(CLIFailure.findings)`. A message of the command's own: `throw
/// CLIFailure.input("what, where, what to do")`. A new error type: one line below, with its code
/// when it is not 2, and one line in ExitCodeTests. An error that adopts nothing still ends with
/// exit 2 and its description (see `Seamcheck.main`), but its type belongs here.
protocol ExitCoded: Error, CustomStringConvertible {
    var exitCode: Int32 { get }
}

extension ExitCoded {
    var exitCode: Int32 { CLIFailure.usage }
}

// HLS, MediaProbe, Compatibility: inputs that cannot be read, parsed or audited.
extension LoadError: ExitCoded {}
extension InputLocationError: ExitCoded {}
extension ProbeError: ExitCoded {}
extension ProfileError: ExitCoded {}
extension InventoryError: ExitCoded {}
extension PlaylistAuditError: ExitCoded {}

// Matrix and Lab: specs, project files, suites and databases.
extension MatrixSpecError: ExitCoded {}
extension ProjectConfigError: ExitCoded {}
extension RunJoinError: ExitCoded {}
extension StoreError: ExitCoded {
    var exitCode: Int32 { serviceMissing ? CLIFailure.serviceMissing : CLIFailure.usage }
}
extension LabSuiteError: ExitCoded {}
extension LabServeError: ExitCoded {}
extension LabInputError: ExitCoded {}
extension LabStationError: ExitCoded {}
extension MeasurementThresholdsError: ExitCoded {}
extension LabAccessError: ExitCoded {}
extension AirPlayError: ExitCoded {}
extension CredentialStoreError: ExitCoded {}

// Store: the PostgreSQL server unreachable is 3, a refused login or a newer schema 2.
extension StoreFailure: ExitCoded {
    var exitCode: Int32 { serviceMissing ? CLIFailure.serviceMissing : CLIFailure.usage }
}

// Discovery: avahi-daemon or D-Bus missing is 3 (`DiscoveryError.exitCode` is the module's own).
extension DiscoveryError: ExitCoded {}
extension DiscoveryFailure: ExitCoded {
    var exitCode: Int32 { serviceMissing ? CLIFailure.serviceMissing : CLIFailure.usage }
}
