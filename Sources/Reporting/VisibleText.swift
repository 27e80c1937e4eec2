/// Text taken from inputs (DATERANGE IDs, URIs, names in playlists, media metadata, receiver
/// names) made safe to print for people: every control character shows as a visible escape, so a
/// remote playlist cannot move the cursor, recolour or retitle the terminal, or forge lines.
///
/// C0 controls (U+0000-U+001F, tab and line feed included), DEL and the C1 controls
/// (U+0080-U+009F, which some terminals obey as ESC sequences) become `\u{1B}` and the like.
/// Apply it to values and to lines made of them, never to a document's own layout (the newlines
/// between lines, colour sequences added by the reporter): tables, the terminal and Markdown.
/// JSON is escaped by its encoder, HTML and XML by `xmlEscape`.
public enum VisibleText {
    public static func escape(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                out.append(contentsOf: escaped(scalar).unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// `escape` on each line of a document whose lines are joined with "\n" afterwards.
    public static func escape(lines: [String]) -> [String] {
        lines.map(escape)
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// `\u{1B}`: Swift's spelling, two hex digits at least.
    static func escaped(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "\\u{" + (hex.count < 2 ? "0" + hex : hex) + "}"
    }
}
