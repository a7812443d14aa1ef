import Synchronization

/// The option names commands asked ``ParsedArguments`` for, so a test can check each one is in the
/// command table (a handler reading a name the table lacks would never see a value).
final class OptionReadRecorder: Sendable {
    private let names = Mutex<Set<String>>([])

    func note(_ name: String) { names.withLock { _ = $0.insert(name) } }

    /// Every name asked for so far.
    var read: Set<String> { names.withLock { $0 } }
}
