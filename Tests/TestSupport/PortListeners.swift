import Foundation

/// The processes listening on a TCP port of this machine, read from `/proc`: the listening
/// sockets in `/proc/net/tcp` and `/proc/net/tcp6`, matched by inode against the sockets each
/// process holds in `/proc/PID/fd`.
///
/// A port a test's listener closed is free for any process to take, and the tests run in
/// parallel, each starting servers on ports the system picks. When a closed port answers again,
/// this tells whose listener answered.
public enum PortListeners {
    /// A process with a socket listening on the port.
    public struct Listener: Sendable, CustomStringConvertible {
        /// The process.
        public let pid: Int32
        /// The path of its executable, or an empty string when it cannot be read.
        public let executable: String

        public var description: String { "\(pid) (\(executable.isEmpty ? "?" : executable))" }
    }

    /// The processes listening on `port`, on any local address.
    ///
    /// - Parameter port: The TCP port.
    /// - Returns: One entry per process holding a listening socket on it; empty when none does.
    public static func on(port: Int) -> [Listener] {
        let inodes = listeningSocketInodes(port: port)
        guard !inodes.isEmpty else { return [] }
        let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return processes.compactMap(Int32.init).sorted().compactMap { pid in
            let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
            let holds = descriptors.contains { descriptor in
                guard
                    let target = try? FileManager.default.destinationOfSymbolicLink(
                        atPath: "/proc/\(pid)/fd/\(descriptor)")
                else { return false }
                return inodes.contains(target)
            }
            guard holds else { return nil }
            let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")) ?? ""
            return Listener(pid: pid, executable: executable)
        }
    }

    /// The sockets in state LISTEN on `port`, as the `socket:[INODE]` their descriptors link to.
    private static func listeningSocketInodes(port: Int) -> Set<String> {
        var inodes = Set<String>()
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            // Read to the end: `String(contentsOfFile:)` stops after the first read of a `/proc`
            // file, which holds a few dozen sockets of the thousands the tests may have open.
            let data = FileHandle(forReadingAtPath: table)?.readDataToEndOfFile() ?? Data()
            let text = String(decoding: data, as: UTF8.self)
            // sl, local_address (HEXADDRESS:HEXPORT), rem_address, st, tx:rx, tr:when, retrnsmt,
            // uid, timeout, inode; 0A is LISTEN.
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                guard fields.count > 9, fields[3] == "0A",
                    let local = fields[1].split(separator: ":").last, Int(local, radix: 16) == port
                else { continue }
                inodes.insert("socket:[\(fields[9])]")
            }
        }
        return inodes
    }
}
