extension Token {
    /// The key every request with this token must carry a proof of: `nil` for a Bearer token.
    ///
    /// - Returns: ``dpopKey`` for a DPoP-bound token, `nil` for a token of another type.
    /// - Throws: ``OAuth2Error/dpopKeyMissing`` for a DPoP-bound token without its key.
    public func requiredDPoPKey() throws(OAuth2Error) -> DPoPKey? {
        guard isDPoPBound else { return nil }
        guard let dpopKey else { throw OAuth2Error.dpopKeyMissing }
        return dpopKey
    }
}
