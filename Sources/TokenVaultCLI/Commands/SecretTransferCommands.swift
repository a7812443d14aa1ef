import Foundation
import TokenVault

/// `secret import|export`: secrets in from, and out to, `pass` and KeePassXC. Every source is read
/// and checked before the vault is unlocked, and the import is one vault transaction, so a bad
/// entry or a taken name leaves the vault as it was. Counts are printed, never values.
enum SecretTransferCommands {
    /// What a source held, ready to store.
    private struct Source {
        let entries: [SecretTransferEntry]
        /// How many entries had more than a password, and what that was.
        let dropped: Int
        let droppedWhat: String
    }

    static func importSecrets(_ arguments: ParsedArguments, _ context: CommandContext) async throws {
        let format = try requiredFormat(arguments, "import")
        let replacing = arguments.has("replace")
        let source: Source
        switch format {
        case .keepassxcCSV:
            let path = try arguments.positional(0, "the CSV file (or - for standard input)")
            let data =
                path == "-"
                ? FileHandle.standardInput.readDataToEndOfFile() : try Data(contentsOf: URL(fileURLWithPath: path))
            let parsed = try KeePassXCCSV.parse(data)
            source = Source(
                entries: parsed.entries, dropped: parsed.entriesWithDroppedFields,
                droppedWhat: "a username, URL, notes or TOTP")
        case .pass:
            let store = passwordStore(arguments.positionals.first, context)
            var withMoreLines = 0
            let entries = try context.console.mapShowingProgress("Decrypting", try store.entryNames()) { name in
                let (value, hadMoreLines) = PasswordStore.password(in: try GnuPG.decrypt(try store.file(for: name)))
                if hadMoreLines { withMoreLines += 1 }
                return SecretTransferEntry(name: name, value: value)
            }
            source = Source(entries: entries, dropped: withMoreLines, droppedWhat: "lines after the password")
        }
        try SecretTransferEntry.checkUnique(source.entries)
        try SecretCommands.store(context).set(source.entries.map { ($0.name, $0.value) }, replacing: replacing)
        if context.wantsJSON {
            try context.console.json(["imported": source.entries.count, "dropped": source.dropped])
        } else {
            context.console.out("Imported \(count(source.entries.count))")
        }
        if source.dropped > 0 {
            context.console.error(
                "tokenvault: \(count(source.dropped, "entry", "entries")) had \(source.droppedWhat), "
                    + "not imported: a secret holds one value")
        }
    }

    static func exportSecrets(_ arguments: ParsedArguments, _ context: CommandContext) async throws {
        let format = try requiredFormat(arguments, "export")
        let output = arguments.value("output")
        let replacing = arguments.has("force")
        let secrets = try SecretCommands.store(context)
        let entries = try secrets.keys().map { SecretTransferEntry(name: $0, value: try secrets.data(forKey: $0)) }
        switch format {
        case .keepassxcCSV:
            let data = try KeePassXCCSV.format(entries)
            guard let output else {
                context.console.write(data)
                context.console.error("Exported \(count(entries.count))")
                return
            }
            try PrivateOutputFile.write(data, to: URL(fileURLWithPath: output), replacing: replacing)
            context.console.out("Exported \(count(entries.count)) to \(output)")
        case .pass:
            let store = passwordStore(output, context)
            try exportToPass(entries, store, replacing: replacing, context)
            context.console.out("Exported \(count(entries.count)) to \(store.root.path)")
        }
    }

    /// Encrypts every entry before writing the first, so a missing recipient or a taken file
    /// stops the export with nothing written.
    private static func exportToPass(
        _ entries: [SecretTransferEntry], _ store: PasswordStore, replacing: Bool, _ context: CommandContext
    ) throws {
        // A folder that is not there is no store (`pass init` makes one), not one to create.
        _ = try store.entryNames()
        let planned = try entries.map { entry in
            (entry: entry, file: try store.file(for: entry.name), recipients: try store.recipients(for: entry.name))
        }
        if !replacing, let taken = planned.first(where: { FileManager.default.fileExists(atPath: $0.file.path) }) {
            throw SecretTransferError.fileExists(taken.file.path)
        }
        let encrypted = try context.console.mapShowingProgress("Encrypting", planned) { plan in
            try GnuPG.encrypt(PasswordStore.plaintext(of: plan.entry.value), to: plan.recipients, for: plan.entry.name)
        }
        for (plan, ciphertext) in zip(planned, encrypted) {
            try FileManager.default.createDirectory(
                at: plan.file.deletingLastPathComponent(), withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
            try PrivateOutputFile.write(ciphertext, to: plan.file, replacing: replacing)
        }
        let multiLine = entries.filter { $0.value.contains(UInt8(ascii: "\n")) }.count
        if multiLine > 0 {
            context.console.error(
                "tokenvault: \(count(multiLine)) span several lines; pass takes only the first as the password")
        }
    }

    private static func requiredFormat(_ arguments: ParsedArguments, _ verb: String) throws -> SecretFormat {
        guard let format = try arguments.choice("format", as: SecretFormat.self) else {
            throw UsageError("secret \(verb) needs --format, one of: " + SecretFormat.choices.joined(separator: ", "))
        }
        return format
    }

    /// The store at `path`, else the one `pass` uses.
    private static func passwordStore(_ path: String?, _ context: CommandContext) -> PasswordStore {
        path.map { PasswordStore(root: URL(fileURLWithPath: $0, isDirectory: true)) }
            ?? .standard(environment: context.environment, home: FileManager.default.homeDirectoryForCurrentUser)
    }

    private static func count(_ number: Int, _ one: String = "secret", _ many: String = "secrets") -> String {
        "\(number) \(number == 1 ? one : many)"
    }
}
