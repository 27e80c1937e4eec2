import Foundation

// CONTRACT between the suite (Sources/LabCore/Suite: writes behaviour cases into lab.json), the run
// loop (Sources/LabRun: sends the scripted commands) and the judge (Sources/LabCore/Behaviour: reads
// requests and playback series against the expectations). Fields may be added; none renamed.

/// What a behaviour case tests and how a conforming receiver shows it: the case's interstitials
/// as its playlists state them, the commands a sender sends during it, and the expectations,
/// each an observable fact from draft-pantos-hls-rfc8216bis-22 Appendix D.
///
/// Every behaviour case plays the shared primary and the `control` case's matching ad, so no
/// transition rule interferes: what differs from one case to the next is only the feature.
public struct LabBehaviour: Codable, Sendable, Equatable {
    /// The feature (a column of the conformance table): "resume-offset-zero", "cue-pre"...
    public var feature: String
    /// One line: what the feature is, for the table's header and the lab page.
    public var title: String
    /// The primary is live (a sliding window `lab serve` makes from the VOD primary), not VOD.
    public var live: LabLiveWindow?
    public var interstitials: [LabBehaviourInterstitial]
    /// What the sender does during the case (`lab run`); a person at the lab page may do the same.
    public var commands: [LabScriptedCommand]
    public var expectations: [LabExpectation]
    /// What a receiver must do for the case to apply to it: "video" (an audio-only receiver cannot
    /// show any of these) .
    public var needs: [String]

    public init(feature: String, title: String, live: LabLiveWindow? = nil, interstitials: [LabBehaviourInterstitial],
                commands: [LabScriptedCommand] = [], expectations: [LabExpectation], needs: [String] = ["video"]) {
        self.feature = feature
        self.title = title
        self.live = live
        self.interstitials = interstitials
        self.commands = commands
        self.expectations = expectations
        self.needs = needs
    }
}

/// One EXT-X-DATERANGE CLASS="com.apple.hls.interstitial" of a behaviour case, as written.
public struct LabBehaviourInterstitial: Codable, Sendable, Equatable {
    /// The DATERANGE ID (also `_HLS_interstitial_id` on its asset requests).
    public var id: String
    /// Seconds on the primary timeline (START-DATE minus the primary's first PROGRAM-DATE-TIME).
    public var start: Double
    /// DURATION.
    public var duration: Double
    /// X-ASSET-URI's asset (one entry), or the entries of the X-ASSET-LIST document in order.
    public var assets: [LabBehaviourAsset]
    /// The X-ASSET-LIST document, relative to the suite folder; nil for X-ASSET-URI.
    public var assetList: String?
    /// The asset list's URI answers 404 (nothing is written there): the break must be skipped.
    public var assetListFails: Bool
    /// X-RESUME-OFFSET; nil when the attribute is absent.
    public var resumeOffset: Double?
    /// X-PLAYOUT-LIMIT; nil when absent.
    public var playoutLimit: Double?
    /// CUE tokens: "PRE", "POST", "ONCE".
    public var cue: [String]
    /// X-RESTRICT tokens: "SKIP", "JUMP".
    public var restrict: [String]
    /// X-SNAP tokens: "OUT", "IN".
    public var snap: [String]
    /// X-TIMELINE-OCCUPIES: "POINT" or "RANGE"; nil when absent (POINT).
    public var timelineOccupies: String?

    public init(id: String, start: Double, duration: Double, assets: [LabBehaviourAsset], assetList: String? = nil,
                assetListFails: Bool = false, resumeOffset: Double? = nil, playoutLimit: Double? = nil, cue: [String] = [],
                restrict: [String] = [], snap: [String] = [], timelineOccupies: String? = nil) {
        self.id = id
        self.start = start
        self.duration = duration
        self.assets = assets
        self.assetList = assetList
        self.assetListFails = assetListFails
        self.resumeOffset = resumeOffset
        self.playoutLimit = playoutLimit
        self.cue = cue
        self.restrict = restrict
        self.snap = snap
        self.timelineOccupies = timelineOccupies
    }

    /// Where a conforming client resumes the primary after this interstitial, in seconds on the
    /// primary timeline (Appendix D): START + X-RESUME-OFFSET; absent, START + the played duration
    /// (X-PLAYOUT-LIMIT when that is shorter); a failed asset list cancels the break (offset 0);
    /// an empty ASSETS list applies X-RESUME-OFFSET, 0 when absent. A CUE=PRE pre-roll with
    /// X-RESUME-OFFSET=0 plays before the primary, which then starts at its beginning: 0 (in VOD;
    /// a live join starts at its EXT-X-START instead, which the interstitial does not know).
    public var expectedResume: Double {
        if cue.contains("PRE"), resumeOffset == 0 { return 0 }
        if assetListFails { return start }
        if let resumeOffset { return start + resumeOffset }
        let playable = assets.filter { !$0.fails }
        if assetList != nil, playable.isEmpty { return start }
        let played = playable.reduce(0) { $0 + $1.duration }
        return start + min(played, playoutLimit ?? .infinity)
    }
}

/// One asset of an interstitial: its own folder, so that its requests name it.
public struct LabBehaviourAsset: Codable, Sendable, Equatable {
    /// The asset's multivariant playlist, relative to the suite folder ("cases/<id>/ad-1/master.m3u8").
    public var playlist: String
    /// Path prefix (relative, ending in "/") of everything the asset consists of.
    public var prefix: String
    /// The asset's DURATION as the asset list states it.
    public var duration: Double
    /// The asset's URI answers 404 (nothing is written there): a conforming client skips just this asset.
    public var fails: Bool

    public init(playlist: String, prefix: String, duration: Double, fails: Bool = false) {
        self.playlist = playlist
        self.prefix = prefix
        self.duration = duration
        self.fails = fails
    }
}

/// How `lab serve` makes a live stream of the VOD primary for one client: at the client's fetch of
/// the case's multivariant playlist (its join) the live edge stands at `joinEdge` seconds of the
/// primary; the edge then moves with wall time. The window holds the last `windowSegments` segments
/// whose end is at or before the edge, with EXT-X-MEDIA-SEQUENCE = the first one's index in the
/// primary; EXT-X-ENDLIST appears once the edge passes the primary's end (the event ended).
/// EXT-X-START:TIME-OFFSET=`startOffset`,PRECISE=YES sets where a joining client starts.
public struct LabLiveWindow: Codable, Sendable, Equatable {
    /// Seconds of the primary where the live edge stands at the join.
    public var joinEdge: Double
    public var windowSegments: Int
    /// EXT-X-START TIME-OFFSET (negative: from the end of the window).
    public var startOffset: Double

    public init(joinEdge: Double, windowSegments: Int = 3, startOffset: Double) {
        self.joinEdge = joinEdge
        self.windowSegments = windowSegments
        self.startOffset = startOffset
    }
}

/// A command the sender sends during a behaviour case: at the first playback report whose position
/// reaches `atPosition` (the receiver's own clock, so a stand-in that plays faster than real time
/// gets it at the same point of the media), or else `after` seconds of wall time after playback
/// started (the first report whose position moves).
public struct LabScriptedCommand: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable { case scrub, rate }
    public var kind: Kind
    /// Seconds after playback started.
    public var after: Double
    /// Seconds on the primary timeline; when set, it decides and `after` is only the fallback
    /// for a receiver that reports no position.
    public var atPosition: Double?
    /// Scrub: the position in seconds on the primary timeline; rate: the rate.
    public var value: Double

    public init(kind: Kind, after: Double, atPosition: Double? = nil, value: Double) {
        self.kind = kind
        self.after = after
        self.atPosition = atPosition
        self.value = value
    }
}

/// One observable fact a conforming receiver shows, with the spec's reason.
public struct LabExpectation: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable, CaseIterable {
        /// Every asset of `interstitial` that does not fail has its first segment fetched.
        case played
        /// No segment of any asset of `interstitial` is fetched (an empty or failed asset list).
        case notPlayed
        /// The assets' first segments are fetched in list order, failing ones left out.
        case assetsInOrder
        /// The first primary segment fetched after the interstitial's first segment is the one
        /// holding `seconds` (the resume point): judged from the requests.
        case resumesAt
        /// No segment of the interstitial starting at or after `seconds` into it is fetched (X-PLAYOUT-LIMIT).
        case playedAtMost
        /// The interstitial's first segment is fetched before any primary segment (a pre-roll).
        case beforePrimary
        /// The interstitial's first segment is fetched after the primary's last segment (a post-roll).
        case afterPrimary
        /// The interstitial's first segment is fetched once in the session, though the sender seeks
        /// back over it (CUE=ONCE).
        case playedOnce
        /// After the sender's scrub past START, the interstitial's first segment is fetched before
        /// the primary segment holding the scrub target (X-RESTRICT=JUMP).
        case playedBeforeSeekTarget
        /// While the interstitial plays, no playback report shows a rate above 1, the sender's rate
        /// command included (X-RESTRICT=SKIP): judged from the playback series.
        case rateHeld
        /// Every interstitial request (asset list, asset playlists) carries `_HLS_primary_id`, one
        /// value for the whole session.
        case primaryIdConstant
        /// The asset-list request carries `_HLS_start_offset` = `seconds` within `tolerance`.
        case startOffset
        /// The last primary segment fetched before the interstitial ends at `seconds` (X-SNAP=OUT:
        /// the segment boundary nearest START-DATE).
        case leavesAtBoundary
    }

    public var kind: Kind
    /// The DATERANGE ID the expectation is about; nil for session-wide ones (primaryIdConstant).
    public var interstitial: String?
    /// A position in seconds (primary timeline, or into the interstitial for playedAtMost).
    public var seconds: Double?
    public var tolerance: Double?
    /// The spec's words behind it ("draft -22 D.x: an empty ASSETS array applies the resume offset").
    public var because: String

    public init(_ kind: Kind, interstitial: String? = nil, seconds: Double? = nil, tolerance: Double? = nil, because: String) {
        self.kind = kind
        self.interstitial = interstitial
        self.seconds = seconds
        self.tolerance = tolerance
        self.because = because
    }
}
