import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Passes SIGTERM, SIGINT and SIGHUP sent to this process on to the program `exec` runs, so
/// `kill PID`, a service manager's stop or a closed ssh session reach the program, which can
/// clean up; its exit status is then passed on as usual. Any other command ends on them as it
/// would without this.
///
/// A signal the kernel sends to the whole foreground process group (Ctrl-C, a terminal hanging
/// up) reaches the program directly, so it is not sent a second time.
///
/// The signals are blocked in every thread and taken by one thread of this type's own, in
/// `sigwaitinfo`, so which thread the kernel would have picked does not matter. A handler could
/// not promise that: the async main parks the main thread in `sigsuspend` with every signal
/// allowed, so a handler ran there or nowhere, and under ThreadSanitizer (which runs a handler
/// only at its thread's next intercepted call) sometimes nowhere.
enum SignalForwarding {
    static let signals = [SIGTERM, SIGINT, SIGHUP]

    private struct State {
        /// Whether `exec` is about to start its program or runs it: signals are then passed on.
        var forwarding = false
        /// The running program's pid, 0 before it started and after it ended.
        var child: pid_t = 0
        /// A signal that came before the program started, delivered once it has.
        var pending: Int32 = 0
        /// The signals this process was started with ignored (`nohup` ignores SIGHUP): outside
        /// `exec` they stay ignored.
        var ignored: Set<Int32> = []
    }

    private static let state = Mutex(State())

    /// Blocks the signals and starts the thread that takes them. Call it first thing in `main`,
    /// before anything starts a thread: threads inherit the mask of the thread that starts them,
    /// and the runtime's thread pool starts with the async work.
    static func takeOver() {
        let ignored = signals.filter { signal in
            var action = sigaction()
            sigaction(signal, nil, &action)
            return unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self) == 1  // SIG_IGN
        }
        state.withLock { $0.ignored = Set(ignored) }
        var set = signalSet
        pthread_sigmask(SIG_BLOCK, &set, nil)
        Thread.detachNewThread { receive() }
    }

    /// From now on signals go to the program: call it before the program is started.
    static func beginForwarding() {
        state.withLock { $0.forwarding = true }
    }

    /// Records the started program and sends it a signal that arrived while it was starting.
    static func started(_ pid: pid_t) {
        let early = state.withLock { state in
            state.child = pid
            defer { state.pending = 0 }
            return state.pending
        }
        if early != 0 { kill(pid, early) }
    }

    /// Forgets the program once it has been waited for, so no signal goes to a reused pid.
    static func ended() {
        state.withLock { $0.child = 0 }
    }

    private static var signalSet: sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal) }
        return set
    }

    private static func receive() -> Never {
        var set = signalSet
        while true {
            var info = siginfo_t()
            let signal = sigwaitinfo(&set, &info)
            guard signal > 0 else { continue }  // EINTR
            let target = state.withLock { state -> pid_t? in
                guard state.forwarding else { return state.ignored.contains(signal) ? 0 : nil }
                if info.si_code == Int32(SI_KERNEL) { return 0 }
                if state.child == 0 { state.pending = signal }
                return state.child
            }
            switch target {
            case nil: endAsUnhandled(signal)
            case let pid? where pid > 0: kill(pid, signal)
            default: break
            }
        }
    }

    /// Ends the process as the signal's default action would: allowed again in this thread only
    /// and sent to it, it ends the whole process, and a parent sees the signal as the cause.
    private static func endAsUnhandled(_ signal: Int32) -> Never {
        Glibc.signal(signal, SIG_DFL)
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, signal)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        pthread_kill(pthread_self(), signal)
        _exit(128 + signal)  // not reached: the signal ends the process as `pthread_kill` returns
    }
}
