import Foundation
import TestSupport
import Testing

/// The look-up that tells whose listener answers a port a test's listener has closed.
@Suite struct PortListenersTests {
    @Test func aListenerInThisProcessIsNamedUntilItCloses() throws {
        // Hundreds of other sockets first, as while the suite runs: the socket table then spans
        // many reads.
        let others = try (0..<400).map { _ in try LoopbackSocket.bind(listening: true).descriptor }
        defer { for other in others { close(other) } }
        let (descriptor, port) = try LoopbackSocket.bind(listening: true)
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        // A process another test forks holds the socket too until it runs its program.
        #expect(PortListeners.on(port: port).contains { $0.pid == getpid() && $0.executable == executable })
        close(descriptor)
        #expect(!PortListeners.on(port: port).contains { $0.pid == getpid() })
    }

    @Test func aListenerInAnotherProcessIsNamedWithItsExecutable() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [
            "-c",
            "import socket, sys; s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(); "
                + "print(s.getsockname()[1], flush=True); sys.stdin.read()",
        ]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        defer {
            try? input.fileHandleForWriting.close()  // ends the child's read, and with it the child
            process.waitUntilExit()
        }
        let printed = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        let port = try #require(Int(printed.trimmingCharacters(in: .whitespacesAndNewlines)))
        let listeners = PortListeners.on(port: port)
        #expect(listeners.map(\.pid) == [process.processIdentifier])
        #expect(
            listeners.first.map { URL(fileURLWithPath: $0.executable).lastPathComponent.hasPrefix("python3") } == true)
    }
}
