import AirPlay
import Compatibility
import Discovery
import HLS
import LabCore
import LabRun
import LabServer
import Matrix
import MediaProbe
@testable import seamcheck
import Store
import XCTest

/// docs/interface.md's exit codes, per error type the commands throw: `Seamcheck.main` ends the
/// process with `ExitCoded.exitCode`, so a type whose code changes here changes the CLI's.
final class ExitCodeTests: XCTestCase {
    func testUnusableInputAndBadUsageExitTwo() {
        let errors: [any ExitCoded] = [
            LoadError.fileNotFound("a.m3u8"),
            InputLocationError.empty,
            ProbeError.fileNotFound("a.mp4"),
            ProfileError.noProfiles("DeviceProfiles"),
            InventoryError.unreadable(file: "lab.yaml", reason: "no such file"),
            PlaylistAuditError.noMediaPlaylist("a.m3u8", failures: []),
            MatrixSpecError.unreadable(file: "matrix.yaml", reason: "no such file"),
            ProjectConfigError.unreadable(file: ".seamcheck.yml", reason: "no such file"),
            StoreError.missing(path: "Reports/seamcheck.sqlite"),
            LabStoreError.missing(path: "Reports/seamcheck.sqlite"),
            StoreFailure.rejected(location: "postgres://u:***@db/x", reason: "password authentication failed [28P01]"),
            StoreFailure.newerSchema(location: "postgres://u@db/x", unknown: ["v9"]),
            StoreError.database(.rejected(location: "postgres://u@db/x", reason: "no such database [3D000]")),
            LabStoreError.database(.newerSchema(location: "postgres://u@db/x", unknown: ["v9"])),
            RunJoinError.otherMatrix(name: "nightly", runId: 1),
            LabSuiteError.missingManifest(folder: "Reports/lab"),
            LabServeError.portInUse(bind: "127.0.0.1", port: 8080),
            LabInputError.badSeconds(-1),
            LabStationError.invalid(name: "", option: "--station"),
            LabAccessError.cannotWriteToken(path: "/nope/lab.token", reason: "read-only"),
            MeasurementThresholdsError.unreadable(file: "measurement.yaml", reason: "no such file"),
            AirPlayError.passwordRequired(endpoint: "127.0.0.1:7000"),
            AirPlayError.pairingRefused(endpoint: "127.0.0.1:7000", step: "pair-setup M4", code: .authentication),
            CredentialStoreError.permissions(path: "credentials.json", mode: "mode 0644"),
            DiscoveryError.unknownInterface("eth9"),
            DiscoveryFailure("lab.yaml: not an inventory", serviceMissing: false),
            CLIFailure.input("--output x: not a folder"),
            CaptureError.cannotOpen(CaptureInput.parse("/dev/video9"), reason: "No such file or directory"),
        ]
        for error in errors {
            XCTAssertEqual(error.exitCode, 2, "\(type(of: error)): \(error)")
        }
    }

    func testMissingAvahiOrDBusExitsThree() {
        let errors: [any ExitCoded] = [
            DiscoveryError.daemonNotRunning(reason: "Daemon not running"),
            DiscoveryError.avahiFailure(operation: "browse _airplay._tcp", reason: "Access denied"),
            DiscoveryFailure("avahi-daemon is not running", serviceMissing: true),
            StoreFailure.unreachable(location: "postgres://u@db/x", reason: "connection refused"),
            StoreError.database(.unreachable(location: "postgres://u@db/x", reason: "connection refused")),
            LabStoreError.database(.unreachable(location: "postgres://u@db/x", reason: "connection refused")),
        ]
        for error in errors {
            XCTAssertEqual(error.exitCode, 3, "\(type(of: error)): \(error)")
        }
    }

    func testCommandFailuresKeepTheirCode() {
        XCTAssertEqual(CLIFailure(message: "2 findings", exitCode: CLIFailure.findings).exitCode, 1)
        XCTAssertEqual(CLIFailure([.fileNotFound("a.mp4"), .fileNotFound("b.mp4")]).description, "\(ProbeError.fileNotFound("a.mp4"))\n\(ProbeError.fileNotFound("b.mp4"))")
    }
}
