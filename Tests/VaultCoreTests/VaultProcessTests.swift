import Foundation
import TestSupport
import Testing
import TokenVault
import VaultCore

/// Several real processes on one vault file.
@Suite struct VaultProcessTests {
    let directory = TemporaryDirectory()

    @Test func concurrentProcessesNeverLoseAnUpdate() throws {
        let (vault, url, keyFile) = try TestVaults.keyFileVault(in: directory)
        let processes = 4
        let increments = 50
        let workers = try (0..<processes).map { _ in
            try WorkerProcess.start(["increment", url.path, keyFile.path, "counter", "\(increments)"])
        }
        // This process writes at the same time.
        for index in 0..<increments { try vault.set(index, for: SecretKey<Int>("parent")) }
        for worker in workers {
            let (status, output) = WorkerProcess.finish(worker)
            #expect(status == 0, "worker failed: \(output)")
        }
        #expect(try vault.get(SecretKey<Int>("counter")) == processes * increments)
        #expect(try vault.get(SecretKey<Int>("parent")) == increments - 1)
        let report = try vault.verify()
        #expect(report.recordCount == 2)
        #expect(report.generation == UInt64(processes * increments + increments))
    }

    @Test func aLeaseHeldByAKilledProcessFreesAtOnce() throws {
        let (vault, url, keyFile) = try TestVaults.keyFileVault(in: directory)
        let worker = try WorkerProcess.start(["hold-lease", url.path, keyFile.path, "refresh x", "3600"])
        let held = worker.1.fileHandleForReading.availableData
        #expect(String(decoding: held, as: UTF8.self) == "held\n")
        #expect(try !vault.acquireLease("refresh x", owner: "parent", duration: 60), "the live holder lost its lease")

        kill(worker.0.processIdentifier, SIGKILL)
        worker.0.waitUntilExit()
        // Without the holder check this would wait the full hour.
        #expect(try vault.acquireLease("refresh x", owner: "parent", duration: 60))
    }

    /// A process that opened the vault and keeps it open (the agent does) must keep its locks on
    /// the file: were they dropped, a process that closes after writing would take itself for the
    /// last connection, checkpoint and remove the write-ahead log under the first one, and the
    /// writes of one of them would be lost or the file damaged.
    @Test func aVaultKeptOpenAndProcessesOpeningAndClosingItLoseNoWrite() throws {
        let (created, url, keyFile) = try TestVaults.keyFileVault(in: directory)
        created.close()
        let vault = try Vault.open(at: url, unlock: .keyFile(keyFile))
        let rounds = 6
        for round in 0..<rounds {
            let (status, output) = try WorkerProcess.run(["fill", url.path, keyFile.path, "worker\(round)", "1"])
            #expect(status == 0, "worker failed: \(output)")
            try vault.set("parent \(round)", for: SecretKey<String>("parent\(round)"))
        }
        vault.close()
        let reopened = try Vault.open(at: url, unlock: .keyFile(keyFile))
        for round in 0..<rounds {
            #expect(try reopened.get(SecretKey<String>("worker\(round)-0")) == "value-0", "round \(round)")
            #expect(try reopened.get(SecretKey<String>("parent\(round)")) == "parent \(round)", "round \(round)")
        }
        #expect(try reopened.verify().recordCount == 2 * rounds)
    }

    @Test func writesFromOtherProcessesAreVisibleAndVerified() throws {
        let (vault, url, keyFile) = try TestVaults.keyFileVault(in: directory)
        let workers = try (0..<3).map { index in
            try WorkerProcess.start(["fill", url.path, keyFile.path, "worker\(index)", "40"])
        }
        for worker in workers {
            let (status, output) = WorkerProcess.finish(worker)
            #expect(status == 0, "worker failed: \(output)")
        }
        for index in 0..<3 {
            #expect(try vault.get(SecretKey<String>("worker\(index)-39")) == "value-39")
        }
        #expect(try vault.verify().recordCount == 120)
    }

    @Test func aWorkerWithTheWrongKeyFileIsRefused() throws {
        let (_, url, _) = try TestVaults.keyFileVault(in: directory)
        let wrong = directory.file("wrong.key")
        try KeyFile.generate(at: wrong)
        let (status, output) = try WorkerProcess.run(["fill", url.path, wrong.path, "x", "1"])
        #expect(status == 1)
        #expect(output.contains("invalidCredentials"))
    }
}
