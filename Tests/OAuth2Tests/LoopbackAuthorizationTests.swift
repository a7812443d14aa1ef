import Foundation
import Locking
import OAuth2
import TestSupport
import Testing

/// The authorization-code flow through a loopback redirect (RFC 8252 §7.3), in process.
@Suite struct LoopbackAuthorizationTests {
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
        let target = URL(string: receiver.redirectURI.absoluteString + "?code=abc&state=xyz")!
        let browser = LoopbackBrowser { LoopbackBrowser.get(target) }
        let received = try await receiver.receive(timeout: .seconds(300))
        #expect(received == target)
        #expect(browser.result == 200)
        // Served once, then closed: whatever answers the port now is not this process's listener
        // but a server of another test that took the freed port since.
        if LoopbackBrowser.get(target) != nil {
            let listeners = PortListeners.on(port: receiver.redirectURI.port!)
            #expect(!listeners.isEmpty && !listeners.contains { $0.pid == getpid() }, "listening there: \(listeners)")
        }
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
        let browsers = Locked<[LoopbackBrowser]>([])
        let token = try await client.authorizeThroughLoopback { url in
            browsers.withLock { $0.append(server.signIn(at: url)) }
        }
        #expect(browsers.value.first?.result == 200)
        #expect(token.idToken != nil)
        #expect(token.idTokenVerified)  // the exchange checked it against the issuer's keys
        #expect(token.refreshToken != nil)
        #expect(try await server.tokenRequests("authorization_code") == 1)
    }
}
