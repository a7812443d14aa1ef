import Foundation

extension Notification.Name {
    /// Posted when the default credential really changes. `object`: the new default `Credential`,
    /// or `nil` when there is none.
    public static let defaultCredentialChanged = Notification.Name("TokenVault.defaultCredentialChanged")
    /// Posted when a refresh fails where no error can be thrown (`authorize(_:)`, automatic
    /// refresh). `object`: the `Credential`; `userInfo["error"]`: the error.
    public static let credentialRefreshFailed = Notification.Name("TokenVault.credentialRefreshFailed")
}
