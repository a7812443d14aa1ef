import Foundation
import Locking
import OAuth2
import VaultCore

/// The process-wide state behind `Credential`'s static API: the storage in use and the one
/// `Credential` instance per stored id, so state never forks between copies.
///
/// Instances are registered weakly: one that nothing else holds is released with its token copy, so
/// a server storing a token per user does not keep every token it ever stored in memory (nor pay for
/// that memory on every store). The next look-up of its id makes a new instance, which is then the
/// only one; two instances of one id never exist at once.
final class CredentialCoordinator: Sendable {
    static let shared = CredentialCoordinator()

    private struct State {
        var storage: any TokenStorage = InMemoryTokenStorage()
        var instances: [String: WeakCredential] = [:]
        /// How many registered instances were alive at the last sweep of released ones.
        var liveAtLastSweep = 0
        var refreshGraceInterval: TimeInterval = 300
        var requestTimeout: TimeInterval = 30
        var refreshLeaseDuration: TimeInterval = 60
        var httpClient: any HTTPClient = URLSessionHTTPClient()

        /// The live instance of `id`, if it reads from `storage`.
        func instance(_ id: String, in storage: any TokenStorage) -> Credential? {
            guard let credential = instances[id]?.credential, credential.storage === storage else { return nil }
            return credential
        }

        /// Registers `credential` as its id's instance. Entries of released instances are swept out
        /// whenever the table has doubled since the last sweep: amortised constant time per store,
        /// and at most twice as many entries as live instances. The sweep removes entries in place,
        /// keeping the table's capacity, so the stores after it do not grow it again size by size.
        mutating func register(_ credential: Credential) {
            instances[credential.id] = WeakCredential(credential: credential)
            guard instances.count >= max(Self.sweepThreshold, 2 * liveAtLastSweep) else { return }
            let released = instances.compactMap { $0.value.credential == nil ? $0.key : nil }
            for id in released { instances[id] = nil }
            liveAtLastSweep = instances.count
        }

        /// The table size below which released entries are left alone.
        static let sweepThreshold = 64
    }

    private let state = Locked(State())

    /// How many instances are registered, released ones not yet swept included.
    var registeredInstanceCount: Int { state.withLock { $0.instances.count } }

    var storage: any TokenStorage {
        get { state.withLock { $0.storage } }
        set {
            state.withLock { state in
                state.storage = newValue
                state.instances = [:]
                state.liveAtLastSweep = 0
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

    /// The live instance for `id` that reads from `storage`, if this process has one.
    func existing(_ id: String, in storage: any TokenStorage) -> Credential? {
        state.withLock { $0.instance(id, in: storage) }
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
            if let credential = state.instance(token.id, in: storage) { return credential }
            let credential = Credential(
                token: token, metadata: metadata, storage: storage, context: context, generation: generation,
                copy: copy, requestTimeout: state.requestTimeout)
            if state.storage === storage { state.register(credential) }
            return credential
        }
    }

    func forget(_ credential: Credential) {
        state.withLock { state in
            if state.instances[credential.id]?.credential === credential { state.instances[credential.id] = nil }
        }
    }

    /// Posts `.defaultCredentialChanged` (synchronously, on the calling thread).
    func postDefaultChanged(_ credential: Credential?) {
        NotificationCenter.default.post(name: .defaultCredentialChanged, object: credential)
    }
}

extension Credential {
    /// How many instances the process has registered, released ones not yet swept out included:
    /// for the test that the table stays bounded while stores drop their credentials.
    package static var registeredInstanceCountForTesting: Int { CredentialCoordinator.shared.registeredInstanceCount }
}

/// A registered instance, held weakly.
private struct WeakCredential {
    weak var credential: Credential?
}
