// tokenvault-bench: the library beside its physical limits on the same machine, in one run:
// `swift run -c release tokenvault-bench [--quick] [--json FILE]`; `--help` for more.
import Foundation

let options: BenchOptions
do {
    options = try BenchOptions.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("tokenvault-bench: \(error)\n\n\(BenchOptions.help)\n".utf8))
    exit(2)
}
if options.showHelp {
    print(BenchOptions.help)
    exit(0)
}
do {
    if let spec = options.fleetWorkerSpec {
        try await FleetWorker.run(specAt: spec)
    } else if let (kind, count) = options.callLoop {
        let directory = try options.makeRunDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try CallLoop.run(kind, count: count, in: directory)
    } else {
        try await BenchmarkRun(options: options).run()
    }
} catch {
    FileHandle.standardError.write(Data("tokenvault-bench: \(error)\n".utf8))
    exit(1)
}
