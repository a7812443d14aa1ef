import Foundation
import VaultCrypto
import VaultStorage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension Passphrase {
    /// The longest passphrase read from a file or descriptor.
    public static let maximumByteCount = 4096

    /// Reads a passphrase from a file descriptor (a terminal, a pipe, `--passphrase-fd`) straight
    /// into secure memory, up to the first newline; the bytes never pass through a `String`.
    ///
    /// - Parameter descriptor: An open descriptor; it is not closed.
    /// - Throws: ``VaultError/invalidArgument(_:)`` when nothing can be read or it is too long.
    public init(readingLineFrom descriptor: Int32) throws {
        var buffer = [UInt8](repeating: 0, count: Self.maximumByteCount + 1)
        defer { _ = buffer.withUnsafeMutableBytes { $0.initializeMemory(as: UInt8.self, repeating: 0) } }
        var count = 0
        while count < buffer.count {
            let got = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + count, 1) }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { break }
            if buffer[count] == UInt8(ascii: "\n") { break }
            count += 1
        }
        guard count <= Self.maximumByteCount else {
            throw VaultError.invalidArgument("the passphrase is longer than \(Self.maximumByteCount) bytes")
        }
        if count > 0, buffer[count - 1] == UInt8(ascii: "\r") { count -= 1 }
        self.init(bytes: buffer.prefix(count))
    }

    /// Reads a passphrase file straight into secure memory (one trailing newline is dropped).
    ///
    /// As with key files, a file whose mode grants its group or other users any permission is
    /// refused before it is read (checked on the open descriptor).
    /// - Parameters:
    ///   - url: The file.
    ///   - allowsInsecurePermissions: Accept a file others may access, as
    ///     ``Vault/Configuration/allowsInsecurePermissions`` does for vault and key files.
    /// - Throws: ``VaultError/insecurePermissions(_:)`` for a file others may access, unless
    ///   allowed; ``VaultError/invalidArgument(_:)`` when it is missing, empty or too long.
    public init(contentsOf url: URL, allowsInsecurePermissions: Bool = false) throws {
        do {
            var secret = try SecureFile.readBounded(
                at: url.path, minimumByteCount: 1, maximumByteCount: Self.maximumByteCount,
                refusingGroupOrOtherAccess: !allowsInsecurePermissions
            ) { count, fill in try SecureBytes(count: count, initializer: fill) }
            let trimmed = secret.withUnsafeBytes { bytes -> Int in
                var end = bytes.count
                if end > 0, bytes[end - 1] == UInt8(ascii: "\n") { end -= 1 }
                if end > 0, bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                return end
            }
            if trimmed != secret.count {
                let full = secret
                secret = SecureBytes(count: trimmed) { out in
                    full.withUnsafeBytes { out.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0.prefix(trimmed))) }
                }
            }
            self.init(secureBytes: secret)
        } catch SecureFile.ReadError.insecurePermissions {
            throw VaultError.insecurePermissions(url.path)
        } catch is SecureFile.ReadError {
            throw VaultError.invalidArgument("cannot read a passphrase from \(url.path)")
        }
    }
}
