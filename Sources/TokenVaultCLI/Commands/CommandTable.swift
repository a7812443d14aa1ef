import AgentProtocol
import Foundation
import TokenVault

/// Every command, its options and help: the single table the parser and `--help` read.
enum CommandTable {
    static let global: [OptionSpec] = [
        OptionSpec(
            name: "vault", value: "PATH|URL",
            help: "the vault file, or a postgresql:// URL for a vault in PostgreSQL (else $TOKENVAULT_PATH, "
                + "else $XDG_DATA_HOME/tokenvault/vault.db)"),
        OptionSpec(name: "key-file", value: "PATH", help: "a key file, alone or with the passphrase"),
        OptionSpec(name: "passphrase-file", value: "PATH", help: "read the passphrase from a file"),
        OptionSpec(name: "passphrase-fd", value: "N", help: "read the passphrase from file descriptor N"),
        .flag("json", "print data as JSON"),
        .flag(
            "allow-insecure-permissions",
            "use a vault, key, passphrase or secret file that other users can access (else refused, exit 8)"),
    ]

    static let tokenOptions: [OptionSpec] = [
        OptionSpec(name: "issuer", value: "URL", help: "the authorization server"),
        OptionSpec(name: "client-id", value: "ID", help: "the OAuth client id"),
        OptionSpec(name: "client-secret-file", value: "PATH", help: "the client secret of a confidential client"),
        OptionSpec(name: "scope", value: "SCOPES", help: "scopes to ask for", repeatable: true),
        OptionSpec(name: "tag", value: "KEY=VALUE", help: "a tag to store with the token", repeatable: true),
        .choice("accessibility", Accessibility.self, value: "CLASS", "when the token is readable"),
        OptionSpec(name: "access-group", value: "GROUP", help: "the access group to store it in"),
    ]

    static let idleOption = OptionSpec(
        name: "idle", value: "DURATION",
        help: "lock and stop after this long without a request (90s, 15m, 1h; default 15m)")

    /// The arguments after the program name; run through a link named as git and Docker look
    /// helpers up (`git-credential-tokenvault`, `docker-credential-tokenvault`), the matching
    /// command comes first.
    static func helperAliases(_ commandLine: [String]) -> [String] {
        let arguments = Array(commandLine.dropFirst())
        guard let command = commandLine.first.flatMap(CommandLineWord.helperCommand(program:)) else { return arguments }
        return [command] + arguments
    }

    static let commands: [CommandSpec] = [
        CommandSpec(
            words: ["init"], arguments: "", summary: "Create a vault (passphrase and/or key file)",
            options: [
                .choice("kdf", KDFPreset.self, value: "PRESET", "the Argon2id cost", default: .moderate),
                .flag("no-passphrase", "a key file alone unlocks the vault"),
            ], run: VaultCommands.initialize),
        CommandSpec(
            words: ["passwd"], arguments: "", summary: "Change how the vault is unlocked",
            options: [
                OptionSpec(name: "new-passphrase-file", value: "PATH", help: "the new passphrase (else asked twice)"),
                OptionSpec(name: "new-key-file", value: "PATH", help: "a key file for the new unlock"),
                .flag("no-passphrase", "the new unlock is the key file alone"),
            ], run: VaultCommands.changePassphrase),
        CommandSpec(
            words: ["keyslot", "add"], arguments: "", summary: "Add a key slot, optionally scoped to access groups",
            options: [
                OptionSpec(name: "new-key-file", value: "PATH", help: "the slot's key file (created if missing)"),
                OptionSpec(name: "new-passphrase-file", value: "PATH", help: "the slot's passphrase"),
                OptionSpec(
                    name: "access-group", value: "GROUP", help: "scope the slot to this group", repeatable: true),
                .choice("kdf", KDFPreset.self, value: "PRESET", "the Argon2id cost", default: .moderate),
            ], run: VaultCommands.addKeySlot),
        CommandSpec(
            words: ["keyslot", "list"], arguments: "", summary: "List key slots", options: [],
            run: VaultCommands.listKeySlots),
        CommandSpec(
            words: ["keyslot", "remove"], arguments: "", summary: "Remove the key slot the given material opens",
            options: [
                OptionSpec(name: "slot-key-file", value: "PATH", help: "the slot's key file"),
                OptionSpec(name: "slot-passphrase-file", value: "PATH", help: "the slot's passphrase"),
            ], run: VaultCommands.removeKeySlot),
        CommandSpec(
            words: ["login"], arguments: "", summary: "Sign in and store the token",
            options: tokenOptions + [
                .choice("grant", LoginGrant.self, value: "GRANT", "how to sign in", default: .device),
                OptionSpec(name: "username", value: "NAME", help: "for the password grant"),
                OptionSpec(name: "password-file", value: "PATH", help: "for the password grant (else asked)"),
                .flag("browser", "sign in in a browser: authorization code with PKCE, redirected to 127.0.0.1"),
                .flag("no-open", "with --browser: only print the URL, do not run xdg-open"),
                OptionSpec(name: "timeout", value: "SECONDS", help: "with --browser: how long to wait (default 300)"),
            ], run: TokenCommands.login),
        CommandSpec(
            words: ["import"], arguments: "[FILE|-]", summary: "Store a token response (JSON) from a file or stdin",
            options: tokenOptions + [
                .flag(
                    "verify-id-token",
                    "check the ID token with the issuer's keys first (else its claims are stored as unverified)")
            ], run: TokenCommands.importToken),
        CommandSpec(
            words: ["list"], arguments: "", summary: "List stored tokens (no secrets)",
            options: [
                OptionSpec(name: "where", value: "TAG=VALUE", help: "only tokens with this tag", repeatable: true),
                OptionSpec(
                    name: "claim", value: "NAME=VALUE", help: "only tokens with this ID-token claim", repeatable: true),
                .flag("verified", "only tokens whose ID token was verified when it arrived (not imported ones)"),
            ], run: TokenCommands.list),
        CommandSpec(
            words: ["show"], arguments: "ID|default", summary: "Show a token's metadata",
            options: [.flag("reveal", "also print the token strings")], run: TokenCommands.show),
        CommandSpec(
            words: ["token"], arguments: "[ID|default]",
            summary: "Print the access token, refreshing it first if needed",
            options: [], run: TokenCommands.token),
        CommandSpec(
            words: ["default"], arguments: "[ID]", summary: "Show or set the default token", options: [],
            run: TokenCommands.setDefault),
        CommandSpec(
            words: ["tag"], arguments: "ID KEY=VALUE...", summary: "Set tags (KEY= removes one)", options: [],
            run: TokenCommands.tag),
        CommandSpec(
            words: ["refresh"], arguments: "ID", summary: "Refresh a token now", options: [], run: TokenCommands.refresh
        ),
        CommandSpec(
            words: ["revoke"], arguments: "ID", summary: "Revoke at the server (RFC 7009), then update storage",
            options: [.choice("type", RevocationChoice.self, value: "TYPE", "what to revoke", default: .all)],
            run: TokenCommands.revoke),
        CommandSpec(
            words: ["rm"], arguments: "ID", summary: "Remove a token locally", options: [], run: TokenCommands.remove),
        CommandSpec(
            words: ["exec"], arguments: "-- PROGRAM [ARGUMENTS...]",
            summary: "Run a program with fresh access tokens and secrets in its environment",
            options: [
                OptionSpec(
                    name: "env", value: "NAME=token:ID|NAME=secret:NAME",
                    help: "set NAME to a token's access token (refreshed if needed; ID or default) or a secret",
                    repeatable: true)
            ], run: ExecCommand.run),
        CommandSpec(
            words: ["git-credential"], arguments: "get|store|erase",
            summary: "git's credential helper (credential.helper = !tokenvault git-credential)", options: [],
            run: GitCredentialCommand.run),
        CommandSpec(
            words: ["docker-credential"], arguments: "get|store|erase|list",
            summary: "Docker's credential helper protocol (or run as docker-credential-tokenvault)", options: [],
            run: DockerCredentialCommand.run),
        CommandSpec(
            words: ["completion"], arguments: "bash|zsh|fish", summary: "Print a shell completion script",
            options: [], run: DocumentationCommands.completion),
        CommandSpec(
            words: ["help"], arguments: "", summary: "Print this overview, or the manual page",
            options: [.flag("man", "the tokenvault(1) manual page in roff (man -l -)")], run: DocumentationCommands.help
        ),
        CommandSpec(
            words: ["unlock"], arguments: "",
            summary: "Start an agent that holds the vault unlocked, so later commands skip the key derivation",
            options: [idleOption], run: AgentCommands.unlock),
        CommandSpec(
            words: ["lock"], arguments: "", summary: "Stop the vault's agent, wiping its keys", options: [],
            run: AgentCommands.lock),
        CommandSpec(
            words: ["agent"], arguments: "",
            summary: "Serve the unlocked vault on the agent socket (what unlock starts; detaches once serving)",
            options: [idleOption], run: AgentCommands.serve),
        CommandSpec(
            words: ["verify"], arguments: "", summary: "Check the integrity of every record", options: [],
            run: VaultCommands.verify),
        CommandSpec(
            words: ["backup"], arguments: "PATH", summary: "Write a consistent copy of the vault", options: [],
            run: VaultCommands.backup),
        CommandSpec(
            words: ["secret", "set"], arguments: "NAME",
            summary: "Store a secret (value from --value-file, a prompt or stdin)",
            options: [OptionSpec(name: "value-file", value: "PATH", help: "read the value from a file")],
            run: SecretCommands.set),
        CommandSpec(
            words: ["secret", "get"], arguments: "NAME", summary: "Print a secret", options: [], run: SecretCommands.get
        ),
        CommandSpec(
            words: ["secret", "rm"], arguments: "NAME", summary: "Remove a secret", options: [],
            run: SecretCommands.remove),
        CommandSpec(
            words: ["secret", "list"], arguments: "", summary: "List secret names", options: [],
            run: SecretCommands.list),
        CommandSpec(
            words: ["secret", "import"], arguments: "[PATH|-]",
            summary: "Import secrets from a pass store or a KeePassXC CSV export, all or none",
            options: [
                .choice(
                    "format", SecretFormat.self, value: "FORMAT",
                    "what PATH is: a pass store (default $PASSWORD_STORE_DIR or ~/.password-store) "
                        + "or a KeePassXC CSV file (- for stdin)"),
                .flag("replace", "replace secrets of the same name (else the import is refused, nothing written)"),
            ], run: SecretTransferCommands.importSecrets),
        CommandSpec(
            words: ["secret", "export"], arguments: "",
            summary: "Export every secret, in clear as a KeePassXC CSV or encrypted into a pass store",
            options: [
                .choice("format", SecretFormat.self, value: "FORMAT", "what to write"),
                OptionSpec(
                    name: "output", value: "PATH",
                    help: "keepassxc-csv: a new 0600 file instead of stdout; pass: the store "
                        + "(default $PASSWORD_STORE_DIR or ~/.password-store, with its .gpg-id)"),
                .flag("force", "overwrite files that exist (else refused, nothing written)"),
            ], run: SecretTransferCommands.exportSecrets),
    ]
}
