import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the process and its files use.
enum ResourceUsage {
    /// The process's peak resident set size so far, in bytes (`getrusage(RUSAGE_SELF).ru_maxrss`:
    /// kilobytes on Linux, bytes on Darwin; the kernel updates it lazily, so never below the RSS
    /// now). A high-water mark: it never goes down.
    static func peakResidentBytes() -> Int {
        var usage = rusage()
        #if canImport(Darwin)
            getrusage(RUSAGE_SELF, &usage)
            let peak = Int(usage.ru_maxrss)
        #else
            getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
            let peak = Int(usage.ru_maxrss) * 1024
        #endif
        return max(peak, residentBytes())
    }

    /// The process's resident set size now, in bytes (`/proc/self/statm`); 0 where there is no
    /// /proc.
    static func residentBytes() -> Int {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = statm.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * sysconf(Int32(_SC_PAGESIZE))
    }

    /// The size of the file at `path`, or 0 when there is none.
    static func fileBytes(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
    }
}
