/// Escapes text for XML and HTML element content and attribute values.
///
/// Control characters other than tab, line feed and carriage return are not allowed in XML 1.0
/// (not even as character references), so they are written as `VisibleText` escapes (`\u{1B}`).
package func xmlEscape(_ text: String) -> String {
    var out = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
        switch scalar {
        case "&": out.append(contentsOf: "&amp;".unicodeScalars)
        case "<": out.append(contentsOf: "&lt;".unicodeScalars)
        case ">": out.append(contentsOf: "&gt;".unicodeScalars)
        case "\"": out.append(contentsOf: "&quot;".unicodeScalars)
        case "'": out.append(contentsOf: "&#39;".unicodeScalars)
        case "\t", "\n", "\r": out.append(scalar)
        case _ where VisibleText.isControl(scalar): out.append(contentsOf: VisibleText.escaped(scalar).unicodeScalars)
        default: out.append(scalar)
        }
    }
    return String(out)
}
