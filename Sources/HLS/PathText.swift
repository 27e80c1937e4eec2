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
        let components = path.split(separator: "/", omittingEmptySubsequences: true)
        guard let last = components.last else { return path.isEmpty ? "" : "/" }
        return String(last)
    }

    /// The path without its last component: "/a" for "/a///b//", "/" for "/a", "" for "a".
    public static func deletingLastComponent(_ path: String) -> String {
        var rest = Substring(path)
        while rest.count > 1, rest.hasSuffix("/") { rest = rest.dropLast() }
        guard let slash = rest.lastIndex(of: "/") else { return "" }
        var parent = rest[..<slash]
        while parent.hasSuffix("/") { parent = parent.dropLast() }
        return parent.isEmpty ? "/" : String(parent)
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
        let decoded = name.removingPercentEncoding ?? name
        return decoded == "/" ? "" : decoded
    }
}
