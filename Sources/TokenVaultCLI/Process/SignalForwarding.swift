import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Passes SIGTERM, SIGINT and SIGHUP sent to this process on to the program `exec` runs, so
/// `kill PID`, a service manager's stop or a closed ssh session reach the program, which can
/// clean up; its exit status is then passed on as usual.
///
/// A signal the kernel sends to the whole foreground process group (Ctrl-C, a terminal hanging
/// up) reaches the program directly, so it is not sent a second time.
enum SignalForwarding {
    static let signals = [SIGTERM, SIGINT, SIGHUP]

    /// The running program's pid, 0 before it started.
    private static let child = Atomic<Int32>(0)
    /// A signal that came before the program started, delivered once it has.
    private static let pending = Atomic<Int32>(0)

    /// Installs the handlers; call before the program is started.
    static func install() {
        // Touched here so the handler never runs a lazy global initializer.
        child.store(0, ordering: .sequentiallyConsistent)
        pending.store(0, ordering: .sequentiallyConsistent)
        var action = sigaction()
        action.__sigaction_handler.sa_sigaction = { signal, info, _ in
            guard let info, info.pointee.si_code != Int32(SI_KERNEL) else { return }
            SignalForwarding.pending.store(signal, ordering: .sequentiallyConsistent)
            let pid = SignalForwarding.child.load(ordering: .sequentiallyConsistent)
            // Whoever takes the pending signal sends it: this handler or ``started(_:)``, never both.
            if pid > 0, SignalForwarding.pending.exchange(0, ordering: .sequentiallyConsistent) != 0 {
                kill(pid, signal)
            }
        }
        action.sa_flags = SA_SIGINFO | SA_RESTART
        sigemptyset(&action.sa_mask)
        for signal in signals { sigaction(signal, &action, nil) }
    }

    /// Records the started program and sends it a signal that arrived while it was starting.
    static func started(_ pid: pid_t) {
        child.store(pid, ordering: .sequentiallyConsistent)
        let early = pending.exchange(0, ordering: .sequentiallyConsistent)
        if early != 0 { kill(pid, early) }
    }
}
