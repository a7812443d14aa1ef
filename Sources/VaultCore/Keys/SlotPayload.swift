import VaultCrypto

/// What a key slot is granted: either the master key (full access), or, for a slot scoped to access
/// groups, only what those groups need (the look-up and factor-record keys, and per group its class,
/// integrity and metadata keys). Passphrase slots also carry the passcode root. Scoped payloads
/// written by format version 1 carry the vault-wide integrity and metadata keys instead.
///
/// Encoded as entries of `type u8 | length u16 | bytes`, straight into secure memory.
struct SlotPayload {
    private enum Entry: UInt8 {
        case masterKey = 1
        case passcodeRoot = 2
        case lookupKey = 3
        case integrityKey = 4
        case metadataKey = 5
        /// class u8 | group (length-prefixed, flag) | 32-byte group key
        case groupKey = 6
        case factorKey = 7
        /// group (length-prefixed) | 32-byte key
        case groupIntegrityKey = 8
        case groupMetadataKey = 9
    }

    var masterKey: SymmetricKey?
    var passcodeRoot: SymmetricKey?
    /// For scoped slots: the shared keys and the granted group keys.
    var lookupKey: SymmetricKey?
    var integrityKey: SymmetricKey?
    var metadataKey: SymmetricKey?
    var factorKey: SymmetricKey?
    var groupKeys: [ClassGroup: SymmetricKey] = [:]
    var groupIntegrityKeys: [String: SymmetricKey] = [:]
    var groupMetadataKeys: [String: SymmetricKey] = [:]

    var isScoped: Bool { masterKey == nil }

    init(masterKey: SymmetricKey?, passcodeRoot: SymmetricKey?) {
        self.masterKey = masterKey
        self.passcodeRoot = passcodeRoot
    }

    func encoded() -> SecureBytes {
        var entries: [(Entry, [UInt8], SymmetricKey)] = []
        if let masterKey { entries.append((.masterKey, [], masterKey)) }
        if let passcodeRoot { entries.append((.passcodeRoot, [], passcodeRoot)) }
        if let lookupKey { entries.append((.lookupKey, [], lookupKey)) }
        if let integrityKey { entries.append((.integrityKey, [], integrityKey)) }
        if let metadataKey { entries.append((.metadataKey, [], metadataKey)) }
        if let factorKey { entries.append((.factorKey, [], factorKey)) }
        for (type, keys) in [(Entry.groupIntegrityKey, groupIntegrityKeys), (.groupMetadataKey, groupMetadataKeys)] {
            for (group, key) in keys.sorted(by: { $0.key < $1.key }) {
                var prefix = ByteWriter()
                prefix.append(lengthPrefixed: Array(group.utf8))
                entries.append((type, prefix.bytes, key))
            }
        }
        for (grant, key) in groupKeys.sorted(by: { "\($0.key)" < "\($1.key)" }) {
            var prefix = ByteWriter()
            prefix.append(grant.accessibility.code)
            prefix.append(group: grant.accessGroup)
            entries.append((.groupKey, prefix.bytes, key))
        }
        let total = entries.reduce(0) { $0 + 3 + $1.1.count + $1.2.byteCount }
        return SecureBytes(count: total) { out in
            var offset = 0
            for (type, prefix, key) in entries {
                let length = prefix.count + key.byteCount
                out[offset] = type.rawValue
                out[offset + 1] = UInt8(length & 0xff)
                out[offset + 2] = UInt8(length >> 8)
                offset += 3
                for byte in prefix {
                    out[offset] = byte
                    offset += 1
                }
                key.withUnsafeBytes {
                    UnsafeMutableRawBufferPointer(rebasing: out[offset..<offset + key.byteCount]).copyMemory(from: $0)
                }
                offset += key.byteCount
            }
        }
    }

    init(decoding payload: SecureBytes) throws {
        let malformed = VaultError.unsupportedFormat("a key slot's payload is malformed")
        try payload.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                guard bytes.count - offset >= 3 else { throw malformed }
                let type = bytes[offset]
                let length = Int(bytes[offset + 1]) | Int(bytes[offset + 2]) << 8
                offset += 3
                guard bytes.count - offset >= length, length >= 32 else { throw malformed }
                let body = UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + length])
                offset += length
                let key = SymmetricKey(secureBytes: SecureBytes(copying: body.suffix(32)))
                switch Entry(rawValue: type) {
                case .masterKey: masterKey = key
                case .passcodeRoot: passcodeRoot = key
                case .lookupKey: lookupKey = key
                case .integrityKey: integrityKey = key
                case .metadataKey: metadataKey = key
                case .factorKey: factorKey = key
                case .groupIntegrityKey, .groupMetadataKey:
                    var reader = ByteReader(Array(body.prefix(length - 32)))
                    let group = String(decoding: try reader.readLengthPrefixed(), as: UTF8.self)
                    try reader.expectEnd()
                    if type == Entry.groupIntegrityKey.rawValue {
                        groupIntegrityKeys[group] = key
                    } else {
                        groupMetadataKeys[group] = key
                    }
                case .groupKey:
                    var reader = ByteReader(Array(body.prefix(length - 32)))
                    guard let accessibility = Accessibility(code: try reader.read(UInt8.self)) else { throw malformed }
                    let group: String? =
                        try reader.read(UInt8.self) == 1
                        ? String(decoding: try reader.readLengthPrefixed(), as: UTF8.self) : nil
                    try reader.expectEnd()
                    groupKeys[ClassGroup(accessibility: accessibility, accessGroup: group)] = key
                case nil: throw VaultError.unsupportedFormat("a key slot has an entry this version does not know")
                }
            }
        }
        if masterKey == nil, lookupKey == nil || (factorKey == nil && (integrityKey == nil || metadataKey == nil)) {
            throw malformed
        }
    }
}
