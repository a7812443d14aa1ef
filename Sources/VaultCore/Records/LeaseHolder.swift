import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The process holding a lease, so that a lease left by a process that was killed frees at once
/// instead of stalling every other process until it expires.
///
/// A process id only means something on the same machine since the same boot and in the same PID
/// namespace, so the holder records both; a lease from elsewhere falls back to its expiry. A reused
/// PID can only make a dead holder look alive (waiting for the expiry, as before), never the reverse.
struct LeaseHolder: Codable, Equatable {
    let processID: Int32
    /// The boot id and PID namespace of the holder's machine; `nil` where the platform has none.
    let machine: String?

    static let current = LeaseHolder(processID: getpid(), machine: LeaseHolder.machineIdentity())

    /// Whether the holder is known to have exited: same machine and boot, and no such process.
    var isKnownDead: Bool {
        guard let machine, machine == Self.current.machine else { return false }
        return kill(processID, 0) != 0 && errno == ESRCH
    }

    private static func machineIdentity() -> String? {
        #if os(Linux)
            guard
                let boot = try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8),
                let namespace = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/ns/pid")
            else { return nil }
            return boot.trimmingCharacters(in: .whitespacesAndNewlines) + " " + namespace
        #else
            return nil
        #endif
    }
}
