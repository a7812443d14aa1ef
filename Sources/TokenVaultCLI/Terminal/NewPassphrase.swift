import TokenVault

/// Where the passphrase of a new vault or key slot comes from, settled before the vault is opened,
/// so a command that cannot get one fails before any key derivation runs.
enum NewPassphrase {
    /// The new unlock has no passphrase (a key file alone).
    case none
    /// Given by a file, a descriptor or the environment.
    case given(Passphrase)
    /// Asked twice on the terminal.
    case asked

    /// Settles the source.
    ///
    /// - Parameters:
    ///   - given: The passphrase from the options meant for the new one, if any.
    ///   - wanted: Whether the new unlock has a passphrase at all.
    ///   - sources: Those options, named in the error.
    /// - Throws: ``UsageError`` when a passphrase is wanted, none is given and there is no terminal.
    init(given: Passphrase?, wanted: Bool, sources: String) throws {
        if !wanted {
            self = .none
        } else if let given {
            self = .given(given)
        } else if TerminalPrompt.isAvailable {
            self = .asked
        } else {
            throw UsageError("no terminal to ask for the new passphrase: give it with \(sources)")
        }
    }

    /// The passphrase, asking for it (twice, without echo) when it was not given.
    ///
    /// - Returns: `nil` for ``none``.
    /// - Throws: ``UsageError`` when the two answers differ or the terminal is gone.
    func read() throws -> Passphrase? {
        switch self {
        case .none: return nil
        case .given(let passphrase): return passphrase
        case .asked:
            let first = try TerminalPrompt.readSecret("New passphrase: ")
            let second = try TerminalPrompt.readSecret("Repeat the passphrase: ")
            guard first.secureBytes == second.secureBytes else { throw UsageError("the passphrases differ") }
            return first
        }
    }
}
