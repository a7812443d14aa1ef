import Foundation
import Locking
import OAuth2
import VaultCore

/// The process-wide state behind `Credential`'s static API: the storage in use and the one
/// `Credential` instance per stored id, so state never forks between copies.
final class CredentialCoordinator: Sendable {
    static let shared = CredentialCoordinator()

    private struct State {
        var storage: any TokenStorage = InMemoryTokenStorage()
        var instances: [String: Credential] = [:]
        var refreshGraceInterval: TimeInterval = 300
        var requestTimeout: TimeInterval = 30
        var refreshLeaseDuration: TimeInterval = 60
        var httpClient: any HTTPClient = URLSessionHTTPClient()
    }

    private let state = Locked(State())

    var storage: any TokenStorage {
        get { state.withLock { $0.storage } }
        set {
            state.withLock { state in
                state.storage = newValue
                state.instances = [:]
            }
        }
    }

    var refreshGraceInterval: TimeInterval {
        get { state.withLock { $0.refreshGraceInterval } }
        set { state.withLock { $0.refreshGraceInterval = newValue } }
    }

    var requestTimeout: TimeInterval {
        get { state.withLock { $0.requestTimeout } }
        set { state.withLock { $0.requestTimeout = newValue } }
    }

    var refreshLeaseDuration: TimeInterval {
        get { state.withLock { $0.refreshLeaseDuration } }
        set { state.withLock { $0.refreshLeaseDuration = newValue } }
    }

    var httpClient: any HTTPClient {
        get { state.withLock { $0.httpClient } }
        set { state.withLock { $0.httpClient = newValue } }
    }

    /// The instance for `id` if one exists for the current storage.
    func existing(_ id: String, in storage: any TokenStorage) -> Credential? {
        state.withLock { state in
            guard let credential = state.instances[id], credential.storage === storage else {
                return nil
            }
            return credential
        }
    }

    /// The one instance for a token: the existing one, or a new one registered now.
    ///
    /// - Parameter generation: The vault's key generation taken before `token` was read or
    ///   stored (`nil` for a storage without a vault).
    func instance(
        token: Token, metadata: Token.Metadata, storage: any TokenStorage, context: (any AuthenticationContext)?,
        generation: VaultKeyGeneration?, copy: SealedRecordCopy? = nil
    ) -> Credential {
        state.withLock { state in
            if let credential = state.instances[token.id], credential.storage === storage {
                return credential
            }
            let credential = Credential(
                token: token, metadata: metadata, storage: storage, context: context, generation: generation,
                copy: copy, requestTimeout: state.requestTimeout)
            if state.storage === storage { state.instances[token.id] = credential }
            return credential
        }
    }

    func forget(_ credential: Credential) {
        state.withLock { state in
            if state.instances[credential.id] === credential { state.instances[credential.id] = nil }
        }
    }

    /// Posts `.defaultCredentialChanged` (synchronously, on the calling thread).
    func postDefaultChanged(_ credential: Credential?) {
        NotificationCenter.default.post(name: .defaultCredentialChanged, object: credential)
    }
}
