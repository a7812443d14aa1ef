/// A key domain: one key per (accessibility class, access group, access control).
///
/// Records are sealed under their domain's key, and the domain is bound into each record's
/// associated data, so a blob moved to another domain fails to open.
struct Domain: Hashable {
    let accessibility: Accessibility
    let accessGroup: String?
    let accessControl: AccessControlFlags

    init(_ policy: VaultPolicy) {
        accessibility = policy.accessibility
        accessGroup = policy.accessGroup
        accessControl = policy.accessControl
    }

    /// The domain of a stored row, from its clear policy column and the caller's access group.
    init(policyCode: Int64, accessGroup: String?) throws {
        let classIndex = Int(policyCode & 0xff)
        guard policyCode >= 0, policyCode >> 40 == 0, classIndex < Accessibility.allCases.count else {
            throw VaultError.integrity("a record has an unknown policy")
        }
        accessibility = Accessibility.allCases[classIndex]
        self.accessGroup = accessGroup
        accessControl = AccessControlFlags(rawValue: UInt32(truncatingIfNeeded: policyCode >> 8))
    }

    /// The policy this domain enforces.
    var policy: VaultPolicy {
        VaultPolicy(accessibility: accessibility, accessGroup: accessGroup, accessControl: accessControl)
    }

    /// The policy column stored in clear: class index and access-control bits, never the group.
    var policyCode: Int64 {
        Int64(Accessibility.allCases.firstIndex(of: accessibility)!) | Int64(accessControl.rawValue) << 8
    }

    /// An unambiguous byte label of the domain, the input to its key and id derivations.
    var label: [UInt8] {
        var writer = ByteWriter()
        writer.append(policyCode)
        if let accessGroup {
            writer.append(UInt8(1))
            writer.append(lengthPrefixed: Array(accessGroup.utf8))
        } else {
            writer.append(UInt8(0))
        }
        return writer.bytes
    }
}
