import Foundation

/// File names out of paths and URLs, in plain Swift: the one place that takes paths apart.
///
/// Paths and URLs here come from remote playlists, so Foundation's path API is not used on
/// them: swift-corelibs-foundation's `NSString.lastPathComponent`, `pathExtension` and
/// `deletingPathExtension` trap (SIGILL) on paths such as `/a///b//` (issue 14). These
/// functions are total: any string in, a string out. They do not resolve `.` or `..`.
public enum PathText {
    /// The last non-empty `/`-separated component: "b" for "/a///b//", "/" for "///", "" for "".
    public static func lastComponent(_ path: String) -> String {
        let bytes = path.utf8
        let end = endTrimmingSlashes(bytes, from: bytes.endIndex)
        guard end > bytes.startIndex else { return path.isEmpty ? "" : "/" }
        var begin = end
        while begin > bytes.startIndex, bytes[bytes.index(before: begin)] != slash { begin = bytes.index(before: begin) }
        return String(path[begin..<end])
    }

    /// The path without its last component: "/a" for "/a///b//", "/" for "/a", "" for "a".
    public static func deletingLastComponent(_ path: String) -> String {
        let bytes = path.utf8
        let end = endTrimmingSlashes(bytes, from: bytes.endIndex)
        guard end > bytes.startIndex else { return path.isEmpty ? "" : "/" }
        guard let lastSlash = bytes[..<end].lastIndex(of: slash) else { return "" }
        let parentEnd = endTrimmingSlashes(bytes, from: lastSlash)
        return parentEnd == bytes.startIndex ? "/" : String(path[..<parentEnd])
    }

    private static let slash = UInt8(ascii: "/")

    /// Where the text before `end` stops once the slashes it ends with are left off (byte by
    /// byte: linear however many slashes a hostile path has).
    private static func endTrimmingSlashes(_ bytes: String.UTF8View, from end: String.Index) -> String.Index {
        var end = end
        while end > bytes.startIndex, bytes[bytes.index(before: end)] == slash { end = bytes.index(before: end) }
        return end
    }

    /// `name` inside `directory` ("name" alone when the directory is "").
    public static func appending(_ name: String, to directory: String) -> String {
        directory.isEmpty ? name : directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    /// The extension of a file name: the text after its last ".", unless that dot starts the
    /// name ("" for ".profile", "a." and "a").
    public static func fileExtension(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...])
    }

    /// The file name without its extension ("ad" for "ad.mp4", ".profile" for ".profile").
    public static func deletingExtension(_ name: String) -> String {
        let ext = fileExtension(name)
        return ext.isEmpty ? name : String(name.dropLast(ext.count + 1))
    }

    /// The file name of an input as given: of the path of an `http:`, `https:` or `file:` URL
    /// (percent-decoded; query and fragment left out), else of the text as a local path. Empty
    /// when the URL's path names no file ("http://host/").
    public static func fileName(ofInput input: String) -> String {
        let reference = URIReference(parsing: input)
        guard let scheme = reference.scheme?.lowercased(), ["http", "https", "file"].contains(scheme) else {
            return lastComponent(input)
        }
        let name = lastComponent(reference.path)
        let decoded = URIReference.removingPercentEncoding(name) ?? name
        return decoded == "/" ? "" : decoded
    }
}
