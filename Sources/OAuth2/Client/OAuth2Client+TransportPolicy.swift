import Foundation

extension OAuth2Client {
    /// Which URLs the client sends requests to: the issuer, every endpoint from discovery, and the
    /// target of any redirect.
    ///
    /// By default every URL must be `https`; plain `http` is accepted only for a loopback host
    /// (`127.0.0.0/8`, `::1`, `localhost`), as RFC 8252 §8.3 allows for native apps, because
    /// traffic to those never leaves the machine.
    public enum TransportPolicy: Sendable, Hashable, CaseIterable {
        /// `https` everywhere, `http` only to a loopback address (the default).
        case httpsExceptLoopback
        /// `http` to any host as well. Client secrets, passwords and tokens then cross the network
        /// in clear: only for tests against a server on another machine of a private test network.
        case allowsInsecureHTTP

        /// Whether the client may send a request to `url` under this policy.
        ///
        /// - Parameter url: The URL.
        /// - Returns: `true` for `https` with a host, and for `http` to a loopback host (or to any
        ///   host under ``allowsInsecureHTTP``).
        public func permits(_ url: URL) -> Bool {
            guard let host = url.host, !host.isEmpty else { return false }
            switch url.scheme?.lowercased() {
            case "https": return true
            case "http": return self == .allowsInsecureHTTP || Self.isLoopback(host)
            default: return false
            }
        }

        /// Throws unless the policy permits `url`.
        ///
        /// - Parameters:
        ///   - url: The URL.
        ///   - role: What the URL is, for the error (`the issuer`, `token_endpoint`).
        /// - Throws: ``OAuth2Error/insecureTransport(_:)`` naming `role` and the URL's origin.
        func check(_ url: URL, as role: String) throws {
            guard permits(url) else { throw OAuth2Error.insecureTransport("\(role) (\(Self.origin(of: url)))") }
        }

        /// Whether `host` is a loopback address: `localhost`, an IPv4 address in `127.0.0.0/8`, or
        /// the IPv6 loopback address. Names are never resolved: `127.0.0.1.example.com` is not one.
        ///
        /// - Parameter host: A URL's host, IPv6 addresses with or without brackets.
        /// - Returns: Whether it is loopback.
        public static func isLoopback(_ host: String) -> Bool {
            let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
            if bare.lowercased() == "localhost" { return true }
            var ipv4 = in_addr()
            if inet_pton(AF_INET, bare, &ipv4) == 1 {
                return UInt32(bigEndian: ipv4.s_addr) >> 24 == 127
            }
            var ipv6 = in6_addr()
            if inet_pton(AF_INET6, bare, &ipv6) == 1 {
                return withUnsafeBytes(of: &ipv6) { $0.elementsEqual([UInt8](repeating: 0, count: 15) + [1]) }
            }
            return false
        }

        /// `scheme://host[:port]`: what an error may show of a URL (never its user, path or query).
        ///
        /// - Parameter url: The URL.
        /// - Returns: Its origin.
        static func origin(of url: URL) -> String {
            let host = url.host.map { $0.contains(":") && !$0.hasPrefix("[") ? "[\($0)]" : $0 } ?? ""
            return "\(url.scheme?.lowercased() ?? "?")://\(host)\(url.port.map { ":\($0)" } ?? "")"
        }

        /// Whether two URLs share an origin (RFC 6454: scheme, host and port, default ports filled in).
        ///
        /// - Parameters:
        ///   - first: One URL.
        ///   - second: The other.
        /// - Returns: Whether their origins are the same.
        static func sameOrigin(_ first: URL, _ second: URL) -> Bool {
            func key(_ url: URL) -> (String, String, Int)? {
                guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
                let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
                return (scheme, host, port)
            }
            guard let a = key(first), let b = key(second) else { return false }
            return a == b
        }
    }
}
