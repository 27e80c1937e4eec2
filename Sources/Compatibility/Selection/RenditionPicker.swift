import HLS
import MediaProbe

/// What one class plays of an asset, probed: the variant (and audio rendition) it selects.
struct RenditionPick: Sendable {
    var rendition: String
    var audioRendition: String?
    var declared: DeclaredMedia?
    var line: Int?
    var media: MediaDescription

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

enum PickOutcome: Sendable {
    case picked(RenditionPick)
    case noPlayable(String)
    case failed(ProbeError)
}

/// Selects and probes what a class plays of a playlist (multivariant, or a single media playlist).
enum RenditionPicker {
    static func pick(_ root: ParsedPlaylist, at location: InputLocation, for plays: Capabilities,
                     session: ProbeSession) async -> PickOutcome {
        switch root.playlist {
        case .media:
            do {
                let media = try await session.describeRendition(location)
                return .picked(RenditionPick(rendition: location.description, audioRendition: nil, declared: nil, line: nil, media: media))
            } catch {
                return .failed(error)
            }
        case .multivariant(let multivariant):
            let choice: RenditionChoice
            switch VariantSelector.select(from: multivariant, for: plays) {
            case .selected(let selected): choice = selected
            case .noPlayableVariant(let reason): return .noPlayable(reason)
            }
            do {
                let variant = try resolve(choice.variantURI, against: location)
                var media = try await session.describeRendition(variant)
                var audioText: String?
                if let audioURI = choice.audioURI {
                    let audio = try resolve(audioURI, against: location)
                    media.audio = try await session.describeRendition(audio).audio
                    audioText = audio.description
                }
                return .picked(RenditionPick(rendition: variant.description, audioRendition: audioText, declared: choice.declared,
                                             line: choice.line, media: media))
            } catch {
                return .failed(error)
            }
        }
    }

    private static func resolve(_ reference: String, against base: InputLocation) throws(ProbeError) -> InputLocation {
        do { return try base.resolving(reference) } catch { throw .playlist(error) }
    }
}
