internal import CPostgres
import Foundation

/// A libpq connection string (`host=... port=... password=...` or `postgresql://user:pass@host/db`),
/// checked once and printed only without its password.
///
/// A connection string can hold a password, and libpq quotes pieces of it in some messages, so
/// the string is parsed here with `PQconninfoParse` before any connect, an unparsable one is
/// rejected without quoting it, and ``scrubbed(_:)`` masks the password in every message that
/// leaves the wrapper.
package struct PostgresConnectionString: Sendable, CustomStringConvertible, CustomReflectable {
    /// The string as given; passed to libpq only.
    let rawValue: String
    /// The parsed `keyword=value` pairs that have a value, password excluded, in libpq's order.
    private let visibleOptions: [(keyword: String, value: String)]
    /// The password the string sets, if any, as libpq decoded it.
    private let password: String?

    /// Parses a connection string. Wraps `PQconninfoParse`.
    ///
    /// - Parameter string: Keyword/value pairs or a `postgresql://` URI.
    /// - Throws: ``PostgresError/Kind/invalidConnectionString`` when libpq cannot parse it (the
    ///   error does not quote the string).
    package init(_ string: String) throws {
        var errorMessage: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(string, &errorMessage) else {
            if let errorMessage { PQfreemem(errorMessage) }
            throw PostgresError(
                kind: .invalidConnectionString,
                message: "the connection string is not keyword=value pairs or a postgresql:// URI")
        }
        defer { PQconninfoFree(options) }
        var visible: [(keyword: String, value: String)] = []
        var password: String?
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val {
                let name = String(cString: keyword)
                if name == "password" {
                    password = String(cString: value)
                } else {
                    visible.append((name, String(cString: value)))
                }
            }
            option += 1
        }
        rawValue = string
        visibleOptions = visible
        self.password = password
    }

    /// The same options with `value` set for `keyword` (added, or replacing the string's own),
    /// as keyword/value pairs.
    ///
    /// - Parameters:
    ///   - keyword: A libpq keyword, such as `dbname` or `application_name`.
    ///   - value: Its value (quoted here as libpq requires).
    /// - Returns: The new connection string.
    /// - Throws: ``PostgresError/Kind/invalidConnectionString`` for a keyword libpq does not know.
    package func setting(_ keyword: String, to value: String) throws -> PostgresConnectionString {
        var options = visibleOptions.filter { $0.keyword != keyword }
        if let password, keyword != "password" { options.append(("password", password)) }
        options.append((keyword, value))
        let pairs = options.map { option in
            let escaped = option.value.replacingOccurrences(of: "\\", with: "\\\\")
                .replacingOccurrences(of: "'", with: "\\'")
            return "\(option.keyword)='\(escaped)'"
        }
        return try PostgresConnectionString(pairs.joined(separator: " "))
    }

    /// The same string with a server setting sent at connect (`-c name=value` added to the
    /// `options` it has), so every session starts with it and `RESET ALL` (a pool's `DISCARD ALL`)
    /// comes back to it: no statement per transaction is needed to set it.
    ///
    /// - Parameters:
    ///   - name: A server setting, such as `statement_timeout`.
    ///   - value: Its value, without spaces.
    /// - Returns: The new connection string.
    /// - Throws: ``PostgresError/Kind/invalidConnectionString`` when libpq cannot parse the result.
    package func withServerSetting(_ name: String, _ value: String) throws -> PostgresConnectionString {
        let given = visibleOptions.first { $0.keyword == "options" }?.value
        return try setting("options", to: [given, "-c \(name)=\(value)"].compactMap { $0 }.joined(separator: " "))
    }

    /// `message` with every occurrence of this string's password replaced by `***`.
    ///
    /// - Parameter message: A message from libpq or the server.
    /// - Returns: The message, safe to print.
    package func scrubbed(_ message: String) -> String {
        guard let password, !password.isEmpty else { return message }
        var text = message.replacingOccurrences(of: password, with: "***")
        let encoded = password.addingPercentEncoding(withAllowedCharacters: .urlPasswordAllowed) ?? password
        if encoded != password { text = text.replacingOccurrences(of: encoded, with: "***") }
        return text
    }

    /// The parsed options as `keyword=value` pairs, with `password=***` when a password is set.
    package var description: String {
        var parts = visibleOptions.map { "\($0.keyword)=\($0.value)" }
        if password != nil { parts.append("password=***") }
        return parts.joined(separator: " ")
    }

    /// A mirror with only ``description``, so `dump` and test failure messages show no password.
    package var customMirror: Mirror { Mirror(self, children: ["description": description]) }
}
