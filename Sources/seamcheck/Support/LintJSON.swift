import Compatibility
import HLS

/// The lint JSON written straight into one byte buffer, in the bytes `PlaylistInput.json` (the
/// Codable path through `JSONDocumentWriter`) gives: pretty, keys in UTF-8 byte order, nulls of
/// a finding written, other absent optionals left out. The 50,000-segment lint spent 9 % of its
/// run building the Codable tree and serialising it (issue 36); `scripts/same-output.sh` and
/// LintJSONTests compare the two.
enum LintJSON {
    static func render(_ document: LintDocument) -> String {
        var out = PrettyJSONBytes(capacity: 256 + document.findings.count * 900)
        out.open(UInt8(ascii: "{"))
        out.key("deviceClasses"); out.array(document.deviceClasses) { $0.string($1) }
        out.key("diagnostics"); out.array(document.diagnostics) { out, diagnostic in
            out.open(UInt8(ascii: "{"))
            out.key("level"); out.string(diagnostic.level)
            out.key("line"); out.int(diagnostic.line)
            out.key("message"); out.string(diagnostic.message)
            out.key("playlist"); out.string(diagnostic.playlist)
            if let tag = diagnostic.tag { out.key("tag"); out.string(tag) }
            out.close(UInt8(ascii: "}"))
        }
        out.key("findings"); out.array(document.findings) { $0.finding($1) }
        out.key("input"); out.string(document.input)
        out.key("notChecked"); out.array(document.notChecked) { $0.string($1) }
        out.key("playlists"); out.array(document.playlists) { $0.string($1) }
        out.key("schemaVersion"); out.int(document.schemaVersion)
        out.key("summary")
        out.open(UInt8(ascii: "{"))
        out.key("accepted"); out.int(document.summary.accepted)
        out.key("error"); out.int(document.summary.error)
        out.key("info"); out.int(document.summary.info)
        out.key("warning"); out.int(document.summary.warning)
        out.close(UInt8(ascii: "}"))
        out.key("unreachable"); out.array(document.unreachable) { out, playlist in
            out.open(UInt8(ascii: "{"))
            out.key("kind"); out.string(playlist.kind)
            out.key("reason"); out.string(playlist.reason)
            if let status = playlist.status { out.key("status"); out.int(status) }
            out.key("uri"); out.string(playlist.uri)
            if let url = playlist.url { out.key("url"); out.string(url) }
            out.close(UInt8(ascii: "}"))
        }
        out.close(UInt8(ascii: "}"))
        out.bytes.append(0x0A)
        return String(decoding: out.bytes, as: UTF8.self)
    }
}

/// Foundation's pretty JSON spelling, written in order by the caller (who gives the keys sorted):
/// two-space indent, `" : "`, an empty container as `[\n\n]` with the closing indent, strings
/// escaped as `JSONTreeSerializer` escapes them.
struct PrettyJSONBytes {
    var bytes: [UInt8] = []
    private var indent = 0
    private var first = true

    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    mutating func open(_ bracket: UInt8) {
        bytes.append(bracket)
        bytes.append(0x0A)
        indent += 1
        first = true
    }

    mutating func close(_ bracket: UInt8) {
        bytes.append(0x0A)
        indent -= 1
        writeIndent()
        bytes.append(bracket)
        first = false
    }

    /// The start of the next entry of the open container: a comma after the one before, the indent.
    mutating func item() {
        if !first { bytes.append(UInt8(ascii: ",")); bytes.append(0x0A) }
        first = false
        writeIndent()
    }

    mutating func key(_ name: StaticString) {
        item()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: [UInt8(ascii: "\""), 0x20, UInt8(ascii: ":"), 0x20])
    }

    mutating func array<Element>(_ elements: [Element], _ write: (inout PrettyJSONBytes, Element) -> Void) {
        open(UInt8(ascii: "["))
        for element in elements {
            item()
            write(&self, element)
        }
        close(UInt8(ascii: "]"))
    }

    mutating func null() { bytes.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C]) }

    mutating func int(_ value: Int) {
        var text = value.description
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    mutating func string(_ value: String?) {
        guard let value else { return null() }
        string(value)
    }

    mutating func finding(_ finding: Finding) {
        open(UInt8(ascii: "{"))
        key("accepted"); string(finding.accepted)
        key("actual"); string(finding.actual)
        key("deviceClass"); string(finding.deviceClass)
        key("expected"); string(finding.expected)
        key("location")
        if let location = finding.location {
            open(UInt8(ascii: "{"))
            if let line = location.line { key("line"); int(line) }
            key("uri"); string(location.uri)
            close(UInt8(ascii: "}"))
        } else {
            null()
        }
        key("message"); string(finding.message)
        key("remediation"); string(finding.remediation)
        key("rule"); string(finding.rule)
        key("severity"); string(finding.severity.rawValue)
        key("subject"); string(finding.subject)
        close(UInt8(ascii: "}"))
    }

    private mutating func writeIndent() {
        for _ in 0..<indent { bytes.append(0x20); bytes.append(0x20) }
    }

    mutating func string(_ value: String) {
        JSONString.appendQuoted(value, to: &bytes)
    }
}
