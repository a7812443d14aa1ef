import Foundation

/// An SVG line chart of seal and open throughput (MB/s) by payload size, library and raw, both
/// axes logarithmic.
enum ThroughputChart {
    /// The SVG document for section 1's results.
    static func svg(_ results: [SealBenchmark.PayloadResult], machine: Machine) -> String {
        let width = 760.0
        let height = 440.0
        let left = 80.0
        let right = 190.0
        let top = 50.0
        let bottom = 60.0
        let series: [(String, String, String, (SealBenchmark.PayloadResult) -> Double)] = [
            ("library seal", "#1f77b4", "", { $0.librarySeal.megabytesPerSecond }),
            ("raw seal", "#1f77b4", "6,4", { $0.rawSeal.megabytesPerSecond }),
            ("library open", "#d62728", "", { $0.libraryOpen.megabytesPerSecond }),
            ("raw open", "#d62728", "6,4", { $0.rawOpen.megabytesPerSecond }),
        ]
        let sizes = results.map { Double($0.payloadBytes) }
        let values = results.flatMap { result in series.map { $0.3(result) } }.filter { $0 > 0 }
        guard let minSize = sizes.min(), let maxSize = sizes.max(), maxSize > minSize,
            let low = values.min(), let high = values.max()
        else { return "<svg xmlns=\"http://www.w3.org/2000/svg\"/>" }
        let minY = pow(10, floor(log10(low)))
        let maxY = pow(10, ceil(log10(high)))
        func x(_ size: Double) -> Double {
            left + (log2(size) - log2(minSize)) / (log2(maxSize) - log2(minSize)) * (width - left - right)
        }
        func y(_ value: Double) -> Double {
            top + (1 - (log10(value) - log10(minY)) / (log10(maxY) - log10(minY))) * (height - top - bottom)
        }
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" \
            font-family="sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="white"/>
            <text x="\(left)" y="22" font-size="15">XChaCha20-Poly1305 throughput by payload size (MB/s, log scales)</text>
            <text x="\(left)" y="38" fill="#555">\(escape(machine.cpuModel)), libsodium \(machine.libsodiumVersion)</text>

            """
        var decade = minY
        while decade <= maxY * 1.0001 {
            svg += line(left, y(decade), width - right, y(decade), "#ddd")
            svg += text(left - 8, y(decade) + 4, Format.count(decade), anchor: "end")
            decade *= 10
        }
        for size in sizes {
            svg += line(x(size), top, x(size), height - bottom, "#eee")
            svg += text(x(size), height - bottom + 18, Format.payload(Int(size)), anchor: "middle")
        }
        svg += text((left + width - right) / 2, height - 15, "payload size", anchor: "middle")
        for (offset, (name, color, dash, value)) in series.enumerated() {
            let points = results.map { "\(x(Double($0.payloadBytes))),\(y(max(value($0), minY)))" }
            svg +=
                "<polyline fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\" "
                + (dash.isEmpty ? "" : "stroke-dasharray=\"\(dash)\" ")
                + "points=\"\(points.joined(separator: " "))\"/>\n"
            let legendY = top + 10 + Double(offset) * 20
            svg +=
                "<line x1=\"\(width - right + 15)\" y1=\"\(legendY)\" x2=\"\(width - right + 45)\" y2=\"\(legendY)\" "
                + "stroke=\"\(color)\" stroke-width=\"2\"" + (dash.isEmpty ? "" : " stroke-dasharray=\"\(dash)\"")
                + "/>\n"
            svg += text(width - right + 52, legendY + 4, name, anchor: "start")
        }
        return svg + "</svg>\n"
    }

    private static func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, _ color: String) -> String {
        "<line x1=\"\(x1)\" y1=\"\(y1)\" x2=\"\(x2)\" y2=\"\(y2)\" stroke=\"\(color)\"/>\n"
    }

    private static func text(_ x: Double, _ y: Double, _ content: String, anchor: String) -> String {
        "<text x=\"\(x)\" y=\"\(y)\" text-anchor=\"\(anchor)\">\(escape(content))</text>\n"
    }

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}
