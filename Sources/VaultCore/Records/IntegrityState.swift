import VaultCrypto
import VaultStorage

/// The sealed `integrity` row: a write generation and the digest of every record.
struct IntegrityState {
    var generation: UInt64
    var digest: IntegrityDigest

    static let empty = IntegrityState(generation: 0, digest: IntegrityDigest())

    static func associatedData(vaultID: [UInt8]) -> [UInt8] {
        VaultFormat.Tag.integrity + withUnsafeBytes(of: UInt16(VaultFormat.currentVersion).littleEndian, Array.init)
            + vaultID
    }

    static func load(from db: SQLiteConnection, keys: KeyRing, vaultID: [UInt8]) throws -> IntegrityState {
        guard let sealed = try db.queryFirst("SELECT sealed FROM integrity WHERE singleton = 1", row: { $0.blob(0) })
        else { throw VaultError.integrity("the integrity digest is missing") }
        let plaintext: [UInt8]
        do {
            plaintext = try XChaCha20Poly1305.open(
                XChaCha20Poly1305.SealedBox(combined: sealed), using: keys.integrityKey,
                authenticating: associatedData(vaultID: vaultID))
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
            writer.bytes, using: keys.integrityKey, authenticating: Self.associatedData(vaultID: vaultID))
        try db.run(
            "INSERT INTO integrity (singleton, sealed) VALUES (1, ?) ON CONFLICT (singleton) DO UPDATE SET sealed = excluded.sealed",
            [.blob(box.combined)])
    }
}
