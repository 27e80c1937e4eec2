/// The tags of multivariant playlists.
extension ParserState {
    mutating func multivariantTag(_ name: String, _ v: UnsafeBufferPointer<UInt8>, _ line: Int) {
        noteMultivariantTag(line)
        let list = attributes(v, name, line)
        switch name {
        case "EXT-X-STREAM-INF":
            if pendingStreamInf != nil { diagnose(line, name, "the previous EXT-X-STREAM-INF has no URI line; it is dropped") }
            pendingStreamInf = (list, line)
        case "EXT-X-MEDIA": multivariant.renditions.append(rendition(list, line))
        case "EXT-X-I-FRAME-STREAM-INF":
            let uri = list["URI"]?.quotedString
            if uri == nil { diagnose(line, name, "URI is required") }
            multivariant.iFrameStreams.append(IFrameStream(
                uri: uri, bandwidth: int(list, "BANDWIDTH", name, line, required: true),
                averageBandwidth: int(list, "AVERAGE-BANDWIDTH", name, line),
                codecs: string(list, "CODECS", name, line).map(Self.commaList) ?? [],
                resolution: resolution(list, name, line), videoRange: enumerated(list, "VIDEO-RANGE", name, line),
                video: string(list, "VIDEO", name, line), attributes: list, line: line))
        case "EXT-X-SESSION-DATA":
            let dataID = string(list, "DATA-ID", name, line)
            if dataID == nil { diagnose(line, name, "DATA-ID is required") }
            multivariant.sessionData.append(SessionData(
                dataID: dataID, value: string(list, "VALUE", name, line), uri: string(list, "URI", name, line),
                language: string(list, "LANGUAGE", name, line), line: line))
        case "EXT-X-SESSION-KEY":
            if let key = encryptionKey(list, name, line) { multivariant.sessionKeys.append(key) }
        case "EXT-X-CONTENT-STEERING":
            multivariant.contentSteering = list
        default:
            break
        }
    }

    static func commaList(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingSpaces() }.filter { !$0.isEmpty }
    }

    mutating func int(_ list: AttributeList, _ key: String, _ tag: String, _ line: Int, required: Bool = false) -> Int? {
        guard let value = list[key] else {
            if required { diagnose(line, tag, "\(key) is required") }
            return nil
        }
        if let i = value.integer { return i }
        diagnose(line, tag, "\(key) must be a decimal-integer, not \(value.typeName) \(value.text)")
        return nil
    }

    mutating func number(_ list: AttributeList, _ key: String, _ tag: String, _ line: Int) -> Double? {
        guard let value = list[key] else { return nil }
        if let d = value.number { return d }
        diagnose(line, tag, "\(key) must be a decimal-floating-point, not \(value.typeName) \(value.text)")
        return nil
    }

    mutating func string(_ list: AttributeList, _ key: String, _ tag: String, _ line: Int) -> String? {
        guard let value = list[key] else { return nil }
        if let s = value.quotedString { return s }
        diagnose(line, tag, "\(key) must be a quoted-string, not \(value.typeName) \(value.text)")
        return nil
    }

    mutating func enumerated(_ list: AttributeList, _ key: String, _ tag: String, _ line: Int) -> String? {
        guard let value = list[key] else { return nil }
        if let s = value.enumeratedString { return s }
        diagnose(line, tag, "\(key) must be an enumerated-string, not \(value.typeName) \(value.text)")
        return nil
    }

    mutating func yesNo(_ list: AttributeList, _ key: String, _ tag: String, _ line: Int) -> Bool {
        guard let text = enumerated(list, key, tag, line) else { return false }
        if text == "YES" { return true }
        if text != "NO" { diagnose(line, tag, "\(key)=\(text) must be YES or NO") }
        return false
    }

    mutating func resolution(_ list: AttributeList, _ tag: String, _ line: Int) -> Resolution? {
        guard let value = list["RESOLUTION"] else { return nil }
        if case .resolution(let w, let h) = value { return Resolution(width: w, height: h) }
        diagnose(line, tag, "RESOLUTION must be WIDTHxHEIGHT, not \(value.text)")
        return nil
    }

    mutating func makeVariant(_ list: AttributeList, uri: String, line: Int) -> Variant {
        let tag = "EXT-X-STREAM-INF"
        let cc = list["CLOSED-CAPTIONS"]
        let ccNone = cc?.enumeratedString == "NONE"
        if let cc, !ccNone, cc.quotedString == nil { diagnose(line, tag, "CLOSED-CAPTIONS must be a quoted GROUP-ID or NONE") }
        return Variant(
            uri: uri, bandwidth: int(list, "BANDWIDTH", tag, line, required: true),
            averageBandwidth: int(list, "AVERAGE-BANDWIDTH", tag, line), score: number(list, "SCORE", tag, line),
            codecs: string(list, "CODECS", tag, line).map(Self.commaList) ?? [],
            supplementalCodecs: string(list, "SUPPLEMENTAL-CODECS", tag, line).map(Self.commaList) ?? [],
            resolution: resolution(list, tag, line), frameRate: number(list, "FRAME-RATE", tag, line),
            hdcpLevel: enumerated(list, "HDCP-LEVEL", tag, line), allowedCPC: string(list, "ALLOWED-CPC", tag, line),
            videoRange: enumerated(list, "VIDEO-RANGE", tag, line), reqVideoLayout: string(list, "REQ-VIDEO-LAYOUT", tag, line),
            stableVariantID: string(list, "STABLE-VARIANT-ID", tag, line), audio: string(list, "AUDIO", tag, line),
            video: string(list, "VIDEO", tag, line), subtitles: string(list, "SUBTITLES", tag, line),
            closedCaptions: cc?.quotedString, closedCaptionsNone: ccNone, pathwayID: string(list, "PATHWAY-ID", tag, line),
            programID: int(list, "PROGRAM-ID", tag, line), attributes: list, line: line)
    }

    private mutating func rendition(_ list: AttributeList, _ line: Int) -> Rendition {
        let tag = "EXT-X-MEDIA"
        var type: Rendition.MediaType?
        if let text = enumerated(list, "TYPE", tag, line) {
            type = Rendition.MediaType(rawValue: text)
            if type == nil { diagnose(line, tag, "TYPE=\(text) is not AUDIO, VIDEO, SUBTITLES or CLOSED-CAPTIONS") }
        } else if list["TYPE"] == nil {
            diagnose(line, tag, "TYPE is required")
        }
        let groupID = string(list, "GROUP-ID", tag, line)
        if groupID == nil { diagnose(line, tag, "GROUP-ID is required") }
        let name = string(list, "NAME", tag, line)
        if name == nil { diagnose(line, tag, "NAME is required") }
        let uri = string(list, "URI", tag, line)
        if type == .closedCaptions, uri != nil { diagnose(line, tag, "TYPE=CLOSED-CAPTIONS must not have a URI") }
        if type == .subtitles, uri == nil { diagnose(line, tag, "TYPE=SUBTITLES requires a URI") }
        let isDefault = yesNo(list, "DEFAULT", tag, line)
        let autoselect = yesNo(list, "AUTOSELECT", tag, line)
        if isDefault, list["AUTOSELECT"] != nil, !autoselect { diagnose(line, tag, "DEFAULT=YES requires AUTOSELECT=YES") }
        return Rendition(
            type: type, groupID: groupID, name: name, uri: uri, language: string(list, "LANGUAGE", tag, line),
            assocLanguage: string(list, "ASSOC-LANGUAGE", tag, line),
            stableRenditionID: string(list, "STABLE-RENDITION-ID", tag, line), isDefault: isDefault,
            autoselect: autoselect, forced: yesNo(list, "FORCED", tag, line),
            instreamID: string(list, "INSTREAM-ID", tag, line), bitDepth: int(list, "BIT-DEPTH", tag, line),
            sampleRate: int(list, "SAMPLE-RATE", tag, line),
            characteristics: string(list, "CHARACTERISTICS", tag, line).map(Self.commaList) ?? [],
            channels: string(list, "CHANNELS", tag, line), attributes: list, line: line)
    }
}
