internal import CPostgres
import Foundation

/// Statement parameters laid out as `PQexecParams` takes them: a type OID, a buffer, a length and
/// a format per parameter. The buffers are this type's own and live until ``withArguments(_:)``
/// returns.
struct PostgresParameters: ~Copyable {
    private var types: [Oid] = []
    private var buffers: [UnsafeMutablePointer<CChar>?] = []
    private var lengths: [Int32] = []
    private var formats: [Int32] = []

    /// Encodes `values`: `int8`, `bytea` and `boolean` in binary, text as text of an unspecified type.
    ///
    /// - Throws: ``PostgresError/Kind/invalidValue`` for text with a NUL character, which
    ///   PostgreSQL cannot store, or a value over 1 GiB.
    init(_ values: [PostgresValue]) throws {
        for value in values {
            switch value {
            case .int8(let number):
                try append(type: PostgresTypeOID.int8, binary: withUnsafeBytes(of: number.bigEndian, Array.init))
            case .bytea(let bytes):
                try append(type: PostgresTypeOID.bytea, binary: bytes)
            case .bool(let flag):
                try append(type: PostgresTypeOID.bool, binary: [flag ? 1 : 0])
            case .text(let string):
                guard !string.utf8.contains(0) else {
                    throw PostgresError(kind: .invalidValue, message: "a text parameter contains a NUL character")
                }
                // Type 0 lets the server infer the type from the statement, as a literal would.
                buffers.append(strdup(string))
                types.append(0)
                lengths.append(0)
                formats.append(0)
            case .null:
                buffers.append(nil)
                types.append(0)
                lengths.append(0)
                formats.append(0)
            }
        }
    }

    deinit {
        for buffer in buffers { free(buffer) }
    }

    private mutating func append(type: Oid, binary bytes: [UInt8]) throws {
        guard let length = Int32(exactly: bytes.count), length < 1 << 30 else {
            throw PostgresError(kind: .invalidValue, message: "a parameter is larger than 1 GiB")
        }
        // Never a null pointer, even for zero bytes: a null buffer means SQL NULL.
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: max(1, bytes.count))
        bytes.withUnsafeBytes { raw in
            if let base = raw.baseAddress {
                UnsafeMutableRawPointer(buffer).copyMemory(from: base, byteCount: raw.count)
            }
        }
        buffers.append(buffer)
        types.append(type)
        lengths.append(length)
        formats.append(1)
    }

    /// The parameters' type OIDs, in order: with the statement's text, what a prepared statement
    /// is kept under, since the server fixes the types when it prepares.
    var typeSignature: [Oid] { types }

    /// Calls `body` with the count and the four arrays `PQexecParams` reads.
    func withArguments<Result>(
        _ body: (
            Int32, UnsafePointer<Oid>?, UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?,
            UnsafePointer<Int32>?
        ) -> Result
    ) -> Result {
        let values = buffers.map { UnsafePointer($0) }
        return types.withUnsafeBufferPointer { types in
            values.withUnsafeBufferPointer { values in
                lengths.withUnsafeBufferPointer { lengths in
                    formats.withUnsafeBufferPointer { formats in
                        body(
                            Int32(types.count), types.baseAddress, values.baseAddress, lengths.baseAddress,
                            formats.baseAddress)
                    }
                }
            }
        }
    }
}
