import AgentProtocol
import Foundation
import TestSupport
import Testing

@testable import TokenVaultCLI

/// The front `tokenvault`: it answers the commands an agent serves on its own, without
/// `tokenvault-core`, and reads a command line as the full parser does; everything else it leaves
/// to the core.
@Suite struct CLIFrontTests {
    static let secretValue = "SV-front-7d3e91a4"

    @Test func theFrontAloneAnswersThroughTheAgentAndLeavesEverythingElseToTheCore() throws {
        let vault = try CLIVault()
        let agent = try AgentProcess(vault)
        defer { agent.stop() }
        try agent.run(["secret", "set", "api"], input: Self.secretValue).expectSuccess()

        // The front in a folder without `tokenvault-core`: what works there, the front did alone. A
        // hard link, where it can be one: a copy is open for writing while it is made, a process
        // another test starts meanwhile can inherit that descriptor, and running the copy then fails
        // with "Text file busy".
        let folder = TemporaryDirectory()
        let front = folder.file("tokenvault")
        do {
            try FileManager.default.linkItem(at: CLIProcess.executable, to: front)
        } catch {
            try FileManager.default.copyItem(at: CLIProcess.executable, to: front)  // another file system
        }
        func alone(_ arguments: [String], input: String = "") throws -> CLIProcess.Result {
            CLIProcess.finish(
                try CLIProcess.start(
                    ["--vault", vault.path] + arguments, input: input, environment: agent.environment,
                    withoutTerminal: true, program: front))
        }
        let got = try alone(["secret", "get", "api"])
        #expect(got.status == 0 && got.stdout == Self.secretValue, "\(got.stderr)")
        let valueFile = folder.file("value")
        try writePrivateFile("from a file", to: valueFile)
        try alone(["secret", "set", "filed", "--value-file", valueFile.path]).expectSuccess()
        #expect(try alone(["secret", "get", "filed"]).stdout == "from a file")
        #expect(try alone(["secret", "list", "--json"]).json() as? [String] == ["api", "filed"])
        let missing = try alone(["secret", "get", "nope"])
        #expect(missing.status == 5 && missing.stderr.hasPrefix("tokenvault: "), "\(missing.stderr)")

        // Help, a value on standard input, an unknown option and a command the agent does not run
        // are the core's: the front says it cannot run it, and nothing reached the agent's vault.
        let core = folder.file("tokenvault-core").path
        for arguments in [
            ["secret", "get", "--help"], ["secret", "set", "stdin"], ["secret", "get", "--x"], ["verify"],
        ] {
            let result = try alone(arguments, input: "value")
            #expect(result.status == 1 && result.stderr.contains("cannot run \(core)"), "\(arguments) \(result.stderr)")
        }
        #expect(try agent.run(["secret", "list"]).stdout == "api\nfiled\n")

        agent.stop()
        let withoutAgent = try alone(["secret", "get", "api"])
        #expect(
            withoutAgent.status == 1 && withoutAgent.stderr.contains("cannot run \(core)"), "\(withoutAgent.stderr)")
    }

    @Test func theFrontsTableOfServedCommandsIsTheCommandTables() throws {
        #expect(AgentClient.servedCommands == Set(ServedCommand.all.map(\.name)))
        for served in ServedCommand.all {
            let spec = try #require(CommandTable.commands.first { $0.words == served.words }, "\(served.name)")
            #expect(Set(spec.options.filter { $0.value != nil }.map(\.name)) == served.valueOptions, "\(served.name)")
            #expect(Set(spec.options.filter { $0.value == nil }.map(\.name)) == served.flags, "\(served.name)")
            // A longer command starting with the same words would be the parser's choice, not the front's.
            for other in CommandTable.commands where other.words.count > served.words.count {
                #expect(Array(other.words.prefix(served.words.count)) != served.words, "\(other.name)")
            }
        }
        #expect(Set(CommandTable.global.filter { $0.value != nil }.map(\.name)) == ServedCommand.globalValueOptions)
        #expect(Set(CommandTable.global.filter { $0.value == nil }.map(\.name)) == ServedCommand.globalFlags)
    }

    /// Command lines and whether the front forwards them.
    static let commandLines: [([String], Bool)] = [
        (["secret", "get", "a"], true),
        (["--vault", "/v/one.db", "secret", "get", "a"], true),
        (["secret", "get", "a", "--vault=/v/two.db"], true),
        (["--json", "list", "--where", "k=v", "--claim", "sub=1", "--verified"], true),
        (["list", "--where", "--vault"], true),
        (["show", "default", "--reveal"], true),
        (["token"], true),
        (["--passphrase-file", "/p", "secret", "rm", "a"], true),
        (["secret", "set", "n", "--value-file", "/f"], true),
        (["secret", "get", "--", "--vault"], true),
        (["secret", "set", "n"], false),
        (["git-credential", "get"], false),
        (["docker-credential", "list"], false),
        (["secret", "get", "--help"], false),
        (["-h", "token"], false),
        (["secret", "get", "a", "--unknown"], false),
        (["--reveal", "show", "default"], false),
        (["secret", "get", "--vault"], false),
        (["--json=yes", "token"], false),
        (["init"], false),
        (["secret"], false),
        ([], false),
    ]

    @Test(arguments: commandLines)
    func theFrontReadsACommandLineAsTheParserDoes(_ line: [String], forwarded expected: Bool) throws {
        let forwarded = ForwardedCommandLine(["tokenvault"] + line)
        #expect((forwarded != nil) == expected)
        guard let forwarded else { return }
        let parser = CommandLineParser(commands: CommandTable.commands, globalOptions: CommandTable.global)
        let (command, arguments) = try #require(try parser.parse(line))
        #expect(command.name == forwarded.command.name)
        #expect(arguments.value("vault") == forwarded.vault)
        #expect(arguments.value("value-file") == forwarded.valueFile)
        #expect(forwarded.arguments == line)
    }

    @Test func aHelperNameIsTheCoresToRead() {
        #expect(ForwardedCommandLine(["/usr/bin/git-credential-tokenvault", "get"]) == nil)
        #expect(ForwardedCommandLine(["docker-credential-tokenvault", "list"]) == nil)
        #expect(ForwardedCommandLine(["/usr/bin/tokenvault", "token"]) != nil)
    }
}
