import Foundation
import TokenVault

extension AuthorizationServer {
    /// The seeded test user.
    public static let username = "testuser"
    /// The seeded test user's password.
    public static let password = "testpass"
    /// The seeded test user's email address.
    public static let email = "testuser@example.com"
    /// The redirect URI registered for the authorization-code clients.
    public static let redirectURI = URL(string: "http://127.0.0.1/callback")!

    /// The seeded clients: `(client id, client secret)`.
    public enum Client {
        public static let publicPKCE = ("tv-public-pkce", String?.none)
        public static let confidentialCode = ("tv-confidential-code", String?.some("tv-confidential-code-secret"))
        public static let publicPassword = ("tv-public-password", String?.none)
        public static let confidentialPassword = (
            "tv-confidential-password", String?.some("tv-confidential-password-secret")
        )
        public static let service = ("tv-service", String?.some("tv-service-secret"))
        public static let device = ("tv-device", String?.none)
    }

    /// An app's own sign-in API, the kind ForgeCrypt's sample service calls, over this server's
    /// password and refresh grants: `POST auth/login` takes a JSON email and password,
    /// `POST auth/refresh` a JSON `refreshToken`, and both answer `accessToken`, `refreshToken`,
    /// `expiresIn` and `userId` (401 with an `error` when the grant is refused).
    public var appAPIURL: URL { url.appendingPathComponent("test/app-api") }

    /// A client of this server.
    ///
    /// - Parameters:
    ///   - client: A seeded `(id, secret)`.
    ///   - scopes: The scopes to ask for.
    ///   - authentication: How a confidential client authenticates.
    ///   - timeout: The request timeout.
    ///   - dpop: Options to ask for DPoP-bound tokens; `nil` for Bearer tokens.
    /// - Returns: The client.
    public func client(
        _ client: (String, String?) = Client.confidentialPassword,
        scopes: [String] = ["openid", "profile", "email", "read"],
        authentication: ClientAuthentication = .basic, timeout: TimeInterval = 10, dpop: DPoPOptions? = nil
    ) -> OAuth2Client {
        OAuth2Client(
            issuer: url, clientID: client.0, clientSecret: client.1, scopes: scopes,
            clientAuthentication: authentication,
            requestTimeout: timeout, dpop: dpop)
    }

    /// A token for the test user through the password grant.
    ///
    /// - Parameter client: A password-grant client.
    /// - Returns: The token.
    public func passwordToken(_ client: (String, String?) = Client.confidentialPassword) async throws -> Token {
        try await self.client(client).password(username: Self.username, password: Self.password)
    }

    /// Plays the user's browser for the authorization-code flow: logs in through the login form and
    /// follows `authorizationURL` until the redirect carries the code (with curl and a cookie jar).
    ///
    /// - Parameters:
    ///   - authorizationURL: From `OAuth2Client.authorizationURL`.
    ///   - redirectURI: The redirect URI the request names (a loopback one may carry any port).
    /// - Returns: The redirect URL, with `code` and `state`.
    public func browse(to authorizationURL: URL, redirectingTo redirectURI: URL = redirectURI) throws -> URL {
        let jar = Self.stateDirectory.appendingPathComponent("cookies-\(UUID().uuidString).txt").path
        defer { try? FileManager.default.removeItem(atPath: jar) }
        let login = url.appendingPathComponent("accounts/login/").absoluteString
        let page = try curl(["-s", "-c", jar, "-b", jar, login])
        guard let range = page.range(of: #"name="csrfmiddlewaretoken" value=""#),
            let end = page[range.upperBound...].firstIndex(of: "\"")
        else { throw SetupFailure(reason: "no CSRF token on the login page") }
        let csrf = String(page[range.upperBound..<end])
        _ = try curl([
            "-s", "-c", jar, "-b", jar, "-o", "/dev/null", "-H", "Referer: \(login)",
            "--data-urlencode", "csrfmiddlewaretoken=\(csrf)", "--data-urlencode", "username=\(Self.username)",
            "--data-urlencode", "password=\(Self.password)", login,
        ])
        let location = try curl([
            "-s", "-c", jar, "-b", jar, "-o", "/dev/null", "-w", "%{redirect_url}", authorizationURL.absoluteString,
        ])
        guard let redirect = URL(string: location), redirect.absoluteString.hasPrefix(redirectURI.absoluteString)
        else {
            throw SetupFailure(reason: "the authorization request did not redirect to the client")
        }
        return redirect
    }

    private func curl(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
