import Foundation
import Locking
import TestSupport
import Testing
import VaultStorage

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipComment))
struct PostgresNotificationTests {
    @Test func aNotificationWakesAWaiterOnAnotherConnection() throws {
        let database = try PostgresTestServer.shared.get().makeDatabase()
        let listener = try PostgresConnection(database)
        try listener.listen("vault changes")
        let sender = Locked<Result<Int32, PostgresError>?>(nil)
        let senderDone = DispatchSemaphore(value: 0)
        let thread = Thread {
            defer { senderDone.signal() }
            // Sent while the listener is (most likely) already waiting on its socket.
            usleep(200_000)
            do {
                let connection = try PostgresConnection(database)
                try connection.notify("vault changes", payload: "item 42")
                sender.withLock { $0 = .success(connection.serverProcessID) }
            } catch let error as PostgresError {
                sender.withLock { $0 = .failure(error) }
            } catch {}
        }
        thread.start()
        let notification = try listener.nextNotification(timeout: .seconds(30))
        senderDone.wait()
        let senderID = try #require(sender.value).get()
        #expect(
            notification
                == PostgresNotification(channel: "vault changes", payload: "item 42", senderProcessID: senderID))
    }

    @Test func aWaitWithNothingSentTimesOutCleanly() throws {
        let database = try PostgresTestServer.shared.get().makeDatabase()
        let listener = try PostgresConnection(database)
        try listener.listen("idle")
        #expect(try listener.nextNotification(timeout: .milliseconds(100)) == nil)
        #expect(try listener.nextNotification(timeout: .zero) == nil)
        // The connection still works, and still listens.
        #expect(try listener.queryFirst("SELECT 1::int8")?.int8(0) == 1)
        let sender = try PostgresConnection(database)
        try sender.notify("idle")
        #expect(try listener.nextNotification(timeout: .seconds(30))?.payload == "")
    }

    @Test func aNotificationInsideATransactionArrivesOnlyAtCommit() throws {
        struct Abort: Error {}
        let database = try PostgresTestServer.shared.get().makeDatabase()
        let listener = try PostgresConnection(database)
        try listener.listen("commits")
        let sender = try PostgresConnection(database)
        #expect(throws: Abort.self) {
            try sender.transaction { sender in
                try sender.notify("commits", payload: "rolled back")
                throw Abort()
            }
        }
        try sender.transaction { try $0.notify("commits", payload: "committed") }
        #expect(try listener.nextNotification(timeout: .seconds(30))?.payload == "committed")
        #expect(try listener.nextNotification(timeout: .milliseconds(50)) == nil)
    }

    @Test func afterUnlistenNothingArrives() throws {
        let database = try PostgresTestServer.shared.get().makeDatabase()
        let listener = try PostgresConnection(database)
        try listener.listen("gone")
        try listener.unlisten("gone")
        try PostgresConnection(database).notify("gone")
        #expect(try listener.nextNotification(timeout: .milliseconds(100)) == nil)
    }
}
