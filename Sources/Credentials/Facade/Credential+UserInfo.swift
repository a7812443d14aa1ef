import OAuth2

extension Credential {
    /// The user's claims from the last successful ``userInfo()`` in this process, as Okta's
    /// `userInfo` property: `nil` until then, and once the credential is removed. Kept in memory
    /// only, never in the vault; a failed ``userInfo()`` leaves the previous answer.
    public var userInfo: UserInfo? { state.withLock { $0.userInfo } }
}
