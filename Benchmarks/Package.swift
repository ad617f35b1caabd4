// swift-tools-version:6.1
import PackageDescription

// Kept apart from the root package so `make test` never builds it. Run with scripts/bench-crypto.sh.
let package = Package(
    name: "wots-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "wots", path: "..")
    ],
    targets: [
        .executableTarget(
            name: "crypto-bench",
            dependencies: [
                .product(name: "WotsCrypto", package: "wots"),
                .product(name: "WotsCore", package: "wots"),
                .product(name: "WotsTesting", package: "wots"),
            ],
            swiftSettings: [
                .swiftLanguageMode(.v6),
                .enableUpcomingFeature("ExistentialAny"),
                .enableUpcomingFeature("MemberImportVisibility"),
                .enableUpcomingFeature("InternalImportsByDefault"),
            ]
        )
    ]
)
