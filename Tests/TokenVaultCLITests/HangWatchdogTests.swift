import Foundation
import TestSupport
import Testing

/// The watchdog that turns a hung CLI run into one failed test.
@Suite struct HangWatchdogTests {
    @Test func aRunPastItsLimitIsKilledWithEverythingItStarted() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        // Two grandchildren that would outlive a killed shell, holding its output pipe open.
        process.arguments = ["-c", "sleep 1000 & sleep 1000 & echo started; wait"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        #expect(output.fileHandleForReading.availableData == Data("started\n".utf8))
        let watchdog = HangWatchdog(pid: process.processIdentifier, limit: .milliseconds(200))
        process.waitUntilExit()
        _ = output.fileHandleForReading.readDataToEndOfFile()  // returns once every holder is gone
        let killed = try #require(watchdog.stop())
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL)
        #expect(killed.count == 3 && killed.first == process.processIdentifier)
        for pid in killed.dropFirst() { #expect(Self.ends(pid), "\(pid) still runs") }
    }

    @Test func aRunThatEndsInTimeIsLeftAlone() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        let watchdog = HangWatchdog(pid: process.processIdentifier, limit: .seconds(300))
        process.waitUntilExit()
        #expect(watchdog.stop() == nil)
        #expect(process.terminationStatus == 0)
    }

    /// Whether `pid` is gone or a zombie within a minute: a process SIGKILL was sent to may still
    /// be closing its files (which is what ended the pipe's reader) when the test looks.
    private static func ends(_ pid: Int32) -> Bool {
        let deadline = Date().addingTimeInterval(60)
        repeat {
            let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
            if kill(pid, 0) != 0 || status.contains("State:\tZ") { return true }
            usleep(1000)
        } while Date() < deadline
        return false
    }
}
