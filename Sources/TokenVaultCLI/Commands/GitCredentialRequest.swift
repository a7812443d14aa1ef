import Foundation

/// What git sends a credential helper: `key=value` lines up to a blank line or the end of input.
/// Only the attributes that name a credential are kept; git documents that a helper ignores the
/// others (`wwwauth[]`, `capability[]`, ...).
struct GitCredentialRequest {
    var `protocol`: String?
    var host: String?
    var path: String?
    var username: String?
    var password: String?

    init(_ text: String) {
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = line.hasSuffix("\r") ? line.dropLast() : line
            if line.isEmpty { break }
            guard let equals = line.firstIndex(of: "=") else { continue }
            let value = String(line[line.index(after: equals)...])
            switch line[..<equals] {
            case "protocol": self.protocol = value
            case "host": host = value
            case "path": path = value
            case "username": username = value
            case "password": password = value
            case "url": takeURL(value)
            default: continue
            }
        }
    }

    /// `url=` stands for its parts, as git reads it.
    private mutating func takeURL(_ text: String) {
        guard let components = URLComponents(string: text), let scheme = components.scheme else { return }
        self.protocol = scheme
        host = components.host.map { host in components.port.map { "\(host):\($0)" } ?? host }
        let trimmed = components.path.drop { $0 == "/" }
        path = trimmed.isEmpty ? nil : String(trimmed)
        if let user = components.user { username = user }
    }

    /// The keys to look an entry up by, most specific first: with the path (git sends one only
    /// with `credential.useHttpPath`), then the host alone.
    var keys: [String] {
        guard let `protocol`, let host, !host.isEmpty else { return [] }
        let base = "\(`protocol`)://\(host)"
        return (path.map { ["\(base)/\($0)"] } ?? []) + [base]
    }
}
