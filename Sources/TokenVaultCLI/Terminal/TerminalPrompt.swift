import Foundation
import TokenVault

#if canImport(Glibc)
    import Glibc
#endif

/// Reads secrets from the controlling terminal with echo off (termios); the bytes go straight into
/// secure memory and never live in a Swift `String`.
enum TerminalPrompt {
    /// Whether a terminal is there to ask.
    static var isAvailable: Bool {
        let descriptor = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        close(descriptor)
        return true
    }

    /// Shows `prompt` on the terminal and reads one line without echo.
    static func readSecret(_ prompt: String) throws -> Passphrase {
        let descriptor = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw UsageError(
                "no terminal to ask for a passphrase: use --passphrase-file, --passphrase-fd or TOKENVAULT_PASSPHRASE")
        }
        defer { close(descriptor) }
        var saved = termios()
        let hasTermios = tcgetattr(descriptor, &saved) == 0
        if hasTermios {
            var silent = saved
            silent.c_lflag &= ~tcflag_t(ECHO)
            silent.c_lflag |= tcflag_t(ECHONL)
            tcsetattr(descriptor, TCSANOW, &silent)
        }
        defer {
            if hasTermios { tcsetattr(descriptor, TCSANOW, &saved) }
        }
        // The prompt comes after echo is off, so nothing typed in answer to it is ever echoed.
        _ = prompt.withCString { write(descriptor, $0, strlen($0)) }
        return try Passphrase(readingLineFrom: descriptor)
    }
}
