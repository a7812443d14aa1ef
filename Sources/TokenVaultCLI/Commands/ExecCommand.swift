import Foundation
import TokenVault

/// `exec`: runs a program with access tokens and secrets from the vault in its environment.
enum ExecCommand {
    /// One `--env NAME=token:ID` or `--env NAME=secret:NAME`.
    struct Binding {
        enum Source {
            case token(String)
            case secret(String)
        }

        let name: String
        let source: Source

        /// - Throws: ``UsageError`` for a malformed binding or a name no shell could use.
        init(_ text: String) throws {
            guard let equals = text.firstIndex(of: "=") else {
                throw UsageError("--env needs NAME=token:ID or NAME=secret:NAME, got \(text)")
            }
            name = String(text[..<equals])
            guard let first = name.unicodeScalars.first,
                first == "_" || (first.isASCII && first.properties.isAlphabetic),
                name.unicodeScalars.allSatisfy({
                    $0 == "_" || ($0.isASCII && $0.properties.isAlphabetic) || ("0"..."9").contains($0)
                })
            else { throw UsageError("--env: '\(name)' is not a variable name (letters, digits and _)") }
            let reference = text[text.index(after: equals)...]
            if reference.hasPrefix("token:"), reference.count > 6 {
                source = .token(String(reference.dropFirst(6)))
            } else if reference.hasPrefix("secret:"), reference.count > 7 {
                source = .secret(String(reference.dropFirst(7)))
            } else {
                throw UsageError("--env \(name): the value must be token:ID (or token:default) or secret:NAME")
            }
        }
    }

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) async throws {
        let bindings = try arguments.all("env").map(Binding.init)
        guard !bindings.isEmpty else { throw UsageError("exec needs at least one --env") }
        guard !arguments.positionals.isEmpty else { throw UsageError("exec needs a program to run after --") }
        if let duplicate = Dictionary(grouping: bindings, by: \.name).first(where: { $0.value.count > 1 })?.key {
            throw UsageError("--env \(duplicate) given twice")
        }
        let values: [[UInt8]]
        if let fromAgent = try AgentClient.values(of: bindings, context) {
            values = fromAgent
        } else {
            let (vault, _) = try context.openVault()
            var opened: [[UInt8]] = []
            for binding in bindings { opened.append(try await value(of: binding, vault, context)) }
            values = opened
            // Closed before the program starts, so it holds no lock on the vault however long it runs.
            vault.close()
        }
        // The vault's own passphrase never reaches the program.
        var inherited = context.environment
        inherited["TOKENVAULT_PASSPHRASE"] = nil
        for binding in bindings { inherited[binding.name] = nil }
        var environment = inherited.map { Array("\($0.key)=\($0.value)".utf8) }
        for (binding, value) in zip(bindings, values) {
            try checkHoldsNoNUL(value, binding)
            environment.append(Array("\(binding.name)=".utf8) + value)
        }
        throw ReportedExit(status: ChildProgram.run(arguments.positionals, environment: environment))
    }

    /// A fresh access token (refreshed first when it is about to expire) or a secret's bytes.
    private static func value(of binding: Binding, _ vault: Vault, _ context: CommandContext) async throws -> [UInt8] {
        switch binding.source {
        case .token(let reference):
            let credential = try context.credential(reference)
            try await credential.refreshIfNeeded()
            return Array(try credential.currentToken().accessToken.utf8)
        case .secret(let name):
            return [UInt8](try SecretStore(vault: vault, service: "tokenvault").data(forKey: name))
        }
    }

    /// - Throws: ``UsageError`` for a secret with a NUL byte, which an environment variable cannot hold.
    private static func checkHoldsNoNUL(_ value: [UInt8], _ binding: Binding) throws {
        guard case .secret(let name) = binding.source, value.contains(0) else { return }
        throw UsageError("the secret \(name) contains a NUL byte, which an environment variable cannot hold")
    }
}
