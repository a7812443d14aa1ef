extension OAuth2Client: CustomReflectable {
    /// What `dump()` and debuggers show: the issuer, client id and scopes, and whether the client
    /// is confidential — never its client secret.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "issuer": issuer, "clientID": clientID, "scopes": scopes, "isConfidential": clientSecret != nil,
            ], displayStyle: .class)
    }
}
