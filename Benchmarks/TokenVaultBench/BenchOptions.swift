import Foundation

/// The command line, parsed from one table that also generates `--help`.
struct BenchOptions {
    /// A short run (under 30 s) with fewer rounds and the smallest vault only.
    var quick = false
    /// Whether the vault section also grows a 1M-token vault (ignored with ``quick``).
    var full = false
    /// Where to write the JSON report (and the SVG chart beside it); none when `nil`.
    var jsonPath: String?
    /// Where vault and SQLite files go; a fresh folder under the temporary directory by default.
    var directory: String?
    /// The sections to run.
    var sections = Set(BenchSection.allCases)
    /// Whether `--help` was asked for.
    var showHelp = false
    /// The spec file of a fleet worker (``FleetWorker``): this process is one, not a run.
    var fleetWorkerSpec: String?
    /// The call to make again and again for a profiler, and how many times (``CallLoop``): this
    /// process makes them instead of a run.
    var callLoop: (kind: CallLoop.Kind, count: Int)?

    /// Why the command line was refused.
    struct UsageError: Error, CustomStringConvertible {
        /// What was wrong.
        let description: String
    }

    /// One option: its name, the value it takes, what it does, and how it changes the options.
    private struct Option: Sendable {
        let name: String
        let value: String?
        let help: String
        /// Left out of `--help`: the harness's own options, not the user's.
        var hidden = false
        let apply: @Sendable (inout BenchOptions, String) throws -> Void
    }

    private static let table: [Option] = [
        Option(name: "--quick", value: nil, help: "short run (under 30 s): fewer rounds, 1k-token vault only") {
            options, _ in options.quick = true
        },
        Option(
            name: "--full", value: nil,
            help: "vault section also at 1M tokens (about 4 GiB of files; tens of minutes on 2 cores)"
        ) { options, _ in options.full = true },
        Option(
            name: "--json", value: "FILE", help: "also write the results as JSON to FILE, and a chart to FILE's .svg"
        ) {
            options, value in options.jsonPath = value
        },
        Option(
            name: "--dir", value: "DIR",
            help: "put vault and SQLite files in a new folder under DIR, removed at the end (default: $TMPDIR)"
        ) {
            options, value in options.directory = value
        },
        Option(
            name: "--only", value: "LIST",
            help: "run only these sections, comma-separated: "
                + BenchSection.allCases.map(\.rawValue).joined(separator: ",")
        ) { options, value in
            var sections = Set<BenchSection>()
            for name in value.split(separator: ",") {
                guard let section = BenchSection(rawValue: String(name)) else {
                    throw UsageError(description: "unknown section '\(name)'")
                }
                sections.insert(section)
            }
            options.sections = sections
        },
        Option(
            name: "--call-loop", value: "KIND[:N]",
            help: "instead of a run, fill a vault of \(CallLoop.filledTokens) tokens, then make N calls (100) "
                + "of one kind for a profiler: " + CallLoop.Kind.allCases.map(\.rawValue).joined(separator: ",")
        ) { options, value in
            let parts = value.split(separator: ":", omittingEmptySubsequences: false)
            guard let kind = CallLoop.Kind(rawValue: String(parts[0])), parts.count <= 2 else {
                throw UsageError(description: "unknown call '\(value)'")
            }
            let count = parts.count == 2 ? Int(parts[1]) : 100
            guard let count, count > 0 else { throw UsageError(description: "bad count in '\(value)'") }
            options.callLoop = (kind, count)
        },
        Option(name: "--help", value: nil, help: "print this help") { options, _ in options.showHelp = true },
        Option(
            name: "--fleet-worker", value: "FILE", help: "run as a fleet worker (the fleet section starts these)",
            hidden: true
        ) { options, value in options.fleetWorkerSpec = value },
    ]

    /// The usage text, generated from the option table.
    static var help: String {
        let shown = table.filter { !$0.hidden }.map { option in
            (left: option.name + (option.value.map { " " + $0 } ?? ""), help: option.help)
        }
        let width = shown.map(\.left.count).max() ?? 0
        let lines = shown.map { "  " + $0.left.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + $0.help }
        return (["usage: tokenvault-bench [options]", "", "options:"] + lines).joined(separator: "\n")
    }

    /// A new folder for this run's files, under `--dir` or the temporary directory; the caller
    /// removes it at the end.
    func makeRunDirectory() throws -> URL {
        let parent = directory.map { URL(fileURLWithPath: $0) } ?? FileManager.default.temporaryDirectory
        let url = parent.appendingPathComponent("tokenvault-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Parses arguments (without the program name).
    ///
    /// - Throws: ``UsageError`` for an unknown option or a missing value.
    static func parse(_ arguments: [String]) throws -> BenchOptions {
        var options = BenchOptions()
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            guard let option = table.first(where: { $0.name == argument }) else {
                throw UsageError(description: "unknown option '\(argument)'")
            }
            var value = ""
            if let name = option.value {
                guard let given = remaining.popFirst() else {
                    throw UsageError(description: "\(option.name) needs a \(name)")
                }
                value = given
            }
            try option.apply(&options, value)
        }
        return options
    }
}
