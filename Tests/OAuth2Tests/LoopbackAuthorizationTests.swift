import Dispatch
import Foundation
import Locking
import OAuth2
import TestSupport
import Testing

/// The authorization-code flow through a loopback redirect (RFC 8252 §7.3), in process.
@Suite struct LoopbackAuthorizationTests {
    /// A browser on a thread of its own, started at once: it must not wait for a free task
    /// executor while the code under test waits for it.
    final class Browser: Sendable {
        private let status = Locked<Int?>(nil)
        private let done = DispatchSemaphore(value: 0)

        /// Starts `visit`, which returns the HTTP status it got, or `nil` when nothing answered.
        init(_ visit: @escaping @Sendable () throws -> Int?) {
            let status = self.status
            let done = self.done
            DispatchQueue.global().async {
                let got = try? visit()
                status.withLock { $0 = got }
                done.signal()
            }
        }

        /// The status the visit got, once it is over.
        var result: Int? {
            done.wait()
            done.signal()
            return status.value
        }
    }

    /// A GET with curl: the HTTP status, or `nil` when nothing listens at `url`.
    static func get(_ url: URL) -> Int? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "120", url.absoluteString]
        let output = Pipe()
        process.standardOutput = output
        guard (try? process.run()) != nil else { return nil }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return process.terminationStatus == 0 ? Int(text) : nil
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
        let target = URL(string: receiver.redirectURI.absoluteString + "?code=abc&state=xyz")!
        let browser = Browser { Self.get(target) }
        let received = try await receiver.receive(timeout: .seconds(300))
        #expect(received == target)
        #expect(browser.result == 200)
        #expect(Self.get(target) == nil)
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
        let browsers = Locked<[Browser]>([])
        let token = try await client.authorizeThroughLoopback { url in
            let redirectURI = try #require(
                URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first {
                    $0.name == "redirect_uri"
                }?.value.flatMap(URL.init(string:)))
            let browser = Browser { Self.get(try server.browse(to: url, redirectingTo: redirectURI)) }
            browsers.withLock { $0.append(browser) }
        }
        #expect(browsers.value.first?.result == 200)
        #expect(token.idToken != nil)
        #expect(token.idTokenVerified)  // the exchange checked it against the issuer's keys
        #expect(token.refreshToken != nil)
        #expect(try await server.tokenRequests("authorization_code") == 1)
    }
}
