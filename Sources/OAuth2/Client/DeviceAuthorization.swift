import Foundation

/// An RFC 8628 device authorization response: what to show the user, and what to poll with.
public struct DeviceAuthorization: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// The device code the client polls with (secret).
    public let deviceCode: String
    /// The code the user types at ``verificationURI``.
    public let userCode: String
    /// Where the user goes.
    public let verificationURI: URL
    /// The same with the code filled in, when the server gives one.
    public let verificationURIComplete: URL?
    /// How long the codes are valid.
    public let expiresIn: TimeInterval
    /// The minimum polling interval (5 s unless the server says).
    public let interval: TimeInterval

    /// The user code and URI; never the device code.
    public var description: String {
        "DeviceAuthorization(userCode: \(userCode), verificationURI: \(verificationURI.absoluteString))"
    }

    /// What `dump()` and debuggers show: as ``description``, never the device code.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "userCode": userCode, "verificationURI": verificationURI, "expiresIn": expiresIn, "interval": interval,
            ], displayStyle: .struct)
    }
}
