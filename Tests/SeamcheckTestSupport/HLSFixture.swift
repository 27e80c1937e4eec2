import Foundation

/// A VOD HLS rendition written by ffmpeg's HLS muxer: a media playlist and its segments in one
/// folder under `.build/test-media`, generated once per recipe like ``MediaFixture``.
public struct HLSFixture: Sendable, Hashable {
    public enum SegmentType: String, Sendable, Hashable { case fmp4, mpegts }

    public var name: String
    public var source: MediaFixture
    public var segmentType: SegmentType
    public var segmentSeconds: Int
    /// One media file addressed with EXT-X-BYTERANGE instead of one file per segment.
    public var singleFile: Bool

    public init(name: String, source: MediaFixture, segmentType: SegmentType, segmentSeconds: Int = 1, singleFile: Bool = false) {
        self.name = name
        self.source = source
        self.segmentType = segmentType
        self.segmentSeconds = segmentSeconds
        self.singleFile = singleFile
    }

    /// The folder holding `index.m3u8` and the segments (`init.mp4` for fMP4).
    public func directory() throws -> String {
        let key = MediaFixture(name: name, fileExtension: segmentType.rawValue,
                               arguments: source.arguments + ["hls", String(segmentSeconds), singleFile ? "single" : "multi"],
                               postProcess: source.postProcess)
        let folder = "\(MediaFixture.cacheDirectory)/hls-\(name)-\(key.recipeHash)"
        if FileManager.default.fileExists(atPath: folder + "/index.m3u8") { return folder }
        let media = try source.path()
        let partial = folder + ".partial-\(ProcessInfo.processInfo.processIdentifier)"
        try? FileManager.default.removeItem(atPath: partial)
        try FileManager.default.createDirectory(atPath: partial, withIntermediateDirectories: true)
        var args = ["-nostdin", "-v", "error", "-y", "-i", media, "-c", "copy", "-f", "hls",
                    "-hls_time", String(segmentSeconds), "-hls_playlist_type", "vod"]
        switch segmentType {
        case .fmp4 where singleFile:
            args += ["-hls_segment_type", "fmp4", "-hls_flags", "single_file", "-hls_segment_filename", "\(partial)/media.mp4"]
        case .fmp4:
            args += ["-hls_segment_type", "fmp4", "-hls_fmp4_init_filename", "init.mp4",
                     "-hls_segment_filename", "\(partial)/seg%d.m4s"]
        case .mpegts:
            args += ["-bsf:v", source.isHEVC ? "hevc_mp4toannexb" : "h264_mp4toannexb"]
            args += singleFile ? ["-hls_flags", "single_file", "-hls_segment_filename", "\(partial)/media.ts"]
                               : ["-hls_segment_filename", "\(partial)/seg%d.ts"]
        }
        let result = try Command.run("ffmpeg", args + ["\(partial)/index.m3u8"])
        guard result.status == 0 else { throw CommandError.failed("ffmpeg hls \(name)", result) }
        // ffmpeg 5.1's HLS muxer drops the Dolby Vision record on stream copy: put it back.
        if case .dolbyVision(let profile, let level, let compatibilityId) = source.postProcess, segmentType == .fmp4 {
            try ISOBMFFPatcher.markDolbyVision(path: "\(partial)/init.mp4", profile: profile, level: level,
                                               compatibilityId: compatibilityId)
        }
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.moveItem(atPath: partial, toPath: folder)
        return folder
    }
}

extension MediaFixture {
    var isHEVC: Bool { arguments.contains("libx265") }
}
