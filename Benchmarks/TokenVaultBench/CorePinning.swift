import Foundation

/// The harness on one core and the throwaway PostgreSQL server on another while the fleet
/// section's part 1 compares single operations with raw libpq, set with `taskset` (util-linux).
///
/// On a machine of few cores, what a round trip costs depends on where the kernel runs the server
/// process of the connection: on the client's core it wakes without an interrupt, on another one
/// (idle, on a virtual machine halted) it takes a cross-core wake-up. Unpinned, the same `SELECT`
/// took 34–47 µs on the raw floor's connection and 66–98 µs on new connections beside it, in the
/// same loop, so the library and its floor did not pay the same round trip. Pinned, every
/// connection pays the cross-core wake-up, as a database on a host of its own would. A session
/// is a process the server forks when a connection opens, and it keeps the server's cores, so
/// the connections part 1 opens (it opens all of its own) are on the server's core.
struct CorePinning {
    /// What the section's header says about it.
    let label: String
    private let serverProcess: pid_t?
    private let allCores: String

    /// Pins the harness (every thread) to core 0 and `server` to core 1, when there is a server
    /// of this run's own, two cores or more, and `taskset`.
    ///
    /// - Parameter server: The throwaway server's PID, `nil` for an external server.
    init(server: pid_t?) {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        allCores = "0-\(cores - 1)"
        guard let server else {
            (label, serverProcess) = ("harness and server not pinned (an external server)", nil)
            return
        }
        guard cores >= 2 else {
            (label, serverProcess) = ("harness and server not pinned (one core)", nil)
            return
        }
        guard Self.taskset(["-p", "-c", "1", "\(server)"]),
            Self.taskset(["-a", "-p", "-c", "0", "\(getpid())"])
        else {
            _ = Self.taskset(["-p", "-c", allCores, "\(server)"])
            (label, serverProcess) = ("harness and server not pinned (taskset failed)", nil)
            return
        }
        (label, serverProcess) = ("single operations with the harness on core 0, the server on core 1", server)
    }

    /// Lets the harness and the server run on every core again.
    func release() {
        guard let serverProcess else { return }
        _ = Self.taskset(["-p", "-c", allCores, "\(serverProcess)"])
        _ = Self.taskset(["-a", "-p", "-c", allCores, "\(getpid())"])
    }

    /// Runs `taskset` with `arguments`, its output discarded.
    ///
    /// - Returns: Whether it exited with status 0 (`false` also when it is not installed).
    private static func taskset(_ arguments: [String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/taskset")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}
