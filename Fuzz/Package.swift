// swift-tools-version:6.1
import PackageDescription

// libFuzzer targets for every decoder that reads outside input. Kept apart from the root package so `swift build`
// never builds them; they link only with `-sanitize=fuzzer`, which brings libFuzzer's driver (started by `Fuzz.run`).
// Run with `make fuzz` (scripts/fuzz.sh); `make test` runs each briefly from Fuzz/Corpus/. Only WotsCore, WotsCrypto, WotsTransparency and
// WotsTesting are in this graph: no NIO, Hummingbird or database drivers to build with the sanitizers.
let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// One libFuzzer executable: `Sources/fuzz-NAME`, corpus `Corpus/NAME`.
func fuzzer(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .executableTarget(
        name: "fuzz-\(name)",
        dependencies: ["FuzzSupport"] + dependencies,
        swiftSettings: swiftSettings
    )
}

let core = Target.Dependency.product(name: "WotsCore", package: "wots")
let crypto = Target.Dependency.product(name: "WotsCrypto", package: "wots")
let testing = Target.Dependency.product(name: "WotsTesting", package: "wots")
let transparency = Target.Dependency.product(name: "WotsTransparency", package: "wots")

let package = Package(
    name: "wots-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "wots", path: "..")
    ],
    targets: [
        .systemLibrary(name: "CFuzzOpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .target(name: "CLibFuzzer"),
        .target(name: "FuzzSupport", dependencies: ["CLibFuzzer", core], swiftSettings: swiftSettings),
        fuzzer("envelope", [core, crypto, testing]),
        fuzzer("json-bodies", [core]),
        fuzzer("stream-frames", [core]),
        fuzzer("private-records", [core, crypto, testing, "CFuzzOpenSSL"]),
        fuzzer("public-keys", [core, crypto]),
        fuzzer("cursors", [core]),
        fuzzer("nicknames", [core]),
        fuzzer("signed-notes", [core, crypto, transparency]),
    ]
)
