import TokenVault

/// The one line printed for a failure: the library's description, except where the CLI has a
/// better fix to offer (its own flag rather than the library's configuration property).
enum ErrorMessage {
    static func text(for error: any Error) -> String {
        if let path = insecurePath(error) {
            return "\(path) is accessible by other users; run 'chmod 600 \(path)', "
                + "or pass --allow-insecure-permissions to use it anyway."
        }
        return error.localizedDescription
    }

    /// The path of a file refused for its permissions, through the layers that wrap vault errors.
    private static func insecurePath(_ error: any Error) -> String? {
        switch error {
        case VaultError.insecurePermissions(let path): path
        case CredentialError.storage(.insecurePermissions(let path)): path
        case SecretStoreError.vault(.insecurePermissions(let path)): path
        default: nil
        }
    }
}
