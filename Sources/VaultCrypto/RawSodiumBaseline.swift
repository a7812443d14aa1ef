internal import CSodium

/// Direct libsodium calls on caller-owned buffers, with no Swift wrapper work: the floor the
/// benchmark harness measures the library's seal/open and key derivation against. Package-internal.
package enum RawSodiumBaseline {
    /// Runs `sodium_init` (once per process), so the raw calls use the same CPU-specific
    /// implementations the library's own calls do. Call before timing anything.
    package static func ensureInitialized() {
        SodiumRuntime.ensureInitialized()
    }

    /// libsodium's version (`sodium_version_string`), for the benchmark's machine header.
    package static var versionString: String {
        String(cString: sodium_version_string())
    }

    /// The CPU features libsodium detected at `sodium_init` (`sodium_runtime_has_*`), which decide
    /// the ChaCha20 and Poly1305 implementations it picked.
    package static var cpuFeatures: [String] {
        ensureInitialized()
        let features: [(String, Int32)] = [
            ("SSE2", sodium_runtime_has_sse2()), ("SSSE3", sodium_runtime_has_ssse3()),
            ("SSE4.1", sodium_runtime_has_sse41()), ("AVX", sodium_runtime_has_avx()),
            ("AVX2", sodium_runtime_has_avx2()), ("AVX-512F", sodium_runtime_has_avx512f()),
            ("AES-NI", sodium_runtime_has_aesni()), ("NEON", sodium_runtime_has_neon()),
        ]
        return features.filter { $0.1 != 0 }.map(\.0)
    }

    /// `randombytes_buf` into `buffer`: the nonce draw every random-nonce seal needs.
    package static func randomBytes(into buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress else { return }
        randombytes_buf(base, buffer.count)
    }

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

    /// `crypto_pwhash` (Argon2id 1.3) into `output`, from ordinary memory; `false` when libsodium
    /// cannot get the memory. The floor for a passphrase unlock at the same costs.
    package static func argon2id(
        password: UnsafeRawBufferPointer, salt: UnsafeRawBufferPointer, opsLimit: Int, memLimitBytes: Int,
        into output: UnsafeMutableRawBufferPointer
    ) -> Bool {
        ensureInitialized()
        return crypto_pwhash(
            output.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(output.count),
            password.baseAddress!.assumingMemoryBound(to: CChar.self), UInt64(password.count),
            salt.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(opsLimit), memLimitBytes,
            crypto_pwhash_ALG_ARGON2ID13) == 0
    }
}
