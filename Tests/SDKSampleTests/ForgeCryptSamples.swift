import Foundation
import TestSupport
import Testing
import TokenVault

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Our rewrite of the ForgeCrypt auth-token example: typed keys, a token storage over the
// `SecretStoring` protocol, a service that refreshes through it, the production set-up and a view
// model, with its tests run against the in-memory double and against a real vault service.

/// The example's keys: a missing token is `nil`, never a fallback.
enum AuthKeys {
    static let policy = VaultPolicy(accessibility: .afterFirstUnlock)
    static let accessToken = SecretKey<String>("taskflow.auth.accessToken", policy: policy)
    static let refreshToken = SecretKey<String>("taskflow.auth.refreshToken", policy: policy)
    static let tokenExpiry = SecretKey<Date>("taskflow.auth.tokenExpiry", policy: policy)
    static let userId = SecretKey<String>("taskflow.auth.userId", policy: policy)
}

protocol AuthTokenStorageProtocol: Sendable {
    var accessToken: String? { get throws }
    var refreshToken: String? { get throws }
    var isLoggedIn: Bool { get throws }
    var isTokenExpired: Bool { get throws }
    func storeTokens(access: String, refresh: String, expiresIn: TimeInterval, userId: String) throws
    func updateAccessToken(_ token: String, expiresIn: TimeInterval) throws
    func clearAll() throws
}

/// The example's storage, over any `SecretStoring`.
final class AuthTokenStorage: AuthTokenStorageProtocol {
    private let keychain: any SecretStoring

    init(keychain: any SecretStoring) {
        self.keychain = keychain
    }

    var accessToken: String? { get throws { try keychain.get(AuthKeys.accessToken) } }
    var refreshToken: String? { get throws { try keychain.get(AuthKeys.refreshToken) } }
    var isLoggedIn: Bool { get throws { try keychain.contains(AuthKeys.accessToken) } }
    var isTokenExpired: Bool {
        get throws {
            guard let expiry = try keychain.get(AuthKeys.tokenExpiry) else { return true }
            return Date() >= expiry
        }
    }

    func storeTokens(access: String, refresh: String, expiresIn: TimeInterval, userId: String) throws {
        try keychain.set(access, for: AuthKeys.accessToken)
        try keychain.set(refresh, for: AuthKeys.refreshToken)
        try keychain.set(Date().addingTimeInterval(expiresIn), for: AuthKeys.tokenExpiry)
        try keychain.set(userId, for: AuthKeys.userId)
    }

    func updateAccessToken(_ token: String, expiresIn: TimeInterval) throws {
        try keychain.set(token, for: AuthKeys.accessToken)
        try keychain.set(Date().addingTimeInterval(expiresIn), for: AuthKeys.tokenExpiry)
    }

    func clearAll() throws {
        try keychain.removeAll()
    }
}

enum AuthError: Error {
    case notLoggedIn
    case refreshFailed
    case invalidResponse
}

/// The example's service against an app's own login API (compiled; its API is not the local
/// OAuth server's, so it is not run).
final class AuthService: Sendable {
    private let tokenStorage: any AuthTokenStorageProtocol
    private let baseURL: URL

    init(tokenStorage: any AuthTokenStorageProtocol, baseURL: URL) {
        self.tokenStorage = tokenStorage
        self.baseURL = baseURL
    }

    func login(email: String, password: String) async throws {
        var request = URLRequest(url: baseURL.appendingPathComponent("auth/login"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONEncoder().encode(["email": email, "password": password])
        let (data, _) = try await URLSession.shared.data(for: request)
        let response = try JSONDecoder().decode(TokenResponse.self, from: data)
        try tokenStorage.storeTokens(
            access: response.accessToken, refresh: response.refreshToken, expiresIn: response.expiresIn,
            userId: response.userId)
    }

    func authenticatedRequest(for url: URL) async throws -> URLRequest {
        if try tokenStorage.isTokenExpired { try await refreshTokens() }
        guard let token = try tokenStorage.accessToken else { throw AuthError.notLoggedIn }
        var request = URLRequest(url: url)
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        return request
    }

    private func refreshTokens() async throws {
        guard let refresh = try tokenStorage.refreshToken else { throw AuthError.notLoggedIn }
        var request = URLRequest(url: baseURL.appendingPathComponent("auth/refresh"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONEncoder().encode(["refreshToken": refresh])
        let (data, response) = try await URLSession.shared.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else {
            try tokenStorage.clearAll()
            throw AuthError.refreshFailed
        }
        let tokens = try JSONDecoder().decode(TokenResponse.self, from: data)
        try tokenStorage.updateAccessToken(tokens.accessToken, expiresIn: tokens.expiresIn)
    }

    func logout() throws {
        try tokenStorage.clearAll()
    }
}

struct TokenResponse: Codable {
    let accessToken: String
    let refreshToken: String
    let expiresIn: TimeInterval
    let userId: String
}

/// The example's view model, without SwiftUI's `@Observable` (not on this platform).
@MainActor final class AuthViewModel {
    private let authService: AuthService
    var isLoggedIn = false
    var errorMessage: String?

    init(authService: AuthService, tokenStorage: any AuthTokenStorageProtocol) {
        self.authService = authService
        isLoggedIn = (try? tokenStorage.isLoggedIn) ?? false
    }

    func logout() {
        try? authService.logout()
        isLoggedIn = false
    }
}

/// The example's tests, run once with the in-memory double and once with a vault service.
@Suite struct ForgeCryptSamples {
    enum Backing: String, CaseIterable { case inMemory, vault }

    let directory = TemporaryDirectory()

    func storage(_ backing: Backing) throws -> AuthTokenStorage {
        switch backing {
        case .inMemory: return AuthTokenStorage(keychain: InMemorySecretStore())
        case .vault:
            let (vault, _) = try TestVaults.onDisk(in: directory)
            return AuthTokenStorage(keychain: SecretStore(vault: vault, service: "com.taskflow"))
        }
    }

    /// Rewrite of the example's production set-up.
    @Test @MainActor func productionSetUp() throws {
        let (vault, _) = try TestVaults.onDisk(in: directory)
        let keychain = SecretStore(vault: vault, service: "com.taskflow")
        let tokenStorage = AuthTokenStorage(keychain: keychain)
        let authService = AuthService(tokenStorage: tokenStorage, baseURL: URL(string: "https://api.taskflow.app")!)
        let shared = SecretStore(vault: vault, service: "com.taskflow", accessGroup: "group.com.taskflow.shared")
        try shared.set("widget", forKey: "greeting")
        let model = AuthViewModel(authService: authService, tokenStorage: tokenStorage)
        #expect(!model.isLoggedIn)
        #expect(try keychain.keys().isEmpty)  // the shared group is a store of its own
    }

    @Test(arguments: Backing.allCases) func initiallyNotLoggedIn(_ backing: Backing) throws {
        let storage = try storage(backing)
        #expect(try !storage.isLoggedIn)
        #expect(try storage.accessToken == nil)
        #expect(try storage.refreshToken == nil)
        #expect(try storage.isTokenExpired)  // no expiry stored
    }

    @Test(arguments: Backing.allCases) func storeUpdateAndClear(_ backing: Backing) throws {
        let storage = try storage(backing)
        try storage.storeTokens(access: "access_123", refresh: "refresh_456", expiresIn: 3600, userId: "user_1")
        #expect(try storage.isLoggedIn)
        #expect(try storage.accessToken == "access_123")
        #expect(try !storage.isTokenExpired)
        try storage.updateAccessToken("new_token", expiresIn: 7200)
        #expect(try storage.accessToken == "new_token")
        #expect(try storage.refreshToken == "refresh_456")
        try storage.clearAll()
        #expect(try !storage.isLoggedIn)
        #expect(try storage.refreshToken == nil)
    }

    @Test(arguments: Backing.allCases) func expiredTokenIsDetected(_ backing: Backing) throws {
        let storage = try storage(backing)
        try storage.storeTokens(access: "token", refresh: "refresh", expiresIn: 0, userId: "user_1")
        #expect(try storage.isTokenExpired)
    }
}
