import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A unix stream socket the agent and its clients talk over: owns its descriptor, which it closes
/// in `deinit`; frames are a 4-byte big-endian length and that many bytes.
package final class UnixSocket: Sendable {
    /// Why a socket call failed: the call and `errno`, never any data.
    package struct Failure: Error, CustomStringConvertible {
        package let call: String
        package let code: Int32
        package var description: String { "\(call): \(String(cString: strerror(code)))" }
        /// Whether the call failed for want of something that frees again (descriptors of the
        /// process or the system, kernel memory), so trying again later can succeed.
        package var isTransient: Bool { [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(code) }
    }

    /// The largest frame either side accepts, so a bad peer cannot make the other allocate without end.
    package static let maximumFrame = 16 << 20

    package let descriptor: Int32

    /// A stream socket closed on `exec`: the front `tokenvault` runs `tokenvault-core` in its own
    /// process, and `exec` runs other programs, neither of which should inherit a connection.
    private static var streamType: Int32 { Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) }

    private init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { close(descriptor) }

    /// A socket listening at `path`, created mode 0600 (the umask is narrowed while it is bound).
    package static func listening(at path: String) throws -> UnixSocket {
        let socket = try UnixSocket(descriptor: check("socket", Glibc.socket(AF_UNIX, Self.streamType, 0)))
        let saved = umask(0o177)
        defer { umask(saved) }
        try withAddress(path) { address, length in _ = try check("bind", bind(socket.descriptor, address, length)) }
        _ = try check("chmod", chmod(path, 0o600))
        _ = try check("listen", listen(socket.descriptor, SOMAXCONN))
        return socket
    }

    /// A connection to the socket at `path`.
    ///
    /// - Throws: ``Failure`` with `ENOENT` when there is no socket, `ECONNREFUSED` when no process
    ///   listens on it any more.
    package static func connected(to path: String) throws -> UnixSocket {
        let socket = try UnixSocket(descriptor: check("socket", Glibc.socket(AF_UNIX, Self.streamType, 0)))
        try withAddress(path) { address, length in
            _ = try check("connect", connect(socket.descriptor, address, length))
        }
        return socket
    }

    /// The next connection; retried on `EINTR` and on a connection that was aborted before it was
    /// taken.
    ///
    /// - Throws: ``Failure``; ``Failure/isTransient`` tells a shortage (of descriptors or memory)
    ///   that frees again from a listener that is gone.
    package func accept() throws -> UnixSocket {
        while true {
            let client = Glibc.accept(descriptor, nil, nil)
            if client >= 0 { return UnixSocket(descriptor: client) }
            if errno != EINTR && errno != ECONNABORTED { throw Failure(call: "accept", code: errno) }
        }
    }

    /// The user id of the process at the other end, from `SO_PEERCRED` (recorded by the kernel at
    /// `connect`, so the peer cannot forge it).
    package func peerUserID() throws -> uid_t {
        // `struct ucred` (pid, uid, gid), which Glibc's Swift module leaves out.
        var credentials: (pid: Int32, uid: uid_t, gid: gid_t) = (0, 0, 0)
        var length = socklen_t(MemoryLayout<(Int32, uid_t, gid_t)>.size)
        _ = try Self.check("getsockopt", getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &credentials, &length))
        return credentials.uid
    }

    /// Makes reads give up after `seconds`, so a peer that stops sending holds nothing for long.
    package func setReadTimeout(seconds: Int) {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Sends one frame; a peer gone away is an error here, never a `SIGPIPE`.
    package func send(frame: Data) throws {
        var length = UInt32(frame.count).bigEndian
        try withUnsafeBytes(of: &length) { try sendAll($0) }
        try frame.withUnsafeBytes { try sendAll($0) }
    }

    /// Reads one frame.
    ///
    /// - Throws: ``Failure`` when the peer closed or the frame is larger than ``maximumFrame``.
    package func receiveFrame() throws -> Data {
        let header = try receive(count: 4)
        let length = header.reduce(0) { $0 << 8 | Int($1) }
        guard length <= Self.maximumFrame else { throw Failure(call: "receive", code: EMSGSIZE) }
        return try receive(count: length)
    }

    private func sendAll(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = Glibc.send(descriptor, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            if sent < 0, errno == EINTR { continue }
            guard sent > 0 else { throw Failure(call: "send", code: errno) }
            offset += sent
        }
    }

    private func receive(count: Int) throws -> Data {
        var data = Data(count: count)
        var offset = 0
        try data.withUnsafeMutableBytes { buffer in
            while offset < count {
                let read = recv(descriptor, buffer.baseAddress! + offset, count - offset, 0)
                if read < 0, errno == EINTR { continue }
                guard read > 0 else { throw Failure(call: "receive", code: read == 0 ? ECONNRESET : errno) }
                offset += read
            }
        }
        return data
    }

    private static func check(_ call: String, _ result: Int32) throws -> Int32 {
        guard result >= 0 else { throw Failure(call: call, code: errno) }
        return result
    }

    private static func withAddress(
        _ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) throws -> Void
    ) throws {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else { throw Failure(call: "bind", code: ENAMETOOLONG) }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes + [0]) }
        try withUnsafePointer(to: &address) {
            try $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                try body($0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }
}
