import Dispatch
import Foundation
import Locking

/// The user's browser in a sign-in through a loopback redirect, on a thread of its own and started
/// at once: it must not wait for a free task executor while the code under test, which opened it,
/// waits for it to come back.
public final class LoopbackBrowser: Sendable {
    private let status = Locked<Int?>(nil)
    private let done = DispatchSemaphore(value: 0)

    /// Starts `visit`, which returns the HTTP status it got, or `nil` when nothing answered.
    ///
    /// - Parameter visit: What the browser does.
    public init(_ visit: @escaping @Sendable () throws -> Int?) {
        let status = self.status
        let done = self.done
        DispatchQueue.global().async {
            let got = try? visit()
            status.withLock { $0 = got }
            done.signal()
        }
    }

    /// The status the visit got, once it is over (`nil` when it failed or nothing answered).
    public var result: Int? {
        done.wait()
        done.signal()
        return status.value
    }

    /// A GET with curl, as a browser follows a redirect.
    ///
    /// - Parameter url: Where to.
    /// - Returns: The HTTP status, or `nil` when nothing listens at `url`.
    public static func get(_ url: URL) -> Int? {
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
}

extension AuthorizationServer {
    /// Starts the browser's part of a sign-in, as the user would do it after an app opened
    /// `authorizationURL`: logs the test user in, follows the request to the redirect URI it names
    /// (a loopback one, with any port), and comes back there.
    ///
    /// - Parameter authorizationURL: The URL the app opens, with its `redirect_uri`.
    /// - Returns: The browser; its ``LoopbackBrowser/result`` is the status the app's loopback
    ///   listener answered.
    public func signIn(at authorizationURL: URL) -> LoopbackBrowser {
        LoopbackBrowser {
            let redirectURI = URLComponents(url: authorizationURL, resolvingAgainstBaseURL: false)?.queryItems?
                .first { $0.name == "redirect_uri" }?.value.flatMap(URL.init(string:))
            guard let redirectURI else { throw SetupFailure(reason: "the authorization URL names no redirect URI") }
            return LoopbackBrowser.get(try self.browse(to: authorizationURL, redirectingTo: redirectURI))
        }
    }
}
