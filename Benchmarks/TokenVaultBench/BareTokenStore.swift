import Credentials
import Foundation
import TokenVault
import VaultCore
import VaultCrypto

/// A durable store of a token doing only the work no store can skip, bare: the token and its
/// metadata encoded by the vault's own encoder, the index terms and their keyed hashes, the look-up
/// tag, the record sealed with XChaCha20-Poly1305, its integrity hash added to the digest and the
/// digest sealed again, then the store's own statements (``RawSQLiteVaultStatements``) in a
/// database of their own. None of the library's layers run: no key ring, write transaction, known
/// state, default check or `Credential`. Beside `Credential.store` it tells how much of a store's
/// distance from a raw insert those layers take, and so how near a leaner store could come.
///
/// The bytes have the sizes of the vault's, not its exact layouts: nothing reads them back.
final class BareTokenStore {
    private let statements: RawSQLiteVaultStatements
    private let recordKey = SymmetricKey(randomByteCount: 32)
    private let lookupKey = SymmetricKey(randomByteCount: 32)
    private let indexKey = SymmetricKey(randomByteCount: 32)
    private let integrityKey = SymmetricKey(randomByteCount: 32)
    private let digestKey = SymmetricKey(randomByteCount: 32)
    private let vaultID = SecureRandom.bytes(count: 16)
    private let domainID = SecureRandom.bytes(count: 16)
    /// The running sum of the records' integrity hashes: byte by byte, where the vault's digest adds
    /// them as one 256-bit number, the same work to within a few instructions.
    private var digest = [UInt8](repeating: 0, count: 32)
    private var generation: UInt64 = 0

    /// Creates the database at `path` (which must not exist) with the vault's schema.
    init(path: String) throws {
        statements = try RawSQLiteVaultStatements(path: path)
    }

    /// Fills the table as ``RawSQLiteVaultStatements/fill(to:sealedByteCount:)`` does.
    func fill(to count: Int, sealedByteCount: Int) throws {
        try statements.fill(to: count, sealedByteCount: sealedByteCount)
    }

    /// Stores `token` with `tags` in its own durable transaction.
    func store(_ token: Token, tags: [String: String]) throws {
        let metadata = Token.Metadata(token: token, tags: tags)
        let secret = TokenRecordCoding.encode(token)
        let encodedMetadata = try TokenRecordCoding.encode(metadata)
        let terms = metadata.indexTerms
        let id = Array(token.id.utf8)
        let lookup = BLAKE2b.hash(Array("lookup".utf8) + [1, 0] + Self.lengthPrefixed(id), key: lookupKey)

        var envelope: [UInt8] = [2]
        envelope.reserveCapacity(id.count + encodedMetadata.count + secret.count + 64 * terms.count + 32)
        envelope += Self.lengthPrefixed(id) + Self.lengthPrefixed(encodedMetadata)
        envelope += Self.littleEndian(UInt32(terms.count))
        var termHashes: [[UInt8]] = []
        for term in terms {
            let field = Self.lengthPrefixed(Array(term.field.utf8))
            let value = Self.lengthPrefixed(Array(term.value.utf8))
            envelope += field + value
            termHashes.append(
                BLAKE2b.hash(
                    Array("TVX1".utf8) + field + value, key: indexKey,
                    outputByteCount: SQLiteStatementsForBenchmarking.termHashByteCount))
        }
        envelope += [0] + Self.lengthPrefixed(secret)

        let recordID = statements.nextRecordID()
        let header = recordID + [2] + Self.littleEndian(UInt64(1)) + Self.lengthPrefixed(domainID)
        let sealed = try XChaCha20Poly1305.seal(
            envelope, using: recordKey, authenticating: Array("TVR1".utf8) + vaultID + header
        ).combined
        let integrity = BLAKE2b.hash(
            Array("TVH1".utf8) + header + Self.lengthPrefixed(lookup) + BLAKE2b.hash(sealed), key: integrityKey)
        for index in digest.indices { digest[index] &+= integrity[index] }
        generation += 1
        let sealedDigest = try XChaCha20Poly1305.seal(
            digest + Self.littleEndian(generation), using: digestKey, authenticating: vaultID
        ).combined

        try statements.store(
            RawSQLiteVaultStatements.Store(
                recordID: recordID, lookup: lookup, domain: domainID, sealed: sealed, terms: termHashes,
                digest: sealedDigest))
    }

    private static func littleEndian(_ value: some FixedWidthInteger) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }

    private static func lengthPrefixed(_ bytes: [UInt8]) -> [UInt8] {
        littleEndian(UInt32(bytes.count)) + bytes
    }
}
