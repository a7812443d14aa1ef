import VaultCrypto
import VaultStorage

extension VaultError {
    /// Translates an SQLite error; the message never holds row contents.
    init(_ error: StorageError) {
        if error.isBusy {
            self = .storage("another process held the vault's lock past the busy timeout; nothing was written")
        } else if error.isFull {
            self = .storage("the disk is full; the write was rolled back and the previous state is intact")
        } else if error.isCorrupt {
            self = .integrity("the vault file is damaged (\(error.message))")
        } else if error.isNotADatabase {
            self = .unsupportedFormat("the file is not a TokenVault vault")
        } else {
            self = .storage(error.description)
        }
    }

    /// Translates a crypto-layer error met outside record opening (which maps it itself).
    init(_ error: CryptoError) {
        switch error {
        case .authenticationFailed, .invalidLength: self = .integrity(error.localizedDescription)
        case .invalidParameters(let detail): self = .unsupportedFormat(detail)
        case .outOfMemory: self = .storage("out of memory for key derivation")
        }
    }
}
