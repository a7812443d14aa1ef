import Synchronization
import VaultCrypto

/// The keys of an unlocked vault: the master key and the subkeys derived from it.
///
/// Everything is in guarded memory; dropping the last reference (``Vault/lock()``) wipes it all.
final class KeyRing: Sendable {
    /// Master-key subkey numbers under ``VaultFormat/subkeyContext``.
    private enum Subkey: UInt64 {
        case lookup = 1
        case integrity = 2
        case domainRoot = 3
    }

    let masterKey: SymmetricKey
    /// Keys the names of items into look-up tags and domains into ids.
    let lookupKey: SymmetricKey
    /// Keys the per-record hashes of the integrity digest and seals the digest.
    let integrityKey: SymmetricKey
    private let domainRoot: SymmetricKey
    private let domainKeys = Mutex<[Domain: SymmetricKey]>([:])

    init(masterKey: SymmetricKey) throws {
        self.masterKey = masterKey
        func derive(_ subkey: Subkey) throws -> SymmetricKey {
            try SubkeyDerivation.deriveKey(
                from: masterKey, id: subkey.rawValue, context: VaultFormat.subkeyContext)
        }
        lookupKey = try derive(.lookup)
        integrityKey = try derive(.integrity)
        domainRoot = try derive(.domainRoot)
    }

    /// The key that seals the records of `domain`.
    func key(for domain: Domain) -> SymmetricKey {
        domainKeys.withLock { keys in
            if let key = keys[domain] { return key }
            let key = BLAKE2b.deriveKey(from: Array("domain key".utf8) + domain.label, key: domainRoot)
            keys[domain] = key
            return key
        }
    }

    /// The non-secret id stored with each record of `domain`: a keyed hash, so group names and
    /// classes cannot be read from the file.
    func id(of domain: Domain) -> [UInt8] {
        BLAKE2b.hash(Array("domain id".utf8) + domain.label, key: lookupKey, outputByteCount: 16)
    }

    /// The look-up tag of a named item: a keyed hash of its kind, group and name.
    func lookup(kind: RecordKind, accessGroup: String?, name: String) -> [UInt8] {
        var writer = ByteWriter()
        writer.append(raw: Array("lookup".utf8))
        writer.append(kind.rawValue)
        writer.append(lengthPrefixed: Array((accessGroup ?? "").utf8))
        writer.append(UInt8(accessGroup == nil ? 0 : 1))
        writer.append(lengthPrefixed: Array(name.utf8))
        return BLAKE2b.hash(writer.bytes, key: lookupKey)
    }
}
