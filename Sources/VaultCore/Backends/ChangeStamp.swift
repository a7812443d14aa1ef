/// An opaque mark of where a backend's stored vault stands in its history of commits, as
/// ``BackendReadTransaction/changeStamp()`` reads it: lets a cache of opened rows skip reading again
/// while nothing changed.
///
/// Two stamps are equal only if they come from the same kind of backend with the same value. It
/// carries no content and no secret.
struct ChangeStamp: Equatable, Sendable {
    private let value: any Hashable & Sendable

    /// A stamp wrapping a backend's own mark.
    ///
    /// - Parameter value: The backend's mark (for SQLite, its data version and local commit count).
    init(_ value: some Hashable & Sendable) {
        self.value = value
    }

    static func == (lhs: ChangeStamp, rhs: ChangeStamp) -> Bool {
        AnyHashable(lhs.value) == AnyHashable(rhs.value)
    }
}
