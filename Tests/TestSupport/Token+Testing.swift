import Foundation
import TokenVault

extension Token {
    /// The same token, but issued long ago with `lifetime` seconds to live: expired or about to
    /// expire without waiting.
    ///
    /// - Parameter lifetime: The remaining lifetime from now, in seconds (negative: expired).
    /// - Returns: The token.
    public func expiring(in lifetime: TimeInterval) -> Token {
        let issued = Date().addingTimeInterval(-3600)
        return Token(
            id: id, tokenType: tokenType, accessToken: accessToken, refreshToken: refreshToken, idToken: idToken,
            deviceSecret: deviceSecret, scope: scope, issuedAt: issued, expiresIn: 3600 + lifetime, context: context)
    }
}
