import Foundation

/// Tag dispatch and the tags of media playlists.
extension ParserState {
    mutating func tag(_ name: String, _ v: UnsafeBufferPointer<UInt8>, number: Int) {
        switch name {
        case "EXTM3U":
            if number > 1 { diagnose(number, name, "#EXTM3U again after the first line", level: .warning) }
        case "EXT-X-VERSION":
            if versionSeen { diagnose(number, name, "appears more than once") }
            versionSeen = true
            let version = integer(v, name, number)
            media.version = version
            multivariant.version = version
        case "EXT-X-TARGETDURATION":
            noteMediaTag(number)
            if media.targetDuration != nil { diagnose(number, name, "appears more than once; the first value is used") } else {
                media.targetDuration = integer(v, name, number)
            }
        case "EXT-X-MEDIA-SEQUENCE":
            noteMediaTag(number)
            if !media.segments.isEmpty { diagnose(number, name, "must come before the first segment") }
            media.mediaSequence = integer(v, name, number) ?? 0
        case "EXT-X-DISCONTINUITY-SEQUENCE":
            noteMediaTag(number)
            media.discontinuitySequence = integer(v, name, number) ?? 0
        case "EXT-X-ENDLIST":
            noteMediaTag(number)
            media.endList = true
        case "EXT-X-PLAYLIST-TYPE":
            noteMediaTag(number)
            let text = String(decoding: v, as: UTF8.self)
            if let type = MediaPlaylist.PlaylistType(rawValue: text) { media.playlistType = type } else {
                diagnose(number, name, "\"\(text)\" is neither VOD nor EVENT; ignored")
            }
        case "EXT-X-I-FRAMES-ONLY":
            noteMediaTag(number)
            media.iFramesOnly = true
        case "EXT-X-INDEPENDENT-SEGMENTS":
            media.independentSegments = true
            multivariant.independentSegments = true
        case "EXT-X-START": start(v, number)
        case "EXT-X-DEFINE": define(v, number)
        case "EXT-X-DISCONTINUITY":
            noteMediaTag(number)
            pendingDiscontinuity = true
        case "EXT-X-GAP": pendingGap = true
        case "EXT-X-BYTERANGE":
            noteMediaTag(number)
            pendingByteRange = byteRange(String(decoding: v, as: UTF8.self), name, number)
        case "EXT-X-BITRATE": currentBitrate = integer(v, name, number)
        case "EXT-X-PROGRAM-DATE-TIME":
            noteMediaTag(number)
            if let read = HLSDate.parseAssumingUTC(v) {
                pendingDate = read.date
                if !read.hasTimeZone {
                    media.programDateTimesWithoutTimeZone.append(ZonelessDate(text: String(decoding: v, as: UTF8.self), line: number))
                }
            } else {
                diagnose(number, name, "\"\(String(decoding: v, as: UTF8.self))\" is not an ISO 8601 date (YYYY-MM-DDThh:mm:ss.sssZ); ignored")
            }
        case "EXT-X-KEY": key(v, number)
        case "EXT-X-MAP": map(v, number)
        case "EXT-X-DATERANGE":
            noteMediaTag(number)
            media.dateRanges.append(DateRange(attributes: attributes(v, name, number), line: number))
        case "EXT-X-PART":
            noteMediaTag(number)
            media.partCount += 1
            _ = attributes(v, name, number)
        case "EXT-X-PART-INF":
            noteMediaTag(number)
            media.partInformation = attributes(v, name, number)
        case "EXT-X-SERVER-CONTROL":
            noteMediaTag(number)
            media.serverControl = attributes(v, name, number)
        case "EXT-X-SKIP", "EXT-X-PRELOAD-HINT", "EXT-X-RENDITION-REPORT":
            // Low-latency delivery directives: checked for grammar, not modelled.
            noteMediaTag(number)
            _ = attributes(v, name, number)
        case "EXT-X-ALLOW-CACHE", "EXT-X-CUE-OUT", "EXT-X-CUE-IN", "EXT-X-CUE-OUT-CONT", "EXT-X-CUE":
            break
        case "EXT-X-STREAM-INF", "EXT-X-MEDIA", "EXT-X-I-FRAME-STREAM-INF", "EXT-X-SESSION-DATA", "EXT-X-SESSION-KEY",
             "EXT-X-CONTENT-STEERING":
            multivariantTag(name, v, number)
        default:
            break // rfc8216bis 4.1: unknown tags are ignored.
        }
    }

    mutating func integer(_ v: UnsafeBufferPointer<UInt8>, _ tag: String, _ line: Int) -> Int? {
        if let value = HLSNumber.parseInteger(v) { return value }
        diagnose(line, tag, "\"\(String(decoding: v, as: UTF8.self))\" is not a decimal-integer; ignored")
        return nil
    }

    /// `length[@offset]`, as EXT-X-BYTERANGE and the BYTERANGE attribute write it.
    mutating func byteRange(_ text: String, _ tag: String, _ line: Int) -> ByteRange? {
        let parts = text.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
        guard let length = Int(parts[0]), length >= 0, parts.count == 1 || Int(parts[1]).map({ $0 >= 0 }) == true else {
            diagnose(line, tag, "\"\(text)\" is not <length>[@<offset>]; ignored")
            return nil
        }
        let offset = parts.count == 2 ? Int(parts[1]) : nil
        // A range must end inside a 64-bit file: offset + length must not overflow.
        guard !(offset ?? 0).addingReportingOverflow(length).overflow else {
            diagnose(line, tag, "\"\(text)\" ends past any possible file size; ignored")
            return nil
        }
        return ByteRange(length: length, offset: offset)
    }

    private mutating func start(_ v: UnsafeBufferPointer<UInt8>, _ line: Int) {
        let list = attributes(v, "EXT-X-START", line)
        guard let offset = list["TIME-OFFSET"]?.number else {
            return diagnose(line, "EXT-X-START", "TIME-OFFSET (signed decimal seconds) is required; tag ignored")
        }
        let point = StartPoint(timeOffset: offset, precise: list["PRECISE"]?.enumeratedString == "YES")
        media.start = point
        multivariant.start = point
    }

    private mutating func define(_ v: UnsafeBufferPointer<UInt8>, _ line: Int) {
        let tag = "EXT-X-DEFINE"
        let list = attributes(v, tag, line)
        let kind: VariableDefinition.Kind
        let name: String
        var value: String?
        if let n = list["NAME"]?.quotedString {
            kind = .value
            name = n
            value = list["VALUE"]?.quotedString
            if value == nil { diagnose(line, tag, "NAME=\"\(n)\" needs VALUE (a quoted-string)") }
        } else if let n = list["IMPORT"]?.quotedString {
            kind = .import
            name = n
            value = context.importedVariables[n]
            if value == nil {
                diagnose(line, tag, "IMPORT=\"\(n)\": no variable \(n) in the multivariant playlist (IMPORT works only in a media playlist loaded from one)")
            }
        } else if let n = list["QUERYPARAM"]?.quotedString {
            kind = .queryParameter
            name = n
            value = context.queryParameters[n]
            if value == nil { diagnose(line, tag, "QUERYPARAM=\"\(n)\": the playlist's URL has no query parameter \(n)") }
        } else {
            return diagnose(line, tag, "needs NAME and VALUE, IMPORT or QUERYPARAM")
        }
        guard VariableTable.isValidName(name) else {
            return diagnose(line, tag, "variable name \"\(name)\" has characters outside [a-zA-Z0-9_-]")
        }
        if variables.value(name) != nil { diagnose(line, tag, "variable \(name) is defined twice; the later value is used") }
        if let value { variables.define(name, value) }
        let definition = VariableDefinition(kind: kind, name: name, value: value, line: line)
        media.definitions.append(definition)
        multivariant.definitions.append(definition)
    }

    private mutating func key(_ v: UnsafeBufferPointer<UInt8>, _ line: Int) {
        noteMediaTag(line)
        guard let key = encryptionKey(attributes(v, "EXT-X-KEY", line), "EXT-X-KEY", line) else { return }
        currentKey = key.method == "NONE" ? nil : key
    }

    mutating func encryptionKey(_ list: AttributeList, _ tag: String, _ line: Int) -> EncryptionKey? {
        guard let method = list["METHOD"]?.enumeratedString else {
            diagnose(line, tag, "METHOD (NONE, AES-128, SAMPLE-AES, SAMPLE-AES-CTR) is required; tag ignored")
            return nil
        }
        let uri = list["URI"]?.quotedString
        if method != "NONE", uri == nil { diagnose(line, tag, "METHOD=\(method) needs a URI") }
        var iv: String?
        if let value = list["IV"] {
            if case .hexadecimal(let hex) = value { iv = hex } else { diagnose(line, tag, "IV must be a hexadecimal-sequence") }
        }
        return EncryptionKey(method: method, uri: uri, iv: iv, keyFormat: list["KEYFORMAT"]?.quotedString,
                             keyFormatVersions: list["KEYFORMATVERSIONS"]?.quotedString)
    }

    private mutating func map(_ v: UnsafeBufferPointer<UInt8>, _ line: Int) {
        noteMediaTag(line)
        let list = attributes(v, "EXT-X-MAP", line)
        guard let uri = list["URI"]?.quotedString else {
            return diagnose(line, "EXT-X-MAP", "URI (a quoted-string) is required; tag ignored")
        }
        currentMap = MediaInitialization(uri: uri, byteRange: list["BYTERANGE"]?.quotedString.flatMap {
            byteRange($0, "EXT-X-MAP", line)
        }, key: currentKey)
        if let key = currentKey, key.method == "AES-128", key.iv == nil {
            diagnose(line, "EXT-X-MAP", "the init section is encrypted with the METHOD=AES-128 EXT-X-KEY before it, which has no IV: "
                     + "RFC 8216 4.3.2.5 requires one (an init section has no media sequence number to stand in); add IV=0x... to that EXT-X-KEY")
        }
    }
}
