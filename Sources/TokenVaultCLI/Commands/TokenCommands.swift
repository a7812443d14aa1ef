import Foundation
import TokenVault

/// login, import, list, show, token, default, tag, refresh, revoke, rm.
enum TokenCommands {
    static func login(_ arguments: ParsedArguments, _ context: CommandContext) async throws {
        // Every option is resolved before the vault is unlocked, so bad input costs no passphrase.
        let browser = try arguments.has("browser") ? BrowserLogin(arguments, context) : nil
        let grant = try arguments.choice("grant", as: LoginGrant.self)
        if browser != nil, grant != nil { throw UsageError("--browser and --grant exclude each other") }
        let username = arguments.value("username")
        if grant == .password, username == nil { throw UsageError("--grant password needs --username") }
        let passwordFile = arguments.value("password-file")
        let storing = try StoreOptions(arguments)
        let client = try oauth2Client(arguments)
        _ = try context.openVault()
        let token: Token
        if let browser {
            token = try await browser.signIn(client)
        } else {
            switch grant ?? .device {
            case .device:
                let authorization = try await client.deviceAuthorization()
                context.console.error(
                    "To sign in, open \(authorization.verificationURI.absoluteString) and enter the code \(authorization.userCode)"
                )
                if let complete = authorization.verificationURIComplete {
                    context.console.error("(or open \(complete.absoluteString))")
                }
                context.console.progress("Waiting for approval...")
                token = try await client.pollForToken(authorization)
            case .clientCredentials:
                token = try await client.clientCredentials()
            case .password:
                let username = username ?? ""
                let password =
                    try passwordFile.map(context.passphrase(fromFile:))
                    ?? TerminalPrompt.readSecret("Password for \(username): ")
                // The grant sends the password in a form body, so it has to become a String here.
                let text = password.secureBytes.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
                token = try await client.password(username: username, password: text)
            }
        }
        try store(token, storing, context)
    }

    /// The authorization-code grant with PKCE through the browser and a loopback redirect: the URL
    /// goes to stderr and, unless `--no-open`, to `xdg-open`.
    private struct BrowserLogin {
        let timeout: Duration
        let opens: Bool
        let context: CommandContext

        init(_ arguments: ParsedArguments, _ context: CommandContext) throws {
            let seconds = try arguments.value("timeout").map { text in
                guard let value = Int(text), value > 0 else { throw UsageError("--timeout needs a number of seconds") }
                return value
            }
            timeout = .seconds(seconds ?? 300)
            opens = !arguments.has("no-open")
            self.context = context
        }

        func signIn(_ client: OAuth2Client) async throws -> Token {
            let (console, environment, opens) = (context.console, context.environment, opens)
            return try await client.authorizeThroughLoopback(timeout: timeout) { url in
                console.error("To sign in, open this URL in a browser:\n\(url.absoluteString)")
                if opens { BrowserOpener.open(url, environment: environment) }
                console.progress("Waiting for the browser...")
            }
        }
    }

    static func importToken(_ arguments: ParsedArguments, _ context: CommandContext) async throws {
        let source = arguments.positionals.first ?? "-"
        let data =
            source == "-"
            ? FileHandle.standardInput.readDataToEndOfFile() : try Data(contentsOf: URL(fileURLWithPath: source))
        let client = try oauth2Client(arguments)
        let storing = try StoreOptions(arguments)
        var token = try Token(
            response: data,
            context: Token.Context(
                issuer: client.issuer, clientID: client.clientID, clientSecret: try clientSecret(arguments),
                scopes: client.scopes))
        if arguments.has("verify-id-token") { token = try await client.validatingIDToken(of: token) }
        _ = try context.openVault()
        try store(token, storing, context)
    }

    static func list(_ arguments: ParsedArguments, _ context: CommandContext) async throws {
        let tags = try ParsedArguments.pairs(arguments.all("where"))
        let claims = try ParsedArguments.pairs(arguments.all("claim"))
        let verifiedOnly = arguments.has("verified")
        _ = try context.unlockedVault()
        let defaultID = try visibleDefaultID()
        let matches = try matching(tags: tags, claims: claims).filter { !verifiedOnly || $0.claimsVerified }.sorted {
            $0.id < $1.id
        }
        if context.wantsJSON {
            try context.console.json(matches.map { describe($0, isDefault: $0.id == defaultID) })
        } else {
            for metadata in matches {
                let who = metadata.subject ?? metadata.preferredUsername ?? "-"
                let tagText = metadata.tags.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(
                    separator: " ")
                context.console.out("\(metadata.id == defaultID ? "*" : " ") \(metadata.id)  \(who)  \(tagText)")
            }
        }
    }

    /// The tokens with all of `tags` and `claims`: the vault's index answers the tags, or else the
    /// first indexed claim, so only the candidates it names are compared in full.
    private static func matching(tags: [String: String], claims: [String: String]) throws -> [Token.Metadata] {
        let storage = Credential.tokenStorage
        let candidates: [Token.Metadata]
        if !tags.isEmpty {
            candidates = try storage.metadata(taggedWith: tags)
        } else if let claim = claims.sorted(by: { $0.key < $1.key }).first(where: {
            Token.Metadata.indexedClaims.contains($0.key)
        }) ?? claims.first {
            candidates = try storage.metadata(claim: claim.key, equals: claim.value)
        } else {
            candidates = try storage.allMetadata()
        }
        return candidates.filter { metadata in claims.allSatisfy { metadata.claim($0.key, equals: $0.value) } }
    }

    static func show(_ arguments: ParsedArguments, _ context: CommandContext) async throws {
        let reference = try arguments.positional(0, "a credential id or 'default'")
        let reveal = arguments.has("reveal")
        _ = try context.unlockedVault()
        let credential = try context.credential(reference)
        let token = try credential.currentToken()
        var fields = describe(
            credential.metadata, isDefault: try visibleDefaultID() == credential.id)
        fields["tokenType"] = token.tokenType
        fields["expiresAt"] = ISO8601DateFormatter().string(from: token.expiresAt)
        fields["issuer"] = token.context.issuer.absoluteString
        fields["clientID"] = token.context.clientID
        fields["scope"] = token.scope ?? []
        fields["has"] = Token.Kind.allCases.filter { token.value(of: $0) != nil }.map(\.rawValue)
        if reveal {
            for kind in Token.Kind.allCases { fields[kind.rawValue] = token.value(of: kind) }
        }
        if context.wantsJSON {
            try context.console.json(fields)
        } else {
            for key in fields.keys.sorted() { context.console.out("\(key): \(fields[key].map { "\($0)" } ?? "")") }
        }
    }

    static func token(_ arguments: ParsedArguments, _ context: CommandContext) async throws {
        _ = try context.unlockedVault()
        let credential = try context.credential(arguments.positionals.first ?? "default")
        try await credential.refreshIfNeeded()
        context.console.out(try credential.currentToken().accessToken)
    }

    static func setDefault(_ arguments: ParsedArguments, _ context: CommandContext) async throws {
        _ = try context.openVault()
        guard let reference = arguments.positionals.first else {
            let id = try Credential.tokenStorage.defaultTokenID()
            if context.wantsJSON {
                try context.console.json(["default": id as Any])
            } else {
                context.console.out(id ?? "(none)")
            }
            return
        }
        try Credential.setDefault(try context.credential(reference))
        context.console.out("Default: \(reference)")
    }

    static func tag(_ arguments: ParsedArguments, _ context: CommandContext) async throws {
        let reference = try arguments.positional(0, "a credential id")
        _ = try context.openVault()
        let credential = try context.credential(reference)
        var tags = credential.tags
        for (key, value) in try ParsedArguments.pairs(Array(arguments.positionals.dropFirst())) {
            tags[key] = value.isEmpty ? nil : value
        }
        try credential.setTags(tags)
        context.console.out(
            "Tags: " + tags.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
    }

    static func refresh(_ arguments: ParsedArguments, _ context: CommandContext) async throws {
        let reference = try arguments.positional(0, "a credential id")
        _ = try context.openVault()
        let credential = try context.credential(reference)
        context.console.progress("Refreshing...")
        try await credential.refresh()
        context.console.out("Refreshed; expires at \(ISO8601DateFormatter().string(from: credential.token.expiresAt))")
    }

    static func revoke(_ arguments: ParsedArguments, _ context: CommandContext) async throws {
        let reference = try arguments.positional(0, "a credential id")
        let type = (try arguments.choice("type", as: RevocationChoice.self) ?? .all).revokeType
        _ = try context.openVault()
        let credential = try context.credential(reference)
        try await credential.revoke(type: type)
        context.console.out(
            credential.isRemoved ? "Revoked and removed \(credential.id)" : "Revoked; \(credential.id) kept")
    }

    static func remove(_ arguments: ParsedArguments, _ context: CommandContext) async throws {
        let reference = try arguments.positional(0, "a credential id")
        _ = try context.openVault()
        let credential = try context.credential(reference)
        try credential.remove()
        context.console.out("Removed \(credential.id) (not revoked at the server)")
    }

    // MARK: Helpers

    private static func oauth2Client(_ arguments: ParsedArguments) throws -> OAuth2Client {
        guard let issuer = arguments.value("issuer").flatMap(URL.init(string:)) else {
            throw UsageError("--issuer URL is required")
        }
        guard let clientID = arguments.value("client-id") else { throw UsageError("--client-id is required") }
        let scopes = arguments.all("scope").flatMap {
            $0.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
        }
        return OAuth2Client(
            issuer: issuer, clientID: clientID, clientSecret: try clientSecret(arguments), scopes: scopes)
    }

    /// The client secret file's contents, refused (exit 8) when others may access the file unless
    /// `--allow-insecure-permissions` is given, as key files are.
    private static func clientSecret(_ arguments: ParsedArguments) throws -> String? {
        try arguments.value("client-secret-file").map {
            try Passphrase(
                contentsOf: URL(fileURLWithPath: $0),
                allowsInsecurePermissions: arguments.has("allow-insecure-permissions")
            ).secureBytes.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        }
    }

    /// How `login` and `import` store a token: `--tag`, `--accessibility`, `--access-group`.
    private struct StoreOptions {
        let tags: [String: String]
        let security: [Credential.Security]

        init(_ arguments: ParsedArguments) throws {
            tags = try ParsedArguments.pairs(arguments.all("tag"))
            var security = Credential.Security.standard
            if let accessibility = try arguments.choice("accessibility", as: Accessibility.self) {
                security = [.accessibility(accessibility)]
            }
            if let group = arguments.value("access-group") { security.append(.accessGroup(group)) }
            self.security = security
        }
    }

    private static func store(_ token: Token, _ options: StoreOptions, _ context: CommandContext) throws {
        let credential = try Credential.store(token, tags: options.tags, security: options.security)
        if context.wantsJSON {
            try context.console.json(["id": credential.id])
        } else {
            context.console.out(credential.id)
        }
    }

    /// The default token id, or `nil` when there is none or the unlock is scoped to access groups
    /// (the default is vault-wide, so a scoped unlock may not read it).
    private static func visibleDefaultID() throws -> String? {
        do {
            return try Credential.tokenStorage.defaultTokenID()
        } catch CredentialError.storage(.accessDenied) {
            return nil
        }
    }

    private static func describe(_ metadata: Token.Metadata, isDefault: Bool) -> [String: Any] {
        var fields: [String: Any] = ["id": metadata.id, "tags": metadata.tags, "default": isDefault]
        fields["subject"] = metadata.subject
        fields["email"] = metadata.email
        fields["preferredUsername"] = metadata.preferredUsername
        fields["claimsVerified"] = metadata.claimsVerified
        return fields
    }
}
