import TokenVault

/// The exit status of every failure class, documented in the README.
enum ExitCode: Int32, CaseIterable {
    case success = 0
    case failure = 1
    case usage = 2
    case invalidCredentials = 3
    case locked = 4
    case notFound = 5
    case server = 6
    case integrity = 7
    case insecurePermissions = 8

    static var summary: String {
        "0 ok, 1 other error, 2 usage, 3 wrong passphrase or key file, 4 locked or interaction required, "
            + "5 not found, 6 server or network error, 7 integrity or format, "
            + "8 a file others can access (see --allow-insecure-permissions)"
    }

    /// The status for an error from the library.
    init(_ error: any Error) {
        switch error {
        case is UsageError: self = .usage
        case let error as VaultError: self = ExitCode(vault: error)
        case let error as CredentialError:
            switch error {
            case .storage(let vault): self = ExitCode(vault: vault)
            case .oauth2: self = .server
            case .notFound, .removed: self = .notFound
            default: self = .failure
            }
        case is OAuth2Error: self = .server
        case AuthorizationResponseError.listener: self = .failure
        case is AuthorizationResponseError: self = .server
        case let error as SecretStoreError:
            switch error {
            case .itemNotFound: self = .notFound
            case .locked, .interactionRequired: self = .locked
            case .authenticationFailed: self = .invalidCredentials
            case .vault(let vault): self = ExitCode(vault: vault)
            default: self = .failure
            }
        default: self = .failure
        }
    }

    private init(vault error: VaultError) {
        switch error {
        case .invalidCredentials, .invalidKeyFile: self = .invalidCredentials
        case .locked, .interactionRequired, .accessControlInvalidated, .accessDenied: self = .locked
        case .notFound: self = .notFound
        case .integrity, .unsupportedFormat: self = .integrity
        case .insecurePermissions: self = .insecurePermissions
        default: self = .failure
        }
    }
}
