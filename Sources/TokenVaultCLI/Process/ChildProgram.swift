import Foundation
import TokenVault

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a program with `posix_spawnp` and waits for it, the way a shell runs a command.
enum ChildProgram {
    /// Runs `arguments[0]` (looked up on `PATH`) with `environment` as its whole environment.
    ///
    /// The environment is copied into one block of secure memory, wiped once the program has
    /// ended. While the program runs, this process passes SIGTERM, SIGINT and SIGHUP other
    /// processes send it on to the program (``SignalForwarding``) and ignores SIGQUIT (the
    /// terminal sends it to the program too); the program starts with every signal at its default.
    ///
    /// - Parameters:
    ///   - arguments: The program and its arguments.
    ///   - environment: `NAME=value` entries, as bytes.
    /// - Returns: The exit status as a shell reports it: the program's own, `128 + n` when signal
    ///   `n` ended it, 127 when it was not found and 126 when it could not be executed.
    static func run(_ arguments: [String], environment: [[UInt8]]) -> Int32 {
        let block = SecureBytes(count: environment.reduce(0) { $0 + $1.count + 1 }) { buffer in
            var offset = 0
            for entry in environment {
                buffer.baseAddress!.advanced(by: offset).copyMemory(from: entry, byteCount: entry.count)
                buffer[offset + entry.count] = 0
                offset += entry.count + 1
            }
        }
        let spawned: Spawn = block.withUnsafeBytes { bytes in
            let base = UnsafeMutableRawPointer(mutating: bytes.baseAddress!).assumingMemoryBound(to: CChar.self)
            var offsets: [Int] = []
            var offset = 0
            for entry in environment {
                offsets.append(offset)
                offset += entry.count + 1
            }
            var envp: [UnsafeMutablePointer<CChar>?] = offsets.map { base.advanced(by: $0) } + [nil]
            var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
            defer { argv.forEach { free($0) } }
            return spawn(argv: &argv, envp: &envp)
        }
        switch spawned {
        case .failed(let error):
            let program = arguments[0]
            FileHandle.standardError.write(
                Data("tokenvault: \(program): \(String(cString: strerror(error)))\n".utf8))
            return error == ENOENT ? 127 : 126
        case .started(let pid):
            defer { SignalForwarding.ended() }
            return wait(for: pid)
        }
    }

    private enum Spawn {
        case started(pid_t)
        case failed(errno: Int32)
    }

    private static func spawn(
        argv: inout [UnsafeMutablePointer<CChar>?], envp: inout [UnsafeMutablePointer<CChar>?]
    ) -> Spawn {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGQUIT, SIGPIPE, SIGTERM, SIGHUP] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        SignalForwarding.beginForwarding()
        signal(SIGQUIT, SIG_IGN)
        var pid: pid_t = 0
        let error = posix_spawnp(&pid, argv[0]!, nil, &attributes, &argv, &envp)
        guard error == 0 else { return .failed(errno: error) }
        SignalForwarding.started(pid)
        return .started(pid)
    }

    private static func wait(for pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return 1 }
        }
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }
}
