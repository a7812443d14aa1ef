import Foundation
import Locking
import TokenVault

/// Records `.defaultCredentialChanged` notifications while alive: the id of each new default, or
/// `nil` when the default was cleared.
public final class DefaultChangeRecorder {
    private let seen = Locked<[String?]>([])
    private var observer: (any NSObjectProtocol)?

    public init() {
        let seen = self.seen
        observer = NotificationCenter.default.addObserver(forName: .defaultCredentialChanged, object: nil, queue: nil) {
            note in
            let id = (note.object as? Credential)?.id
            seen.withLock { $0.append(id) }
        }
    }

    /// The ids announced so far, in order.
    public var ids: [String?] { seen.value }

    deinit {
        if let observer { NotificationCenter.default.removeObserver(observer) }
    }
}
