// swift-tools-version:6.0
import PackageDescription

// Layers, each a target; imports only point down:
// CSodium, COpenSSL, CSQLite, CPostgres (C), Locking -> VaultCrypto, VaultStorage -> VaultCore -> OAuth2 -> Credentials
// -> TokenVault (umbrella). Fuzzing (Fuzz/, `make fuzz`) sits on top, beside the CLI and benchmarks.
// The CLI is two programs: `tokenvault-core` (TokenVaultCLI) does the work, and `tokenvault`
// (TokenVaultFront, on AgentProtocol only) answers through a running agent or runs the core.
let package = Package(
    name: "TokenVault",
    products: [
        .library(name: "TokenVault", targets: ["TokenVault"]),
        .executable(name: "tokenvault-bench", targets: ["TokenVaultBench"]),
        .executable(name: "tokenvault", targets: ["TokenVaultFront"]),
        .executable(name: "tokenvault-core", targets: ["TokenVaultCLI"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSodium", path: "Sources/CSodium", pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(
            name: "COpenSSL", path: "Sources/COpenSSL", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]),
        .systemLibrary(
            name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(
            name: "CPostgres", path: "Sources/CPostgres", pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]),
        .target(name: "Locking"),
        .target(name: "VaultCrypto", dependencies: ["CSodium", "COpenSSL", "Locking"]),
        .target(name: "VaultStorage", dependencies: ["CSQLite", "CPostgres", "Locking"]),
        .target(name: "VaultCore", dependencies: ["VaultCrypto", "VaultStorage", "Locking"]),
        .target(name: "OAuth2", dependencies: ["VaultCrypto", "Locking"]),
        .target(name: "Credentials", dependencies: ["VaultCore", "OAuth2", "Locking"]),
        .target(name: "TokenVault", dependencies: ["VaultCrypto", "VaultCore", "OAuth2", "Credentials"]),
        // The agent's protocol, on Foundation alone: the front `tokenvault` is built on it and nothing
        // else, so a call the agent answers loads none of the libraries above.
        .target(name: "AgentProtocol"),
        .executableTarget(name: "TokenVaultCLI", dependencies: ["TokenVault", "VaultStorage", "AgentProtocol"]),
        .executableTarget(name: "TokenVaultFront", dependencies: ["AgentProtocol"]),
        .executableTarget(
            name: "TokenVaultBench",
            dependencies: [
                "TokenVault", "Credentials", "VaultCrypto", "VaultCore", "VaultStorage", "TestSupport",
            ],
            path: "Benchmarks/TokenVaultBench"),

        // libFuzzer targets: one executable each over FuzzTargets; built for fuzzing by `make fuzz`,
        // and in a plain build they replay corpus files (see Fuzz/FuzzTargets/FuzzDriver.swift).
        .systemLibrary(name: "CLibFuzzer", path: "Fuzz/CLibFuzzer"),
        .target(
            name: "FuzzTargets",
            dependencies: ["TokenVault", "Credentials", "VaultCore", "VaultCrypto", "OAuth2", "CLibFuzzer"],
            path: "Fuzz/FuzzTargets"),
        .executableTarget(name: "FuzzItemRecord", dependencies: ["FuzzTargets"], path: "Fuzz/FuzzItemRecord"),
        .executableTarget(name: "FuzzKeySlot", dependencies: ["FuzzTargets"], path: "Fuzz/FuzzKeySlot"),
        .executableTarget(name: "FuzzVaultFile", dependencies: ["FuzzTargets"], path: "Fuzz/FuzzVaultFile"),
        .executableTarget(name: "FuzzTokenResponse", dependencies: ["FuzzTargets"], path: "Fuzz/FuzzTokenResponse"),
        .executableTarget(name: "FuzzJWT", dependencies: ["FuzzTargets"], path: "Fuzz/FuzzJWT"),
        .executableTarget(name: "FuzzTokenRecord", dependencies: ["FuzzTargets"], path: "Fuzz/FuzzTokenRecord"),

        .target(
            name: "TestSupport", dependencies: ["TokenVault", "VaultCore", "VaultStorage", "Locking"],
            path: "Tests/TestSupport",
            resources: [.copy("Resources")]),
        .executableTarget(
            name: "VaultTestWorker", dependencies: ["TokenVault", "VaultCore", "Locking"], path: "Tests/VaultTestWorker"
        ),
        .testTarget(name: "FuzzTargetsTests", dependencies: ["FuzzTargets"]),
        .testTarget(name: "VaultCryptoTests", dependencies: ["VaultCrypto", "TestSupport"]),
        .testTarget(name: "VaultStorageTests", dependencies: ["VaultStorage", "TestSupport"]),
        .testTarget(name: "TokenVaultCLITests", dependencies: ["TestSupport", "TokenVaultCLI", "AgentProtocol"]),
        .testTarget(name: "OAuth2Tests", dependencies: ["OAuth2", "Locking", "TestSupport"]),
        .testTarget(
            name: "CredentialsTests",
            dependencies: ["TokenVault", "VaultStorage", "Locking", "TestSupport", "VaultTestWorker"]),
        // Our own rewrites of the code samples of the token SDKs TokenVault follows (Okta, Auth0,
        // SimpleKeychain, ForgeCrypt): they compile with only the changes the porting guide lists.
        .testTarget(name: "SDKSampleTests", dependencies: ["TokenVault", "Locking", "TestSupport"]),
        .testTarget(
            name: "VaultCoreTests",
            dependencies: ["TokenVault", "VaultStorage", "Locking", "TestSupport", "VaultTestWorker"]),
    ]
)
