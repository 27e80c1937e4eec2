// swift-tools-version:6.0
import PackageDescription

// Fuzz targets, kept out of the main build: scripts/fuzz.sh builds this package with
// `-sanitize=fuzzer` in .build-fuzz. The executable is C (SwiftPM renames a Swift executable's
// main): its LLVMFuzzerTestOneInput calls the Swift target that SEAMCHECK_FUZZ_TARGET names.
let package = Package(
    name: "SeamcheckFuzz",
    dependencies: [.package(name: "Seamcheck", path: "..")],
    targets: [
        .target(name: "FuzzTargets", dependencies: [.product(name: "SeamcheckModules", package: "Seamcheck")]),
        .executableTarget(name: "seamcheck-fuzz", dependencies: ["FuzzTargets"]),
    ]
)
