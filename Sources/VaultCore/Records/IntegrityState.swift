import VaultCrypto
import VaultStorage

/// The sealed `integrity` row: a write generation and the digest of every record and key slot.
struct IntegrityState {
    var generation: UInt64
    var digest: IntegrityDigest

    static let empty = IntegrityState(generation: 0, digest: IntegrityDigest())

    /// Binds the digest to its vault, format and key epoch.
    static func associatedData(vaultID: [UInt8], epoch: UInt64, format: Int = VaultFormat.currentVersion) -> [UInt8] {
        var writer = ByteWriter()
        writer.append(raw: VaultFormat.Tag.integrity)
        writer.append(UInt16(format))
        writer.append(raw: vaultID)
        if format >= 2 { writer.append(epoch) }
        return writer.bytes
    }

    static func load(
        from db: SQLiteConnection, keys: KeyRing, vaultID: [UInt8], format: Int = VaultFormat.currentVersion
    ) throws -> IntegrityState {
        guard let sealed = try db.queryFirst("SELECT sealed FROM integrity WHERE singleton = 1", row: { $0.blob(0) })
        else { throw VaultError.integrity("the integrity digest is missing") }
        let plaintext: [UInt8]
        do {
            plaintext = try XChaCha20Poly1305.open(
                XChaCha20Poly1305.SealedBox(combined: sealed), using: keys.integrityKey,
                authenticating: associatedData(vaultID: vaultID, epoch: keys.epoch, format: format))
        } catch {
            throw VaultError.integrity("the integrity digest failed authentication")
        }
        var reader = ByteReader(plaintext)
        let generation = try reader.read(UInt64.self)
        let digest = try IntegrityDigest(bytes: reader.read(count: IntegrityDigest.byteCount))
        try reader.expectEnd()
        return IntegrityState(generation: generation, digest: digest)
    }

    func store(into db: SQLiteConnection, keys: KeyRing, vaultID: [UInt8]) throws {
        var writer = ByteWriter(reservingCapacity: 40)
        writer.append(generation)
        writer.append(raw: digest.bytes)
        let box = try XChaCha20Poly1305.seal(
            writer.bytes, using: keys.integrityKey,
            authenticating: Self.associatedData(vaultID: vaultID, epoch: keys.epoch))
        try db.run(
            "INSERT INTO integrity (singleton, sealed) VALUES (1, ?) ON CONFLICT (singleton) DO UPDATE SET sealed = excluded.sealed",
            [.blob(box.combined)])
    }

    /// The digest of what the file holds now: every record and every key slot under `keys`.
    static func digest(of rows: [RecordRow], slots: [KeySlot], keys: KeyRing) -> IntegrityDigest {
        var digest = IntegrityDigest()
        for row in rows { digest.add(row.integrityHash(keys: keys)) }
        for slot in slots { digest.add(slot.integrityHash(key: keys.integrityKey)) }
        return digest
    }
}
