/// A key domain: one key per (accessibility class, access group, access control), and for
/// device-bound classes, per device.
///
/// Records are sealed under their domain's key, and the domain's id is bound into each record's
/// associated data, so a blob moved to another domain fails to open.
struct Domain: Hashable, Sendable {
    let accessibility: Accessibility
    let accessGroup: String?
    let accessControl: AccessControlFlags

    /// The domain of ``VaultPolicy/default``.
    static let vaultDefault = Domain(.default)

    init(_ policy: VaultPolicy) {
        accessibility = policy.accessibility
        accessGroup = policy.accessGroup
        accessControl = policy.accessControl
    }

    /// The domain of a stored row, from its clear policy column and the access group.
    init(policyCode: Int64, accessGroup: String?) throws {
        guard policyCode >= 0, policyCode >> 40 == 0,
            let accessibility = Accessibility(code: UInt8(truncatingIfNeeded: policyCode & 0xff))
        else {
            throw VaultError.integrity("a record has an unknown policy")
        }
        self.accessibility = accessibility
        self.accessGroup = accessGroup
        accessControl = AccessControlFlags(rawValue: UInt32(truncatingIfNeeded: policyCode >> 8))
    }

    /// The policy this domain enforces.
    var policy: VaultPolicy {
        VaultPolicy(accessibility: accessibility, accessGroup: accessGroup, accessControl: accessControl)
    }

    /// The policy column stored in clear: class and access-control bits, never the group.
    var policyCode: Int64 { Int64(accessibility.code) | Int64(accessControl.rawValue) << 8 }

    /// An unambiguous byte label of the domain, the input to its id; device-bound domains include
    /// the device id, so the same item on another device has another id.
    func label(device: DeviceSecret?) -> [UInt8] {
        var writer = ByteWriter()
        writer.append(policyCode)
        writer.append(group: accessGroup)
        writer.append(lengthPrefixed: accessibility.isDeviceBound ? device?.id ?? [] : [])
        return writer.bytes
    }
}

extension ByteWriter {
    /// Appends an optional access group unambiguously (no group differs from the empty name).
    mutating func append(group: String?) {
        if let group {
            append(UInt8(1))
            append(lengthPrefixed: Array(group.utf8))
        } else {
            append(UInt8(0))
        }
    }
}
