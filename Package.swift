// swift-tools-version:6.1
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    // Lets release builds specialize and inline generics across our own modules (PendingWrite, the repositories,
    // the frame types): the relay spent ~5 % of its online profile looking up generic metadata at run time.
    // Measured in scripts/prosody/bench-notes.md. Dependencies are built without it: in GRDB it crashed Swift 6.3.1.
    .unsafeFlags(["-cross-module-optimization"], .when(configuration: .release)),
]

let package = Package(
    name: "wots",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "WotsCore", targets: ["WotsCore"]),
        .library(name: "WotsCrypto", targets: ["WotsCrypto"]),
        .library(name: "WotsStorage", targets: ["WotsStorage"]),
        .library(name: "WotsStorageSQLite", targets: ["WotsStorageSQLite"]),
        .library(name: "WotsStoragePostgres", targets: ["WotsStoragePostgres"]),
        .library(name: "WotsTesting", targets: ["WotsTesting"]),
        .library(name: "WotsTransparency", targets: ["WotsTransparency"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    ],
    targets: [
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        // add_key(2) and keyctl(2) for the session keyring: Swift cannot call the variadic syscall(2).
        .target(name: "CKeyring"),
        .target(name: "WotsCore", swiftSettings: swiftSettings),
        .target(name: "WotsCrypto", dependencies: ["COpenSSL", "WotsCore"], swiftSettings: swiftSettings),
        .target(name: "WotsTransparency", dependencies: ["WotsCore", "WotsCrypto"], swiftSettings: swiftSettings),
        .target(
            name: "WotsStorage",
            dependencies: ["WotsCore", "WotsTransparency"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "WotsStorageSQLite",
            dependencies: [
                "WotsStorage", "WotsCore", "WotsTransparency",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            resources: [.copy("Migrations")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "WotsStoragePostgres",
            dependencies: [
                "WotsStorage", "WotsTransparency",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("Migrations")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "WotsTesting",
            dependencies: ["WotsCore", "WotsCrypto", "WotsStorage"],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "WotsRelay",
            dependencies: [
                "WotsCore", "WotsCrypto", "WotsStorage", "WotsTransparency",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // What starting the relay needs from outside: settings from the environment and files, systemd's notify.
        .target(name: "WotsRelayLaunch", dependencies: ["WotsCore"], swiftSettings: swiftSettings),
        .executableTarget(
            name: "wots-relay",
            dependencies: [
                "WotsRelay", "WotsRelayLaunch", "WotsStorage", "WotsStorageSQLite", "WotsStoragePostgres", "WotsCore",
                "WotsCrypto",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "WotsClient",
            dependencies: [
                "CKeyring", "WotsCore", "WotsCrypto", "WotsTransparency",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "wots",
            dependencies: [
                "WotsClient", "WotsCore", "WotsCrypto",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "WotsCoreTests", dependencies: ["WotsCore"], swiftSettings: swiftSettings),
        .testTarget(
            name: "WotsCryptoTests",
            dependencies: ["WotsCrypto", "WotsCore", "WotsTesting"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WotsTransparencyTests",
            dependencies: ["WotsTransparency", "WotsCrypto", "WotsCore"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WotsStorageTests",
            dependencies: [
                "WotsStorage", "WotsStorageSQLite", "WotsStoragePostgres", "WotsCore", "WotsTransparency",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WotsRelayTests",
            dependencies: [
                "WotsRelay", "WotsCore", "WotsCrypto", "WotsStorage", "WotsStorageSQLite", "WotsTesting",
                "WotsTransparency", "WotsClient",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WotsRelayLaunchTests",
            dependencies: ["WotsRelayLaunch", "WotsCore", "WotsTesting"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WotsClientTests",
            dependencies: [
                "WotsClient", "WotsCore", "WotsCrypto", "WotsRelay", "WotsStorage", "WotsTesting", "WotsTransparency",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
