import Foundation
import Locking
import VaultCore

extension Credential {
    /// Security options for a stored token, in the shape of the keychain's attributes.
    public enum Security: Sendable, Hashable {
        /// When the token can be read.
        case accessibility(Accessibility)
        /// The access group (key domain) it is stored in.
        case accessGroup(String)
        /// The proof reading the token needs.
        case accessControl(AccessControlFlags)
        /// The context that supplies proofs when this process reads the token back (after a
        /// refresh by another process, say), kept with the credential while it is held. Storing
        /// itself never needs a proof.
        case context(any AuthenticationContext)

        private static let standardOptions = Locked<[Security]>([.accessibility(.afterFirstUnlock)])

        /// The options `Credential.store` uses when given none: `afterFirstUnlock` unless changed.
        public static var standard: [Security] {
            get { standardOptions.withLock { $0 } }
            set { standardOptions.withLock { $0 = newValue } }
        }

        public static func == (lhs: Security, rhs: Security) -> Bool {
            switch (lhs, rhs) {
            case (.accessibility(let a), .accessibility(let b)): a == b
            case (.accessGroup(let a), .accessGroup(let b)): a == b
            case (.accessControl(let a), .accessControl(let b)): a == b
            case (.context(let a), .context(let b)): a.id == b.id
            default: false
            }
        }

        public func hash(into hasher: inout Hasher) {
            switch self {
            case .accessibility(let value):
                hasher.combine(0)
                hasher.combine(value)
            case .accessGroup(let value):
                hasher.combine(1)
                hasher.combine(value)
            case .accessControl(let value):
                hasher.combine(2)
                hasher.combine(value)
            case .context(let value):
                hasher.combine(3)
                hasher.combine(value.id)
            }
        }

        /// The vault policy and reading context the options stand for.
        ///
        /// - Throws: ``CredentialError/invalidSecurityOptions(_:)`` when an option is given twice
        ///   with different values.
        static func resolve(_ options: [Security]) throws -> (
            policy: VaultPolicy, context: (any AuthenticationContext)?
        ) {
            var accessibility: Accessibility?
            var group: String?
            var control: AccessControlFlags?
            var context: (any AuthenticationContext)?
            func set<T: Equatable>(_ slot: inout T?, _ value: T, _ name: String) throws {
                if let existing = slot, existing != value {
                    throw CredentialError.invalidSecurityOptions("\(name) is given twice with different values")
                }
                slot = value
            }
            for option in options {
                switch option {
                case .accessibility(let value): try set(&accessibility, value, "accessibility")
                case .accessGroup(let value): try set(&group, value, "accessGroup")
                case .accessControl(let value): try set(&control, value, "accessControl")
                case .context(let value):
                    if let existing = context, existing.id != value.id {
                        throw CredentialError.invalidSecurityOptions("context is given twice")
                    }
                    context = value
                }
            }
            return (
                VaultPolicy(
                    accessibility: accessibility ?? .afterFirstUnlock, accessGroup: group, accessControl: control ?? []),
                context
            )
        }
    }
}
