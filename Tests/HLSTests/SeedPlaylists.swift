/// The example playlists of the seeds (shared/seeds) and of the reference page, as tests use them.
enum SeedPlaylists {
    /// seeds/003 "Example: Interstitial EXT-X-DATERANGE": a 15 s ad four seconds into a 6 s primary.
    static let specAd1 = """
        #EXTM3U
        #EXT-X-TARGETDURATION:6
        #EXT-X-PROGRAM-DATE-TIME:2020-01-02T21:55:40.000Z
        #EXTINF:6,
        main1.0.ts
        #EXT-X-ENDLIST
        #EXT-X-DATERANGE:ID="ad1",CLASS="com.apple.hls.interstitial",START-DATE="2020-01-02T21:55:44.000Z",DURATION=15.0,X-ASSET-URI="http://example.com/ad1.m3u8",X-RESUME-OFFSET=0,X-RESTRICT="SKIP,JUMP",X-COM-EXAMPLE-BEACON=123

        """

    /// seeds/000 (WWDC23): a 10 s primary, ad1 and ad2 (10 s each) back to back at 5 s; SKIP on ad1 only.
    static let wwdc23Pod = """
        #EXTM3U
        #EXT-X-VERSION:7
        #EXT-X-TARGETDURATION:10
        #EXT-X-PLAYLIST-TYPE:VOD
        #EXT-X-PROGRAM-DATE-TIME:2023-06-06T12:00:00.000Z
        #EXTINF:10.0,
        main.ts
        #EXT-X-DATERANGE:ID="ad1",CLASS="com.apple.hls.interstitial",START-DATE="2023-06-06T12:00:05.000Z",DURATION=10.0,X-ASSET-URI="https://ads.example/ad1.m3u8",X-RESUME-OFFSET=0,X-RESTRICT="SKIP"
        #EXT-X-DATERANGE:ID="ad2",CLASS="com.apple.hls.interstitial",START-DATE="2023-06-06T12:00:05.000Z",DURATION=10.0,X-ASSET-URI="https://ads.example/ad2.m3u8",X-RESUME-OFFSET=0
        #EXT-X-ENDLIST

        """

    /// The same pod for live: no X-RESUME-OFFSET, so playback resumes by what the ads played.
    static let wwdc23PodLive = wwdc23Pod.replacingOccurrences(of: ",X-RESUME-OFFSET=0", with: "")
        .replacingOccurrences(of: "#EXT-X-PLAYLIST-TYPE:VOD\n", with: "")
        .replacingOccurrences(of: "#EXT-X-ENDLIST\n", with: "")

    /// seeds/004 (WWDC22): CUE pre-roll, post-roll and a once-only rating screen at 20 s.
    static let cuePrePost = """
        #EXTM3U
        #EXT-X-TARGETDURATION:10
        #EXT-X-PLAYLIST-TYPE:VOD
        #EXT-X-PROGRAM-DATE-TIME:2022-06-07T10:00:00Z
        #EXTINF:10,
        s0.ts
        #EXTINF:10,
        s1.ts
        #EXTINF:10,
        s2.ts
        #EXT-X-DATERANGE:ID="post",CLASS="com.apple.hls.interstitial",START-DATE="2022-06-07T10:00:00Z",CUE="POST",X-ASSET-LIST="https://ads.example/post.json"
        #EXT-X-DATERANGE:ID="pre",CLASS="com.apple.hls.interstitial",START-DATE="2022-06-07T10:00:00Z",CUE="PRE",DURATION=15,X-ASSET-URI="https://ads.example/pre.m3u8",X-RESUME-OFFSET=0
        #EXT-X-DATERANGE:ID="rating",CLASS="com.apple.hls.interstitial",START-DATE="2022-06-07T10:00:20Z",CUE="ONCE",DURATION=5,X-ASSET-URI="https://ads.example/rating.m3u8",X-SNAP="OUT,IN"
        #EXT-X-ENDLIST

        """

    /// seeds/001 (WWDC24): point, range and "supplements primary" interstitials, SharePlay-able.
    static let timelineAttributes = """
        #EXTM3U
        #EXT-X-TARGETDURATION:5
        #EXT-X-PROGRAM-DATE-TIME:2024-06-10T09:00:00.000+02:00
        #EXTINF:5,
        a.ts
        #EXTINF:5,
        b.ts
        #EXTINF:5,
        c.ts
        #EXTINF:5,
        d.ts
        #EXT-X-DATERANGE:ID="point",CLASS="com.apple.hls.interstitial",START-DATE="2024-06-10T09:00:05.000+02:00",X-ASSET-URI="https://ads.example/p.m3u8",X-TIMELINE-OCCUPIES="POINT",X-TIMELINE-STYLE="HIGHLIGHT"
        #EXT-X-DATERANGE:ID="fill",CLASS="com.apple.hls.interstitial",START-DATE="2024-06-10T07:00:10.000Z",DURATION=10,X-ASSET-URI="https://ads.example/f.m3u8",X-RESUME-OFFSET=10,X-TIMELINE-OCCUPIES="RANGE",X-TIMELINE-STYLE="PRIMARY",X-CONTENT-MAY-VARY="NO",X-SKIP-CONTROL-OFFSET=3,X-SKIP-CONTROL-DURATION=5,X-SKIP-CONTROL-LABEL-ID="SKIP_AD"
        #EXT-X-ENDLIST

        """

    /// A multivariant playlist with every EXT-X-STREAM-INF attribute the issue lists.
    static let multivariant = """
        #EXTM3U
        #EXT-X-VERSION:9
        #EXT-X-INDEPENDENT-SEGMENTS
        #EXT-X-DEFINE:NAME="cdn",VALUE="https://cdn.example/v"
        #EXT-X-SESSION-DATA:DATA-ID="com.example.title",VALUE="Cookies",LANGUAGE="en"
        #EXT-X-SESSION-KEY:METHOD=SAMPLE-AES,URI="skd://key",KEYFORMAT="com.apple.streamingkeydelivery",KEYFORMATVERSIONS="1"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="2",URI="{$cdn}/audio/en.m3u8"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="Français",LANGUAGE="fr",DEFAULT=NO,AUTOSELECT=YES,CHANNELS="6",URI="audio/fr.m3u8"
        #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English",LANGUAGE="en",DEFAULT=NO,AUTOSELECT=YES,FORCED=NO,URI="subs/en.m3u8"
        #EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID="cc",NAME="CC1",INSTREAM-ID="CC1",LANGUAGE="en"
        #EXT-X-STREAM-INF:BANDWIDTH=6000000,AVERAGE-BANDWIDTH=5000000,CODECS="hvc1.2.4.L123.B0,mp4a.40.2",SUPPLEMENTAL-CODECS="dvh1.08.07/db4h",RESOLUTION=1920x1080,FRAME-RATE=29.970,VIDEO-RANGE=PQ,HDCP-LEVEL=TYPE-0,AUDIO="aac",SUBTITLES="subs",CLOSED-CAPTIONS="cc",SCORE=2.5,STABLE-VARIANT-ID="v1080"
        {$cdn}/1080p.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=1500000,CODECS="avc1.64001f,mp4a.40.2",RESOLUTION=1280x720,FRAME-RATE=25,VIDEO-RANGE=SDR,AUDIO="aac",SUBTITLES="subs",CLOSED-CAPTIONS=NONE
        720p.m3u8
        #EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=300000,CODECS="avc1.64001f",RESOLUTION=1280x720,URI="720p-iframes.m3u8"

        """
}
