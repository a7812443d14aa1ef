import Foundation
import VaultCrypto
import VaultStorage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The machine a run measured, printed at the top so every number can be read against it.
struct Machine: Codable, Sendable {
    /// The CPU model (`model name` in /proc/cpuinfo).
    let cpuModel: String
    /// Online processors (`sysconf(_SC_NPROCESSORS_ONLN)`).
    let onlineCores: Int
    /// Processors this process may use (`activeProcessorCount`).
    let activeCores: Int
    /// Physical memory in bytes.
    let memoryBytes: UInt64
    /// The operating system and kernel.
    let operatingSystem: String
    /// libsodium's version string.
    let libsodiumVersion: String
    /// The CPU features libsodium detected (they pick its ChaCha20/Poly1305 code).
    let libsodiumCPUFeatures: [String]
    /// SQLite's version.
    let sqliteVersion: String
    /// How the harness was compiled.
    let build: String
    /// The cost of reading the clock once, in nanoseconds (included in every sample).
    let clockReadNanoseconds: Double
    /// Where the vault files went.
    let directory: String

    /// Describes this machine.
    ///
    /// - Parameter directory: Where vault files go.
    static func current(directory: String) -> Machine {
        RawSodiumBaseline.ensureInitialized()
        return Machine(
            cpuModel: cpuModelName(), onlineCores: sysconf(Int32(_SC_NPROCESSORS_ONLN)),
            activeCores: ProcessInfo.processInfo.activeProcessorCount,
            memoryBytes: ProcessInfo.processInfo.physicalMemory,
            operatingSystem: operatingSystemName(), libsodiumVersion: RawSodiumBaseline.versionString,
            libsodiumCPUFeatures: RawSodiumBaseline.cpuFeatures, sqliteVersion: SQLiteDatabase.libraryVersion,
            build: buildConfiguration, clockReadNanoseconds: Stopwatch.overheadNanoseconds(), directory: directory)
    }

    /// The header lines.
    var lines: [String] {
        [
            "CPU: \(cpuModel), \(onlineCores) cores online, \(activeCores) usable; "
                + "\(String(format: "%.1f", Double(memoryBytes) / 1_073_741_824)) GiB RAM",
            "OS: \(operatingSystem)",
            "libsodium \(libsodiumVersion) (CPU features: \(libsodiumCPUFeatures.joined(separator: ", "))), "
                + "SQLite \(sqliteVersion), \(build) build",
            "Clock read: \(String(format: "%.0f", clockReadNanoseconds)) ns (included in every sample); "
                + "files under \(directory)",
        ]
    }

    private static var buildConfiguration: String {
        #if DEBUG
            "debug (numbers are not representative: use -c release)"
        #else
            "release"
        #endif
    }

    private static func cpuModelName() -> String {
        guard let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return "unknown" }
        for line in info.split(separator: "\n") where line.hasPrefix("model name") {
            if let colon = line.firstIndex(of: ":") {
                return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return "unknown"
    }

    private static func operatingSystemName() -> String {
        var name = utsname()
        uname(&name)
        let release = withUnsafeBytes(of: &name.release) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        let machine = withUnsafeBytes(of: &name.machine) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        var pretty = ProcessInfo.processInfo.operatingSystemVersionString
        if let release = try? String(contentsOfFile: "/etc/os-release", encoding: .utf8),
            let line = release.split(separator: "\n").first(where: { $0.hasPrefix("PRETTY_NAME=") })
        {
            pretty = line.dropFirst("PRETTY_NAME=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        return "\(pretty), kernel \(release) \(machine)"
    }
}
