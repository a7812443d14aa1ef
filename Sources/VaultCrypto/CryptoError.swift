import Foundation

/// An error from the crypto layer. Never carries key, nonce or plaintext bytes.
public enum CryptoError: Error, Equatable, Sendable, LocalizedError {
    /// The ciphertext, its tag or its associated data did not authenticate under the key.
    case authenticationFailed
    /// An input had the wrong length; the string names the input and the expected size.
    case invalidLength(String)
    /// A parameter is outside what libsodium accepts; the string says which.
    case invalidParameters(String)
    /// libsodium could not allocate guarded memory or the memory needed by Argon2id.
    case outOfMemory

    public var errorDescription: String? {
        switch self {
        case .authenticationFailed: "The data failed authentication (wrong key, or tampered data)."
        case .invalidLength(let what): "Invalid length: \(what)."
        case .invalidParameters(let what): "Invalid parameters: \(what)."
        case .outOfMemory: "Out of memory for a cryptographic operation."
        }
    }
}
