import Compatibility
import Foundation
import HLS
import MediaProbe

/// Version of the JSON documents; bumped only when a field changes meaning or disappears.
public let jsonSchemaVersion = 1

/// The audit JSON of docs/interface.md, plus the probed assets and per-interstitial remediation.
public struct AuditDocument: Codable, Sendable {
    public struct Fix: Codable, Sendable {
        public var deviceClasses: [String]
        public var command: String
    }

    public struct Asset: Codable, Sendable {
        public var role: String
        public var input: String
        public var media: MediaDescription
        /// ffmpeg arguments that make this interstitial match the primary on every audited class.
        public var remediation: String?
        /// Every fix as a whole ffmpeg command, with the classes it is for (none: every class).
        public var fixes: [Fix] = []
        /// Playlist audits: what each group of classes plays, and where the interstitial is scheduled.
        public var selections: [RenditionSelection]
        public var placement: Placement?
        public var problem: String?
        /// Playlist audits: the interstitial's loudness against the programme around its break.
        public var loudness: [AssetLoudness] = []
    }

    public var schemaVersion: Int
    public var input: String
    public var interstitials: [String]
    public var deviceClasses: [String]
    public var findings: [Finding]
    public var summary: FindingSummary
    public var assets: [Asset]
    /// What measuring loudness read and took (or why it was not measured).
    public var loudness: LoudnessCost?

    public init(_ result: AuditResult) {
        schemaVersion = jsonSchemaVersion
        input = result.input
        interstitials = result.interstitials.map(\.input)
        deviceClasses = result.deviceClasses
        findings = result.findings
        summary = result.summary
        loudness = result.loudness
        assets = ([result.primary] + result.interstitials).map { asset in
            var document = Asset(asset)
            document.fixes = remediationCommands(for: asset, in: result).map { Fix(deviceClasses: $0.deviceClasses, command: $0.text) }
            return document
        }
    }

    enum CodingKeys: String, CodingKey {
        case schemaVersion, input, interstitials, deviceClasses, findings, summary, assets, loudness
    }
}

extension AuditDocument.Asset {
    /// The asset fields every JSON document shares (audits and matrix runs).
    public init(_ asset: AuditedAsset) {
        self.init(role: asset.role, input: asset.input, media: asset.media, remediation: asset.remediation?.rendered,
                  selections: asset.selections, placement: asset.placement, problem: asset.problem, loudness: asset.loudness)
    }

    enum CodingKeys: String, CodingKey { case role, input, media, remediation, fixes, selections, placement, problem, loudness }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(role, forKey: .role)
        try c.encode(input, forKey: .input)
        try c.encode(media, forKey: .media)
        try c.encode(remediation, forKey: .remediation)
        try c.encode(fixes, forKey: .fixes)
        try c.encode(selections, forKey: .selections)
        try c.encode(placement, forKey: .placement)
        try c.encode(problem, forKey: .problem)
        try c.encode(loudness, forKey: .loudness)
    }
}

/// The probe JSON of docs/interface.md: the media description with `schemaVersion` in front.
public struct ProbeDocument: Encodable, Sendable {
    public var media: MediaDescription

    public init(_ media: MediaDescription) { self.media = media }

    enum CodingKeys: String, CodingKey { case schemaVersion }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(jsonSchemaVersion, forKey: .schemaVersion)
        try media.encode(to: encoder)
    }
}

/// Several probes in one document.
public struct ProbeListDocument: Encodable, Sendable {
    public var schemaVersion = jsonSchemaVersion
    public var probes: [MediaDescription]

    public init(_ probes: [MediaDescription]) { self.probes = probes }
}

public struct JSONReporter: AuditReporter {
    public init() {}

    public func render(_ result: AuditResult) -> String {
        JSONOutput.encode(AuditDocument(result))
    }
}

/// Pretty, key-sorted JSON with a trailing newline, as every JSON document of the tool is written.
public enum JSONOutput {
    public static func encode<T: Encodable>(_ value: T) -> String {
        // Non-finite numbers are written as strings: encoding plain value types cannot fail, a
        // failure here is a programming error.
        let data = try! JSONDocument.encoder().encode(value)
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
