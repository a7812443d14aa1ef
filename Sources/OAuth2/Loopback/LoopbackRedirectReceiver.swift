import Foundation
import Locking

#if canImport(Glibc)
    import Glibc
#endif

/// Listens on `127.0.0.1` on a port the system picks, for the one redirect that brings a native
/// app's authorization response back from the browser (RFC 8252 §7.3).
///
/// The listener is bound before the authorization request is made, so ``redirectURI`` names a port
/// that is already this process's. ``receive(timeout:)`` serves exactly one HTTP request, answers it
/// with a page telling the user to go back to the terminal, and closes the listener; nothing else is
/// ever accepted on that port. `Sendable`: the socket is owned under a lock.
public final class LoopbackRedirectReceiver: Sendable {
    /// `http://127.0.0.1:PORT/PATH`: the redirect URI to send with the authorization request.
    public let redirectURI: URL
    private let listener: Locked<Int32>

    /// Binds a listener on `127.0.0.1` on an ephemeral port.
    ///
    /// - Parameter path: The redirect URI's path.
    /// - Throws: ``AuthorizationResponseError/listener(_:)`` when the socket cannot be set up.
    public init(path: String = "/callback") throws(AuthorizationResponseError) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw Self.failure("socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(descriptor, address, length) == 0 && listen(descriptor, 4) == 0
                    && getsockname(descriptor, address, &length) == 0
            }
        }
        guard bound else {
            let error = Self.failure("bind")
            Glibc.close(descriptor)
            throw error
        }
        let port = UInt16(bigEndian: address.sin_port)
        redirectURI = URL(string: "http://127.0.0.1:\(port)\(path.hasPrefix("/") ? path : "/" + path)")!
        listener = Locked(descriptor)
    }

    deinit { close() }

    /// Closes the listener; the port no longer accepts connections. Safe to call more than once.
    public func close() {
        listener.withLock { descriptor in
            if descriptor >= 0 { Glibc.close(descriptor) }
            descriptor = -1
        }
    }

    /// Waits for the browser's request, answers it and closes the listener.
    ///
    /// A connection that closes without sending a request (a browser's speculative connection) is
    /// not counted; the first request that arrives is the one served, whatever it asks for.
    ///
    /// - Parameter timeout: How long to wait for the request.
    /// - Returns: The requested URL (`http://127.0.0.1:PORT/PATH?QUERY`), with the authorization
    ///   response in its query.
    /// - Throws: ``AuthorizationResponseError/timedOut`` when nobody comes back in time, or
    ///   ``AuthorizationResponseError/listener(_:)``.
    public func receive(timeout: Duration) async throws(AuthorizationResponseError) -> URL {
        let result = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: self.serveOneRequest(timeout: timeout)) }.start()
        }
        return try result.get()
    }

    private func serveOneRequest(timeout: Duration) -> Result<URL, AuthorizationResponseError> {
        defer { close() }
        let descriptor = listener.value
        guard descriptor >= 0 else { return .failure(.listener("the listener is closed")) }
        let deadline = ContinuousClock.now + timeout
        while true {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { return .failure(.timedOut) }
            var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(clamping: remaining.components.seconds * 1000 + 1)
            let polled = poll(&ready, 1, milliseconds)
            if polled < 0 && errno == EINTR { continue }
            guard polled >= 0 else { return .failure(Self.failure("poll")) }
            if polled == 0 { continue }
            let connection = accept(descriptor, nil, nil)
            if connection < 0 && (errno == EINTR || errno == ECONNABORTED) { continue }
            guard connection >= 0 else { return .failure(Self.failure("accept")) }
            defer { Glibc.close(connection) }
            _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
            guard let target = Self.readRequestTarget(connection, within: deadline - ContinuousClock.now) else {
                continue
            }
            Self.answer(connection)
            let port = redirectURI.port.map { ":\($0)" } ?? ""
            guard let url = URL(string: "http://127.0.0.1\(port)\(target)") else { return .failure(.missingCode) }
            return .success(url)
        }
    }

    /// The target of the request line (`GET /callback?code=... HTTP/1.1`), or `nil` when the
    /// connection closes or stalls before a whole request line arrives.
    private static func readRequestTarget(_ connection: Int32, within remaining: Duration) -> String? {
        var limit = timeval(tv_sec: max(1, Int(remaining.components.seconds)), tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        // A request line and headers of a browser's GET fit well within 16 KiB; stop there.
        while received.count < 16_384, !received.containsHeaderEnd {
            let count = read(connection, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            received += buffer[..<count]
        }
        guard let lineEnd = received.firstIndex(of: UInt8(ascii: "\r")) else { return nil }
        let words = String(decoding: received[..<lineEnd], as: UTF8.self).split(separator: " ")
        guard words.count == 3, words[1].hasPrefix("/") else { return nil }
        return String(words[1])
    }

    private static func answer(_ connection: Int32) {
        let body = """
            <!doctype html><html><head><meta charset="utf-8"><title>TokenVault</title></head>
            <body><p>TokenVault received the sign-in response. You can close this tab and return to the terminal.</p>
            </body></html>
            """
        let response =
            "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nCache-Control: no-store\r\n"
            + "Connection: close\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        var bytes = Array(response.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            bytes = bytes.dropFirst(written)
        }
    }

    private static func failure(_ call: String) -> AuthorizationResponseError {
        .listener("\(call): \(String(cString: strerror(errno)))")
    }
}

extension [UInt8] {
    fileprivate var containsHeaderEnd: Bool {
        count >= 4 && indices.dropLast(3).contains { self[$0...$0 + 3].elementsEqual([13, 10, 13, 10]) }
    }
}
