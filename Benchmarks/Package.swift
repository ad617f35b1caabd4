// swift-tools-version:6.1
import PackageDescription

// Kept apart from the root package so `make test` never builds it. Run with `make bench` (scripts/bench.sh).
let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "wots-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "wots", path: ".."),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.2.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
    ],
    targets: [
        .executableTarget(
            name: "crypto-bench",
            dependencies: [
                .product(name: "WotsCrypto", package: "wots"),
                .product(name: "WotsCore", package: "wots"),
                .product(name: "WotsTesting", package: "wots"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "storage-bench",
            dependencies: [
                .product(name: "WotsCore", package: "wots"),
                .product(name: "WotsStorage", package: "wots"),
                .product(name: "WotsStorageSQLite", package: "wots"),
                .product(name: "WotsStoragePostgres", package: "wots"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "log-bench",
            dependencies: [
                .product(name: "WotsCore", package: "wots"),
                .product(name: "WotsStorage", package: "wots"),
                .product(name: "WotsStorageSQLite", package: "wots"),
                .product(name: "WotsTransparency", package: "wots"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "relay-bench",
            dependencies: [
                .product(name: "WotsCore", package: "wots"),
                .product(name: "WotsCrypto", package: "wots"),
                .product(name: "WotsTesting", package: "wots"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
