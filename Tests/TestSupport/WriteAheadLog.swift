import Foundation

/// The frames of a vault's `-wal` file, read as SQLite documents the log format: what a commit
/// wrote, page by page, without asking SQLite.
///
/// A 32-byte header (its salts name the log's current generation), then frames of a 24-byte header
/// and one page each. A frame whose commit field is not zero ends a transaction; frames whose salts
/// are not the header's are left from before the log restarted and belong to no transaction.
public enum WriteAheadLog {
    /// How many pages the last transaction committed to the log of `database` wrote, or `nil` when
    /// the log holds no commit.
    ///
    /// - Parameter database: The database file (its log is beside it, `-wal` appended).
    /// - Returns: The frame count of the last commit.
    public static func framesOfLastCommit(of database: URL) throws -> Int? {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: database.path + "-wal")))
        guard bytes.count >= headerByteCount else { return nil }
        let pageSize = Int(bigEndian(bytes, at: 8))
        let salts = Array(bytes[16..<24])
        var commits: [Int] = []
        var frame = 0
        var offset = headerByteCount
        while offset + frameHeaderByteCount + pageSize <= bytes.count, Array(bytes[offset + 8..<offset + 16]) == salts {
            frame += 1
            if bigEndian(bytes, at: offset + 4) != 0 { commits.append(frame) }
            offset += frameHeaderByteCount + pageSize
        }
        guard let last = commits.last else { return nil }
        return last - (commits.dropLast().last ?? 0)
    }

    private static let headerByteCount = 32
    private static let frameHeaderByteCount = 24

    private static func bigEndian(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        bytes[offset..<offset + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    }
}
