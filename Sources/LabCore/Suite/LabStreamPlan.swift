import Foundation

/// One encode of the catalog with the stream id its frame code and tone carry.
struct StreamPlan: Sendable {
    var stream: LabCodedStream
    var spec: MediaSpec
    var marking: Marking
    var step: String

    /// Its encode; an encrypted ad is encoded clear beside its folder (`LabStreamsGenerator.encryptionJobs` fills the folder).
    func job(scale: LabScale) -> EncodeJob {
        EncodeJob(caseId: stream.caseId, step: step, folder: spec.encrypted ? LabEncryption.clearFolder(of: stream.folder) : stream.folder,
                  arguments: LabRecipes.arguments(spec, marking: marking, duration: stream.duration, scale: scale))
    }
}

/// Every stream the catalog encodes, numbered in catalog order (the shared primary is 0): ids
/// depend on the catalog only, never on which cases one run generates, so a suite made in parts
/// keeps one numbering. A stitched case encodes nothing and carries its source's streams; a behaviour
/// case encodes nothing and plays the primary and the control's ad.
enum LabStreamPlans {
    static func all(scale: LabScale, code: LabFrameCode = .current) -> [StreamPlan] {
        var plans: [StreamPlan] = []
        func add(folder: String, caseId: String, role: LabCodedStream.Role, tier: String? = nil, spec: MediaSpec,
                 duration: Double, step: String, marking: (Int) -> Marking) {
            let id = plans.count
            var mark = marking(id)
            mark.code = code
            let stream = LabCodedStream(id: id, folder: folder, caseId: caseId, role: role, tier: tier,
                                        frameRate: spec.video.map { $0.rate.contains("/") ? $0.rate : $0.rate + "/1" },
                                        tone: spec.audio == nil ? nil : mark.tone, duration: duration)
            plans.append(StreamPlan(stream: stream, spec: spec, marking: mark, step: step))
        }
        add(folder: "primary", caseId: "primary", role: .primary, spec: .reference, duration: scale.primaryDuration,
            step: "encode the shared primary") { _ in .primary() }
        for definition in LabCatalog.cases where definition.stitchedFrom == nil && definition.kind != .behaviour {
            let folder = "cases/\(definition.id)/"
            if let ad = definition.interstitial {
                add(folder: folder + "ad", caseId: definition.id, role: .ad, spec: ad, duration: scale.adDuration,
                    step: "encode the interstitial") { .ad(definition.id, stream: $0) }
                for rendition in definition.renditions where rendition.kind == .audio {
                    let spec = MediaSpec(video: nil, audio: { var a = MediaSpec.Audio(); a.language = rendition.iso639; return a }())
                    add(folder: folder + rendition.folder, caseId: definition.id, role: .audioGroup, tier: rendition.folder, spec: spec,
                        duration: scale.primaryDuration, step: "encode the \(rendition.name) audio") {
                        Marking(role: rendition.name, title: definition.id, pattern: "testsrc2", stream: $0)
                    }
                }
                continue
            }
            for tier in CapabilityLadder.videoTiers {
                add(folder: folder + "video-" + tier.name, caseId: definition.id, role: .videoTier, tier: tier.name,
                    spec: MediaSpec(video: tier.video, audio: nil), duration: scale.capabilityDuration,
                    step: "encode the \(tier.label) tier") {
                    Marking(role: tier.label, title: definition.id, pattern: "testsrc2", stream: $0)
                }
            }
            for group in CapabilityLadder.audioGroups {
                add(folder: folder + "audio-" + group.name, caseId: definition.id, role: .audioGroup, tier: group.name,
                    spec: MediaSpec(video: nil, audio: group.audio), duration: scale.capabilityDuration,
                    step: "encode the \(group.label) audio") {
                    Marking(role: group.label, title: definition.id, pattern: "testsrc2", stream: $0)
                }
            }
        }
        return plans
    }
}
