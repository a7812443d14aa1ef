import Foundation
import TokenVault

/// init, passwd, keyslot, verify, backup.
enum VaultCommands {
    static func initialize(_ arguments: ParsedArguments, _ context: CommandContext) async throws {
        let location = try context.vaultLocation()
        let keyFile = context.keyFile
        if let keyFile, !FileManager.default.fileExists(atPath: keyFile.path) {
            try KeyFile.generate(at: keyFile)
            context.console.error("Created key file \(keyFile.path) (mode 0600): keep it away from the vault.")
        }
        let passphrase = try NewPassphrase(
            given: try context.givenPassphrase(), wanted: !arguments.has("no-passphrase"),
            sources: "--passphrase-file, --passphrase-fd or TOKENVAULT_PASSPHRASE")
        let unlock = try context.newUnlock(passphrase, keyFile: keyFile)
        let kdf = (try arguments.choice("kdf", as: KDFPreset.self) ?? .moderate).keyDerivation
        if kdf == .sensitive { context.console.progress("Deriving the key (Argon2id SENSITIVE, a few seconds)...") }
        _ = try location.create(unlock: unlock, keyDerivation: kdf, configuration: context.configuration)
        if context.wantsJSON {
            try context.console.json(["vault": location.displayName])
        } else {
            context.console.out("Created \(location.displayName)")
        }
    }

    static func changePassphrase(_ arguments: ParsedArguments, _ context: CommandContext) async throws {
        let passphrase = try context.newSlotPassphrase(wanted: !arguments.has("no-passphrase"))
        let (vault, current) = try context.openVault()
        let newKeyFile = arguments.value("new-key-file").map(URL.init(fileURLWithPath:))
        let new = try context.newUnlock(passphrase, keyFile: newKeyFile)
        context.console.progress("Re-keying the vault (Argon2id for the new unlock, every record re-sealed)...")
        try vault.changeUnlock(from: current, to: new)
        context.console.out("Changed the unlock of \(try context.vaultLocation().displayName)")
    }

    static func addKeySlot(_ arguments: ParsedArguments, _ context: CommandContext) async throws {
        let newKeyFile = arguments.value("new-key-file").map(URL.init(fileURLWithPath:))
        let passphrase = try context.newSlotPassphrase(
            wanted: newKeyFile == nil || arguments.value("new-passphrase-file") != nil,
            sources: "--new-passphrase-file, or --new-key-file for a key-file slot")
        let (vault, _) = try context.openVault()
        if let newKeyFile, !FileManager.default.fileExists(atPath: newKeyFile.path) {
            try KeyFile.generate(at: newKeyFile)
        }
        let unlock = try context.newUnlock(passphrase, keyFile: newKeyFile)
        let groups = arguments.all("access-group")
        context.console.progress("Making the key slot (Argon2id)...")
        try vault.addUnlock(
            unlock, keyDerivation: (try arguments.choice("kdf", as: KDFPreset.self) ?? .moderate).keyDerivation,
            accessGroups: groups.isEmpty ? nil : Set(groups))
        context.console.out("Added a key slot\(groups.isEmpty ? "" : " scoped to " + groups.joined(separator: ", "))")
    }

    static func listKeySlots(_ arguments: ParsedArguments, _ context: CommandContext) async throws {
        let (vault, _) = try context.openVault()
        let slots = try vault.keySlots()
        if context.wantsJSON {
            try context.console.json(slots.map { ["id": $0.id, "kind": $0.kind.rawValue, "scoped": $0.isScoped] })
        } else {
            for slot in slots {
                context.console.out("\(slot.id)  \(slot.kind.rawValue)\(slot.isScoped ? "  scoped" : "")")
            }
        }
    }

    static func removeKeySlot(_ arguments: ParsedArguments, _ context: CommandContext) async throws {
        let (vault, _) = try context.openVault()
        let slotKeyFile = arguments.value("slot-key-file").map(URL.init(fileURLWithPath:))
        let slotPassphrase = try arguments.value("slot-passphrase-file").map(context.passphrase(fromFile:))
        let unlock: VaultUnlock
        switch (slotPassphrase, slotKeyFile) {
        case (let passphrase?, let keyFile?): unlock = .composite(passphrase: passphrase, keyFile: keyFile)
        case (let passphrase?, nil): unlock = .passphrase(passphrase)
        case (nil, let keyFile?): unlock = .keyFile(keyFile)
        case (nil, nil): throw UsageError("name the slot to remove with --slot-key-file and/or --slot-passphrase-file")
        }
        context.console.progress("Re-keying the vault (every record re-sealed)...")
        try vault.removeUnlock(unlock)
        context.console.out("Removed the key slot")
    }

    static func verify(_ arguments: ParsedArguments, _ context: CommandContext) async throws {
        let (vault, _) = try context.openVault()
        let report = try vault.verify()
        if context.wantsJSON {
            try context.console.json([
                "formatVersion": report.formatVersion, "keySlots": report.keySlotCount, "records": report.recordCount,
                "authenticated": report.authenticatedRecordCount, "generation": report.generation,
            ])
        } else {
            context.console.out(
                "OK: \(report.recordCount) records (\(report.authenticatedRecordCount) decrypted), "
                    + "\(report.keySlotCount) key slots, generation \(report.generation)")
        }
    }

    static func backup(_ arguments: ParsedArguments, _ context: CommandContext) async throws {
        let destination = URL(fileURLWithPath: try arguments.positional(0, "the backup path"))
        _ = try context.vaultLocation().file(for: "backup")
        let (vault, _) = try context.openVault()
        try vault.backup(to: destination)
        context.console.out("Backed up to \(destination.path) (device-bound items left out)")
    }
}
