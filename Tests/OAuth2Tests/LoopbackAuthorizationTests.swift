import Foundation
import OAuth2
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The authorization-code flow through a loopback redirect (RFC 8252 §7.3), in process.
@Suite struct LoopbackAuthorizationTests {
    /// A browser's GET to `url`, or `nil` when nothing listens there.
    static func get(_ url: URL) async -> Int? {
        guard let (_, response) = try? await URLSession.shared.data(from: url) else { return nil }
        return (response as? HTTPURLResponse)?.statusCode
    }

    @Test func theReceiverServesOneRequestOnAnEphemeralLoopbackPortThenCloses() async throws {
        let receiver = try LoopbackRedirectReceiver()
        #expect(receiver.redirectURI.absoluteString.hasPrefix("http://127.0.0.1:"))
        #expect(receiver.redirectURI.path == "/callback")
        // A connection that sends nothing, as a browser's speculative one, is not the request.
        let idle = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(receiver.redirectURI.port!).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(idle, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        #expect(connected == 0)
        close(idle)
        let target = receiver.redirectURI.absoluteString + "?code=abc&state=xyz"
        async let status = Self.get(URL(string: target)!)
        let received = try await receiver.receive(timeout: .seconds(30))
        #expect(received.absoluteString == target)
        #expect(await status == 200)
        #expect(await Self.get(URL(string: target)!) == nil)
    }

    @Test func nobodyComingBackIsATimeout() async throws {
        let receiver = try LoopbackRedirectReceiver()
        await #expect(throws: AuthorizationResponseError.timedOut) {
            _ = try await receiver.receive(timeout: .milliseconds(50))
        }
    }

    @Test(.enabled(if: AuthorizationServer.isAvailable, AuthorizationServer.skipComment))
    func aSignInThroughTheBrowserExchangesTheCodeWithItsVerifier() async throws {
        let server = try AuthorizationServer()
        let client = server.client(AuthorizationServer.Client.publicPKCE)
        let token = try await client.authorizeThroughLoopback(timeout: .seconds(60)) { url in
            let redirectURI = try #require(
                URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first {
                    $0.name == "redirect_uri"
                }?.value.flatMap(URL.init(string:)))
            // The browser runs on its own while the client waits at the listener.
            Task.detached { _ = await Self.get(try server.browse(to: url, redirectingTo: redirectURI)) }
        }
        #expect(token.idToken != nil)
        #expect(token.refreshToken != nil)
        #expect(try await server.tokenRequests("authorization_code") == 1)
    }
}
