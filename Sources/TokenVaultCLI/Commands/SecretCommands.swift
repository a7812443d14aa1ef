import Foundation
import TokenVault

/// `secret set|get|rm|list`: plain secrets (API keys) in the vault's key-value store.
enum SecretCommands {
    static func store(_ context: CommandContext) throws -> SecretStore {
        SecretStore(vault: try context.openVault().0, service: "tokenvault")
    }

    static func set(_ arguments: ParsedArguments, _ context: CommandContext) async throws {
        let name = try arguments.positional(0, "the secret's name")
        let valueFile = arguments.value("value-file")
        let store = try store(context)
        let value: Data
        if let file = valueFile {
            value = try Data(contentsOf: URL(fileURLWithPath: file))
        } else if TerminalPrompt.isAvailable && isatty(STDIN_FILENO) == 1 {
            value = try TerminalPrompt.readSecret("Value for \(name): ").secureBytes.withUnsafeBytes { Data($0) }
        } else {
            value = FileHandle.standardInput.readDataToEndOfFile()
        }
        try store.set(value, forKey: name)
        context.console.out("Stored \(name)")
    }

    static func get(_ arguments: ParsedArguments, _ context: CommandContext) async throws {
        let name = try arguments.positional(0, "the secret's name")
        let value = try store(context).data(forKey: name)
        FileHandle.standardOutput.write(value)
        if isatty(STDOUT_FILENO) == 1 { FileHandle.standardOutput.write(Data("\n".utf8)) }
    }

    static func remove(_ arguments: ParsedArguments, _ context: CommandContext) async throws {
        let name = try arguments.positional(0, "the secret's name")
        try store(context).deleteItem(forKey: name)
        context.console.out("Removed \(name)")
    }

    static func list(_ arguments: ParsedArguments, _ context: CommandContext) async throws {
        let names = try store(context).keys()
        if context.wantsJSON { try context.console.json(names) } else { names.forEach(context.console.out) }
    }
}
