// swift-tools-version:6.0
import PackageDescription

// Layers, each a target; imports only point down:
// CSodium, CSQLite (C), Locking -> VaultCrypto, VaultStorage -> VaultCore -> OAuth2 -> Credentials
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
        .target(name: "Locking"),
        .target(name: "VaultCrypto", dependencies: ["CSodium", "Locking"]),
        .target(name: "VaultStorage", dependencies: ["CSQLite", "Locking"]),
        .target(name: "VaultCore", dependencies: ["VaultCrypto", "VaultStorage", "Locking"]),
        .target(name: "OAuth2", dependencies: ["VaultCrypto", "Locking"]),
        .target(name: "Credentials", dependencies: ["VaultCore", "OAuth2", "Locking"]),
        .target(name: "TokenVault", dependencies: ["VaultCrypto", "VaultCore", "OAuth2", "Credentials"]),
        .executableTarget(name: "TokenVaultCLI", dependencies: ["TokenVault"]),
        .executableTarget(
            name: "TokenVaultBench", dependencies: ["TokenVault", "VaultCrypto", "VaultCore", "VaultStorage"],
            path: "Benchmarks/TokenVaultBench"),

        .target(
            name: "TestSupport", dependencies: ["TokenVault", "VaultStorage", "Locking"], path: "Tests/TestSupport",
            resources: [.copy("Resources")]),
        .executableTarget(
            name: "VaultTestWorker", dependencies: ["TokenVault", "VaultCore", "Locking"], path: "Tests/VaultTestWorker"),
        .testTarget(name: "VaultCryptoTests", dependencies: ["VaultCrypto", "TestSupport"]),
        .testTarget(name: "VaultStorageTests", dependencies: ["VaultStorage", "TestSupport"]),
        .testTarget(name: "TokenVaultCLITests", dependencies: ["TestSupport", "TokenVaultCLI"]),
        .testTarget(name: "OAuth2Tests", dependencies: ["OAuth2", "Locking", "TestSupport"]),
        .testTarget(
            name: "CredentialsTests",
            dependencies: ["TokenVault", "VaultStorage", "Locking", "TestSupport", "VaultTestWorker"]),
        .testTarget(
            name: "VaultCoreTests",
            dependencies: ["TokenVault", "VaultStorage", "Locking", "TestSupport", "VaultTestWorker"]),
    ]
)
