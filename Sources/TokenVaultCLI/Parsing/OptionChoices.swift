import TokenVault

/// `--kdf`: the Argon2id preset of a new vault or key slot.
enum KDFPreset: String, OptionChoice {
    case interactive, moderate, sensitive

    var keyDerivation: KeyDerivation {
        switch self {
        case .interactive: .interactive
        case .moderate: .moderate
        case .sensitive: .sensitive
        }
    }
}

/// `login --grant`: how to sign in without a browser.
enum LoginGrant: String, OptionChoice {
    case device
    case clientCredentials = "client-credentials"
    case password
}

/// `revoke --type`: which of a credential's tokens to revoke.
enum RevocationChoice: String, OptionChoice {
    case all, access, refresh, device

    var revokeType: Token.RevokeType {
        switch self {
        case .all: .all
        case .access: .accessToken
        case .refresh: .refreshToken
        case .device: .deviceSecret
        }
    }
}

/// `--accessibility`: the library's classes, spelled as they are in Swift.
extension Accessibility: OptionChoice {}

/// `secret import|export --format`: the password managers secrets move in from and out to.
enum SecretFormat: String, OptionChoice {
    /// A `pass` store: a folder of `NAME.gpg` files.
    case pass
    /// KeePassXC's CSV export.
    case keepassxcCSV = "keepassxc-csv"
}
