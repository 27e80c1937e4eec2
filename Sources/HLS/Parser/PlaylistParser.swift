import Foundation

/// What a playlist's parse depends on besides its bytes: EXT-X-DEFINE IMPORT and QUERYPARAM.
public struct PlaylistParsingContext: Sendable, Equatable {
    /// Variables of the multivariant playlist this media playlist belongs to.
    public var importedVariables: [String: String]
    /// The query parameters of the playlist's own URL.
    public var queryParameters: [String: String]

    public init(importedVariables: [String: String] = [:], queryParameters: [String: String] = [:]) {
        self.importedVariables = importedVariables
        self.queryParameters = queryParameters
    }
}

/// Parses multivariant and media playlists (draft-pantos-hls-rfc8216bis) in one pass over the
/// UTF-8 bytes, without regular expressions or per-line string splitting.
///
/// Fatal only when the body is not a playlist (no `#EXTM3U` first line, an HTML page); every
/// other problem becomes a diagnostic with its line number and parsing goes on.
public enum PlaylistParser {
    public static func parse(_ data: Data, context: PlaylistParsingContext = .init()) throws(PlaylistParseError) -> ParsedPlaylist {
        let text = PlaylistText(data)
        let result: Result<ParsedPlaylist, PlaylistParseError> = data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            do throws(PlaylistParseError) { return .success(try parse(bytes, context: context, text: text)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    public static func parse(_ text: String, context: PlaylistParsingContext = .init()) throws(PlaylistParseError) -> ParsedPlaylist {
        try parse(Data(text.utf8), context: context)
    }

    /// `text`: `all`'s bytes kept, for URIs read from them later (nil: each URI made a string now).
    static func parse(_ all: UnsafeBufferPointer<UInt8>, context: PlaylistParsingContext,
                      text: PlaylistText? = nil) throws(PlaylistParseError) -> ParsedPlaylist {
        var start = 0
        if all.count >= 3, all[0] == 0xEF, all[1] == 0xBB, all[2] == 0xBF { start = 3 }
        try checkHeader(UnsafeBufferPointer(rebasing: all[start...]))
        var state = ParserState(context: context, byteCount: all.count)
        if let text, let base = all.baseAddress { state.source = (text, base) }
        var lineNumber = 0
        var i = start
        let n = all.count
        var reportedLoneCR = false
        while i < n {
            lineNumber += 1
            var end = i
            var carriageReturn = -1
            while end < n, all[end] != 0x0A {
                if all[end] == 0x0D, carriageReturn < 0 { carriageReturn = end }
                end += 1
            }
            let next = end + 1
            while end > i, all[end - 1] == 0x0D || all[end - 1] == 0x20 || all[end - 1] == 0x09 { end -= 1 }
            if carriageReturn >= 0, carriageReturn < end, !reportedLoneCR {
                reportedLoneCR = true
                state.diagnose(lineNumber, nil, "a carriage return (CR) not followed by a line feed: HLS lines end with LF or CRLF, "
                    + "so a player reads what follows it as part of this line (a file saved with CR-only line endings reads as one line)")
            }
            var first = i
            while first < end, all[first] == 0x20 || all[first] == 0x09 { first += 1 }
            if first < end {
                state.line(UnsafeBufferPointer(rebasing: all[first..<end]), number: lineNumber)
            }
            i = next
        }
        return state.finish(lastLine: lineNumber)
    }

    /// `#EXTM3U` must be the first line; anything else is refused with what it looks like instead.
    private static func checkHeader(_ b: UnsafeBufferPointer<UInt8>) throws(PlaylistParseError) {
        var i = 0
        while i < b.count, b[i] == 0x20 || b[i] == 0x09 || b[i] == 0x0D || b[i] == 0x0A { i += 1 }
        guard i < b.count else { throw .empty }
        let magic = Array("#EXTM3U".utf8)
        if b.count - i >= magic.count, zip(b[i..<(i + magic.count)], magic).allSatisfy({ $0 == $1 }) {
            let after = i + magic.count
            if after == b.count || [0x0A, 0x0D, 0x20, 0x09].contains(b[after]) { return }
        }
        let head = Data(b[i..<min(b.count, i + 256)])
        if PlaylistSniffer.looksLikeHTML(head) { throw .html }
        var lineEnd = i
        while lineEnd < b.count, lineEnd - i < 60, b[lineEnd] != 0x0A, b[lineEnd] != 0x0D { lineEnd += 1 }
        let firstLine = Array(b[i..<lineEnd])
        guard let text = String(validating: firstLine, as: UTF8.self),
              !text.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\t" }) else { throw .notUTF8 }
        throw .missingHeader(firstLine: text)
    }
}

/// The state of one parse: the playlist being built, the tags waiting for their URI line.
struct ParserState {
    var context: PlaylistParsingContext
    var diagnostics: [PlaylistDiagnostic] = []
    var variables = VariableTable()
    var multivariant = MultivariantPlaylist()
    var media = MediaPlaylist()
    var multivariantTagLine: Int?
    var mediaTagLine: Int?
    var versionSeen = false

    // Tags that apply to the next URI line.
    var pendingDuration: Double?
    var pendingTitle: String?
    var pendingInfLine = 0
    var pendingByteRange: ByteRange?
    var pendingDiscontinuity = false
    var pendingDate: Date?
    var pendingGap = false
    var pendingStreamInf: (AttributeList, Int)?
    // Tags that apply until changed.
    var currentKey: EncryptionKey? {
        didSet { if keyInEffect?.value != currentKey { keyInEffect = nil } }
    }
    var currentMap: MediaInitialization? {
        didSet { if mapInEffect?.value != currentMap { mapInEffect = nil } }
    }
    var currentBitrate: Int?
    /// `currentKey` and `currentMap` as the segments share them (one box for a run of segments):
    /// nil, or the value in effect. Kept so by the tags that set them, not compared per segment
    /// (comparing the map's strings on each of 50,000 URI lines was 2 % of a lint).
    var keyInEffect: SharedValue<EncryptionKey>?
    var mapInEffect: SharedValue<MediaInitialization>?
    /// The body being parsed and where its bytes start: a segment's URI is kept as a range of it.
    var source: (text: PlaylistText, base: UnsafePointer<UInt8>)?

    /// A segment takes at least ~30 bytes (EXTINF line and URI line): reserving from the body
    /// size avoids regrowing (and copying) a 50,000-segment array a dozen times.
    init(context: PlaylistParsingContext, byteCount: Int) {
        self.context = context
        media.segments.reserveCapacity(min(max(16, byteCount / 32), 1 << 20))
    }

    mutating func line(_ b: UnsafeBufferPointer<UInt8>, number: Int) {
        guard b[0] == UInt8(ascii: "#") else { return uriLine(b, number: number) }
        guard b.count >= 4, b[1] == UInt8(ascii: "E"), b[2] == UInt8(ascii: "X"), b[3] == UInt8(ascii: "T") else { return }
        // EXTINF is most lines of a media playlist: recognised without building the tag name.
        if b.count >= 8, b[4] == UInt8(ascii: "I"), b[5] == UInt8(ascii: "N"), b[6] == UInt8(ascii: "F"), b[7] == UInt8(ascii: ":") {
            return extinf(UnsafeBufferPointer(rebasing: b[8...]), number: number)
        }
        var colon = 1
        while colon < b.count, b[colon] != UInt8(ascii: ":") { colon += 1 }
        let name = String(decoding: UnsafeBufferPointer(rebasing: b[1..<colon]), as: UTF8.self)
        let value = colon < b.count ? UnsafeBufferPointer(rebasing: b[(colon + 1)...]) : UnsafeBufferPointer(rebasing: b[b.count...])
        tag(name, value, number: number)
    }

    mutating func diagnose(_ line: Int, _ tag: String?, _ message: String, level: PlaylistDiagnostic.Level = .error) {
        diagnostics.append(PlaylistDiagnostic(line: line, level: level, tag: tag, message: message))
    }

    mutating func attributes(_ b: UnsafeBufferPointer<UInt8>, _ tag: String, _ line: Int) -> AttributeList {
        AttributeListParser.parse(b, line: line, tag: tag, variables: variables, diagnostics: &diagnostics)
    }

    private mutating func extinf(_ b: UnsafeBufferPointer<UInt8>, number: Int) {
        noteMediaTag(number)
        var comma = 0
        while comma < b.count, b[comma] != UInt8(ascii: ",") { comma += 1 }
        var end = comma
        while end > 0, b[end - 1] == 0x20 { end -= 1 }
        if pendingDuration != nil {
            diagnose(number, "EXTINF", "a second EXTINF before the segment's URI; the later one is used")
        }
        if let d = HLSNumber.parse(UnsafeBufferPointer(rebasing: b[..<end])), d >= 0 {
            pendingDuration = d
        } else {
            diagnose(number, "EXTINF", "duration \"\(String(decoding: UnsafeBufferPointer(rebasing: b[..<end]), as: UTF8.self))\" is not a non-negative decimal number; 0 is used")
            pendingDuration = 0
        }
        if comma == b.count {
            diagnose(number, "EXTINF", "no comma after the duration (EXTINF:<duration>,[<title>])", level: .warning)
            pendingTitle = nil
        } else {
            pendingTitle = comma + 1 < b.count ? String(decoding: UnsafeBufferPointer(rebasing: b[(comma + 1)...]), as: UTF8.self) : nil
        }
        pendingInfLine = number
    }

    /// The box of `value` (`currentKey` or `currentMap`): the one in effect while it has not changed.
    private static func shared<Value: Sendable & Equatable>(_ value: Value?, in box: inout SharedValue<Value>?) -> SharedValue<Value>? {
        if let known = box { return known }
        guard let value else { return nil }
        box = SharedValue(value)
        return box
    }

    private mutating func uriLine(_ b: UnsafeBufferPointer<UInt8>, number: Int) {
        // A segment's URI stays a range of the body (no variable in it): most are never read.
        if pendingStreamInf == nil, pendingDuration != nil, pendingByteRange == nil, let (text, base) = source, let start = b.baseAddress,
           !variables.mayReference(b), let slice = PlaylistText.Slice(text, start: start - base, count: b.count) {
            noteMediaTag(number)
            return appendSegment(slice, number: number, range: nil)
        }
        var uri = String(decoding: b, as: UTF8.self)
        if variables.mayReference(b) { uri = variables.substitute(uri, line: number, tag: nil, diagnostics: &diagnostics) }
        if let (attributes, line) = pendingStreamInf {
            pendingStreamInf = nil
            multivariant.variants.append(makeVariant(attributes, uri: uri, line: line))
            return
        }
        if pendingDuration == nil {
            diagnose(number, nil, "URI line \"\(uri.prefix(80))\" has no EXTINF (or EXT-X-STREAM-INF) before it; read as a 0 s segment")
        }
        noteMediaTag(number)
        // A byte range without an offset continues the previous segment's sub-range of the same
        // resource; with no such sub-range the spec makes the playlist invalid.
        var range = pendingByteRange
        if let open = range, open.offset == nil {
            if let previous = media.segments.last, previous.uri == uri, let before = previous.byteRange, let start = before.offset,
               !start.addingReportingOverflow(before.length).overflow {
                range = ByteRange(length: open.length, offset: start + before.length)
            } else {
                diagnose(number, "EXT-X-BYTERANGE", "no offset and no previous sub-range of \"\(uri.prefix(80))\" to continue; read from byte 0")
                range = ByteRange(length: open.length, offset: 0)
            }
        }
        appendSegment(PlaylistText.Slice(uri), number: number, range: range)
    }

    /// The segment of the URI line at `number`, with the tags before it.
    private mutating func appendSegment(_ uri: PlaylistText.Slice, number: Int, range: ByteRange?) {
        let sharedKey = Self.shared(currentKey, in: &keyInEffect)
        let sharedMap = Self.shared(currentMap, in: &mapInEffect)
        // The pending tags moved out (`take`), not copied and released.
        let segment = Segment(
            uriText: uri, duration: pendingDuration.take() ?? 0, title: pendingTitle.take(), byteRange: range,
            discontinuity: pendingDiscontinuity, programDateTime: pendingDate.take(), sharedKey: sharedKey,
            sharedMap: sharedMap, gap: pendingGap, bitrate: currentBitrate, line: number)
        pendingByteRange = nil
        pendingDiscontinuity = false
        pendingGap = false
        media.segments.append(segment)
    }

    mutating func noteMediaTag(_ line: Int) {
        if mediaTagLine == nil { mediaTagLine = line }
    }

    mutating func noteMultivariantTag(_ line: Int) {
        if multivariantTagLine == nil { multivariantTagLine = line }
    }

    mutating func finish(lastLine: Int) -> ParsedPlaylist {
        if let (_, line) = pendingStreamInf {
            diagnose(line, "EXT-X-STREAM-INF", "no URI line follows; the variant is dropped")
        }
        if pendingDuration != nil {
            diagnose(pendingInfLine, "EXTINF", "no URI line follows the last EXTINF", level: .warning)
        }
        let playlist: Playlist
        if let multiLine = multivariantTagLine {
            if let mediaLine = mediaTagLine {
                diagnose(max(multiLine, mediaLine), nil, "mixes multivariant tags (line \(multiLine)) and media playlist tags (line \(mediaLine)); read as a multivariant playlist")
            }
            if multivariant.variants.isEmpty {
                diagnose(lastLine, nil, "multivariant playlist without any EXT-X-STREAM-INF variant", level: .warning)
            }
            playlist = .multivariant(multivariant)
        } else {
            if media.targetDuration == nil {
                diagnose(1, "EXT-X-TARGETDURATION", "missing: every media playlist must have EXT-X-TARGETDURATION")
            } else if let target = media.targetDuration {
                if let over = media.segments.indices.first(where: { media.segments[$0].duration.rounded() > Double(target) }) {
                    let segment = media.segments[over]
                    diagnose(segment.line, "EXTINF", "duration \(HLSNumber.format(segment.duration)) s rounds above EXT-X-TARGETDURATION \(target)")
                }
            }
            playlist = .media(media)
        }
        return ParsedPlaylist(playlist: playlist, diagnostics: diagnostics, variables: variables.values)
    }
}
