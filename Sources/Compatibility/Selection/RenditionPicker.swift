import HLS
import MediaProbe

/// What one class plays of an asset, probed: the variant (and audio rendition) it selects.
struct RenditionPick: Sendable {
    var rendition: String
    var audioRendition: String?
    var declared: DeclaredMedia?
    var line: Int?
    var media: MediaDescription
    /// Preferred renditions that failed before this one was probed (failover), in order.
    var skipped: [SkippedRendition] = []

    /// Classes that pick the same renditions share one selection, in profile order.
    static func grouped(_ picks: [String: RenditionPick], order: [String]) -> [RenditionSelection] {
        var selections: [RenditionSelection] = []
        for id in order {
            guard let pick = picks[id] else { continue }
            if let index = selections.firstIndex(where: { $0.rendition == pick.rendition && $0.audioRendition == pick.audioRendition }) {
                selections[index].deviceClasses.append(id)
            } else {
                selections.append(RenditionSelection(deviceClasses: [id], rendition: pick.rendition,
                                                     audioRendition: pick.audioRendition, media: pick.media))
            }
        }
        return selections
    }
}

/// A rendition a class would have selected but that could not be probed; its player failed over.
struct SkippedRendition: Sendable, Error {
    /// The media playlist that failed: the variant's, or its audio rendition's.
    var rendition: String
    var line: Int?
    var error: ProbeError
    var isAudio = false
}

enum PickOutcome: Sendable {
    case picked(RenditionPick)
    case noPlayable(String)
    /// Nothing the class would select could be probed: `skipped` lists each try, in order.
    case failed(ProbeError, skipped: [SkippedRendition] = [])
}

/// Selects and probes what a class plays of a playlist (multivariant, or a single media playlist).
enum RenditionPicker {
    static func pick(_ root: ParsedPlaylist, at location: InputLocation, for plays: Capabilities,
                     probes: RenditionProbes) async -> PickOutcome {
        switch root.playlist {
        case .media:
            do {
                let media = try await probes.describe(location, playlist: RenditionProbes.root(root, at: location))
                return .picked(RenditionPick(rendition: location.description, audioRendition: nil, declared: nil, line: nil, media: media))
            } catch {
                return .failed(error)
            }
        case .multivariant(let multivariant):
            let choices: [RenditionChoice]
            switch VariantSelector.ranked(from: multivariant, for: plays) {
            case .success(let ranked): choices = ranked
            case .failure(let rejection): return .noPlayable(rejection.text)
            }
            // As players do: the selection first, then the next variant the class would select.
            var skipped: [SkippedRendition] = []
            for choice in choices {
                do {
                    var pick = try await probe(choice, at: location, probes: probes)
                    pick.skipped = skipped
                    return .picked(pick)
                } catch {
                    if case .cancelled = error.error { return .failed(error.error) }
                    skipped.append(error)
                }
            }
            return .failed(skipped.first?.error ?? .cancelled(location.description), skipped: skipped)
        }
    }

    /// The variant, then its audio rendition; a failure names the one that failed.
    private static func probe(_ choice: RenditionChoice, at location: InputLocation, probes: RenditionProbes) async throws(SkippedRendition) -> RenditionPick {
        func describe(_ reference: String, audio: Bool) async throws(SkippedRendition) -> (InputLocation, MediaDescription) {
            var resolved: InputLocation?
            do throws(ProbeError) {
                let target = try resolve(reference, against: location)
                resolved = target
                return (target, try await probes.describe(target))
            } catch {
                throw SkippedRendition(rendition: resolved?.description ?? reference, line: choice.line, error: error, isAudio: audio)
            }
        }
        let (variant, described) = try await describe(choice.variantURI, audio: false)
        var media = described
        var audioText: String?
        if let audioURI = choice.audioURI {
            let (audio, audioMedia) = try await describe(audioURI, audio: true)
            media.audio = audioMedia.audio
            media.encryption = media.encryption ?? audioMedia.encryption
            if let audioPlaylist = audioMedia.playlist {
                media.playlist = media.playlist.map { $0.merged(with: audioPlaylist) } ?? audioPlaylist
            }
            audioText = audio.description
        }
        return RenditionPick(rendition: variant.description, audioRendition: audioText, declared: choice.declared,
                             line: choice.line, media: media)
    }

    private static func resolve(_ reference: String, against base: InputLocation) throws(ProbeError) -> InputLocation {
        do { return try base.resolving(reference) } catch { throw .playlist(error) }
    }
}
