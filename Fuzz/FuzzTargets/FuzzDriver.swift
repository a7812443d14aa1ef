import Foundation

#if FUZZING
    internal import CLibFuzzer
#endif

/// The `main` and `LLVMFuzzerTestOneInput` of the fuzz executables under `Fuzz/`.
///
/// Built with `-sanitize=fuzzer -DFUZZING`, ``main(_:)`` hands over to libFuzzer's driver, which
/// takes libFuzzer's usual flags and corpus folders. In a plain build the same executable replays
/// the files and folders named on its command line through the same entry point, with no libFuzzer,
/// which is how a crash file is reproduced under a debugger.
package enum FuzzDriver {
    /// The C signature of libFuzzer's `LLVMFuzzerTestOneInput`.
    package typealias TestOneInput = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

    /// Runs one input from libFuzzer through a target.
    ///
    /// - Parameters:
    ///   - target: The fuzz target.
    ///   - data: The input's bytes (`nil` when empty).
    ///   - size: The input's length.
    /// - Returns: 0, as libFuzzer requires.
    package static func test(_ target: (some FuzzTarget).Type, _ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
        target.run(size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size)))
        return 0
    }

    /// Runs libFuzzer (`-DFUZZING`), or replays the inputs named on the command line.
    ///
    /// - Parameter testOneInput: The executable's `LLVMFuzzerTestOneInput`.
    package static func main(_ testOneInput: TestOneInput) -> Never {
        #if FUZZING
            var argc = CommandLine.argc
            var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
            exit(LLVMFuzzerRunDriver(&argc, &argv, testOneInput))
        #else
            let paths = CommandLine.arguments.dropFirst().filter { !$0.hasPrefix("-") }
            do {
                let files = try inputs(in: Array(paths))
                for file in files {
                    let bytes = try [UInt8](Data(contentsOf: file))
                    _ = bytes.withUnsafeBufferPointer { testOneInput($0.baseAddress, $0.count) }
                }
                FileHandle.standardError.write(Data("replayed \(files.count) inputs without libFuzzer\n".utf8))
                exit(0)
            } catch {
                FileHandle.standardError.write(Data("cannot replay: \(error)\n".utf8))
                exit(2)
            }
        #endif
    }

    /// The files to replay: each file named, and every regular file under each folder named,
    /// in a stable order.
    ///
    /// - Parameter paths: Files and folders.
    /// - Returns: The files.
    /// - Throws: `CocoaError` when a path does not exist or a folder cannot be listed.
    package static func inputs(in paths: [String]) throws -> [URL] {
        var files: [URL] = []
        for path in paths {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
                throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: path])
            }
            guard isFolder.boolValue else {
                files.append(URL(fileURLWithPath: path))
                continue
            }
            let folder = URL(fileURLWithPath: path, isDirectory: true)
            for name in try FileManager.default.subpathsOfDirectory(atPath: path).sorted() {
                let file = folder.appendingPathComponent(name)
                let values = try file.resourceValues(forKeys: [.isRegularFileKey])
                if values.isRegularFile == true { files.append(file) }
            }
        }
        return files
    }
}
