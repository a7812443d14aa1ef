import Foundation
import Locking
import OAuth2
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Every grant and endpoint against the real Django OAuth Toolkit server on loopback.
@Suite(.enabled(if: AuthorizationServer.isAvailable, AuthorizationServer.skipComment))
struct OAuth2ClientIntegrationTests {
    @Test func discoveryMergesOIDCWithRFC8414() async throws {
        let server = try AuthorizationServer()
        let configuration = try await server.client().openIDConfiguration()
        #expect(configuration.issuer == server.url)
        #expect(configuration.tokenEndpoint != nil)
        #expect(configuration.userinfoEndpoint != nil)
        // Revocation and introspection come from the RFC 8414 document.
        #expect(configuration.revocationEndpoint != nil)
        #expect(configuration.introspectionEndpoint != nil)
        #expect(configuration.deviceAuthorizationEndpoint != nil)
        let (oidc, _) = try await URLSession.shared.data(
            from: server.url.appendingPathComponent(".well-known/openid-configuration"))
        let oidcFields = try JSONSerialization.jsonObject(with: oidc) as? [String: Any] ?? [:]
        #expect(oidcFields["introspection_endpoint"] == nil || configuration.introspectionEndpoint != nil)
    }

    @Test(arguments: [
        AuthorizationServer.Client.publicPassword, AuthorizationServer.Client.confidentialPassword,
    ])
    func passwordGrant(client: (String, String?)) async throws {
        let server = try AuthorizationServer()
        for authentication in [ClientAuthentication.basic, .post] {
            let token = try await server.client(client, authentication: authentication)
                .password(username: AuthorizationServer.username, password: AuthorizationServer.password)
            #expect(token.tokenType == "Bearer")
            #expect(token.refreshToken != nil)
            #expect(token.expiresIn > 0)
            #expect(token.context.clientID == client.0)
        }
        #expect(try await server.tokenRequests("password") == 2)
    }

    @Test func wrongCredentialsAreServerErrors() async throws {
        let server = try AuthorizationServer()
        await #expect(throws: OAuth2Error.self) {
            try await server.client().password(username: AuthorizationServer.username, password: "wrong")
        }
        do {
            _ = try await server.client((AuthorizationServer.Client.service.0, "wrong-secret")).clientCredentials()
            Issue.record("a wrong client secret was accepted")
        } catch OAuth2Error.server(let error, _, let status) {
            #expect(error == "invalid_client")
            #expect(status == 401)
        }
    }

    @Test func clientCredentialsGrant() async throws {
        let server = try AuthorizationServer()
        let token = try await server.client(AuthorizationServer.Client.service, scopes: ["read"]).clientCredentials()
        #expect(token.refreshToken == nil)
        #expect(token.scope == ["read"])
        let info = try await server.client(AuthorizationServer.Client.service).introspect(token, type: .accessToken)
        #expect(info.active)
    }

    @Test func authorizationCodeWithPKCE() async throws {
        let server = try AuthorizationServer()
        for client in [AuthorizationServer.Client.publicPKCE, AuthorizationServer.Client.confidentialCode] {
            let oauth2 = server.client(client, scopes: ["openid", "profile", "email"])
            let pkce = PKCE()
            let state = UUID().uuidString
            let url = try await oauth2.authorizationURL(
                redirectURI: AuthorizationServer.redirectURI, state: state, pkce: pkce)
            let redirect = try server.browse(to: url)
            let items = URLComponents(url: redirect, resolvingAgainstBaseURL: false)?.queryItems ?? []
            #expect(items.first { $0.name == "state" }?.value == state)
            let code = try #require(items.first { $0.name == "code" }?.value)
            // The wrong verifier is refused; the right one gets tokens (and an ID token).
            await #expect(throws: OAuth2Error.self) {
                try await oauth2.exchange(
                    code: code, verifier: PKCE().verifier, redirectURI: AuthorizationServer.redirectURI)
            }
            let second = try server.browse(to: url)
            let secondCode = try #require(
                URLComponents(url: second, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "code" }?
                    .value)
            let token = try await oauth2.exchange(
                code: secondCode, verifier: pkce.verifier, redirectURI: AuthorizationServer.redirectURI)
            #expect(token.idToken?.preferredUsername == "testuser")
            #expect(token.idToken?.email == "testuser@example.com")
            #expect((token.idToken?[.roles] as? [String]) == ["user"])
            #expect(token.refreshToken != nil)
        }
    }

    @Test func deviceGrantPollsHonouringIntervalAndSlowDown() async throws {
        let server = try AuthorizationServer()
        let oauth2 = server.client(AuthorizationServer.Client.device, scopes: ["openid", "profile"])
        let authorization = try await oauth2.deviceAuthorization()
        #expect(!authorization.userCode.isEmpty)
        #expect(!authorization.description.contains(authorization.deviceCode))
        let waits = Locked<[Duration]>([])
        // Poll 1 sees authorization_pending, poll 2 slow_down, poll 3 pending again; then the user
        // approves and poll 4 gets the token.
        let interval = Duration.milliseconds(Int(authorization.interval * 1000))
        let token = try await oauth2.pollForToken(authorization) { wait in
            let count = waits.withLock { waits in
                waits.append(wait)
                return waits.count
            }
            if count == 2 { try await server.armFault("slow_down") }
            if count == 4 { try await server.approveDevice(userCode: authorization.userCode) }
        }
        #expect(token.refreshToken != nil)
        #expect(waits.value == [interval, interval, interval + .seconds(5), interval + .seconds(5)])
        #expect(try await server.tokenRequests()["urn:ietf:params:oauth:grant-type:device_code"] == 4)
    }

    @Test func deniedDeviceGrantStopsPolling() async throws {
        let server = try AuthorizationServer()
        let oauth2 = server.client(AuthorizationServer.Client.device)
        let authorization = try await oauth2.deviceAuthorization()
        try await server.denyDevice(userCode: authorization.userCode)
        await #expect(throws: OAuth2Error.server(error: "access_denied", description: nil, statusCode: 400)) {
            _ = try await oauth2.pollForToken(authorization) { _ in }
        }
    }

    @Test func refreshWithRotationReplacesTheRefreshTokenAndUpdatesTheIDToken() async throws {
        let server = try AuthorizationServer(.init(rotateRefreshTokens: true, reuseProtection: true))
        let oauth2 = server.client()
        let token = try await server.passwordToken()
        let refreshed = try await oauth2.refresh(token)
        #expect(refreshed.id == token.id)
        #expect(refreshed.refreshToken != token.refreshToken)
        #expect(refreshed.accessToken != token.accessToken)
        #expect(refreshed.idToken?.subject != nil)  // the password grant gave none; the refresh does
        // Reuse protection is really on: replaying the rotated refresh token revokes the family,
        // so the fresh refresh token stops working too. (The library must never do this.)
        await #expect(throws: OAuth2Error.self) { try await oauth2.refresh(token) }
        await #expect(throws: OAuth2Error.self) { try await oauth2.refresh(refreshed) }
    }

    @Test func refreshWithoutRotationKeepsTheRefreshToken() async throws {
        let server = try AuthorizationServer(.init(rotateRefreshTokens: false, reuseProtection: false))
        let oauth2 = server.client()
        let token = try await server.passwordToken()
        let first = try await oauth2.refresh(token)
        let second = try await oauth2.refresh(first)
        #expect(first.refreshToken == token.refreshToken)
        #expect(second.refreshToken == token.refreshToken)
        #expect(second.accessToken != first.accessToken)
    }

    @Test func revocationThenIntrospectionAndUserInfo() async throws {
        let server = try AuthorizationServer()
        let oauth2 = server.client()
        let token = try await server.passwordToken()
        #expect(try await oauth2.userInfo(token).preferredUsername == "testuser")
        #expect(try await oauth2.introspect(token, type: .accessToken).active)
        try await oauth2.revoke(token, type: .accessToken)
        #expect(try await !oauth2.introspect(token, type: .accessToken).active)
        do {
            _ = try await oauth2.userInfo(token)
            Issue.record("userinfo accepted a revoked access token")
        } catch OAuth2Error.server(let error, _, let status) {
            #expect(error == "invalid_token")
            #expect(status == 401)
        }
        try await oauth2.revoke(token, type: .refreshToken)
        await #expect(throws: OAuth2Error.self) { try await oauth2.refresh(token) }
        // Revoking an unknown token is not an error (RFC 7009 §2.2).
        try await oauth2.revoke(token, type: .refreshToken)
    }

    @Test func deadPortTimeoutServerErrorsAndBadBodiesAreTypedErrors() async throws {
        let server = try AuthorizationServer(.init(rotateRefreshTokens: false, reuseProtection: false))
        let token = try await server.passwordToken()
        let quick = server.client(timeout: 1)
        _ = try await quick.openIDConfiguration()

        try await server.armFault("slow", seconds: 3)
        await #expect(throws: OAuth2Error.network("the request timed out")) { try await quick.refresh(token) }
        try await server.armFault("status500")
        await #expect(throws: OAuth2Error.unexpectedStatus(500)) { try await quick.refresh(token) }
        try await server.armFault("truncated")
        await #expect(throws: OAuth2Error.invalidResponse("the token response is not a JSON object")) {
            try await quick.refresh(token)
        }
        server.stop()
        await #expect(throws: OAuth2Error.self) { try await quick.refresh(token) }
        do {
            _ = try await quick.refresh(token)
        } catch OAuth2Error.network(let detail) {
            #expect(detail.contains("cannot connect"))
        }
        let nowhere = OAuth2Client(issuer: server.url, clientID: "x", requestTimeout: 2)
        await #expect(throws: OAuth2Error.self) { try await nowhere.openIDConfiguration() }
    }
}
