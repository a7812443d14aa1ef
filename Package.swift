// swift-tools-version:6.0
import PackageDescription

// Layers, each a target; imports only point down:
// CSodium, CSQLite (C) -> VaultCrypto, VaultStorage -> VaultCore -> OAuth2 -> Credentials
// -> TokenVault (umbrella).
let package = Package(
    name: "TokenVault",
    products: [
        .library(name: "TokenVault", targets: ["TokenVault"]),
        .executable(name: "tokenvault-bench", targets: ["TokenVaultBench"]),
        .executable(name: "tokenvault", targets: ["TokenVaultCLI"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSodium", path: "Sources/CSodium", pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(
            name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),
        .target(name: "VaultCrypto", dependencies: ["CSodium"]),
        .target(name: "VaultStorage", dependencies: ["CSQLite"]),
        .target(name: "VaultCore", dependencies: ["VaultCrypto", "VaultStorage"]),
        .target(name: "OAuth2", dependencies: ["VaultCrypto"]),
        .target(name: "Credentials", dependencies: ["VaultCore", "OAuth2"]),
        .target(name: "TokenVault", dependencies: ["VaultCrypto", "VaultCore", "OAuth2", "Credentials"]),
        .executableTarget(name: "TokenVaultCLI", dependencies: ["TokenVault"]),
        .executableTarget(
            name: "TokenVaultBench", dependencies: ["TokenVault", "VaultCrypto", "VaultCore", "VaultStorage"],
            path: "Benchmarks/TokenVaultBench"),

        .target(
            name: "TestSupport", dependencies: ["TokenVault", "VaultStorage"], path: "Tests/TestSupport",
            resources: [.copy("Resources")]),
        .executableTarget(
            name: "VaultTestWorker", dependencies: ["TokenVault"], path: "Tests/VaultTestWorker"),
        .testTarget(name: "VaultCryptoTests", dependencies: ["VaultCrypto", "TestSupport"]),
        .testTarget(name: "VaultStorageTests", dependencies: ["VaultStorage", "TestSupport"]),
        .testTarget(name: "TokenVaultCLITests", dependencies: ["TestSupport", "TokenVaultCLI"]),
        .testTarget(name: "OAuth2Tests", dependencies: ["OAuth2", "TestSupport"]),
        .testTarget(name: "CredentialsTests", dependencies: ["TokenVault", "TestSupport", "VaultTestWorker"]),
        .testTarget(
            name: "VaultCoreTests",
            dependencies: ["TokenVault", "VaultStorage", "TestSupport", "VaultTestWorker"]),
    ]
)
