import Foundation

/// Anything that carries claims: a ``JWT``, ``Token/Metadata``, ``UserInfo``, ``TokenInfo``.
public protocol HasClaims {
    /// The claim's value as Foundation types (`String`, `Int`, `Double`, `Bool`, `[Any]`,
    /// `[String: Any]`), or `nil` when absent.
    subscript(_ claim: Claim) -> Any? { get }
    /// The claim's value cast to `T`, or `nil` when absent or of another type.
    subscript<T>(_ claim: Claim) -> T? { get }
}

/// Claims kept as a JSON object; conforming types get both ``HasClaims`` subscripts from it.
public protocol JSONClaimsContainer: HasClaims {
    /// The claims, by name.
    var claims: [String: JSONValue] { get }
}

extension JSONClaimsContainer {
    /// The claim's value as Foundation types.
    public subscript(_ claim: Claim) -> Any? { claims[claim.rawValue]?.anyValue }

    /// The claim's value cast to `T`.
    public subscript<T>(_ claim: Claim) -> T? {
        let value: Any? = claims[claim.rawValue]?.anyValue
        return value as? T
    }
}

extension HasClaims {
    /// `sub`
    public var subject: String? { self[.subject] }
    /// `iss`
    public var issuer: String? { self[.issuer] }
    /// `aud`, whether the token gives one string or an array.
    public var audience: [String]? {
        let value: Any? = self[.audience]
        if let single = value as? String { return [single] }
        return value as? [String]
    }
    /// `email`
    public var email: String? { self[.email] }
    /// `name`
    public var name: String? { self[.name] }
    /// `preferred_username`
    public var preferredUsername: String? { self[.preferredUsername] }
    /// `exp` as a date.
    public var expirationTime: Date? { date(.expirationTime) }
    /// `iat` as a date.
    public var issuedAt: Date? { date(.issuedAt) }

    /// A numeric-date claim (seconds since 1970, whole or fractional) as a date.
    ///
    /// - Parameter claim: The claim.
    /// - Returns: The date, or `nil` when absent or not a number.
    public func date(_ claim: Claim) -> Date? {
        let value: Any? = self[claim]
        if let seconds = value as? Int { return Date(timeIntervalSince1970: TimeInterval(seconds)) }
        if let seconds = value as? Double { return Date(timeIntervalSince1970: seconds) }
        return nil
    }
}
