import Foundation
import TestSupport
import Testing
import TokenVault

/// Key material is wiped, not just dropped: a worker process notes where each key lives, locks (or
/// lets the idle timeout pass), and reads the same bytes again. A process of its own, because the
/// tests here share the secure-memory pool and would reuse the freed blocks.
@Suite struct KeyWipeTests {
    /// Runs `wipe-check` and returns each key's label with whether its bytes were non-zero before
    /// and after.
    func wipeCheck(_ mode: String) throws -> [String: (before: Bool, after: Bool)] {
        let directory = TemporaryDirectory()  // one per run: a test may run the worker twice
        let (vault, url, keyFile) = try TestVaults.keyFileVault(in: directory)
        _ = consume vault
        let (status, output) = try WorkerProcess.run(["wipe-check", url.path, keyFile.path, mode, "0"])
        #expect(status == 0, "\(output)")
        #expect(output.hasSuffix("ok\n"), "\(output)")
        var keys: [String: (before: Bool, after: Bool)] = [:]
        for line in output.split(separator: "\n") where line.contains(" before=") {
            let parts = line.components(separatedBy: ": before=")
            let states = parts[1].components(separatedBy: " after=")
            keys[parts[0]] = (states[0] == "nonzero", states[1] == "nonzero")
        }
        return keys
    }

    @Test func lockZeroesEveryKeyBuffer() throws {
        let keys = try wipeCheck("lock")
        for label in [
            "master", "lookup", "integrity", "metadata", "class root whenUnlocked", "domain key whenUnlocked",
            "index key", "device secret", "token cache",
        ] {
            #expect(keys[label] != nil, "no \(label) key reported")
        }
        #expect(keys.count >= 9)
        for (label, state) in keys {
            #expect(state.before, "\(label) was all zeros while unlocked")
            #expect(!state.after, "\(label) still holds non-zero bytes after lock()")
        }
    }

    /// `lock()` wipes the device secret too; an ended session keeps it for the
    /// `afterFirstUnlockThisDeviceOnly` items that stay readable.
    @Test func lockZeroesTheDeviceSecret() throws {
        let locked = try wipeCheck("lock")["device secret"]
        #expect(locked?.before == true, "the device secret was not loaded")
        #expect(locked?.after == false, "the device secret survived lock()")
        #expect(try wipeCheck("idle")["device secret"]?.after == true)
    }

    /// The key that seals every token copy the `Credential` facade keeps is wiped by `lock()` and by
    /// the end of the session, which leaves every copy unreadable at once.
    @Test func lockAndTheIdleTimeoutZeroTheCredentialCacheKey() throws {
        for mode in ["lock", "idle"] {
            let cache = try wipeCheck(mode)["token cache"]
            #expect(cache?.before == true, "no token cache key while a credential was loaded (\(mode))")
            #expect(cache?.after == false, "the token cache key survived (\(mode))")
        }
    }

    @Test func idleTimeoutZeroesTheSessionKeysAndKeepsTheRest() throws {
        let keys = try wipeCheck("idle")
        for label in [
            "master", "class root whenUnlocked", "class root whenUnlockedThisDeviceOnly", "domain key whenUnlocked",
            "token cache",
        ] {
            #expect(keys[label]?.before == true, "\(label)")
            #expect(keys[label]?.after == false, "\(label) survived the idle timeout")
        }
        // What an ended session keeps (so afterFirstUnlock items stay readable) is still there:
        // the check tells wiped from kept.
        for label in ["lookup", "integrity", "metadata", "class root afterFirstUnlock", "device secret"] {
            #expect(keys[label]?.after == true, "\(label) should outlive the session")
        }
    }
}
