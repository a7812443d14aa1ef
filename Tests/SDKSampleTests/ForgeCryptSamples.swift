import Foundation
import Locking
import Observation
import TestSupport
import Testing
import TokenVault

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// Our rewrite of the ForgeCrypt auth-token example: typed keys, a token storage over the
// `SecretStoring` protocol, a service that refreshes through it, the production set-up and an
// `@Observable` view model. Its storage tests run against the in-memory double and a vault service,
// and the service and view model against the local server's sign-in API.

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
            guard let expiry: Date = try keychain.get(AuthKeys.tokenExpiry) else { return true }
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

/// The example's service against an app's own sign-in API (the local server serves one, over its
/// password and refresh grants).
final class AuthService {
    private let tokenStorage: any AuthTokenStorageProtocol
    private let session: URLSession
    private let baseURL: URL

    init(tokenStorage: any AuthTokenStorageProtocol, session: URLSession = .shared, baseURL: URL) {
        self.tokenStorage = tokenStorage
        self.session = session
        self.baseURL = baseURL
    }

    func login(email: String, password: String) async throws {
        var request = URLRequest(url: baseURL.appendingPathComponent("auth/login"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONEncoder().encode(["email": email, "password": password])
        let (data, _) = try await session.data(for: request)
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
        let (data, response) = try await session.data(for: request)
        guard let httpResponse = response as? HTTPURLResponse, httpResponse.statusCode == 200 else {
            try tokenStorage.clearAll()  // a refused refresh signs the user out
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

/// The example's view model, observable as SwiftUI would observe it.
@Observable
final class AuthViewModel {
    private let authService: AuthService
    private let tokenStorage: any AuthTokenStorageProtocol

    var isLoggedIn = false
    var isLoading = false
    var errorMessage: String?

    init(authService: AuthService, tokenStorage: any AuthTokenStorageProtocol) {
        self.authService = authService
        self.tokenStorage = tokenStorage
        isLoggedIn = (try? tokenStorage.isLoggedIn) ?? false
    }

    func login(email: String, password: String) async {
        isLoading = true
        errorMessage = nil
        do {
            try await authService.login(email: email, password: password)
            isLoggedIn = true
        } catch {
            errorMessage = error.localizedDescription
        }
        isLoading = false
    }

    func logout() {
        try? authService.logout()
        isLoggedIn = false
    }
}

/// The example's storage tests, run once with the in-memory double and once with a vault service.
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
    @Test func productionSetUp() throws {
        let (vault, _) = try TestVaults.onDisk(in: directory)
        let keychain = SecretStore(vault: vault, service: "com.taskflow")
        let tokenStorage = AuthTokenStorage(keychain: keychain)
        let authService = AuthService(tokenStorage: tokenStorage, baseURL: URL(string: "https://api.taskflow.app")!)
        let sharedKeychain = SecretStore(
            vault: vault, service: "com.taskflow", accessGroup: "group.com.taskflow.shared")
        try sharedKeychain.set("widget", forKey: "greeting")
        let model = AuthViewModel(authService: authService, tokenStorage: tokenStorage)
        #expect(!model.isLoggedIn)
        #expect(try keychain.keys().isEmpty)  // the shared group is a store of its own
    }

    @Test(arguments: Backing.allCases) func initiallyNotLoggedIn(_ backing: Backing) throws {
        let storage = try storage(backing)
        #expect(try !storage.isLoggedIn)
        #expect(try storage.accessToken == nil)
        #expect(try storage.refreshToken == nil)
    }

    @Test(arguments: Backing.allCases) func storeAndRetrieveTokens(_ backing: Backing) throws {
        let storage = try storage(backing)
        try storage.storeTokens(access: "access_123", refresh: "refresh_456", expiresIn: 3600, userId: "user_1")
        #expect(try storage.isLoggedIn)
        #expect(try storage.accessToken == "access_123")
        #expect(try storage.refreshToken == "refresh_456")
        #expect(try !storage.isTokenExpired)  // stored just now
    }

    @Test(arguments: Backing.allCases) func updateAccessToken(_ backing: Backing) throws {
        let storage = try storage(backing)
        try storage.storeTokens(access: "old_token", refresh: "refresh", expiresIn: 3600, userId: "user_1")
        try storage.updateAccessToken("new_token", expiresIn: 7200)
        #expect(try storage.accessToken == "new_token")
        #expect(try storage.refreshToken == "refresh")  // left as it was
    }

    @Test(arguments: Backing.allCases) func clearAllRemovesEverything(_ backing: Backing) throws {
        let storage = try storage(backing)
        try storage.storeTokens(access: "token", refresh: "refresh", expiresIn: 3600, userId: "user_1")
        try storage.clearAll()
        #expect(try !storage.isLoggedIn)
        #expect(try storage.accessToken == nil)
        #expect(try storage.refreshToken == nil)
    }

    @Test(arguments: Backing.allCases) func expiredTokenIsDetected(_ backing: Backing) throws {
        let storage = try storage(backing)
        try storage.storeTokens(access: "token", refresh: "refresh", expiresIn: 0, userId: "user_1")
        #expect(try storage.isTokenExpired)
    }

    @Test(arguments: Backing.allCases) func missingExpiryTreatedAsExpired(_ backing: Backing) throws {
        let storage = try storage(backing)
        #expect(try storage.isTokenExpired)  // nothing stored, no expiry
    }
}

/// The example's view model and service, in a vault, against the local server's sign-in API.
@Suite(.enabled(if: AuthorizationServer.isAvailable, AuthorizationServer.skipComment))
struct ForgeCryptSignInSamples {
    let directory = TemporaryDirectory()
    let server: AuthorizationServer
    let tokenStorage: AuthTokenStorage
    let authService: AuthService

    init() throws {
        server = try AuthorizationServer()
        let (vault, _) = try TestVaults.onDisk(in: directory)
        tokenStorage = AuthTokenStorage(keychain: SecretStore(vault: vault, service: "com.taskflow"))
        authService = AuthService(tokenStorage: tokenStorage, baseURL: server.appAPIURL)
    }

    /// The status and JSON the server's userinfo endpoint answers a request the service authorized.
    func userInfo() async throws -> (Int?, [String: Any]?) {
        let request = try await authService.authenticatedRequest(for: server.url.appendingPathComponent("userinfo/"))
        let (data, response) = try await URLSession.shared.data(for: request)
        return (
            (response as? HTTPURLResponse)?.statusCode, try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        )
    }

    /// The view model signs in (observably: `isLoading` tells its observer), the service
    /// authorizes requests with the stored token, refreshes it once it has expired, and signs out.
    @Test func loginRefreshAndLogout() async throws {
        let model = AuthViewModel(authService: authService, tokenStorage: tokenStorage)
        #expect(!model.isLoggedIn)
        let loadingChanged = Locked(false)
        withObservationTracking {
            _ = model.isLoading
        } onChange: {
            loadingChanged.withLock { $0 = true }
        }

        await model.login(email: AuthorizationServer.email, password: AuthorizationServer.password)
        #expect(loadingChanged.value)  // it was set during the sign-in
        #expect(model.isLoggedIn && !model.isLoading && model.errorMessage == nil)
        let (status, claims) = try await userInfo()
        #expect(status == 200)
        #expect(claims?["preferred_username"] as? String == AuthorizationServer.username)

        // Expired: the next request refreshes first, and the new access token works.
        let signedIn = try #require(try tokenStorage.accessToken)
        try tokenStorage.updateAccessToken(signedIn, expiresIn: 0)
        #expect(try await userInfo().0 == 200)
        let replaced = try tokenStorage.accessToken != signedIn
        #expect(replaced)

        model.logout()
        #expect(!model.isLoggedIn)
        #expect(try tokenStorage.accessToken == nil)
        await #expect(throws: AuthError.notLoggedIn) { try await authService.authenticatedRequest(for: server.url) }
    }

    /// A refused refresh signs the user out. The example keeps only the new access token, so with a
    /// server that rotates refresh tokens (this one does) its second refresh sends a used one.
    @Test func aRefusedRefreshClearsTheTokens() async throws {
        try await authService.login(email: AuthorizationServer.email, password: AuthorizationServer.password)
        try tokenStorage.updateAccessToken(try #require(try tokenStorage.accessToken), expiresIn: 0)
        _ = try await authService.authenticatedRequest(for: server.url)  // the first refresh
        try tokenStorage.updateAccessToken(try #require(try tokenStorage.accessToken), expiresIn: 0)
        await #expect(throws: AuthError.refreshFailed) { try await authService.authenticatedRequest(for: server.url) }
        #expect(try !tokenStorage.isLoggedIn)
        #expect(try tokenStorage.refreshToken == nil)
    }

    /// A refused sign-in is an error message, and nothing is stored.
    @Test func aWrongPasswordIsAnErrorMessage() async throws {
        let model = AuthViewModel(authService: authService, tokenStorage: tokenStorage)
        await model.login(email: AuthorizationServer.email, password: "not the password")
        #expect(!model.isLoggedIn && !model.isLoading)
        #expect(model.errorMessage != nil)
        #expect(try !tokenStorage.isLoggedIn)
    }
}
