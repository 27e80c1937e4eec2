import Compatibility
import Foundation
import HLS
import MediaProbe
import Reporting

// Each target takes libFuzzer's bytes and must return without trapping, hanging or running slowly
// (libFuzzer's -timeout and the sanitizers catch those). Findings become regression tests.

/// The playlist parser, then what inspect and audit build on it: the interstitial schedule,
/// merged date ranges and the labels reports print.
@_cdecl("seamcheck_fuzz_parser")
public func fuzzParser(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = Data(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size))
    guard let parsed = try? PlaylistParser.parse(bytes) else { return 0 }
    if case .media(let media) = parsed.playlist {
        let schedule = InterstitialSchedule(primary: media)
        for entry in schedule.entries { _ = entry.assetURI.map(PathText.fileName(ofInput:)) }
        for range in InterstitialSchedule.merged(media.dateRanges) { _ = range.label; _ = range.interstitial?.problems }
    }
    return 0
}

/// The X-ASSET-LIST JSON decoder.
@_cdecl("seamcheck_fuzz_asset_list")
public func fuzzAssetList(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = Data(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size))
    if let list = try? AssetList.decode(bytes) {
        for asset in list.assets { _ = InputLocation.isAbsoluteURI(asset.uri); _ = PathText.fileName(ofInput: asset.uri) }
    }
    return 0
}

/// URI resolution: the first line is where a playlist was read from (a path or URL), the rest a
/// reference written in it. Also the path helpers reports use on both.
@_cdecl("seamcheck_fuzz_uri")
public func fuzzURI(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: data == nil ? 0 : size), as: UTF8.self)
    let lines = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
    let baseText = String(lines[0]), reference = lines.count > 1 ? String(lines[1]) : ""
    for piece in [baseText, reference] {
        _ = PathText.fileName(ofInput: piece)
        let name = PathText.lastComponent(piece)
        precondition(name == "/" || !name.contains("/"), "a last component has no slash")
        _ = PathText.deletingExtension(name)
        _ = PathText.deletingLastComponent(piece)
        _ = URIReference(parsing: piece).resolved(against: URIReference(parsing: baseText)).description
    }
    guard let base = try? InputLocation(parsing: baseText, relativeTo: "/fuzz") else { return 0 }
    _ = base.displayName
    _ = base.queryParameters
    _ = InputLocation.isAbsoluteURI(reference)
    if let resolved = try? base.resolving(reference) {
        _ = resolved.displayName
        _ = resolved.uriText
        if base.isRemote { precondition(resolved.isRemote, "a remote playlist leads only to http(s)") }
    }
    return 0
}

/// The spec linter over a whole presentation: the input is split at lines `#--` into the
/// playlist at https://primary.example/main.m3u8 and the bodies of what it leads to, served
/// in the order they are asked for (media playlists, asset lists, asset playlists). Then every
/// audit report format over the scheduled assets (names and URIs from the input; media unprobed).
@_cdecl("seamcheck_fuzz_lint")
public func fuzzLint(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = Data(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size))
    let fetcher = PartsFetcher(parts: PartsFetcher.split(bytes))
    var options = PresentationLoader.Options()
    options.concurrency = 1  // the same order of requests every run
    let loader = PresentationLoader(fetcher: fetcher, options: options)
    let done = DispatchSemaphore(value: 0)
    Task {
        if let presentation = try? await loader.load(.remote(URL(string: "https://primary.example/main.m3u8")!)) {
            let findings = SpecLinter.lint(presentation)
            if let primary = presentation.primary {
                renderReports(InterstitialSchedule(primary: primary.playlist), primary: primary, findings: findings)
            }
        }
        done.signal()
    }
    done.wait()
    return 0
}

/// Every audit format over the schedule's assets; every other asset without a placement, so
/// that reports name it by its URI's file name.
func renderReports(_ schedule: InterstitialSchedule, primary: LoadedMediaPlaylist, findings: [Finding]) {
    func asset(_ role: String, _ uri: String, _ duration: Double?, _ placement: Placement?) -> AuditedAsset {
        AuditedAsset(role: role, input: uri, media: MediaDescription(input: uri, container: "", duration: duration),
                     remediation: Remediation(arguments: ["-r", "25"]), placement: placement)
    }
    var assets: [AuditedAsset] = []
    for entry in schedule.entries.prefix(16) {
        for item in entry.assets.prefix(4) {
            let placement = assets.count % 2 == 0 ? nil : Placement(id: entry.id, line: entry.line, kind: entry.placement.rawValue,
                                                                    offset: entry.offset, pod: entry.pod, positionInPod: entry.positionInPod,
                                                                    duration: entry.playedDuration)
            assets.append(asset("interstitial \(assets.count + 1)", item.uri, item.duration, placement))
        }
    }
    let result = AuditResult(input: primary.location.description, deviceClasses: ["fuzz"],
                             primary: asset("primary", primary.location.description, schedule.primaryDuration, nil),
                             interstitials: assets, findings: Array(findings.prefix(64)))
    for format in ReportFormat.allCases { _ = format.reporter.render(result) }
}

/// Serves the k-th part to the k-th distinct location asked for; a 404 when the parts run out.
final class PartsFetcher: ResourceFetching, @unchecked Sendable {
    private let parts: [Data]
    private let lock = NSLock()
    private var served: [String: Int] = [:]

    init(parts: [Data]) { self.parts = parts }

    static func split(_ data: Data) -> [Data] {
        let separator = Array("\n#--\n".utf8)
        let bytes = [UInt8](data)
        var parts: [Data] = [], start = 0, i = 0
        while i + separator.count <= bytes.count {
            if bytes[i] == separator[0], Array(bytes[i..<(i + separator.count)]) == separator {
                parts.append(Data(bytes[start..<i]))
                i += separator.count
                start = i
            } else {
                i += 1
            }
        }
        parts.append(Data(bytes[start...]))
        return parts
    }

    func fetch(_ location: InputLocation, limits: FetchLimits) async throws(LoadError) -> FetchedResource {
        let index = lock.withLock { () -> Int in
            if let known = served[location.description] { return known }
            served[location.description] = served.count
            return served.count - 1
        }
        guard index < parts.count else { throw .httpStatus(location.description, code: 404) }
        guard parts[index].count <= limits.maxBytes else { throw .tooLarge(location.description, limit: limits.maxBytes) }
        return FetchedResource(location: location, data: parts[index], contentType: nil, elapsed: 0.01)
    }
}
