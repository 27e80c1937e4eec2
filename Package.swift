// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Seamcheck",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "seamcheck", targets: ["seamcheck"]),
        // For the fuzz targets in Fuzz/ (a package of its own, built with -sanitize=fuzzer).
        .library(name: "SeamcheckModules", targets: ["HLS", "MediaProbe", "Compatibility", "Reporting"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        // The lab server (HTTP/1.1 with keep-alive, byte ranges, file serving on SwiftNIO) and its logs.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
        // Already in the graph through Hummingbird; named for the lab server's own channel handlers
        // (NIOHTTPTypes, the HTTP/1 parser's errors) and its graceful shutdown.
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // AirPlay 2 pairing (HAP): Curve25519, ChaCha20-Poly1305, HKDF, SHA-512. Already in the graph through
        // Hummingbird's dependencies, resolved at 4.x there (so not `from: "3.12.3"`, which would force 3.x).
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.0.0"),
        // SRP-6a's 3072-bit modular arithmetic for pair-setup.
        .package(url: "https://github.com/attaswift/BigInt.git", from: "6.0.1"),
        // PostgreSQL, the shared results store (docs/postgres.md): kept by Vapor and the Swift Server Workgroup,
        // TLS and SCRAM; only the wire client (not PostgresKit or Fluent).
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),
    ],
    targets: [
        // C libraries from Debian's packages. FFmpeg's headers (libavformat-dev, libavcodec-dev, libavutil-dev, libswscale-dev); the libraries
        // themselves are loaded on first use.
        .target(name: "CFFmpeg"),
        // libcurl's headers (libcurl4-openssl-dev); the library itself is loaded on first use.
        .target(name: "CCurl"),
        // Avahi is linked (found through pkg-config): it is small, and discover needs it at once.
        .systemLibrary(
            name: "CAvahi",
            pkgConfig: "avahi-client",
            providers: [.apt(["libavahi-client-dev"])]
        ),
        // OpenSSL's libcrypto (libssl-dev) for SRP's g^x mod N: constant-time, and thousands of times
        // faster than a Swift big integer in a debug build (a HAP pair-setup took 15-30 s in the tests).
        .systemLibrary(
            name: "CLibCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),

        // Modules: one job each; C types never leave MediaProbe and Discovery.
        // Child processes and the PATH lookup, for the product and its tests alike (Foundation only).
        .target(name: "Processes"),
        .target(name: "HLS", dependencies: ["CCurl"]),
        .target(name: "MediaProbe", dependencies: ["CFFmpeg", "HLS"]),
        .target(name: "Discovery", dependencies: ["CAvahi"]),
        // The AirPlay sender: knows receivers' HTTP and plists, nothing of cases or rules.
        // What a receiver reports and where it listens (Foundation only): the lab's measurer reads these.
        .target(name: "AirPlayModel"),
        .target(name: "AirPlay", dependencies: ["AirPlayModel",.product(name: "NIOCore", package: "swift-nio"),
                                                .product(name: "NIOPosix", package: "swift-nio"),
                                                .product(name: "Crypto", package: "swift-crypto"),
                                                // AES-CTR for legacy pair-verify (UxPlay, Apple TV 3)
                                                .product(name: "CryptoExtras", package: "swift-crypto"),
                                                .product(name: "BigInt", package: "BigInt"), "CLibCrypto"]),
        .target(name: "Compatibility", dependencies: ["MediaProbe", "HLS", "Discovery", "Yams"]),
        // The results database, SQLite or PostgreSQL behind one executor and one versioned schema; knows no
        // matrix or lab types.
        .target(name: "Store", dependencies: [.product(name: "GRDB", package: "GRDB.swift"),
                                              .product(name: "PostgresNIO", package: "postgres-nio"),
                                              .product(name: "Logging", package: "swift-log")]),
        .target(
            name: "Matrix",
            dependencies: ["Compatibility", "MediaProbe", "HLS", "Discovery", "Yams", "Store"]
        ),
        // The receiver lab as three targets whose imports show its flow (docs/architecture.md):
        // LabCore is pure (the suite, records, measurement, capture analysis, the behaviour judge,
        // sessions, report models and the lab's tables; no HTTP server, no AirPlay sender);
        // LabServer serves the suite and logs requests (Hummingbird); LabRun drives receivers.
        .target(
            name: "LabCore",
            dependencies: ["Compatibility", "HLS", "MediaProbe", "Discovery", "AirPlayModel", "Yams", "Store", "Processes",
                           .product(name: "Logging", package: "swift-log")]
        ),
        .target(
            name: "LabServer",
            dependencies: ["LabCore", "Compatibility", "HLS", "Discovery", "Store",
                           .product(name: "Hummingbird", package: "hummingbird"),
                           .product(name: "Logging", package: "swift-log"),
                           .product(name: "NIOCore", package: "swift-nio"),
                           .product(name: "NIOPosix", package: "swift-nio"),
                           .product(name: "NIOHTTP1", package: "swift-nio"),
                           .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                           .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                           .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")]
        ),
        .target(
            name: "LabRun",
            dependencies: ["LabCore", "LabServer", "AirPlay", "Discovery", "Compatibility", "MediaProbe", "Store",
                           .product(name: "Logging", package: "swift-log")]
        ),
        // Findings reporters (audit, lint, probe): what the fuzz targets render, so they build without the stores.
        .target(name: "Reporting", dependencies: ["Compatibility", "MediaProbe"]),
        // Reports of stored results: matrix runs, the lab, behaviour tables.
        .target(name: "ResultsReporting", dependencies: ["Reporting", "Compatibility", "MediaProbe", "Matrix", "LabCore"]),
        .executableTarget(
            name: "seamcheck",
            dependencies: [
                "HLS", "MediaProbe", "Discovery", "Compatibility", "Matrix", "LabCore", "LabServer", "LabRun", "Reporting", "ResultsReporting", "AirPlay", "Store",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // Tests: one target per module, plus end-to-end tests of the built binary.
        .target(name: "SeamcheckTestSupport", dependencies: ["Processes"], path: "Tests/SeamcheckTestSupport"),
        .testTarget(name: "HLSTests", dependencies: ["HLS"]),
        .testTarget(name: "StoreTests", dependencies: ["Store", "SeamcheckTestSupport"]),
        .testTarget(name: "ProcessesTests", dependencies: ["Processes"]),
        .testTarget(name: "MediaProbeTests", dependencies: ["MediaProbe", "SeamcheckTestSupport"]),
        .testTarget(name: "AirPlayTests", dependencies: ["AirPlay", "SeamcheckTestSupport", "Processes",
                                                         .product(name: "BigInt", package: "BigInt")]),
        .testTarget(name: "DiscoveryTests", dependencies: ["Discovery", "SeamcheckTestSupport", "Processes"]),
        .testTarget(name: "CompatibilityTests", dependencies: ["Compatibility", "MediaProbe", "SeamcheckTestSupport"]),
        .testTarget(name: "MatrixTests", dependencies: ["Matrix", "Compatibility", "MediaProbe", "HLS", "SeamcheckTestSupport", "Store"]),
        .testTarget(name: "LabTests", dependencies: ["LabCore", "LabServer", "LabRun", "Matrix", "Compatibility", "HLS", "AirPlay", "SeamcheckTestSupport", "Store",
                                                     .product(name: "GRDB", package: "GRDB.swift"),
                                                     // Lab routes in process, without a socket (LabAPIRouteTests).
                                                     .product(name: "HummingbirdTesting", package: "hummingbird")]),
        .testTarget(name: "ReportingTests", dependencies: ["Reporting", "ResultsReporting", "Compatibility", "MediaProbe", "Matrix", "SeamcheckTestSupport"]),
        .testTarget(name: "EndToEndTests", dependencies: ["seamcheck", "SeamcheckTestSupport", "LabCore", "LabServer", "LabRun", "Store", "Reporting", "ResultsReporting", "Processes"]),
    ]
)
