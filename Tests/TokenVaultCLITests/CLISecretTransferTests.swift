import Foundation
import TestSupport
import Testing
import TokenVault

/// `secret import|export` through the real binary, with the real `gpg` on a throwaway key: pass
/// stores in and out, KeePassXC CSV in and out, all or nothing, files 0600, no value printed.
@Suite struct CLISecretTransferTests {
    static let keepassExport =
        "\u{FEFF}" + #"""
            "Group","Title","Username","Password","URL","Notes","TOTP","Icon","Last Modified","Created"
            "Root","top","","PW-top-3f9a","","","","0","2026-01-01T00:00:00Z","2026-01-01T00:00:00Z"
            "Root/Work/CI","deploy","bot","PW,""deploy""-77","https://ci.example.com","line 1
            line 2","","0","2026-01-01T00:00:00Z","2026-01-01T00:00:00Z"

            """#
    static let values = ["PW-top-3f9a", #"PW,"deploy"-77"#, "PW-github-81c2", "PW-aws-5d0e"]

    let gnupg: GnuPGHome
    let work = TemporaryDirectory()

    init() throws { gnupg = try GnuPGHome() }

    /// A pass store in `work` with `.gpg-id` for the test key and the given entries.
    func passStore(_ name: String, _ entries: [String: String]) throws -> URL {
        let root = work.file(name)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try Data("\(GnuPGHome.recipient)\n".utf8).write(to: root.appendingPathComponent(".gpg-id"))
        for (entry, text) in entries { try gnupg.encrypt(text, to: root.appendingPathComponent(entry + ".gpg")) }
        return root
    }

    func run(_ vault: CLIVault, _ arguments: [String], input: String = "") throws -> CLIProcess.Result {
        let result = try vault.run(arguments, input: input, environment: gnupg.environment)
        for value in Self.values {
            #expect(!result.stderr.contains(value), "a value reached stderr")
        }
        return result
    }

    func secrets(_ vault: CLIVault) throws -> [String: String] {
        let names = try vault.run(["secret", "list"]).stdout.split(separator: "\n").map(String.init)
        return Dictionary(uniqueKeysWithValues: try names.map { ($0, try vault.run(["secret", "get", $0]).stdout) })
    }

    @Test func aPassStoreIsImportedWithItsNamesAndFirstLines() throws {
        let store = try passStore(
            "store", ["github": "PW-github-81c2\nlogin: me\n", "work/aws": "PW-aws-5d0e\n"])
        try FileManager.default.createDirectory(
            at: store.appendingPathComponent(".git"), withIntermediateDirectories: true)
        try gnupg.encrypt("not an entry\n", to: store.appendingPathComponent(".git/hidden.gpg"))
        let vault = try CLIVault()
        let imported = try run(vault, ["secret", "import", "--format", "pass", store.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout == "Imported 2 secrets\n")
        #expect(
            imported.stderr
                == "tokenvault: 1 entry had lines after the password, not imported: a secret holds one value\n")
        #expect(try secrets(vault) == ["github": "PW-github-81c2", "work/aws": "PW-aws-5d0e"])
        // $PASSWORD_STORE_DIR is where pass looks without a path.
        let other = try CLIVault()
        let fromEnvironment = try other.run(
            ["secret", "import", "--format", "pass"],
            environment: gnupg.environment.merging(["PASSWORD_STORE_DIR": store.path]) { $1 })
        #expect(
            fromEnvironment.status == 0 && fromEnvironment.stdout == "Imported 2 secrets\n", "\(fromEnvironment.stderr)"
        )
    }

    @Test func aKeePassXCExportIsImportedAndATakenNameRefusesTheWholeImport() throws {
        let vault = try CLIVault()
        let csv = work.file("export.csv")
        try Data(Self.keepassExport.utf8).write(to: csv)
        let first = try run(vault, ["secret", "import", "--format", "keepassxc-csv", csv.path])
        #expect(first.status == 0 && first.stdout == "Imported 2 secrets\n", "\(first.stderr)")
        #expect(first.stderr.contains("1 entry had a username, URL, notes or TOTP, not imported"))
        #expect(try secrets(vault) == ["top": "PW-top-3f9a", "Work/CI/deploy": #"PW,"deploy"-77"#])

        try vault.run(["secret", "rm", "top"]).expectSuccess()
        try vault.run(["secret", "set", "Work/CI/deploy"], input: "kept").expectSuccess()
        let refused = try run(vault, ["secret", "import", "--format", "keepassxc-csv", "-"], input: Self.keepassExport)
        #expect(refused.status == 1)
        #expect(refused.stderr == "tokenvault: Already stored: Work/CI/deploy; nothing was written.\n")
        #expect(try secrets(vault) == ["Work/CI/deploy": "kept"], "the import wrote something")
        let replaced = try run(
            vault, ["secret", "import", "--format", "keepassxc-csv", "--replace", "-"], input: Self.keepassExport)
        #expect(replaced.status == 0, "\(replaced.stderr)")
        #expect(try secrets(vault)["Work/CI/deploy"] == #"PW,"deploy"-77"#)
    }

    @Test func aBadEntryAnywhereStopsTheImportBeforeAnythingIsStored() throws {
        let vault = try CLIVault()
        let malformed = Self.keepassExport + #""Root","broken","","PW-never-stored"x,"","","","0","",""# + "\n"
        let badCSV = try run(vault, ["secret", "import", "--format", "keepassxc-csv", "-"], input: malformed)
        #expect(badCSV.status == 1)
        #expect(badCSV.stderr == "tokenvault: The CSV is malformed on line 5: text follows a closing quote.\n")
        let store = try passStore("store", ["good": "PW-github-81c2\n"])
        try Data("not gpg".utf8).write(to: store.appendingPathComponent("zz-broken.gpg"))
        let badPass = try run(vault, ["secret", "import", "--format", "pass", store.path])
        #expect(
            badPass.status == 1 && badPass.stderr.hasPrefix("tokenvault: gpg could not decrypt "), "\(badPass.stderr)")
        #expect(try vault.run(["secret", "list"]).stdout.isEmpty)
        let noFormat = try run(vault, ["secret", "import", store.path])
        #expect(noFormat.status == 2 && noFormat.stderr.contains("needs --format, one of: pass, keepassxc-csv"))
    }

    @Test func aCSVExportIsA0600FileThatIsNeverOverwrittenUnlessForced() throws {
        let vault = try CLIVault()
        try run(vault, ["secret", "import", "--format", "keepassxc-csv", "-"], input: Self.keepassExport)
            .expectSuccess()
        let file = work.file("out.csv")
        let written = try run(vault, ["secret", "export", "--format", "keepassxc-csv", "--output", file.path])
        #expect(written.status == 0 && written.stdout == "Exported 2 secrets to \(file.path)\n", "\(written.stderr)")
        #expect(try fileMode(file) == 0o600)
        let csv = try String(contentsOf: file, encoding: .utf8)
        #expect(csv.hasPrefix(#""Group","Title","Username","Password","URL","Notes""#))
        #expect(csv.contains(#""Root/Work/CI","deploy","","PW,""deploy""-77""#))
        try Data("mine".utf8).write(to: file)
        let refused = try run(vault, ["secret", "export", "--format", "keepassxc-csv", "--output", file.path])
        #expect(refused.status == 1 && refused.stderr == "tokenvault: \(file.path) already exists.\n")
        #expect(try String(contentsOf: file, encoding: .utf8) == "mine")
        try setFileMode(0o644, file)
        try run(vault, ["secret", "export", "--format", "keepassxc-csv", "--output", file.path, "--force"])
            .expectSuccess()
        #expect(try String(contentsOf: file, encoding: .utf8) == csv)
        #expect(try fileMode(file) == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: work.url.path).sorted() == ["out.csv"])
        let toStdout = try run(vault, ["secret", "export", "--format", "keepassxc-csv"])
        #expect(toStdout.stdout == csv && toStdout.stderr == "Exported 2 secrets\n")
    }

    @Test func aPassExportEncryptsToTheStoresRecipientsAndRefusesTakenFiles() throws {
        let vault = try CLIVault()
        try run(vault, ["secret", "import", "--format", "keepassxc-csv", "-"], input: Self.keepassExport)
            .expectSuccess()
        let store = try passStore("out", [:])
        let exported = try run(vault, ["secret", "export", "--format", "pass", "--output", store.path])
        #expect(
            exported.status == 0 && exported.stdout == "Exported 2 secrets to \(store.path)\n", "\(exported.stderr)")
        let deploy = store.appendingPathComponent("Work/CI/deploy.gpg")
        #expect(try gnupg.decrypt(deploy) == #"PW,"deploy"-77"# + "\n")
        #expect(try gnupg.decrypt(store.appendingPathComponent("top.gpg")) == "PW-top-3f9a\n")
        #expect(try fileMode(deploy) == 0o600)
        #expect(try !Data(contentsOf: deploy).contains(Data("deploy\"-77".utf8)))
        // No plaintext or staging file is left in the store: only entries and its .gpg-id.
        let files = FileManager.default.enumerator(atPath: store.path)?.compactMap { $0 as? String } ?? []
        #expect(files.sorted() == [".gpg-id", "Work", "Work/CI", "Work/CI/deploy.gpg", "top.gpg"])
        let before = try Data(contentsOf: deploy)
        let refused = try run(vault, ["secret", "export", "--format", "pass", "--output", store.path])
        #expect(refused.status == 1 && refused.stderr.hasSuffix("already exists.\n"), "\(refused.stderr)")
        #expect(try Data(contentsOf: deploy) == before)
        try run(vault, ["secret", "export", "--format", "pass", "--output", store.path, "--force"]).expectSuccess()
        let noRecipients = work.file("bare")
        try FileManager.default.createDirectory(at: noRecipients, withIntermediateDirectories: true)
        let bare = try run(vault, ["secret", "export", "--format", "pass", "--output", noRecipients.path])
        #expect(bare.status == 1 && bare.stderr.contains("No .gpg-id names the recipients"), "\(bare.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: noRecipients.path).isEmpty)
        // gpg refuses a recipient it has no key for: the export stops before writing any entry.
        let unknown = try passStore("unknown", [:])
        try Data("nobody@example.invalid\n".utf8).write(to: unknown.appendingPathComponent(".gpg-id"))
        let refusedByGPG = try run(vault, ["secret", "export", "--format", "pass", "--output", unknown.path])
        #expect(refusedByGPG.status == 1, "\(refusedByGPG.stderr)")
        #expect(refusedByGPG.stderr.hasPrefix("tokenvault: gpg could not encrypt "), "\(refusedByGPG.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: unknown.path) == [".gpg-id"])
    }

    @Test func importExportImportThroughBothFormatsGivesTheSameSecrets() throws {
        let first = try CLIVault()
        try run(first, ["secret", "import", "--format", "keepassxc-csv", "-"], input: Self.keepassExport)
            .expectSuccess()
        let store = try passStore("roundtrip", [:])
        try run(first, ["secret", "export", "--format", "pass", "--output", store.path]).expectSuccess()
        let second = try CLIVault()
        try run(second, ["secret", "import", "--format", "pass", store.path]).expectSuccess()
        let csv = try run(second, ["secret", "export", "--format", "keepassxc-csv"]).stdout
        let third = try CLIVault()
        try run(third, ["secret", "import", "--format", "keepassxc-csv", "-"], input: csv).expectSuccess()
        let original = try secrets(first)
        #expect(original.count == 2)
        #expect(try secrets(second) == original)
        #expect(try secrets(third) == original)
    }

    @Test func progressGoesToATerminalOnlyNeverToAPipe() throws {
        let store = try passStore("progress", ["a": "PW-github-81c2\n", "b": "PW-aws-5d0e\n"])
        let piped = try CLIVault()
        let quiet = try run(piped, ["secret", "import", "--format", "pass", store.path])
        #expect(quiet.status == 0 && quiet.stderr.isEmpty, "progress reached a pipe: \(quiet.stderr)")
        func importOnATerminal(redirecting: String = "") throws -> String {
            let vault = try CLIVault()
            let terminal = try PseudoTerminal(
                command:
                    "GNUPGHOME='\(gnupg.path)' '\(CLIProcess.executable.path)' secret import --format pass "
                    + "'\(store.path)' \(vault.unlock.map { "'\($0)'" }.joined(separator: " ")) \(redirecting)")
            return try terminal.waitForExit()
        }
        let screen = try importOnATerminal()
        #expect(screen.contains("Decrypting 2/2"), "\(screen)")
        #expect(screen.contains("Unlocking the vault (Argon2id)..."), "\(screen)")
        #expect(screen.contains("Imported 2 secrets") && screen.contains("EXIT=0"), "\(screen)")
        #expect(!screen.contains("PW-github-81c2") && !screen.contains("PW-aws-5d0e"))
        // With stdout captured, stderr still on the terminal shows no progress either.
        let captured = try importOnATerminal(redirecting: "> '\(work.file("stdout").path)'")
        #expect(captured.contains("EXIT=0") && !captured.contains("Decrypting") && !captured.contains("Unlocking"))
    }
}
