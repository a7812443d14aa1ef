import Foundation

/// A TCP socket on 127.0.0.1, bound to a port the system picks: for a test that needs a free port,
/// or a listener of its own on one.
public enum LoopbackSocket {
    /// Why the socket could not be made: the call that failed and its `errno`.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Opens the socket, close-on-exec as every listener of the code under test (the tests start
    /// processes all the time, which would otherwise take it), and binds it.
    ///
    /// - Parameter listening: Whether it also listens (a backlog of one).
    /// - Returns: The descriptor, which the caller closes, and the port.
    /// - Throws: ``Failure``.
    public static func bind(listening: Bool) throws -> (descriptor: Int32, port: Int) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let failedCall = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address -> String? in
                if Glibc.bind(descriptor, address, length) != 0 { return "bind" }
                if listening, listen(descriptor, 1) != 0 { return "listen" }
                if getsockname(descriptor, address, &length) != 0 { return "getsockname" }
                return nil
            }
        }
        if let failedCall {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw Failure(description: "\(failedCall): \(reason)")
        }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }
}
