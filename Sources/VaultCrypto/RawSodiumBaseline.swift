internal import CSodium

/// Direct libsodium calls on caller-owned buffers, with no Swift wrapper work: the floor the
/// benchmark harness measures the library's seal/open against. Package-internal.
package enum RawSodiumBaseline {
    /// `crypto_aead_xchacha20poly1305_ietf_encrypt` into `output` (plaintext + 16 bytes).
    package static func seal(
        _ message: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer,
        associatedData: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer
    ) {
        _ = crypto_aead_xchacha20poly1305_ietf_encrypt(
            output.baseAddress!.assumingMemoryBound(to: UInt8.self), nil,
            message.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(message.count),
            associatedData.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(associatedData.count), nil,
            nonce.baseAddress!.assumingMemoryBound(to: UInt8.self), key.baseAddress!.assumingMemoryBound(to: UInt8.self)
        )
    }

    /// `crypto_aead_xchacha20poly1305_ietf_decrypt` into `output`; `false` when it does not authenticate.
    package static func open(
        _ ciphertext: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, nonce: UnsafeRawBufferPointer,
        associatedData: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer
    ) -> Bool {
        crypto_aead_xchacha20poly1305_ietf_decrypt(
            output.baseAddress?.assumingMemoryBound(to: UInt8.self), nil, nil,
            ciphertext.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(ciphertext.count),
            associatedData.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(associatedData.count),
            nonce.baseAddress!.assumingMemoryBound(to: UInt8.self), key.baseAddress!.assumingMemoryBound(to: UInt8.self)
        ) == 0
    }
}
