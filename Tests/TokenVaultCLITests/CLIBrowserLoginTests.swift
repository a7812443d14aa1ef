import Foundation
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `login --browser`: the real CLI process, the real server, and the test as the user's browser,
/// with the URL read from stderr or from what a fake `xdg-open` on `PATH` was handed.
@Suite(.enabled(if: AuthorizationServer.isAvailable, AuthorizationServer.skipComment))
struct CLIBrowserLoginTests {
    /// A `login --browser` in progress, with the URL it printed.
    struct PendingLogin {
        let process: (Process, Pipe, Pipe)
        let printed: String
        let authorizationURL: URL

        func query(_ name: String) -> String? {
            URLComponents(url: authorizationURL, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == name }?
                .value
        }

        var redirectURI: URL { URL(string: query("redirect_uri") ?? "")! }
        var state: String { query("state") ?? "" }

        /// The run's result, and everything it wrote on stderr (the URL included).
        func finish() -> (CLIProcess.Result, String) {
            let result = CLIProcess.finish(process)
            return (result, printed + result.stderr)
        }
    }

    /// Starts `login --browser` (with `--no-open` unless `opening`), in `environment`.
    func startLogin(
        _ vault: CLIVault, _ server: AuthorizationServer, _ extra: [String] = [], opening: Bool = false,
        environment: [String: String] = [:]
    ) throws -> PendingLogin {
        let process = try CLIProcess.start(
            ["login", "--browser"] + (opening ? [] : ["--no-open"]) + [
                "--issuer", server.url.absoluteString, "--client-id", AuthorizationServer.Client.publicPKCE.0,
                "--scope", "openid profile read", "--json",
            ] + extra + vault.unlock, environment: environment)
        var printed = ""
        while !printed.contains("/authorize/") || !printed.hasSuffix("\n") {
            let chunk = process.2.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            printed += String(decoding: chunk, as: UTF8.self)
        }
        let line = try #require(printed.split(separator: "\n").first { $0.contains("/authorize/") })
        return PendingLogin(
            process: process, printed: printed, authorizationURL: try #require(URL(string: String(line))))
    }

    /// What a browser does with a redirect: a GET to it.
    func deliver(_ redirect: URL) async throws -> (String, Int) {
        let (data, response) = try await URLSession.shared.data(from: redirect)
        return (String(decoding: data, as: UTF8.self), (response as? HTTPURLResponse)?.statusCode ?? 0)
    }

    /// Expects that `url` is not served again now that the CLI has exited: the request fails, or,
    /// when it is answered, a process other than TokenVault listens on that port. (A freed port is
    /// any process's to take, and the other tests start servers on ports the system picks.)
    func expectNoTokenVaultListener(at url: URL) async {
        guard (try? await deliver(url)) != nil else { return }
        let listeners = PortListeners.on(port: url.port ?? 0)
        let tokenVault = listeners.filter {
            URL(fileURLWithPath: $0.executable).lastPathComponent.hasPrefix("tokenvault")
        }
        #expect(
            !listeners.isEmpty && tokenVault.isEmpty,
            "port \(url.port ?? 0) answered; listening there: \(listeners.isEmpty ? "nobody" : "\(listeners)")")
    }

    func storedTokens(_ vault: CLIVault) throws -> Int {
        (try vault.run(["list", "--json"]).json() as? [Any])?.count ?? -1
    }

    /// The ids `list --verified` shows: tokens whose ID token was checked when it arrived.
    func verifiedTokens(_ vault: CLIVault) throws -> [String] {
        (try vault.run(["list", "--verified", "--json"]).json() as? [[String: Any]])?.compactMap {
            $0["claimsVerified"] as? Bool == true ? $0["id"] as? String : nil
        } ?? []
    }

    /// Plays the browser for `login` at `url`, then waits for the CLI: the id it stored.
    func completeSignIn(_ login: PendingLogin, at url: URL, _ server: AuthorizationServer) async throws -> String {
        let redirect = try server.browse(to: url, redirectingTo: login.redirectURI)
        let (page, status) = try await deliver(redirect)
        #expect(status == 200 && page.contains("return to the terminal"))
        let (result, stderr) = login.finish()
        #expect(result.status == 0, "\(stderr)")
        return try #require((try result.json() as? [String: Any])?["id"] as? String)
    }

    func replacing(_ name: String, with value: String, in url: URL) -> URL {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
        components.queryItems = components.queryItems?.map {
            $0.name == name ? URLQueryItem(name: name, value: value) : $0
        }
        return components.url!
    }

    @Test func theBrowserComesBackToTheLoopbackListenerAndTheTokenIsStored() async throws {
        let server = try AuthorizationServer()
        let vault = try CLIVault()
        let login = try startLogin(vault, server)
        #expect(login.redirectURI.scheme == "http" && login.redirectURI.host == "127.0.0.1")
        #expect((login.redirectURI.port ?? 0) > 0)
        #expect(login.query("code_challenge_method") == "S256" && login.query("code_challenge") != nil)
        #expect(login.state.count >= 43 && login.query("nonce") != nil)

        let redirect = try server.browse(to: login.authorizationURL, redirectingTo: login.redirectURI)
        let code = try #require(
            URLComponents(url: redirect, resolvingAgainstBaseURL: false)?.queryItems?.first {
                $0.name == "code"
            }?.value)
        let (page, status) = try await deliver(redirect)
        #expect(status == 200 && page.contains("return to the terminal"))
        let (result, stderr) = login.finish()
        #expect(result.status == 0, "\(stderr)")
        let id = try #require((try result.json() as? [String: Any])?["id"] as? String)
        #expect(!result.stdout.contains(code) && !stderr.contains(code))

        // Exactly one request was served: the listener is closed once the response came back.
        await expectNoTokenVaultListener(at: redirect)

        let shown = try #require(try vault.run(["show", id, "--json"]).json() as? [String: Any])
        #expect(shown["issuer"] as? String == server.url.absoluteString)
        #expect(shown["clientID"] as? String == AuthorizationServer.Client.publicPKCE.0)
        #expect((shown["has"] as? [String])?.contains("idToken") == true)
        // The code exchange checked the ID token, and the vault kept the mark.
        #expect(try verifiedTokens(vault) == [id])
        #expect(!stderr.contains(try vault.run(["token", id]).stdout.trimmingCharacters(in: .newlines)))
        #expect(try await server.tokenRequests("authorization_code") == 1)
    }

    /// Without `--no-open`, the URL goes to the first `xdg-open` on `PATH`, as its one argument,
    /// exactly as printed; following it signs in.
    @Test func theURLIsHandedToXdgOpenAndFollowingItSignsIn() async throws {
        let server = try AuthorizationServer()
        let vault = try CLIVault()
        let opener = try FakeBrowserOpener()
        let login = try startLogin(vault, server, opening: true, environment: ["PATH": opener.path])
        let handed = try #require(opener.arguments(within: .seconds(120)), "xdg-open was not run")
        #expect(handed == [login.authorizationURL.absoluteString])
        let id = try await completeSignIn(login, at: try #require(URL(string: handed[0])), server)
        #expect(try verifiedTokens(vault) == [id])
        #expect(try await server.tokenRequests("authorization_code") == 1)
    }

    /// With no `xdg-open` on `PATH` (a folder without one is all of it), the URL is still printed,
    /// and the sign-in works for a user who opens it.
    @Test func withoutXdgOpenTheURLIsPrintedAndFollowingItSignsIn() async throws {
        let server = try AuthorizationServer()
        let vault = try CLIVault()
        let empty = TemporaryDirectory()
        #expect(!FileManager.default.fileExists(atPath: empty.file("xdg-open").path))
        let login = try startLogin(vault, server, opening: true, environment: ["PATH": empty.url.path])
        #expect(
            login.printed.contains(
                "To sign in, open this URL in a browser:\n\(login.authorizationURL.absoluteString)\n"))
        let id = try await completeSignIn(login, at: login.authorizationURL, server)
        #expect(try verifiedTokens(vault) == [id])
        #expect(try await server.tokenRequests("authorization_code") == 1)
    }

    @Test func aResponseWithAnotherStateIsRefusedAndItsCodeNeverExchanged() async throws {
        let server = try AuthorizationServer()
        let vault = try CLIVault()
        let login = try startLogin(vault, server)
        let redirect = try server.browse(to: login.authorizationURL, redirectingTo: login.redirectURI)
        _ = try await deliver(replacing("state", with: "forged-by-someone-else", in: redirect))
        let (result, stderr) = login.finish()
        #expect(result.status == 6, "\(stderr)")
        #expect(stderr.contains("tokenvault: The authorization response does not answer this sign-in"))
        #expect(!stderr.contains("forged-by-someone-else"))
        #expect(try await server.tokenRequests("authorization_code") == 0)
        #expect(try storedTokens(vault) == 0)
    }

    @Test func aDeniedSignInIsATypedErrorAndStoresNothing() async throws {
        let server = try AuthorizationServer()
        let vault = try CLIVault()
        let login = try startLogin(vault, server)
        var denied = URLComponents(url: login.redirectURI, resolvingAgainstBaseURL: false)!
        denied.queryItems = [
            URLQueryItem(name: "error", value: "access_denied"),
            URLQueryItem(name: "error_description", value: "The user declined"),
            URLQueryItem(name: "state", value: login.state),
        ]
        _ = try await deliver(denied.url!)
        let (result, stderr) = login.finish()
        #expect(result.status == 6, "\(stderr)")
        #expect(
            stderr.contains(
                "tokenvault: The authorization server refused the sign-in (access_denied: The user declined)."))
        #expect(try storedTokens(vault) == 0)
    }

    @Test func nobodyComingBackTimesOutAndClosesTheListener() async throws {
        let server = try AuthorizationServer()
        let vault = try CLIVault()
        let login = try startLogin(vault, server, ["--timeout", "1"])
        let (result, stderr) = login.finish()
        #expect(result.status == 6, "\(stderr)")
        #expect(stderr.contains("tokenvault: Timed out waiting for the browser"))
        await expectNoTokenVaultListener(at: login.redirectURI)
        #expect(try storedTokens(vault) == 0)
    }

    @Test func browserExcludesAGrant() throws {
        let result = try CLIProcess.run([
            "login", "--browser", "--grant", "password", "--issuer", "http://127.0.0.1:9", "--client-id", "c",
        ])
        #expect(result.status == 2)
        #expect(result.stderr == "tokenvault: --browser and --grant exclude each other\n")
    }
}
