import Foundation
import TokenVault

/// `secret set|get|rm|list`: plain secrets (API keys) in the vault's key-value store.
enum SecretCommands {
    static func store(_ context: CommandContext) throws -> SecretStore {
        SecretStore(vault: try context.unlockedVault(), service: "tokenvault")
    }

    static func set(_ arguments: ParsedArguments, _ context: CommandContext) async throws {
        let name = try arguments.positional(0, "the secret's name")
        let store = try store(context)
        try store.set(try context.input ?? value(arguments, name: name), forKey: name)
        context.console.out("Stored \(name)")
    }

    /// The value `secret set` stores: from `--value-file`, else asked on the terminal, else
    /// standard input. The agent's client reads it here and sends it with the request.
    static func value(_ arguments: ParsedArguments, name: String) throws -> Data {
        if let file = arguments.value("value-file") {
            return try Data(contentsOf: URL(fileURLWithPath: file))
        } else if TerminalPrompt.isAvailable && isatty(STDIN_FILENO) == 1 {
            return try TerminalPrompt.readSecret("Value for \(name): ").secureBytes.withUnsafeBytes { Data($0) }
        } else {
            return FileHandle.standardInput.readDataToEndOfFile()
        }
    }

    static func get(_ arguments: ParsedArguments, _ context: CommandContext) async throws {
        let name = try arguments.positional(0, "the secret's name")
        let value = try store(context).data(forKey: name)
        context.console.write(value)
        if context.stdoutIsTerminal { context.console.write(Data("\n".utf8)) }
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
